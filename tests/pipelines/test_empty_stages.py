"""A stage left with no documents ends the build with one line per empty stage (which stage, its
sources, what removed their records, what to change), exit status 1 (a health failure, ``--strict``
or not), no traceback and no manifest; a rerun after fixing the spec completes. Each route that
empties a stage is taken: everything filtered (no license), quarantined (code read as transcripts),
a source allowed to be missing, deduplicated against a source the stage does not weight, and an
SFT outcome policy that keeps no run."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import main as mix

STDLIB = Path(sysconfig.get_path("stdlib"))
CODE_FILES = ("textwrap.py", "shlex.py", "fnmatch.py")


@pytest.fixture(scope="module")
def sources(tmp_path_factory, shared_transcripts) -> dict[str, dict]:
    """One source per route, named after it, built from real files."""
    root = tmp_path_factory.mktemp("empty-inputs")
    for folder in ("code", "copies", "unlicensed"):
        (root / folder).mkdir()
    for name in CODE_FILES:
        (root / "code" / name).write_bytes((STDLIB / name).read_bytes())
        (root / "copies" / name).write_bytes((STDLIB / name).read_bytes())  # exact duplicates of code's
    (root / "unlicensed" / "queue.py").write_bytes((STDLIB / "queue.py").read_bytes())
    dump = root / "code-dump.jsonl"  # code a user points a transcripts source at by mistake
    dump.write_text("".join(json.dumps({"content": (STDLIB / n).read_text(), "path": n}) + "\n"
                            for n in ("heapq.py", "bisect.py")))
    runs = sorted(str(p) for p in (shared_transcripts / "mini-swe-agent").glob("*.json"))
    assert len(runs) == 2, "the real transcripts fixture changed"
    return {
        "code": {"type": "directory", "paths": [str(root / "code")], "license": "PSF-2.0"},
        "copies": {"type": "directory", "paths": [str(root / "copies")], "license": "GPL-3.0-only"},
        "unlicensed": {"type": "directory", "paths": [str(root / "unlicensed")]},
        "quarantined": {"type": "transcripts", "paths": [str(dump)], "license": "MIT"},
        "missing": {"type": "directory", "paths": [str(root / "no-such-dir")], "license": "MIT"},
        "runs": {"type": "transcripts", "paths": runs, "license": "MIT"},
        "unlicensed_runs": {"type": "transcripts", "paths": runs},
        "missing_runs": {"type": "transcripts", "paths": [str(root / "no-such-run.json")], "license": "MIT"},
    }


def write_spec(path: Path, sources: dict[str, dict], stages: dict[str, str], policy: str = "any") -> Path:
    """A spec whose stage ``S`` weights the one source ``stages[S]`` (every source the stages use is
    declared; GPL is allowed by the filter, but dedup keeps the permissive copy)."""
    used = sorted(set(stages.values()))
    lengths = {"short": 128, "long": 4096, "sft": 16384}
    spec = {"name": path.stem, "sources": [{"name": name, **sources[name]} for name in used],
            "stages": {stage: {"sequence_length": lengths[stage], "token_budget": 2_000, "weights": {source: 1}}
                       for stage, source in stages.items()},
            "tokenizer": {"vocab_size": 400, "train_sample_documents": 20},
            "filters": {"licenses": {"allowed": ["PSF-2.0", "MIT", "GPL-3.0-only"]}},
            "dedup": {"repository_level": False}}
    if "sft" in stages:
        spec["stages"]["sft"]["sft"] = {"outcome_policy": policy}
    path.write_text(yaml.safe_dump(spec))
    return path


def empty_build(capsys, spec: Path, out: Path, *extra: str) -> list[str]:
    """Runs the build, which must stop with exit 1 and no manifest; returns its empty-stage lines."""
    assert mix(["build", str(spec), "--out", str(out), "--no-progress", *extra]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and not (out / "manifest.json").exists()
    return [line.strip() for line in err.splitlines() if " has no documents: " in line]


# Each stage emptied by each crawl- or filter-time route, three stages per build.
ROTATIONS = {
    "short_filtered": {"short": "unlicensed", "long": "missing", "sft": "quarantined"},
    "short_quarantined": {"short": "quarantined", "long": "unlicensed", "sft": "missing_runs"},
    "short_missing": {"short": "missing", "long": "quarantined", "sft": "unlicensed_runs"},
}
UNREADABLE = ("missing", "quarantined", "missing_runs")  # allowed to be missing, or the crawl check stops first
EXPECTED = {  # what each route's line names as the cause, and its fix
    "unlicensed": ("read 1 record(s): 1 dropped (no_license)", "loosen the filter"),
    "quarantined": ("read 2 record(s): 2 quarantined (", "check that each source's type matches its files"),
    "missing": ("read 1 record(s): 1 unreadable location (NotADirectoryError)", "check the sources' paths"),
    "unlicensed_runs": ("read 2 record(s): 2 dropped (no_license)", "loosen the filter"),
    "missing_runs": ("read 1 record(s): 1 unreadable location (", "check the sources' paths"),
}


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_stages_emptied_before_dedup_stop_with_one_line_each(sources, tmp_path, capsys, rotation):
    stages = ROTATIONS[rotation]
    spec = write_spec(tmp_path / f"{rotation}.yaml", sources, stages)
    allowed = [arg for source in UNREADABLE if source in stages.values() for arg in ("--allow-missing", source)]
    lines = empty_build(capsys, spec, tmp_path / "out", *allowed, *(["--strict"] if rotation == "short_missing" else []))
    assert len(lines) == 3, lines
    for line, (stage, source) in zip(sorted(lines), sorted(stages.items())):
        cause, fix = EXPECTED[source]
        assert line.startswith(f"- stage {stage} has no documents: its source {source} {cause}"), line
        assert "; fix: " in line and fix in line.split("; fix: ")[1] and f"remove stages.{stage} from the spec" in line
    assert not list((tmp_path / "out").glob("*/*.bin"))


def test_stages_emptied_by_dedup_stop_before_shards(sources, tmp_path, capsys):
    """The copies duplicate the code source, which the short stage reads (a source no stage uses is
    not crawled, so it could not be what they duplicate): the long stage, copies only, is emptied."""
    spec = write_spec(tmp_path / "dedup.yaml", sources, {"short": "code", "long": "copies"})
    lines = empty_build(capsys, spec, tmp_path / "out")
    assert [line.split(":", 1)[0] for line in lines] == ["- stage long has no documents"]
    assert "its source copies read 3 record(s): 3 duplicates" in lines[0] and "fix: its documents duplicate" in lines[0]
    assert not list((tmp_path / "out").glob("*/*.bin"))


def test_an_outcome_policy_that_keeps_nothing_stops_and_the_fixed_spec_completes(sources, tmp_path, capsys):
    """The sft stage empties only while its shards are written: that attempt is never committed, so
    the rerun with a wider policy rebuilds the shards and finishes."""
    out = tmp_path / "out"
    spec = write_spec(tmp_path / "policy.yaml", sources, {"short": "code", "sft": "runs"}, policy="resolved")
    lines = empty_build(capsys, spec, out, "--strict")
    assert len(lines) == 1 and lines[0].startswith(
        "- stage sft has no documents: its source runs read 2 record(s): 2 left out by shaping (outcome_unknown)")
    assert "fix: widen stages.sft.sft.outcome_policy (any keeps every run)" in lines[0]
    assert not (out / "work" / "shards" / "_COMPLETE.json").exists()
    write_spec(spec, sources, {"short": "code", "sft": "runs"}, policy="any")
    assert mix(["build", str(spec), "--out", str(out), "--no-progress"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stages"]["sft"]["documents"] > 0 and manifest["stages"]["short"]["documents"] > 0
    assert {"crawl", "filter", "dedup"} <= set(manifest["reused_stages"])
