"""`mix` refuses a bad spec with the field and the fix, and a mistyped option with the closest name,
before it reads or writes anything; every --help answers without loading Beam or torch; it is quiet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import build_parser
from codemix.mix.cli import main as mix
from codemix.mix.options import beam_option_names, option_names, unknown_options
from codemix.pipelines.options import runner_name, with_default_runner

REPO_ROOT = Path(__file__).resolve().parents[2]

SPEC = {
    "name": "t",
    "sources": [{"name": "code", "type": "directory", "paths": ["/nonexistent/never/read"]}],
    "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1.0}}},
}


def write_spec(tmp_path: Path, spec: dict) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_bad_spec_fails_before_any_output(tmp_path, capsys):
    spec = dict(SPEC, stages={"short": {"sequence_length": 0, "token_budget": 1000, "weights": {"code": 1.0}}})
    out = tmp_path / "out"
    assert mix(["build", str(write_spec(tmp_path, spec)), "--out", str(out)]) == 2
    assert "stages.short.sequence_length: must be positive" in capsys.readouterr().err
    assert not out.exists()


def test_plan_prints_the_resolved_plan_then_checks_every_location(tmp_path, capsys):
    assert mix(["plan", str(write_spec(tmp_path, SPEC))]) == 1
    printed = capsys.readouterr().out
    assert "implied Jaccard threshold 0.648" in printed
    assert "source 'code', sources[0].paths[0] = /nonexistent/never/read: FileNotFoundError" in printed
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "a.py").write_text("print('hello')\n")
    readable = dict(SPEC, sources=[dict(SPEC["sources"][0], paths=[str(tmp_path / "code")])])
    assert mix(["plan", str(write_spec(tmp_path, readable))]) == 0
    assert "preflight: every location of 1 source(s) can be read" in capsys.readouterr().out


def test_a_source_name_too_long_for_a_shard_file_name_is_refused_before_any_work(tmp_path, capsys):
    """A 240-character source name passed every check and failed the build's last stage (``OSError: File name
    too long`` writing ``short/NAME-00000-of-00001.bin``): the spec is refused first, naming the field."""
    name = "agent-system-" + "a" * 227
    spec = dict(SPEC, sources=[dict(SPEC["sources"][0], name=name)],
                stages={"short": {"sequence_length": 128, "token_budget": 1000, "weights": {name: 1.0}}})
    out = tmp_path / "out"
    assert mix(["build", str(write_spec(tmp_path, spec)), "--out", str(out)]) == 2
    assert ("sources[0].name: is 240 bytes long; shard file names begin with it. Fix: shorten it to 100 bytes at most"
            in capsys.readouterr().err)
    assert not out.exists()
    fits = dict(spec, sources=[dict(SPEC["sources"][0], name=name[:100])],
                stages={"short": {"sequence_length": 128, "token_budget": 1000, "weights": {name[:100]: 1.0}}})
    assert mix(["plan", str(write_spec(tmp_path, fits))]) == 1  # past the spec: only the missing path is reported
    assert "is 100 bytes long" not in capsys.readouterr().err


def test_a_key_given_twice_in_a_spec_is_refused_naming_key_and_line(tmp_path, capsys):
    path = tmp_path / "twice.yaml"
    path.write_text(yaml.safe_dump(SPEC) + "stages: {}\n")  # PyYAML alone would keep this last one
    assert mix(["plan", str(path)]) == 2
    line = path.read_text().splitlines().index("stages: {}") + 1
    first = path.read_text().splitlines().index("stages:") + 1
    assert (f"{path}: duplicate key 'stages' on line {line} (first given on line {first})"
            in capsys.readouterr().err)


def test_version_answers_without_loading_beam():
    result = subprocess.run([sys.executable, "-m", "codemix.mix", "--version"], capture_output=True, text=True,
                            cwd=REPO_ROOT, check=False)
    assert result.returncode == 0
    assert result.stdout.startswith("mix (codemix) 0.1.0; Python 3.") and "Apache Beam 2." in result.stdout


def test_dash_on_a_missing_build_exits_non_zero_with_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "codemix.mix", "dash", "--build", str(tmp_path / "nope"),
                             "--out", str(tmp_path / "dash.html")], capture_output=True, text=True, cwd=REPO_ROOT,
                            check=False)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [(f"mix dash: {tmp_path / 'nope'} does not exist or is empty; "
                                                   "give a mix build --out directory")]
    assert not (tmp_path / "dash.html").exists()


def test_missing_spec_file_is_a_clear_error(tmp_path, capsys):
    assert mix(["plan", str(tmp_path / "nope.yaml")]) == 2
    assert "cannot read spec" in capsys.readouterr().err


def test_fnapirunner_is_the_default_and_any_runner_passes_through():
    assert runner_name([]) == "FnApiRunner"
    assert with_default_runner(["--direct_num_workers=2"]) == ["--runner=FnApiRunner", "--direct_num_workers=2"]
    dataflow = ["--runner", "DataflowRunner", "--project", "p", "--region", "r"]
    assert with_default_runner(dataflow) == dataflow
    assert runner_name(dataflow) == "DataflowRunner"


def test_an_unknown_build_option_is_refused_with_the_closest_name(tmp_path, capsys):
    out = tmp_path / "out"
    spec = str(write_spec(tmp_path, SPEC))
    with pytest.raises(SystemExit) as exit_info:
        mix(["build", spec, "--out", str(out), "--form-stage", "dedup"])
    assert exit_info.value.code == 2
    assert "unknown option --form-stage. Did you mean --from-stage?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mix(["build", spec, "--out", str(out), "--direct-num-workers", "2"])
    assert "Did you mean --direct_num_workers?" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("value", ["-5", "0", "nan", "inf", "soon"])
def test_a_stall_timeout_that_is_not_a_positive_number_is_refused(value, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        mix(["build", str(write_spec(tmp_path, SPEC)), "--out", str(out), f"--stall-timeout={value}"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"mix build: error: argument --stall-timeout: expected a positive number of seconds, got {value!r}")
    assert not out.exists()


def test_beam_options_pass_the_check():
    build = build_parser()._subparsers._group_actions[0].choices["build"]
    known = option_names(build) | beam_option_names()
    args = ["--direct_num_workers", "2", "--direct_running_mode=multi_processing", "--runner", "DataflowRunner",
            "--project", "p", "--temp_location", "gs://b/t", "--spark_master_url", "spark://h:7077", "--allow-missing",
            "x", "--strict"]
    assert unknown_options(args, known) == []


@pytest.mark.parametrize("command", ["", "build", "plan", "stats", "inspect", "train", "eval", "handoff", "dash", "search",
                                     "tokenizer train", "quality sample", "quality train"])
def test_every_help_answers_without_loading_beam_or_torch(command):
    """Help is fast because nothing heavy is imported for it (asserted by module, not by a clock)."""
    script = ("import sys\n"
              "from codemix.mix.cli import main\n"
              f"try:\n    main({command.split()!r} + ['--help'])\nexcept SystemExit:\n    pass\n"
              "heavy = sorted(m for m in ('torch', 'apache_beam', 'megatron', 'pyarrow') if m in sys.modules)\n"
              "print(heavy, file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_ROOT, check=False)
    assert result.stderr.strip().splitlines()[-1] == "[]" and "usage: " in result.stdout


@pytest.mark.parametrize("command", ["plan", "build"])
def test_a_spec_error_is_reported_before_beam_or_torch_is_loaded(command, tmp_path):
    """A spec error costs the spec's own imports only (issue 49; asserted by module, not by a clock)."""
    spec = {"name": "x", "sources": [{"name": "code", "type": "directory", "paths": [str(tmp_path)], "license": "MIT"}],
            "stages": {"short": {"sequence_length": 64, "token_budget": 10, "weights": {"nowhere": 1.0}}}}
    (tmp_path / "spec.yaml").write_text(json.dumps(spec))
    out = ["--out", str(tmp_path / "out")] if command == "build" else []
    script = ("import sys\n"
              "from codemix.mix.cli import main\n"
              f"code = main([{command!r}, {str(tmp_path / 'spec.yaml')!r}, *{out!r}])\n"
              "heavy = sorted(m for m in ('torch', 'apache_beam', 'megatron', 'smart_open') if m in sys.modules)\n"
              "print(code, heavy, file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_ROOT, check=False)
    lines = result.stderr.strip().splitlines()
    assert "no source of that name" in lines[0]  # guard: the spec error was the one reported
    assert lines[-1] == "2 []"


def test_quiet_by_default(tmp_path):
    """A command that loads Beam prints its one error line, not Beam's import warnings."""
    result = subprocess.run([sys.executable, "-m", "codemix.mix", "stats", str(tmp_path)], capture_output=True, text=True,
                            cwd=REPO_ROOT, check=False)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [(f"mix stats: {tmp_path} is not a mix build output directory "
                                                   "(no manifest.json and no work/crawl/); give the directory a mix "
                                                   "build --out wrote")]
