"""The installed layout of a checkout, for tools that read packages from one folder (import-linter, grimp).

``python -m tests.layout`` copies each folder to where pyproject's ``[tool.setuptools.package-dir]``
installs it (``filters/`` -> ``codemix/filters/``) and runs lint-imports there; ``make test`` runs it first.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def package_dirs(repo: Path = REPO_ROOT) -> dict[str, str]:
    return tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def install_layout(destination: Path, repo: Path = REPO_ROOT) -> Path:
    """Copy the checkout's packages into DESTINATION as a wheel lays them out; returns DESTINATION."""
    for package, folder in sorted(package_dirs(repo).items(), key=lambda item: item[0].count(".")):
        target = destination.joinpath(*package.split("."))
        shutil.copytree(repo / folder, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    return destination


def lint_imports(layout: Path, config: Path = REPO_ROOT / "pyproject.toml") -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_IMPORTS), str(config), "--no-cache"],
                          cwd=layout, env={"PYTHONPATH": str(layout), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300, check=False)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="codemix-layout-") as folder:
        result = lint_imports(install_layout(Path(folder)))
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
