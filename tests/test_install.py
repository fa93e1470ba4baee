"""The installed package is the product: what `pip install` puts on a worker (Dataflow's
``--extra_package``, a Spark or Flink SDK container) must build what the checkout builds.

The checkout's sdist and wheel (tests.layout: setuptools' own PEP 517 hooks, offline) are each installed
into a fresh virtualenv outside the checkout, whose only other packages are the project environment's
dependencies (a path entry to them; no index, no network). From a folder with no checkout, the wheel's
``mix`` plans and builds a spec with a source of every type; its shards, tokenizer and published
documents are byte-identical to the checkout's build of the same spec, and those documents carry each
kind's metadata as typed columns (read with duckdb). The sdist installs the same
files as the wheel, and every file under a package folder that is not Python ships in both. Beam's
portable job service and external worker pool, started from the wheel's virtualenv, run what the
installed package submits, as a Spark or Flink cluster's SDK workers would.
"""

from __future__ import annotations

import gzip
import json
import os
import shlex
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import duckdb
import pytest
import yaml

from codemix.mix.cli import main as mix
from tests.conftest import REPO_ROOT
from tests.layout import Distributions, build_distributions, checkout_files, package_dirs
from tests.pipelines.portable_services import no_process_left, start_cluster

DOCKERFILE = REPO_ROOT / "deploy" / "Dockerfile"
FIXTURES = REPO_ROOT / "tests" / "fixtures"
# The project environment's packages (the running interpreter's), which the fresh virtualenvs borrow.
PROJECT_SITE = Path(sysconfig.get_paths()["purelib"])
CODEMIX_ENTRIES = ("codemix", "__editable__", "__editable___codemix")


def installed_name(checkout_path: str) -> str | None:
    """Where a checkout file installs (``filters/data/x.yml`` -> ``codemix/filters/data/x.yml``), or None."""
    folders = {folder: package for package, folder in package_dirs().items()}
    top, _, rest = checkout_path.partition("/")
    return f"{folders[top].replace('.', '/')}/{rest}" if top in folders and rest else None


def package_data_files() -> dict[str, str]:
    """Every file under a package folder that is not Python (data, configs, docs), by checkout path."""
    found = {}
    for name in checkout_files():
        target = installed_name(name)
        if target and not name.endswith(".py") and not os.path.islink(REPO_ROOT / name):
            found[name] = target
    return found


def dockerfile_pip_args(wheel: Path) -> list[str]:
    """The SDK container's ``RUN pip install ...`` arguments (deploy/Dockerfile), its wheel path
    replaced by WHEEL: the line a worker image runs is the line this test installs with."""
    lines = [line.strip() for line in DOCKERFILE.read_text().splitlines()]
    (line,) = [line for line in lines if line.startswith("RUN pip install") and "codemix" in line]
    args = shlex.split(line.removeprefix("RUN pip install"))
    (named,) = [arg for arg in args if arg.endswith(".whl")]
    assert Path(named).name == wheel.name, f"deploy/Dockerfile installs {named}, the build makes {wheel.name}"
    return [str(wheel) if arg == named else arg for arg in args]


