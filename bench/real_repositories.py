"""Real repositories through the crawl and filter decisions: files read, kept and dropped per reason
per language, and each repository's license decision (issues 32 and 35).

    python -m bench.real_repositories GIT_DIR...

Each repository's HEAD is read by the git reader; licenses are resolved as the filter stage does
(default, REUSE rules, SPDX headers), amalgamations found per repository, then every document is
judged by ``DocumentFilter`` with the default policy (decontamination off: no benchmark overlap).
"""

from __future__ import annotations

import collections
import sys

from codemix.document import Document, Dropped
from codemix.filters.amalgamation import LANGUAGES as AMALGAM_LANGUAGES
from codemix.filters.amalgamation import amalgamated, line_hashes
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import DecontaminationConfig
from codemix.pipelines.filter import document_license, license_evidence, resolve_repository_license
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig


def judge_repository(git_dir: str, document_filter: DocumentFilter) -> tuple[str, collections.Counter, list]:
    """(license default, Counter of (language, outcome), dropped (path, reason) list)."""
    outcomes = list(read_location(SourceConfig(name="bench", type="git", paths=[git_dir]), git_dir))
    docs = [o for o in outcomes if isinstance(o, Document)]
    evidence = collections.defaultdict(list)
    for doc in docs:
        for key, value in license_evidence(doc):
            evidence[key].append(value)
    licenses = dict(resolve_repository_license(key, values) for key, values in evidence.items())
    amalgams = amalgamated({doc.path: line_hashes(doc.text) for doc in docs if doc.language in AMALGAM_LANGUAGES})
    counts, dropped = collections.Counter(), []
    for outcome in outcomes:
        if isinstance(outcome, Dropped):
            counts[("-", f"crawl:{outcome.reason}")] += 1
            continue
        if not isinstance(outcome, Document):
            counts[("-", "quarantined")] += 1
            continue
        reason = "amalgamated" if outcome.path in amalgams else \
            document_filter.judge(outcome, document_license(outcome, licenses)).reason
        counts[(outcome.language or "?", reason or "kept")] += 1
        if reason:
            dropped.append((outcome.path, reason))
    default = next(iter(licenses.values())).default if licenses else ""
    return default, counts, dropped


def main(git_dirs: list[str]) -> None:
    document_filter = DocumentFilter(FiltersConfig(decontamination=DecontaminationConfig(enabled=False)))
    for git_dir in git_dirs:
        default, counts, dropped = judge_repository(git_dir, document_filter)
        read = sum(counts.values())
        kept = sum(n for (_, outcome), n in counts.items() if outcome == "kept")
        reasons = collections.Counter()
        for (_, outcome), n in counts.items():
            if outcome != "kept":
                reasons[outcome] += n
        languages = collections.Counter()
        for (language, outcome), n in counts.items():
            if outcome == "kept":
                languages[language] += n
        print(f"{git_dir}: license {default!r}; read {read}, kept {kept}; dropped {dict(reasons.most_common())}")
        print(f"  kept per language: {dict(languages.most_common(8))}")
        for path, reason in dropped[:: max(1, len(dropped) // 20)][:20]:
            print(f"    {reason:28} {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
