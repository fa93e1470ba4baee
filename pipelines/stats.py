"""`mix stats DIR`: what a finished build dropped, per reason and source, what it redacted (with up to
three sample contexts per type, the secret itself shown only as its placeholder), which benchmark
items the removed documents matched, and the recorded outcomes of the agent transcripts it read,
per source and format.

Everything is recounted from the files the stages wrote, so the numbers can be trusted even for a
build whose manifest was lost or that was rerun from a later stage.
"""

from __future__ import annotations

import collections
import json
import re

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from pipelines import ledger
from pipelines.manifest import BuildLayout


def pair_counts(pattern: str, first: str, second: str, weight: str | None = None) -> collections.Counter:
    """Rows (or the sum of ``weight``) per (first, second) value pair across Parquet files."""
    counts: collections.Counter = collections.Counter()
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=[first, second] + ([weight] if weight else []))
        weights = table.column(weight).to_pylist() if weight else [1] * table.num_rows
        for a, b, n in zip(table.column(first).to_pylist(), table.column(second).to_pylist(), weights):
            counts[(a, b)] += n
    return counts


OUTCOME_FACTS = ("submitted", "tests_passed", "resolved")


def transcript_outcomes(pattern: str) -> dict[str, dict[str, dict]]:
    """``{source: {format: {"transcripts": n, "exit_status": {value: n}, fact: {"true"|"false"|"unknown": n}}}}``
    for every transcript the crawl kept, one row group at a time (a transcript's metadata holds its messages)."""
    outcomes: dict[str, dict[str, dict]] = {}
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            for batch in pq.ParquetFile(handle).iter_batches(batch_size=64, columns=["source", "kind", "metadata"]):
                for source, kind, metadata in zip(*(batch.column(i).to_pylist() for i in range(3))):
                    if kind == "transcript":
                        count_outcome(outcomes.setdefault(source, {}), json.loads(metadata or "{}"))
    return outcomes


def count_outcome(per_format: dict[str, dict], metadata: dict) -> None:
    entry = per_format.setdefault(metadata.get("format") or "unknown", {
        "transcripts": 0, "exit_status": collections.Counter(), **{f: collections.Counter() for f in OUTCOME_FACTS}})
    entry["transcripts"] += 1
    entry["exit_status"][metadata.get("exit_status") or "unknown"] += 1
    for fact in OUTCOME_FACTS:
        value = metadata.get(fact)
        entry[fact]["unknown" if value is None else str(bool(value)).lower()] += 1


def build_stats(out_dir: str) -> dict:
    """Drops per source and reason, redactions per source and type, duplicates and quarantine per source."""
    layout = BuildLayout(out_dir.rstrip("/"))
    dropped = pair_counts(layout.dropped("crawl"), "source", "reason") + pair_counts(
        layout.dropped("filter"), "source", "reason")
    redactions = pair_counts(f"{layout.stage_dir('crawl')}/redactions*.parquet", "source", "type", "count")
    contamination = pair_counts(f"{layout.stage_dir('filter')}/contamination*.parquet", "source", "benchmark")
    quarantined = collections.Counter(row["source"] for row in ledger.read_jsonl(f"{layout.quarantine}/*.jsonl"))
    duplicates = ledger.count_values(f"{layout.stage_dir('dedup')}/duplicates*.parquet", "source")
    kept = ledger.count_values(layout.docs("dedup"), "source")
    samples = redaction_samples(layout)
    hits = ledger.read_rows(f"{layout.stage_dir('filter')}/contamination*.parquet")
    outcomes = transcript_outcomes(layout.docs("crawl"))
    sources = sorted({s for s, _ in dropped} | {s for s, _ in redactions} | set(quarantined) | set(kept)
                     | set(duplicates) | set(outcomes))
    return {source: {
        "kept": kept.get(source, 0),
        "duplicates": duplicates.get(source, 0),
        "quarantined": quarantined.get(source, 0),
        "dropped": {r: n for (s, r), n in sorted(dropped.items()) if s == source},
        "redactions": {t: n for (s, t), n in sorted(redactions.items()) if s == source},
        "contamination_hits": {b: n for (s, b), n in sorted(contamination.items()) if s == source},
        "redaction_samples": samples.get(source, {}),
        "contaminated_documents": sorted(
            ({"location": row["location"], "benchmark": row["benchmark"], "item_id": row["item_id"],
              "overlap": round(row["overlap"], 3),
              "matched_tokens": row.get("matched_tokens", 0), "lines": [row.get("start_line", 0), row.get("end_line", 0)]}
             for row in hits if row["source"] == source),
            key=lambda row: (row["location"], row["benchmark"], row["item_id"])),
        **({"transcript_outcomes": {fmt: {k: (dict(sorted(v.items())) if isinstance(v, collections.Counter) else v)
                                          for k, v in entry.items()}
                                    for fmt, entry in sorted(outcomes[source].items())}}
           if source in outcomes else {}),
    } for source in sources}


