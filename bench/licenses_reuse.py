"""Per-file licenses: codemix's reading of real repositories beside the ``reuse`` tool's.

    python -m bench.licenses_reuse GIT_DIR [READING_JSON]   # bench/reuse_reading.py on a checkout of GIT_DIR's HEAD

Reads GIT_DIR's HEAD with the git reader, resolves licenses as the filter stage does (repository
default, REUSE path rules, each file's SPDX header), and compares every kept document's expression
with the expressions REUSE finds in force for the same path (several: all in force, AND).
Prints the agreement count and every disagreement.
"""

from __future__ import annotations

import collections
import json
import sys

from codemix.document import Document
from codemix.filters.licenses import (
    LicenseConfig,
    _render,
    combine,
    license_drop_reason,
    normalize_license,
    parse_expression,
)
from codemix.pipelines.filter import document_license, license_evidence, resolve_repository_license
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig


def reuse_reading(path: str) -> dict[str, str]:
    """``{path: expression}`` from ``bench/reuse_reading.py``'s JSON; several expressions: AND."""
    with open(path, encoding="utf-8") as handle:
        return {p: combine(normalize_license(e, spdx_field=True) for e in found)
                for p, found in json.load(handle).items()}


def conjuncts(expression: str) -> frozenset[str]:
    """The parts of a top-level AND, canonically spelled, so "MIT AND MIT" reads as "MIT"."""
    node = parse_expression(expression)
    if node is None:
        return frozenset({expression})
    return frozenset(_render(child) for child in node[1]) if node[0] == "AND" else frozenset({_render(node)})


def same(ours: str, theirs: str) -> bool:
    return conjuncts(ours) == conjuncts(theirs)


def main(git_dir: str, reading_path: str) -> None:
    source = SourceConfig(name="bench", type="git", paths=[git_dir])
    docs = [o for o in read_location(source, git_dir) if isinstance(o, Document)]
    evidence = collections.defaultdict(list)
    for doc in docs:
        for key, value in license_evidence(doc):
            evidence[key].append(value)
    licenses = dict(resolve_repository_license(key, values) for key, values in evidence.items())
    print(f"default {next(iter(licenses.values())).default!r}; rules {len(next(iter(licenses.values())).rules)}")
    theirs = reuse_reading(reading_path) if reading_path else {}
    agree, differ, kept = 0, [], collections.Counter()
    for doc in docs:
        ours = document_license(doc, licenses)
        kept[license_drop_reason(ours, LicenseConfig()) or "kept"] += 1
        if doc.path not in theirs:
            continue
        if same(ours, theirs[doc.path]):
            agree += 1
        else:
            differ.append((doc.path, ours, theirs[doc.path]))
    print(f"{len(docs)} documents, {agree + len(differ)} also in REUSE's reading: {agree} agree, {len(differ)} differ")
    print(f"default policy: {dict(kept)}")
    for path, ours, reuse in differ:
        print(f"  {path}: ours {ours!r}, reuse {reuse!r}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
