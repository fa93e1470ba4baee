"""A tiny finished build and tiny training/RL outputs, written with the real schemas.

The build has two sources. ``alpha``: 2 records dropped at crawl (``binary``), 6 crawled, 1 dropped
by the filter (``too_small``), 1 exact duplicate, 4 kept. ``beta``: 1 dropped at crawl
(``path_not_included``), 1 quarantined, 4 crawled, 1 near duplicate, 3 kept. The shards hold
both sources in stage ``short`` and only ``alpha`` in stage ``long``.

The runs: two runs, five checkpoints each, evaluated on ``code`` and ``prose``; ``humaneval``
pass@1 is exactly ``HUMANEVAL_A + HUMANEVAL_B · log(ppl_code)`` at all ten checkpoints, ``tiny``
has two checkpoints only, and one RL row names a step never evaluated.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from codemix.dedup.stage import DUPLICATE_SCHEMA
from codemix.document import DOCUMENT_SCHEMA, DROPPED_SCHEMA, REDACTION_SCHEMA, Document

KINDS = {"alpha": ("python", "MIT"), "beta": ("go", "Apache-2.0")}
CRAWLED = {"alpha": [f"a{i}" for i in range(1, 7)], "beta": [f"b{i}" for i in range(1, 5)]}
FILTER_DROPPED = {"a6": "too_small"}
DUPLICATES = {"a5": ("a1", "exact"), "b4": ("b1", "near")}
CRAWL_DROPPED = [("alpha", "binary"), ("alpha", "binary"), ("beta", "path_not_included")]
REDACTIONS = [("a1", "alpha", "EMAIL", 2), ("a2", "alpha", "EMAIL", 1), ("b1", "beta", "SECRET_PASSWORD", 1)]
TOKENS_PER_BYTE = 0.25

RUNS = ("run-a", "run-b")
STEPS = (100, 200, 300, 400, 500)
HUMANEVAL_A, HUMANEVAL_B = 0.9, -0.6


def text_of(doc_id: str) -> str:
    """Distinct lengths: a1 is 60 bytes, a6 is 360; b-documents are 1000 bytes longer."""
    n = int(doc_id[1:])
    return f"x_{doc_id} = {n}\n".ljust(60 * n + (1000 if doc_id[0] == "b" else 0), "#")


def document(doc_id: str, source: str) -> dict:
    language, license_ = KINDS[source]
    if doc_id == "b3":  # a README: language known, license not detected
        language, license_ = "markdown", ""
    return Document(id=doc_id, text=text_of(doc_id), source=source, kind="file", repo=f"org/{source}",
                    path=f"{doc_id}.txt", language=language, license=license_).to_row()


def write_parquet(path: Path, rows: list[dict], schema: pa.Schema) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def kept_ids() -> dict[str, list[str]]:
    return {s: [d for d in ids if d not in FILTER_DROPPED and d not in DUPLICATES] for s, ids in CRAWLED.items()}


def shard_stats() -> list[dict]:
    rows = []
    for stage, sources in (("short", ("alpha", "beta")), ("long", ("alpha",))):
        for source in sources:
            nbytes = sum(len(text_of(d).encode()) for d in kept_ids()[source])
            rows.append({"stage": stage, "source": source, "documents": len(kept_ids()[source]), "shard": 0,
                         "shards": 1, "text_bytes": nbytes, "tokens": int(nbytes * TOKENS_PER_BYTE)})
    return rows


def manifest() -> dict:
    stats = shard_stats()
    stages = {}
    for stage, budget in (("short", 4000), ("long", 2000)):
        per_source = {r["source"]: r["tokens"] for r in stats if r["stage"] == stage}
        stages[stage] = {"documents": sum(r["documents"] for r in stats if r["stage"] == stage),
                         "tokens": sum(per_source.values()), "token_budget": budget, "sequence_length": 4096,
                         "tokens_per_source": per_source, "weights": {s: 1 / len(per_source) for s in per_source}}
    kept = kept_ids()
    return {
        "spec_name": "tiny", "stages": stages,
        "counts": {"read": 10 + 3 + 1, "kept": 7, "dropped": {"binary": 2, "path_not_included": 1, "too_small": 1},
                   "duplicates": 2, "quarantined": 1, "redactions": {"EMAIL": 3, "SECRET_PASSWORD": 1}},
        "sources": {"alpha": {"crawled": 6, "dropped": 3, "duplicates": 1, "quarantined": 0, "kept": len(kept["alpha"])},
                    "beta": {"crawled": 4, "dropped": 1, "duplicates": 1, "quarantined": 1, "kept": len(kept["beta"])}},
    }


def write_build(out: Path) -> Path:
    """The build directory, as `mix build --out OUT` leaves it (manifest, work/ ledgers, quarantine).
    Each stage's files are in its committed attempt folder, named by its ``_COMPLETE.json`` marker."""
    work = out / "committed"
    crawled = [document(d, s) for s, ids in CRAWLED.items() for d in ids]
    write_parquet(work / "crawl" / "docs-00000-of-00001.parquet", crawled, DOCUMENT_SCHEMA)
    write_parquet(work / "crawl" / "dropped-00000-of-00001.parquet",
                  [{"stage": "crawl", "source": s, "location": f"{s}/{i}", "reason": r, "doc_id": ""}
                   for i, (s, r) in enumerate(CRAWL_DROPPED)], DROPPED_SCHEMA)
    write_parquet(work / "crawl" / "redactions-00000-of-00001.parquet",
                  [{"doc_id": d, "source": s, "type": t, "count": n} for d, s, t, n in REDACTIONS], REDACTION_SCHEMA)
    filtered = [row for row in crawled if row["id"] not in FILTER_DROPPED]
    write_parquet(work / "filter" / "docs-00000-of-00001.parquet", filtered, DOCUMENT_SCHEMA)
    write_parquet(work / "filter" / "dropped-00000-of-00001.parquet",
                  [{"stage": "filter", "source": "alpha", "location": f"{d}.txt", "reason": r, "doc_id": d}
                   for d, r in FILTER_DROPPED.items()], DROPPED_SCHEMA)
    write_parquet(work / "dedup" / "docs-00000-of-00001.parquet",
                  [row for row in filtered if row["id"] not in DUPLICATES], DOCUMENT_SCHEMA)
    write_parquet(work / "dedup" / "duplicates-00000-of-00001.parquet",
                  [{"doc_id": d, "source": "alpha" if d[0] == "a" else "beta", "location": f"{d}.txt",
                    "keeper_id": keeper, "method": method} for d, (keeper, method) in DUPLICATES.items()],
                  DUPLICATE_SCHEMA)
    (work / "shards").mkdir(parents=True)
    (work / "shards" / "stats-00000-of-00001.jsonl").write_text("".join(json.dumps(r) + "\n" for r in shard_stats()))
    (out / "quarantine").mkdir()
    (out / "quarantine" / "crawl-00000-of-00001.jsonl").write_text(json.dumps(
        {"stage": "crawl", "source": "beta", "location": "beta/broken.zip", "error": "BadZipFile: bad"}) + "\n")
    for stage_dir in work.iterdir():  # work/STAGE/_COMPLETE.json naming work/STAGE/ATTEMPT, as a build commits it
        stage = out / "work" / stage_dir.name
        stage.mkdir(parents=True)
        stage_dir.rename(stage / "attempt-1")
        (stage / "_COMPLETE.json").write_text(json.dumps({"stage": stage_dir.name, "attempt": "attempt-1"}))
    work.rmdir()
    (out / "manifest.json").write_text(json.dumps(manifest(), indent=2))
    return out


