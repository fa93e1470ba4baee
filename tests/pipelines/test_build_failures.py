"""A build that cannot hold the mixture its spec asks for stops before writing a shard, naming the
source, the location, the error and the fix; ``--allow-missing`` goes on on purpose and says so in
the manifest and the blend; the health summary warns, and ``--strict`` turns warnings into exit 3."""

from __future__ import annotations

import json
import subprocess
import sysconfig
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from tests.pipelines.test_build import GIT, MIT_LICENSE

STDLIB = Path(sysconfig.get_path("stdlib"))
CODE_FILES = ("textwrap.py", "shlex.py", "fnmatch.py")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inputs")
    code = root / "code"
    code.mkdir()
    for name in CODE_FILES:
        (code / name).write_bytes((STDLIB / name).read_bytes())
    repo = root / "repo"
    subprocess.run([*GIT, "init", "-q", str(repo)], check=True)
    (repo / "LICENSE").write_text(MIT_LICENSE)
    (repo / "colorsys.py").write_bytes((STDLIB / "colorsys.py").read_bytes())
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "one"], check=True)
    # A code dump: what a user points a `transcripts` source at by mistake.
    dump = root / "code-dump.jsonl"
    dump.write_text("".join(json.dumps({"content": (STDLIB / n).read_text(), "path": n}) + "\n"
                            for n in ("queue.py", "heapq.py", "bisect.py")))
    return {"root": root, "code": code, "repo": repo, "dump": dump}


def write_spec(root: Path, name: str, sources: list[dict], weights: dict, budget: int = 20_000, **extra) -> Path:
    spec = {"name": name, "sources": sources,
            "stages": {"short": {"sequence_length": 128, "token_budget": budget, "weights": weights}},
            "tokenizer": {"vocab_size": 400, "train_sample_documents": 20}, **extra}
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def code_source(inputs) -> dict:
    return {"name": "code", "type": "directory", "paths": [str(inputs["code"])], "license": "PSF-2.0"}


def failed(capsys, spec: Path, out: Path, *args: str) -> str:
    assert mix(["build", str(spec), "--out", str(out), *args]) == 1
    assert not list(out.glob("*/*.bin")), "no shard may be written"
    return capsys.readouterr().err


def test_a_missing_path_fails_naming_source_location_error_and_fix(inputs, tmp_path, capsys):
    missing = inputs["root"] / "no-such-dir"
    spec = write_spec(tmp_path, "missing", [code_source(inputs),
                                            {"name": "extra", "type": "directory", "paths": [str(missing)]}],
                      {"code": 0.5, "extra": 0.5})
    err = failed(capsys, spec, tmp_path / "out")
    assert "preflight: a location cannot be read (checked before any stage ran)" in err
    assert f"source 'extra', sources[1].paths[0] = {missing}: FileNotFoundError" in err
    assert not (tmp_path / "out").exists()  # refused before the crawl: nothing was written
    assert "fix: check the path" in err and "--allow-missing extra" in err


