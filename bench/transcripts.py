"""Agent transcripts per format, from file to SFT sample: what each format gives the SFT stage.

For every transcript file given (default: the per-format fixtures, the real runs in
../shared/data/transcripts and the demo's examples), per format: files, transcripts read,
quarantined, kept by the filter stage (the content checks, prose filters included), kept by the SFT
outcome policy, SFT samples, their tokens and trained tokens, and the continuation samples by
summary origin (``real``: a model-written compaction summary; ``templated``). Each sequence length
given is one table. Runs the same pure functions the build runs (reader, ``DocumentFilter``,
``sft_samples``) in one process, so it takes seconds.

    .venv/bin/python -m bench.transcripts --tokenizer out/demo/tokenizer.json --write
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from bench import tokenize as common
from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.mixtures.sft import SFTConfig, sft_samples
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ROOTS = [ROOT / "tests" / "fixtures" / "transcripts", ROOT.parent / "shared" / "data" / "transcripts",
                 ROOT / "examples" / "transcripts"]
BEGIN, END = "<!-- bench.transcripts: generated, begin -->", "<!-- bench.transcripts: generated, end -->"
COLUMNS = ("files", "transcripts", "quarantined", "kept_filter", "kept_outcome", "samples", "tokens", "trained",
           "real", "templated")
logger = logging.getLogger("bench.transcripts")


def transcript_files(roots: list[Path]) -> list[Path]:
    return [p for root in roots for p in sorted(root.rglob("*")) if p.is_file() and p.name != "README.md"]


def measure(files: list[Path], tokenizer, sequence_length: int, config: SFTConfig) -> dict[str, Counter]:
    """Per format, the counts of ``COLUMNS`` over ``files``."""
    source = SourceConfig(name="bench", type="transcripts", paths=["unused"], limits=ReadLimits())
    judge = DocumentFilter(FiltersConfig())
    table: dict[str, Counter] = defaultdict(Counter)
    for path in files:
        outcomes = list(read_location(source, str(path)))
        docs = [o for o in outcomes if isinstance(o, Document)]
        for fmt in {d.metadata["format"] for d in docs} or {"(none)"}:
            table[fmt]["files"] += 1
        for doc in docs:
            row = table[doc.metadata["format"]]
            row["transcripts"] += 1
            if judge.drop_reason(doc) is not None:
                continue
            row["kept_filter"] += 1
            samples, reasons = sft_samples(doc, tokenizer, sequence_length, config)
            row["kept_outcome"] += not any(reason.startswith("outcome_") for reason in reasons)
            row["samples"] += len(samples)
            row["tokens"] += sum(len(s.tokens) for s in samples)
            row["trained"] += sum(int(s.loss_mask.sum()) for s in samples)
            row.update(s.summary for s in samples if s.summary)
        table["(none)" if not docs else docs[0].metadata["format"]]["quarantined"] += len(outcomes) - len(docs)
    return table


def render_table(table: dict[str, Counter], sequence_length: int) -> list[str]:
    lines = [f"Sequence length {sequence_length:,}:", "",
             ("| format | files | transcripts | quarantined | kept (filters) | kept (outcome policy) | SFT samples "
             "| tokens | trained tokens | real summaries | templated summaries |"),
             "|---|" + "---:|" * len(COLUMNS)]
    total: Counter = Counter()
    for fmt, row in sorted(table.items()):
        total.update(row)
        lines.append(f"| {fmt} | " + " | ".join(f"{row[c]:,}" for c in COLUMNS) + " |")
    lines.append("| **all** | " + " | ".join(f"**{total[c]:,}**" for c in COLUMNS) + " |")
    return [*lines, ""]


def render(tables: dict[int, dict[str, Counter]], args: argparse.Namespace, started: str, wall: float,
           files: int) -> str:
    lines = [
        "## Agent transcripts per format: file to SFT sample",
        "",
        (f"{started}; {common.machine()}; command `.venv/bin/python -m bench.transcripts {' '.join(args.argv)}`, "
         f"{wall:.1f} s for {files} files. Inputs: the per-format fixtures (tests/fixtures/transcripts), the real "
         "runs (../shared/data/transcripts) and the demo examples (examples/transcripts). Tokenizer: "
         f"{args.tokenizer}. SFT config: outcome_policy submitted, unknown_outcome keep (the demo's), reasoning "
         "masked. A file that holds several transcripts (a Claude Code session and its sub-agent, aider "
         "sessions) counts once under files. Kept (filters): the filter stage's content checks, datatrove's prose "
         "filters included, which read no tool or environment output. Real summaries: continuation samples opened "
         "by a model-written compaction summary (Codex `compacted`, Claude Code `isCompactSummary`, OpenHands "
         "`condensation`); templated: by the extractive one."),
        "",
    ]
    for sequence_length, table in tables.items():
        lines += render_table(table, sequence_length)
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.transcripts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", required=True, help="a tokenizer.json, e.g. the demo build's")
    parser.add_argument("--roots", nargs="*", type=Path, default=DEFAULT_ROOTS, help="folders of transcript files")
    parser.add_argument("--sequence-lengths", nargs="*", type=int, default=[16384, 512])
    parser.add_argument("--write", action="store_true", help="replace this bench's section of bench/RESULTS.md")
    args = parser.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    started = common.begin_run()
    tokenizer = load_tokenizer(args.tokenizer)
    files = transcript_files(args.roots)
    config = SFTConfig(outcome_policy="submitted", unknown_outcome="keep")
    begin = time.perf_counter()
    tables = {n: measure(files, tokenizer, n, config) for n in args.sequence_lengths}
    text = render(tables, args, started, time.perf_counter() - begin, len(files))
    print(text)
    if args.write:
        common.write_section(ROOT / "bench" / "RESULTS.md", text, BEGIN, END)
        logger.info("wrote bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
