"""Commits, notebooks and GitHub threads from real inputs, through the per-document half of a build:
read, redact, filter, exact dedup, tokenize. Per kind: records read, kept and dropped per reason,
quarantined, documents and tokens, and throughput in MB of document text per CPU second (this
process and its git children), plus a seeded sample of documents to check by hand.

    .venv/bin/python -m bench.beyond_files --tokenizer out/demo/tokenizer.json \\
        --commits /path/itsdangerous.git --notebooks /path/nbformat.git /path/nbconvert.git /path/IRkernel.git \\
        --pygithub /path/PyGithub.git --sample-out /tmp/samples.md --write
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import tokenize as common
from codemix.dedup.stage import text_digest
from codemix.document import Document, Dropped, Quarantined, ReadCount
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.licenses import LicenseConfig
from codemix.filters.secrets import RedactionConfig, redact_document
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pipelines.readers import read_counted
from codemix.sources import NotebookConfig, SourceConfig

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- bench.beyond_files: generated, begin -->", "<!-- bench.beyond_files: generated, end -->"
_ENDPOINT = re.compile(r"^/repos/([^/]+)/([^/]+)/(issues|pulls|events)(?:/(\d+))?(?:/(comments|files))?(?:\?.*)?$")


def cpu_seconds() -> float:
    """This process and its reaped children (every git the readers ran)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def pygithub_export(repo: str, out: Path) -> Path:
    """Every GET reply of PyGithub's recordings to an issue, pull, comment, file or event endpoint,
    one file per reply, named as ``gh api ENDPOINT > FILE`` would be (issues-N-comments-K.json)."""
    names = subprocess.run(["git", "--git-dir", repo, "ls-tree", "--name-only", "HEAD", "tests/ReplayData/"],
                           capture_output=True, text=True, check=True).stdout.split()
    count = 0
    for name in names:
        lines = subprocess.run(["git", "--git-dir", repo, "show", f"HEAD:{name}"], capture_output=True, text=True,
                               check=True).stdout.split("\n")
        for i in range(len(lines) - 9):
            match = _ENDPOINT.match(lines[i + 4]) if lines[i] in ("http", "https") and lines[i + 1] == "GET" else None
            if match and lines[i + 9].startswith(("[", "{")):
                owner, name_, kind, number, sub = match.groups()
                count += 1
                stem = "-".join(p for p in (owner, name_, kind, number, sub) if p)
                (out / f"{stem}-{count}.json").write_text(lines[i + 9] + "\n")
    return out


def measure(kind_sources: list[SourceConfig], document_filter: DocumentFilter, tokenizer) -> dict:
    """Read every location of the sources, then redact, judge, dedup and tokenize what they kept."""
    start = cpu_seconds()
    docs, dropped, quarantined, read = [], collections.Counter(), 0, 0
    for source, location in [(given, location) for given in kind_sources for location in given.paths]:
        for outcome in read_counted(source, location):
            if isinstance(outcome, Document):
                docs.append(outcome)
            elif isinstance(outcome, Dropped):
                dropped[outcome.reason] += 1
            elif isinstance(outcome, Quarantined):
                quarantined += 1
            elif isinstance(outcome, ReadCount):
                read += outcome.records
    read_cpu = cpu_seconds() - start
    redactions, kept = collections.Counter(), []
    for doc in docs:
        redacted, counts = redact_document(doc, RedactionConfig())
        redactions.update(counts)
        verdict = document_filter.judge(redacted)
        if verdict.reason is None:
            kept.append(verdict.document)
        else:
            dropped[verdict.reason] += 1
    digests, unique = set(), []
    for doc in kept:
        digest = text_digest(doc.to_row())
        if digest not in digests:
            digests.add(digest)
            unique.append(doc)
    duplicates = len(kept) - len(unique)
    text_mb = sum(len(doc.text.encode()) for doc in docs) / 1e6
    cpu = cpu_seconds() - start
    tokens = sum(len(encoding.ids) for encoding in tokenizer.encode_batch([doc.text for doc in unique]))
    return {"read": read, "documents_read": len(docs), "dropped": dict(sorted(dropped.items())),
            "quarantined": quarantined, "duplicates": duplicates, "kept": len(unique), "tokens": tokens,
            "text_mb": text_mb, "read_cpu": read_cpu, "cpu": cpu, "redactions": dict(redactions), "sample": unique}