SAMPLES_PER_TYPE = 3
CONTEXT_CHARS = 60


def redaction_samples(layout: BuildLayout) -> dict[str, dict[str, list[str]]]:
    """source -> placeholder type -> up to three contexts, read from the redacted crawl documents of
    the documents the redaction records name. The crawl wrote them after redaction, so a context shows
    the placeholder where the secret was, never the secret."""
    wanted: dict[str, set[str]] = collections.defaultdict(set)  # doc id -> types redacted in it
    for row in ledger.read_rows(f"{layout.stage_dir('crawl')}/redactions*.parquet"):
        wanted[row["doc_id"]].add(row["type"])
    samples: dict[str, dict[str, list[str]]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in ledger.matched_files(layout.docs("crawl")) if wanted else []:
        with FileSystems.open(path) as handle:
            parquet = pq.ParquetFile(handle)
            for group in range(parquet.num_row_groups):
                for row in parquet.read_row_group(group, columns=["id", "source", "text"]).to_pylist():
                    for kind in wanted.get(row["id"], ()):
                        found = samples[row["source"]][kind]
                        if len(found) < SAMPLES_PER_TYPE:
                            found += _contexts(row["text"], kind, SAMPLES_PER_TYPE - len(found))
    return {source: dict(kinds) for source, kinds in samples.items()}


def _contexts(text: str, kind: str, limit: int) -> list[str]:
    """Up to ``limit`` one-line contexts around ``<kind>`` in ``text``."""
    contexts = []
    for match in re.finditer(re.escape(f"<{kind}>"), text):
        start = max(text.rfind("\n", 0, match.start()) + 1, match.start() - CONTEXT_CHARS)
        end = text.find("\n", match.end())
        end = min(len(text) if end < 0 else end, match.end() + CONTEXT_CHARS)
        contexts.append(text[start:end].strip())
        if len(contexts) == limit:
            break
    return contexts


def format_stats(stats: dict) -> str:
    lines = []
    for source, info in stats.items():
        lines.append(f"{source}: kept {info['kept']:,}, duplicates {info['duplicates']:,}, "
                     f"quarantined {info['quarantined']:,}")
        for title, key in (("dropped", "dropped"), ("redacted", "redactions"), ("benchmark hits", "contamination_hits")):
            for name, n in info[key].items():
                lines.append(f"  {title:<15} {name:<28} {n:>10,}")
                if key == "redactions":
                    lines += [f"      e.g. {context}" for context in info["redaction_samples"].get(name, [])]
        for hit in info["contaminated_documents"]:
            lines.append(f"  contaminated    {hit['location']}: {hit['benchmark']} {hit['item_id']} "
                         f"(overlap {hit['overlap']:.2f}, {hit['matched_tokens']} tokens at lines {hit['lines'][0]}-{hit['lines'][1]})")
        for fmt, entry in info.get("transcript_outcomes", {}).items():
            facts = "  ".join(f"{fact} " + "/".join(f"{v}:{n}" for v, n in entry[fact].items())
                              for fact in ("exit_status", *OUTCOME_FACTS))
            lines.append(f"  {'outcomes':<15} {fmt:<28} {entry['transcripts']:>10,}  {facts}")
    return "\n".join(lines) or "no records found: is this a mix build output directory?"


def stats_json(stats: dict) -> str:
    return json.dumps(stats, indent=2, sort_keys=True)
