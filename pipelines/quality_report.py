"""The learned-quality part of `mix stats`: per source and language, documents scored and kept,
the score distribution (p10, p50, p90) and an example document at each of those levels, read from the
filter stage's ``quality`` table."""

from __future__ import annotations

import collections

import numpy as np

from codemix.pipelines import ledger
from codemix.tables import format_table, percent

LEVELS = (10, 50, 90)  # percentiles shown, each with the document scored closest to it
BINS = 20  # the dashboard's score histogram per stratum


def summarise(rows: list[dict]) -> dict:
    """Scored, kept, the percentiles and one example per percentile for one stratum's rows."""
    scores_N = np.asarray([row["score"] for row in rows], dtype=np.float64)
    levels = np.percentile(scores_N, LEVELS)
    examples = []
    for level, value in zip(LEVELS, levels):
        nearest = rows[int(np.abs(scores_N - value).argmin())]
        examples.append({"percentile": level, "score": round(nearest["score"], 4), "path": nearest["path"],
                         "kept": nearest["kept"]})
    counts, edges = np.histogram(scores_N, bins=BINS)
    return {"scored": len(rows), "kept": sum(row["kept"] for row in rows),
            **{f"p{level}": round(float(value), 4) for level, value in zip(LEVELS, levels)}, "examples": examples,
            "histogram": {"edges": [round(float(e), 6) for e in edges], "counts": counts.tolist()}}


def quality_summary(pattern: str) -> dict[str, dict[str, dict]]:
    """``{source: {language: summarise(rows)}}`` over the ``quality`` Parquet files ``pattern`` matches."""
    groups: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    for row in ledger.read_rows(pattern):
        groups[(row["source"], row["language"] or "unknown")].append(row)
    summary: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    for (source, language), rows in sorted(groups.items()):
        summary[source][language] = summarise(rows)
    return dict(summary)


def quality_block(stats: dict) -> str:
    """The score table and the example documents, or "" for a build without a quality model."""
    rows = [[source, language, entry["scored"], entry["kept"], percent(entry["kept"], entry["scored"]),
             entry["p10"], entry["p50"], entry["p90"]]
            for source, info in stats.items() for language, entry in info.get("quality", {}).items()]
    if not rows:
        return ""
    examples = [f"  {source} {language} p{ex['percentile']} score {ex['score']}: {ex['path']}"
                f"{'' if ex['kept'] else ' (dropped)'}"
                for source, info in stats.items() for language, entry in info.get("quality", {}).items()
                for ex in entry["examples"]]
    table = format_table(["source", "language", "scored", "kept", "% kept", "p10", "p50", "p90"], rows,
                         total=["total", "", sum(r[2] for r in rows), sum(r[3] for r in rows),
                                percent(sum(r[3] for r in rows), sum(r[2] for r in rows)), "", "", ""])
    return "learned quality\n" + table + "\nexamples by score\n" + "\n".join(examples)