def sources(args: argparse.Namespace, export: Path) -> dict[str, list[SourceConfig]]:
    """Per kind, its sources; a notebook repository given as PATH=SPDX declares its license (the bench
    reads only the .ipynb files, so the repository's LICENSE is not there to detect)."""
    notebooks = [SourceConfig(name=f"notebooks{i}", type="git", paths=[path], license=spdx, include=["*.ipynb"],
                              notebooks=NotebookConfig(layout="script"))
                 for i, (path, _, spdx) in enumerate(given.partition("=") for given in args.notebooks)]
    found = {"commit": [SourceConfig(name="commits", type="commits", paths=args.commits)], "notebook": notebooks,
             "issue": [SourceConfig(name="threads", type="issues", paths=[str(export)], license="LGPL-3.0")]}
    for kind, listed in found.items():
        for source in listed:
            source.validate(kind)
    return found


def render(results: dict[str, dict], args: argparse.Namespace, started: str) -> str:
    lines = ["## Commits, notebooks and GitHub threads: read to tokens (issue 28)\n",
             (f"{started}; {common.machine()}; command `.venv/bin/python -m bench.beyond_files "
             f"{' '.join(args.argv)}`. CPU: this process plus its git children (`RUSAGE_CHILDREN`). "
             "Throughput: MB of document text (as read, before redaction) per CPU second of read + redact + "
             "filter + exact dedup (tokenizing excluded). Filters: the defaults, licenses allowing the "
             "sources' own (BSD-3-Clause, LGPL-3.0) as well.\n"),
             ("| kind | records read | documents read | kept | duplicates | quarantined | tokens (kept) | text MB "
              "| read CPU s | total CPU s | MB / CPU s |"), "|---|" + "---:|" * 10]
    for kind, r in results.items():
        lines.append(f"| {kind} | {r['read']:,} | {r['documents_read']:,} | {r['kept']:,} | {r['duplicates']:,} | "
                     f"{r['quarantined']:,} | {r['tokens']:,} | {r['text_mb']:.2f} | {r['read_cpu']:.2f} | "
                     f"{r['cpu']:.2f} | {r['text_mb'] / max(r['cpu'], 1e-9):.2f} |")
    lines += ["", "| kind | dropped per reason | redactions per type |", "|---|---|---|"]
    for kind, r in results.items():
        reasons = ", ".join(f"{k} {v:,}" for k, v in r["dropped"].items()) or "-"
        redacted = ", ".join(f"{k} {v}" for k, v in sorted(r["redactions"].items())) or "-"
        lines.append(f"| {kind} | {reasons} | {redacted} |")
    return "\n".join(lines) + "\n"


def write_samples(results: dict[str, dict], path: Path, n: int, seed: int) -> None:
    rng, parts = random.Random(seed), []
    for kind, r in results.items():
        for doc in rng.sample(r["sample"], min(n, len(r["sample"]))):
            head = "\n".join(doc.text.split("\n")[:12])
            parts.append(f"### {kind}: {doc.metadata['location']}\n\n```\n{head}\n```\n")
    path.write_text("\n".join(parts))


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.beyond_files", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--commits", nargs="+", required=True, help="git repositories whose history to read")
    parser.add_argument("--notebooks", nargs="+", required=True, help="git repositories whose .ipynb files to read, as PATH=SPDX")
    parser.add_argument("--pygithub", required=True, help="a PyGithub clone: its recorded API replies")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--sample-out", type=Path, help="write the sampled documents' first lines here")
    parser.add_argument("--write", action="store_true", help="replace this bench's section of bench/RESULTS.md")
    args = parser.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    started = common.begin_run()
    tokenizer = load_tokenizer(args.tokenizer)
    document_filter = DocumentFilter(FiltersConfig(licenses=LicenseConfig(
        allowed=sorted({*LicenseConfig().allowed, "BSD-3-Clause", "LGPL-3.0"}))))
    with tempfile.TemporaryDirectory(prefix="bench-threads-") as tmp:
        export = pygithub_export(args.pygithub, Path(tmp))
        results = {kind: measure(source, document_filter, tokenizer) for kind, source in sources(args, export).items()}
    text = render(results, args, started)
    print(text)
    print(json.dumps({kind: {k: v for k, v in r.items() if k != "sample"} for kind, r in results.items()}, indent=1))
    if args.sample_out:
        write_samples(results, args.sample_out, args.sample, args.seed)
    if args.write:
        common.write_section(ROOT / "bench" / "RESULTS.md", text, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