def make_venv(root: Path) -> Path:
    """A fresh virtualenv at ROOT that sees the project environment's packages but not codemix itself
    (linked one by one, without codemix's own entries or any ``.pth`` hook); returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    deps = root / "project-deps"
    deps.mkdir()
    for entry in PROJECT_SITE.iterdir():
        if not entry.name.startswith(CODEMIX_ENTRIES) and entry.suffix != ".pth":
            (deps / entry.name).symlink_to(entry)
    (site / "project-deps.pth").write_text(f"{deps}\n")
    return python


def pip_install(python: Path, *args: str) -> None:
    """pip (the project's) installing into PYTHON's environment, from local files only."""
    result = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                             "--no-index", "--no-deps", "--no-build-isolation", "--no-cache-dir", *args],
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def clean_env() -> dict[str, str]:
    """The environment minus anything that would point Python at the checkout (and no AWS_* variable:
    S3 is reached through Beam's options alone)."""
    return {key: value for key, value in os.environ.items()
            if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP") and not key.startswith(("PYTEST_", "AWS_"))}


def run(python_or_tool: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run([str(python_or_tool), *args], cwd=cwd, env=clean_env(), capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, f"{python_or_tool.name} {' '.join(args[:2])}: {result.stderr[-4000:]}"
    return result


def installed_files(python: Path) -> dict[str, bytes]:
    """codemix's files in PYTHON's environment (``__pycache__`` left out), by path under site-packages."""
    where = run(python, ["-c", "import codemix, pathlib; print(pathlib.Path(codemix.__file__).parent)"], python.parent)
    package = Path(where.stdout.strip())
    return {str(p.relative_to(package.parent)): p.read_bytes() for p in sorted(package.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def distributions(tmp_path_factory) -> Distributions:
    return build_distributions(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def installs(distributions, tmp_path_factory) -> dict[str, Path]:
    """The wheel (with the SDK container's pip line) and the sdist, each in its own fresh virtualenv."""
    root = tmp_path_factory.mktemp("venvs")
    wheel, sdist = make_venv(root / "wheel"), make_venv(root / "sdist")
    pip_install(wheel, *dockerfile_pip_args(distributions.wheel))
    pip_install(sdist, str(distributions.sdist))
    return {"wheel": wheel, "sdist": sdist}


def test_every_data_file_of_a_package_folder_ships_in_the_wheel_and_the_sdist(distributions):
    data = package_data_files()
    assert {"filters/data/linguist/generated.yml", "pretrain/configs/tiny.yaml"} <= set(data), "guard: data found"
    with zipfile.ZipFile(distributions.wheel) as wheel:
        in_wheel = set(wheel.namelist())
    with tarfile.open(distributions.sdist) as sdist:
        in_sdist = {member.name.split("/", 1)[1] for member in sdist.getmembers() if "/" in member.name}
    assert sorted(name for name, target in data.items() if target not in in_wheel) == []
    assert sorted(name for name in data if name not in in_sdist) == []


def test_the_sdist_installs_the_same_files_as_the_wheel(installs):
    from_wheel, from_sdist = installed_files(installs["wheel"]), installed_files(installs["sdist"])
    assert "codemix/filters/data/linguist/generated.yml" in from_wheel and "codemix/mix/cli.py" in from_wheel
    assert sorted(from_wheel) == sorted(from_sdist)
    assert [name for name in from_wheel if from_wheel[name] != from_sdist[name]] == []


def test_a_layer_is_not_importable_by_its_folder_name_from_the_repository_root():
    result = subprocess.run([sys.executable, "-c", "import filters"], cwd=REPO_ROOT, env=clean_env(),
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0
    assert "import codemix.filters" in result.stderr and "docs/layout.md" in result.stderr


# --- a spec with a source of every type, built from the installation and from the checkout ------------

def every_source_type(root: Path, history: Path) -> Path:
    """A spec reading real fixtures through each source type (its files written under ROOT)."""
    headers = FIXTURES / "headers"
    archive = root / "cjson-src.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(headers / "DaveGamble+cJSON", arcname="cjson-src")
    dump = root / "leveldb.jsonl.gz"
    rows = [{"content": path.read_text(), "path": str(path.relative_to(headers))}
            for path in sorted((headers / "google+leveldb").rglob("*")) if path.is_file()]
    dump.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode(), mtime=0))
    listing = root / "crawl.txt"
    listing.write_text(f"{headers / 'madler+zlib'}\n{headers / 'google+googletest'}\n")
    examples = REPO_ROOT / "examples" / "transcripts"
    sources = [
        {"name": "repo", "type": "git", "paths": [str(history)]},
        {"name": "history", "type": "commits", "paths": [str(history)], "history": {"max_commits": 12}},
        {"name": "notebooks", "type": "directory", "paths": [str(FIXTURES / "notebooks")], "include": ["*.ipynb"],
         "license": "BSD-3-Clause", "notebooks": {"layout": "cells"}},
        {"name": "tarball", "type": "archive", "paths": [str(archive)], "license": "MIT"},
        {"name": "rows", "type": "dump", "paths": [str(dump)], "license": "BSD-3-Clause"},
        {"name": "listed", "type": "crawl_list", "paths": [str(listing)], "license": "Zlib"},
        {"name": "runs", "type": "transcripts", "license": "Apache-2.0",
         "paths": [str(examples / "agent-runs.jsonl"), str(examples / "claude-code-session.jsonl")]},
        {"name": "threads", "type": "issues", "paths": [str(FIXTURES / "github")], "license": "LGPL-3.0"},
    ]
    spec = {"name": "every-source-type", "sources": sources,
            "stages": {"short": {"sequence_length": 256, "token_budget": 100_000,
                                 "weights": {source["name"]: 1 for source in sources}}},
            "tokenizer": {"vocab_size": 600, "train_sample_documents": 200},
            "filters": {"licenses": {"allowed": ["MIT", "BSD-3-Clause", "Zlib", "Apache-2.0", "LGPL-3.0",
                                                 "BSD-2-Clause"]}},
            "health": {"min_budget_filled": 0.0, "max_epochs": 1000}}
    path = root / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def published(out: Path) -> dict[str, bytes]:
    """What a build hands on: the shards, their sidecars and published documents, and the tokenizer."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.relative_to(out).parts[0] != "work"
            and (p.suffix in (".bin", ".idx", ".parquet") or p.name == "tokenizer.json")}


def test_the_installed_wheel_plans_and_builds_what_the_checkout_builds(installs, itsdangerous_history, tmp_path):
    elsewhere = tmp_path / "no-checkout"
    elsewhere.mkdir()
    spec = every_source_type(tmp_path, itsdangerous_history)
    python = installs["wheel"]
    where = run(python, ["-c", "import codemix.filters.vendored as m; print(m.__file__)"], elsewhere).stdout.strip()
    assert where.startswith(str(python.parent.parent)) and "site-packages" in where, where
    plan = run(python.with_name("mix"), ["plan", str(spec)], elsewhere)
    assert all(name in plan.stdout for name in ("repo", "history", "notebooks", "tarball", "rows", "listed", "runs",
                                                "threads")), plan.stdout
    run(python.with_name("mix"), ["build", str(spec), "--out", str(elsewhere / "out")], elsewhere)
    assert mix(["build", str(spec), "--out", str(tmp_path / "checkout-out")]) == 0
    installed, checkout = published(elsewhere / "out"), published(tmp_path / "checkout-out")
    kinds = json.loads((tmp_path / "checkout-out" / "manifest.json").read_text())
    assert len([name for name in checkout if name.endswith(".bin")]) >= 8, f"guard: every source wrote a shard {kinds}"
    assert sorted(installed) == sorted(checkout)
    assert [name for name in checkout if installed[name] != checkout[name]] == []
    # Each kind's metadata reached the published documents as typed columns, through the build's runs.
    typed = duckdb.sql(f"""SELECT count(*) FILTER (kind = 'commit' AND len(parents) >= 1 AND author_date IS NOT NULL),
                                  count(*) FILTER (kind = 'notebook' AND notebook.cells > 0),
                                  count(*) FILTER (kind = 'issue' AND thread.number > 0),
                                  count(*) FILTER (kind = 'transcript' AND transcript_format <> '')
                           FROM '{elsewhere / "out" / "short" / "docs" / "*.parquet"}'""").fetchall()[0]
    assert all(typed), typed


# A pipeline the wheel's interpreter submits: its DoFn imports codemix on the worker and asks linguist's
# lists (package data) about each path; the worker says which codemix file it imported.
JUDGE_PATHS = """
import json, os, sys
import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

def judge(path):
    import codemix.filters.vendored as vendored
    return json.dumps({"path": path, "generated": vendored.is_generated(path), "vendored": vendored.is_vendored(path),
                       "module": vendored.__file__, "cwd": os.getcwd()})

with beam.Pipeline(options=PipelineOptions(sys.argv[3:])) as pipeline:
    _ = (pipeline | beam.Create(json.loads(sys.argv[2])) | beam.Map(judge)
         | beam.io.WriteToText(sys.argv[1], num_shards=1, shard_name_template=""))
"""
PATHS = ["package-lock.json", "gradlew", "src/app.py", "node_modules/left-pad/index.js", "vendor/lib.go"]


def test_the_portable_runners_external_workers_import_the_installed_package(installs, tmp_path):
    """Beam's job service and external worker pool run the wheel's interpreter with no checkout on any
    path, as a Spark or Flink cluster's SDK container would: the workers import codemix from the
    virtualenv's site-packages and read its package data, answering as the checkout does."""
    from codemix.filters.vendored import is_generated, is_vendored

    python = installs["wheel"]
    driver = tmp_path / "driver"
    driver.mkdir()
    (driver / "judge.py").write_text(JUDGE_PATHS)
    with no_process_left() as ledger:
        cluster = start_cluster(ledger, tmp_path / "cluster", str(python))
        run(python, ["judge.py", str(tmp_path / "judged.jsonl"), json.dumps(PATHS), *cluster.beam_args()], driver)
    judged = [json.loads(line) for line in (tmp_path / "judged.jsonl").read_text().splitlines()]
    assert sorted(row["path"] for row in judged) == sorted(PATHS)
    assert {row["cwd"] for row in judged} == {str(cluster.worker_cwd)}, "guard: the pool's workers ran it"
    site = str(python.parent.parent)
    assert all(row["module"].startswith(site) and "/site-packages/codemix/" in row["module"] for row in judged)
    assert {row["path"]: (row["generated"], row["vendored"]) for row in judged} == {
        path: (is_generated(path), is_vendored(path)) for path in PATHS}
    assert any(row["generated"] for row in judged) and any(row["vendored"] for row in judged), "guard: both lists hit"
