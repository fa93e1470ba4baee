"""`mix build` refuses, before any work, what workers that share no disk with this machine could not
reach: a local --out, and local source paths. Local runners (and a portable runner whose SDK harness
is this process, LOOPBACK) keep both. Parallelism is sized from the runner's own options."""

from __future__ import annotations

import pytest
import yaml

from codemix.mix.cli import main as mix
from codemix.pipelines.options import shares_local_disk, worker_count

DATAFLOW = ["--runner", "DataflowRunner", "--project", "p", "--region", "europe-west4",
            "--temp_location", "gs://bucket/tmp"]
PORTABLE_EXTERNAL = ["--runner=PortableRunner", "--job_endpoint=127.0.0.1:1", "--environment_type=EXTERNAL",
                     "--environment_config=127.0.0.1:2"]


def write_spec(tmp_path, paths):
    spec = {"name": "t", "sources": [{"name": "code", "type": "directory", "paths": paths}],
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1.0}}}}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return str(path)


@pytest.mark.parametrize("runner_args", [DATAFLOW, PORTABLE_EXTERNAL], ids=["dataflow", "portable-external"])
def test_a_local_out_with_a_remote_runner_is_refused_before_work(tmp_path, capsys, runner_args):
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.py").write_text("print('hello')\n")
    out = tmp_path / "out"
    assert mix(["build", write_spec(tmp_path, [str(source)]), "--out", str(out), *runner_args]) == 2
    error = capsys.readouterr().err
    assert f"--out: {out} is a local path" in error and "Fix: give --out as storage every worker reaches" in error
    assert not out.exists()  # nothing was written: the refusal came before the first stage


def test_a_local_source_with_a_remote_runner_is_refused_naming_the_field(tmp_path, capsys):
    """An object-store --out passes the first check; the local source path is then refused, by field."""
    out = "s3://bucket/never-written"
    assert mix(["build", write_spec(tmp_path, ["gs://b/repo", str(tmp_path)]), "--out", out, *DATAFLOW]) == 2
    error = capsys.readouterr().err
    assert f"sources[0].paths[1]: {tmp_path} is a local path" in error
    assert "Fix: copy it to storage every worker reaches" in error


def test_runners_that_share_this_disk():
    assert shares_local_disk([]) and shares_local_disk(["--runner=DirectRunner"])
    assert shares_local_disk(["--runner", "apache_beam.runners.portability.fn_api_runner.FnApiRunner"])
    assert shares_local_disk(["--runner=PortableRunner", "--environment_type=LOOPBACK"])
    assert not shares_local_disk(PORTABLE_EXTERNAL) and not shares_local_disk(DATAFLOW)
    assert not shares_local_disk(["--runner=FlinkRunner"]) and not shares_local_disk(["--runner=SparkRunner"])


def test_parallelism_comes_from_the_runners_own_options():
    assert worker_count([]) == 1
    assert worker_count(["--direct_num_workers", "4"]) == 4
    assert worker_count([*DATAFLOW, "--num_workers=8", "--max_num_workers=32"]) == 32  # autoscaling ceiling
    assert worker_count(["--runner=FlinkRunner", "--parallelism=16"]) == 16
    assert worker_count(["--runner=PortableRunner", "--sdk_worker_parallelism=3"]) == 3
