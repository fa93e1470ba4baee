"""One definition of the outcomes of a build: the summary line `mix build` prints, the health table
under it and `mix stats` say the same read, kept, dropped, duplicates and quarantined, and these add
up to the records in the input, counted here by listing it (``os.walk``), not by codemix."""

from __future__ import annotations

import json
import os
import re
import shutil
import sysconfig
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import main as mix

STDLIB = Path(sysconfig.get_path("stdlib"))
OUTCOMES = ("read", "kept", "dropped", "duplicates", "quarantined")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A small tree of real stdlib files: code the spec includes, an exact copy, files its include
    glob leaves out (text, data), one its exclude glob names, a symlink and a tiny file."""
    root = tmp_path_factory.mktemp("counts")
    tree = root / "tree"
    for name in ("json/decoder.py", "json/encoder.py", "textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py"):
        (tree / "pkg").mkdir(parents=True, exist_ok=True)
        shutil.copy(STDLIB / name, tree / "pkg" / name.replace("/", "_"))
    shutil.copy(STDLIB / "textwrap.py", tree / "copy_of_textwrap.py")      # exact duplicate
    shutil.copy(STDLIB / "LICENSE.txt", tree / "LICENSE.txt")              # include glob: not *.py
    shutil.copy(STDLIB / "json" / "__init__.py", tree / "pkg" / "skip_me_skip.py")  # exclude glob
    (tree / "pkg" / "tiny.py").write_text("x = 1\n")                      # too small for the filters
    (tree / "link.py").symlink_to(tree / "shlex_link_target.txt")          # a link is never followed
    (tree / "shlex_link_target.txt").write_text("not read\n")
    spec = {"name": "counts", "sources": [{"name": "tree", "type": "directory", "paths": [str(tree)],
                                           "license": "PSF-2.0", "include": ["*.py"], "exclude": ["*_skip.py"]}],
            "stages": {"short": {"sequence_length": 256, "token_budget": 50_000, "weights": {"tree": 1}}},
            "tokenizer": {"vocab_size": 600, "train_sample_documents": 50}}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    return root, tree


def listed_records(tree: Path) -> int:
    """Every file and link under ``tree``, by the standard library's walk."""
    return sum(len(files) + sum(os.path.islink(os.path.join(d, n)) for n in dirs) for d, dirs, files in os.walk(tree))


def summary_counts(printed: str) -> dict[str, int]:
    line = re.search(r"^read ([\d,]+): kept ([\d,]+), dropped ([\d,]+), duplicates ([\d,]+), quarantined ([\d,]+)$",
                     printed, re.MULTILINE)
    return dict(zip(OUTCOMES, (int(n.replace(",", "")) for n in line.groups())))


def health_table_totals(printed: str) -> dict[str, int]:
    table = printed[printed.index("\nsources\n"):]
    header = next(line.split() for line in table.splitlines() if line.strip().startswith("source "))
    total = next(line.split() for line in table.splitlines() if line.strip().startswith("total "))
    named = dict(zip(header, total))
    return {"read": int(named["read"].replace(",", "")), "kept": int(named["kept"].replace(",", "")),
            "dropped": int(named["dropped"].replace(",", "")), "duplicates": int(named["dup."].replace(",", "")),
            "quarantined": int(named["quarantined"].replace(",", ""))}


def stats_totals(stats: dict) -> dict[str, int]:
    sums = dict.fromkeys(OUTCOMES, 0)
    for info in stats.values():
        for key in ("read", "kept", "duplicates", "quarantined"):
            sums[key] += info[key]
        sums["dropped"] += sum(info["dropped"].values())
    return sums


def test_summary_health_table_and_stats_agree_and_add_up_to_the_listed_input(built, capsys):
    root, tree = built
    assert mix(["build", str(root / "spec.yaml"), "--out", str(root / "out")]) == 0
    printed = capsys.readouterr().out
    assert mix(["stats", str(root / "out"), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    summary, table, from_stats = summary_counts(printed), health_table_totals(printed), stats_totals(stats)
    assert summary == table == from_stats, (summary, table, from_stats)
    assert summary["read"] == listed_records(tree) == 12
    assert summary["read"] == summary["kept"] + summary["dropped"] + summary["duplicates"] + summary["quarantined"]
    # guard: the fixture exercises every kind of outcome the definitions could disagree on
    reasons = stats["tree"]["dropped"]
    assert reasons["path_not_included"] == 3 and reasons["symlink"] == 1 and summary["duplicates"] == 1, reasons
    assert "dropped includes 3 the spec chose not to read" in printed
