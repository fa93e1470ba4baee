"""Real repositories through the crawl and filter decisions: files read, kept and dropped per reason
per language, each repository's license decision (beside REUSE's per-file reading when given), import
edges from kept files to dropped ones in the long documents, and a sample of drops to judge by hand
(issues 32 and 35).

    python -m bench.real_repositories [--samples DIR] [--reuse DIR] GIT_DIR...

Each repository's HEAD is read by the git reader; licenses are resolved as the filter stage does
(default, REUSE rules, SPDX headers), amalgamations found per repository, then every document is
judged by ``DocumentFilter`` with the default policy (decontamination off: no benchmark overlap).
The long documents hold the kept files and the held files kept files import
(``mixtures.repository.imported_by_kept``); edges are ``mixtures.imports.import_graph``'s.
``--samples DIR`` writes 20 drops per repository (seeded by its name) with their first lines to
``DIR/NAME.jsonl``; ``--reuse DIR`` reads ``DIR/NAME.json`` from ``bench/reuse_reading.py``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
from dataclasses import dataclass, field

from bench.licenses_reuse import reuse_reading, same
from codemix.document import Document, Dropped
from codemix.filters.amalgamation import LANGUAGES as AMALGAM_LANGUAGES
from codemix.filters.amalgamation import amalgamated, line_hashes
from codemix.filters.apply import DocumentFilter, held_for_imports
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import DecontaminationConfig
from codemix.mixtures.imports import import_graph
from codemix.mixtures.repository import imported_by_kept
from codemix.pipelines.filter import document_license, license_evidence, resolve_repository_license
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

SAMPLE = 20


@dataclass(slots=True)
class Judged:
    """One repository: its license default and, per file, (language, reason or None for kept, license)."""

    license: str = ""
    files: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)
    docs: dict[str, Document] = field(default_factory=dict)


def judge_repository(git_dir: str, document_filter: DocumentFilter) -> Judged:
    outcomes = list(read_location(SourceConfig(name="bench", type="git", paths=[git_dir]), git_dir))
    docs = [o for o in outcomes if isinstance(o, Document)]
    evidence = collections.defaultdict(list)
    for doc in docs:
        for key, value in license_evidence(doc):
            evidence[key].append(value)
    licenses = dict(resolve_repository_license(key, values) for key, values in evidence.items())
    amalgams = amalgamated({doc.path: line_hashes(doc.text) for doc in docs if doc.language in AMALGAM_LANGUAGES})
    judged = Judged(license=next(iter(licenses.values())).default if licenses else "")
    for outcome in outcomes:
        if isinstance(outcome, Dropped):
            judged.files[outcome.location.rsplit(":", 1)[-1]] = ("-", f"crawl:{outcome.reason}", "")
        elif isinstance(outcome, Document):
            license = document_license(outcome, licenses)
            reason = document_filter.judge(outcome, license).reason
            if outcome.path in amalgams and (reason is None or held_for_imports(outcome, reason)):
                reason = "amalgamated"  # as pipelines.filter.filter_outcomes decides
            judged.files[outcome.path] = (outcome.language or "?", reason, license)
            judged.docs[outcome.path] = outcome
        else:
            judged.files[outcome.location.rsplit(":", 1)[-1]] = ("-", "quarantined", "")
    return judged


def import_edges(judged: Judged) -> dict[str, int]:
    """Edges from files in the long documents to files left out, before and after held files are put back."""
    graph = import_graph([(d.path, d.language or "", d.text) for d in judged.docs.values()])
    kept = {p for p, (_, reason, _) in judged.files.items() if reason is None}
    held = {p for p, (_, reason, _) in judged.files.items()
            if reason and p in judged.docs and held_for_imports(judged.docs[p], reason)}
    placed = kept | imported_by_kept(kept, held, graph)
    def out_of(inside: set[str]) -> list[str]:
        return [judged.files[t][1] for s in inside for t in graph.get(s, ()) if t not in inside]
    after = out_of(placed)
    return {"edges": sum(len(graph.get(s, ())) for s in placed), "to_dropped_before": len(out_of(kept)),
            "to_dropped_after": len(after), "put_back": len(placed - kept),
            **{f"after:{reason}": n for reason, n in collections.Counter(after).items()}}


def per_language(judged: Judged) -> dict[str, collections.Counter]:
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for language, reason, _ in judged.files.values():
        table[language]["read"] += 1
        table[language][reason or "kept"] += 1
    return table


def license_check(judged: Judged, reading_path: str) -> str:
    """How many files REUSE gives a license agree with ours (kept or not)."""
    if not os.path.exists(reading_path):
        return "no REUSE reading"
    theirs = reuse_reading(reading_path)
    covered = [p for p in theirs if p in judged.files and judged.files[p][2] and theirs[p]]
    agree = sum(same(judged.files[p][2], theirs[p]) for p in covered)
    return f"REUSE gives {len(covered)} files a license, {agree} agree"


def sample_drops(name: str, judged: Judged) -> list[dict]:
    dropped = sorted(p for p, (_, reason, _) in judged.files.items() if reason)
    chosen = sorted(random.Random(name).sample(dropped, min(SAMPLE, len(dropped))))
    return [{"path": p, "reason": judged.files[p][1], "language": judged.files[p][0],
             "head": judged.docs[p].text[:700] if p in judged.docs else ""} for p in chosen]


def report(name: str, judged: Judged, args: argparse.Namespace) -> None:
    table = per_language(judged)
    read = sum(c["read"] for c in table.values())
    kept = sum(c["kept"] for c in table.values())
    print(f"## {name}: license {judged.license!r}; read {read}, kept {kept}; "
          f"{license_check(judged, os.path.join(args.reuse or '', f'{name}.json'))}")
    print(f"  import edges: {import_edges(judged)}")
    for language, counts in sorted(table.items(), key=lambda item: -item[1]["read"]):
        drops = {k: v for k, v in counts.most_common() if k not in ("read", "kept")}
        print(f"  {language}: read {counts['read']}, kept {counts['kept']}, dropped {drops}")
    if args.samples:
        with open(os.path.join(args.samples, f"{name}.jsonl"), "w", encoding="utf-8") as out:
            out.writelines(json.dumps(row) + "\n" for row in sample_drops(name, judged))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("git_dirs", nargs="+")
    parser.add_argument("--samples", help="folder for NAME.jsonl: 20 drops per repository to judge")
    parser.add_argument("--reuse", help="folder of NAME.json from bench/reuse_reading.py")
    args = parser.parse_args()
    document_filter = DocumentFilter(FiltersConfig(decontamination=DecontaminationConfig(enabled=False)))
    for git_dir in args.git_dirs:
        name = os.path.basename(os.path.dirname(os.path.abspath(git_dir))) or git_dir
        report(name, judge_repository(git_dir, document_filter), args)


if __name__ == "__main__":
    main()