def test_a_bad_git_ref_fails_before_any_work_naming_the_ref_and_what_the_repository_holds(inputs, tmp_path, capsys):
    spec = write_spec(tmp_path, "ref", [{"name": "repo", "type": "git", "paths": [str(inputs["repo"])], "ref": "v9.9"}],
                      {"repo": 1})
    out = tmp_path / "out"
    assert mix(["build", str(spec), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "sources[0].ref: source 'repo'" in err and f"{inputs['repo']} has no commit 'v9.9'; it holds branches: " in err
    assert "Fix: set the source's ref to an existing branch, tag or commit" in err
    assert not out.exists() or not any(out.rglob("*.parquet")), "nothing may be crawled"


def test_an_unreachable_url_fails_naming_it(inputs, tmp_path, capsys):
    url = "http://127.0.0.1:9/dump.jsonl"  # the discard port: refused at once, no network needed
    spec = write_spec(tmp_path, "url", [code_source(inputs), {"name": "remote", "type": "dump", "paths": [url]}],
                      {"code": 1, "remote": 1})
    err = failed(capsys, spec, tmp_path / "out")
    assert f"source 'remote', sources[1].paths[0] = {url}:" in err and "Connection" in err


def test_a_source_mostly_quarantined_fails_with_its_rate(inputs, tmp_path, capsys):
    spec = write_spec(tmp_path, "shape", [code_source(inputs), {"name": "runs", "type": "transcripts",
                                                                "paths": [str(inputs["dump"])]}],
                      {"code": 1})
    stages = yaml.safe_load(spec.read_text())
    stages["stages"]["sft"] = {"sequence_length": 512, "token_budget": 1000, "weights": {"runs": 1}}
    spec.write_text(yaml.safe_dump(stages))  # a source no stage weights is not crawled at all
    err = failed(capsys, spec, tmp_path / "out")
    assert "source 'runs', sources[1].type = transcripts: 3 of 3 records quarantined (100.0%" in err
    assert "check that the source's type matches its files" in err


def test_an_unknown_allow_missing_name_is_a_usage_error(inputs, tmp_path, capsys):
    spec = write_spec(tmp_path, "typo", [code_source(inputs)], {"code": 1})
    assert mix(["build", str(spec), "--out", str(tmp_path / "out"), "--allow-missing", "cod"]) == 2
    assert "--allow-missing: no source named 'cod'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def allowed_build(inputs, tmp_path_factory):
    """One spec, three runs: it stops on the unreadable source, then on the source the filters emptied
    (no license, and the policy drops unknown licenses), and with both allowed it finishes."""
    root = tmp_path_factory.mktemp("allowed")
    unlicensed = root / "unlicensed"
    unlicensed.mkdir()
    (unlicensed / "queue.py").write_bytes((STDLIB / "queue.py").read_bytes())
    spec = write_spec(root, "allowed", [
        code_source(inputs),
        {"name": "gone", "type": "directory", "paths": [str(root / "gone")]},
        {"name": "unlicensed", "type": "directory", "paths": [str(unlicensed)]},
    ], {"code": 0.5, "gone": 0.3, "unlicensed": 0.5}, budget=500_000)  # code alone cannot fill it
    out = root / "out"
    runs = [mix(["build", str(spec), "--out", str(out)]),
            mix(["build", str(spec), "--out", str(out), "--allow-missing", "gone"]),
            mix(["build", str(spec), "--out", str(out), "--allow-missing", "gone", "--allow-missing", "unlicensed"])]
    return {"spec": spec, "out": out, "runs": runs, "manifest": read_manifest(str(out))}


def test_allow_missing_proceeds_and_is_recorded_in_manifest_and_blend(allowed_build):
    assert allowed_build["runs"] == [1, 1, 0]
    manifest = allowed_build["manifest"]
    short = manifest["stages"]["short"]
    assert short["missing_sources"] == ["gone", "unlicensed"] == short["allowed_missing"]
    prefixes = short["data_path"][1::2]
    assert prefixes and all(Path(p).name.startswith("code-") for p in prefixes)
    assert sum(short["data_path"][::2]) == pytest.approx(1.0)  # renormalised over what is there
    allowed = manifest["health"]["allowed_missing"]
    assert set(allowed) == {"gone", "unlicensed"}
    assert "NotADirectoryError" in allowed["gone"][0]
    assert "no document of this source survived" in allowed["unlicensed"][0]
    assert manifest["health"]["stages"]["short"]["weights_renormalised"] is True
    assert any("weights sum to 1.3" in note for note in manifest["health"]["notes"])


def test_a_source_repeated_past_the_threshold_warns_and_strict_exits_non_zero(allowed_build, capsys):
    manifest = allowed_build["manifest"]
    epochs = manifest["stages"]["short"]["epochs_per_source"]["code"]
    assert epochs > manifest["health"]["thresholds"]["max_epochs"]  # guard: the fixture repeats
    warnings = manifest["health"]["warnings"]
    assert any(w.startswith(f"stage short: source code repeats {epochs:,.1f} times") for w in warnings)
    assert manifest["health"]["ok"] is False
    args = ["build", str(allowed_build["spec"]), "--out", str(allowed_build["out"]), "--from-stage", "shards",
            "--allow-missing", "gone", "--allow-missing", "unlicensed"]
    capsys.readouterr()
    assert mix([*args, "--strict"]) == 3
    captured = capsys.readouterr()
    assert "WARNING: stage short: source code repeats" in captured.out
    assert "--strict: " in captured.err