def code_loss(run: str, step: int) -> float:
    return 1.6 - 0.5 * math.log(step / 100) / math.log(5) - (0.05 if run == "run-b" else 0.0)


def eval_rows() -> list[dict]:
    rows = []
    for run in RUNS:
        for step in STEPS:
            for eval_set, shift in (("code", 0.0), ("prose", 0.7)):
                loss = code_loss(run, step) + shift
                rows.append({"run_id": run, "step": step, "tokens_seen": step * 1_000_000, "eval_set": eval_set,
                             "loss_nats": loss, "bits_per_byte": loss / math.log(2) * 0.3})
    return rows


def humaneval(run: str, step: int) -> float:
    return HUMANEVAL_A + HUMANEVAL_B * code_loss(run, step)  # log(ppl) is the loss


def rl_rows() -> list[dict]:
    rows = [{"run_id": r, "step": s, "benchmark": "humaneval", "metric": "pass@1", "value": humaneval(r, s)}
            for r in RUNS for s in STEPS]
    rows += [{"run_id": "run-a", "step": s, "benchmark": "tiny", "metric": "score", "value": 0.1 * s / 100}
             for s in STEPS[:2]]
    rows.append({"run_id": "run-a", "step": 999, "benchmark": "humaneval", "metric": "pass@1", "value": 0.5})
    return rows


def write_runs(root: Path) -> dict[str, Path]:
    """eval.jsonl (ending in a half-written line), RL results split over a JSONL and a CSV file."""
    root.mkdir(parents=True, exist_ok=True)
    eval_path = root / "eval.jsonl"
    eval_path.write_text("".join(json.dumps(r) + "\n" for r in eval_rows()) + '{"run_id": "run-a", "ste')
    rows = rl_rows()
    rl_jsonl = root / "rl.jsonl"
    rl_jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows[:6]))
    rl_csv = root / "rl.csv"
    rl_csv.write_text("run_id,step,benchmark,metric,value\n" + "".join(
        f"{r['run_id']},{r['step']},{r['benchmark']},{r['metric']},{r['value']!r}\n" for r in rows[6:]))
    return {"eval": eval_path, "rl_jsonl": rl_jsonl, "rl_csv": rl_csv}


def write_tensorboard(root: Path) -> Path:
    """One Megatron-like run folder, ``root/run-a``, written by torch's SummaryWriter."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(log_dir=str(root / "run-a"))
    for step in STEPS:
        loss = code_loss("run-a", step) + 0.1
        writer.add_scalar("lm loss", loss - 0.05, step)
        writer.add_scalar("lm loss validation", loss, step)
        writer.add_scalar("lm loss validation ppl", math.exp(loss), step)
    writer.add_scalar("learning-rate", 1e-4, STEPS[-1])
    writer.close()
    return root
