"""Fixtures for the dashboard tests: a tiny build and runs, the rendered page, and Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codemix.dashboards.browser import find_chromium
from codemix.dashboards.render import DashboardInputs, DashboardResult, write_dashboard
from tests.dashboards import fixtures

TARGET_PPL = 2.5
N_BOOT = 200


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's Chromium; installed with apt-get when missing (needs root and the package registry)."""
    found = find_chromium()
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.fail("Chromium is needed for the browser tests and cannot be installed here: run "
                    "`apt-get update && apt-get install -y chromium` as root, or set $CHROMIUM to a binary")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, check=False)
        if done.returncode != 0:
            pytest.fail(f"installing Chromium failed at `{' '.join(command)}` (exit {done.returncode}):\n"
                        f"{done.stderr[-3000:]}")
    found = find_chromium()
    if not found:
        pytest.fail("apt-get installed `chromium` but no chromium binary is on PATH")
    return found


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory) -> Path:
    return fixtures.write_build(tmp_path_factory.mktemp("build") / "out")


@pytest.fixture(scope="session")
def run_files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    files = fixtures.write_runs(root)
    files["tensorboard"] = fixtures.write_tensorboard(root / "tensorboard")
    return files


@pytest.fixture(scope="session")
def dashboard(tmp_path_factory, build_dir, run_files) -> DashboardResult:
    """The page written once for the session from the tiny build and runs."""
    out = tmp_path_factory.mktemp("dash") / "dash.html"
    return write_dashboard(DashboardInputs(builds=[str(build_dir)], eval_jsonl=[str(run_files["eval"])],
                                           rl_results=[str(run_files["rl_jsonl"]), str(run_files["rl_csv"])],
                                           tensorboard_dirs=[str(run_files["tensorboard"])], out_html=str(out),
                                           target_ppl=TARGET_PPL, n_boot=N_BOOT))
