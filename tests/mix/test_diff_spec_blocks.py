"""`mix diff` names what changed in every block of the spec, filters included: two real builds of
the same sources, the second with a changed filters block (a code filter's threshold, and the
languages allowed) and a changed dedup block; each changed field is named with its old and new
value, the unchanged blocks are not mentioned. A manifest written before the spec was recorded says so."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import main as mix


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("diff")
    (root / "code").mkdir()
    for name in ("textwrap.py", "colorsys.py"):
        shutil.copy(Path(os.__file__).parent / name, root / "code" / name)
    spec = {"name": "t", "sources": [{"name": "code", "type": "directory", "paths": [str(root / "code")],
                                      "license": "PSF-2.0"}],
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1}}},
            "tokenizer": {"vocab_size": 300, "train_sample_documents": 20}}
    (root / "old.yaml").write_text(yaml.safe_dump(spec))
    spec["filters"] = {"code": {"max_line_length": 2000}, "allowed_languages": ["python"]}
    spec["dedup"] = {"near": False}
    (root / "new.yaml").write_text(yaml.safe_dump(spec))
    assert mix(["build", str(root / "old.yaml"), "--out", str(root / "old")]) == 0
    shutil.copytree(root / "old", root / "new")  # the crawl is reused; filter onwards rerun
    assert mix(["build", str(root / "new.yaml"), "--out", str(root / "new")]) == 0
    return root / "old", root / "new"


def spec_lines(printed: str) -> dict[str, str]:
    section = printed.split("\n\n")[1]
    return {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in section.splitlines()[1:]}


def test_diff_names_every_changed_field_of_every_block(two_builds, capsys):
    old, new = two_builds
    old_spec = json.loads((old / "manifest.json").read_text())["spec"]
    assert old_spec["filters"]["code"]["max_line_length"] != 2000 and old_spec["dedup"]["near"] is True  # guard
    capsys.readouterr()
    assert mix(["diff", str(old), str(new)]) == 0
    lines = spec_lines(capsys.readouterr().out)
    assert set(lines) == {"filters", "dedup"}, lines  # sources, stages, tokenizer unchanged: not named
    before = old_spec["filters"]["code"]["max_line_length"]
    assert lines["filters"] == f"allowed_languages [] -> ['python']; code.max_line_length {before} -> 2000"
    assert lines["dedup"] == "near True -> False"


def test_a_manifest_without_its_spec_says_so(two_builds, tmp_path, capsys):
    old, new = two_builds
    legacy = tmp_path / "legacy"
    shutil.copytree(old, legacy)
    manifest = json.loads((legacy / "manifest.json").read_text())
    del manifest["spec"], manifest["schema"]
    (legacy / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert mix(["diff", str(legacy), str(new)]) == 0
    assert ("spec blocks: the old build's manifest does not record its spec (built before codemix recorded it)"
            in capsys.readouterr().out)
