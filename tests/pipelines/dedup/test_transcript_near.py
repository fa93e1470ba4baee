"""Near duplicates of agent traces are judged on what the task and the agent say, not on the harness's
system prompt and demonstrations (real SWE-agent files, tests/fixtures/transcripts/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import exact_jaccard, shingle_hashes
from codemix.document import DOCUMENT_SCHEMA, Document
from codemix.pipelines.dedup.deduplicate import run_dedup
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

DEMOS = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "swe-agent-demo"
DEMONSTRATION = DEMOS / "marshmallow-code__marshmallow-1867.default.traj"  # the demonstration, as its own run
TASK = DEMOS / "swe-agent__test-repo-i1.traj"  # another task; its first user turn embeds that demonstration


def read(path: Path) -> Document:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    (doc,) = read_location(source, str(path))
    assert isinstance(doc, Document), doc
    return doc


def jaccard(a: str, b: str) -> float:
    return exact_jaccard(shingle_hashes(a, 5, False), shingle_hashes(b, 5, False))


def rerun_with_other_output(path: Path, folder: Path) -> Path:
    """The same run with every observation's text changed (a rerun whose tools printed other timings):
    a real duplicate of what the agent did."""
    run = json.loads(path.read_text())
    for message in run["history"][3:]:
        if message["role"] == "user":
            message["content"] += "\n(0.4 s)"
    copy = folder / f"rerun-{path.name}"
    copy.write_text(json.dumps(run))
    return copy


def test_tasks_sharing_a_demonstration_are_kept_and_real_duplicates_removed(tmp_path: Path) -> None:
    demo = json.loads(TASK.read_text())["history"][1]
    assert demo["is_demo"] and len(demo["content"]) > 30_000, "guard: a 31k-character demonstration turn"
    docs = [read(DEMONSTRATION), read(TASK), read(rerun_with_other_output(TASK, tmp_path))]
    assert jaccard(docs[0].text, docs[1].text) >= DedupConfig().threshold, "guard: whole texts look alike"
    assert docs[1].text != docs[2].text
    folder = tmp_path / "docs"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist([d.to_row() for d in docs], schema=DOCUMENT_SCHEMA), folder / "docs-0.parquet")
    run_dedup(str(folder / "docs-*.parquet"), str(tmp_path / "out"), DedupConfig(), ["--runner=FnApiRunner"])
    kept = {row["id"] for f in (tmp_path / "out").glob("docs-*.parquet") for row in pq.read_table(f).to_pylist()}
    duplicates = [row for f in (tmp_path / "out").glob("duplicates-*.parquet") for row in pq.read_table(f).to_pylist()]
    assert docs[0].id in kept and len(kept) == 2 and len(duplicates) == 1
    assert {duplicates[0]["doc_id"], duplicates[0]["keeper_id"]} == {docs[1].id, docs[2].id}
