"""Quarantine share of a crawl of real PyPI sdists, and what the readers made of text that is not UTF-8.

Reads every archive in a folder with the crawl's own reader (``read_counted``, source type
``archive``, no include globs: every member) and counts outcomes: documents, drops per reason,
quarantined, and for documents transcoded from a legacy encoding, the encoding and its evidence.
Run it on the code before and after a change with ``PYTHONPATH`` pointing at each checkout::

    grep -v '^#' bench/encoding_sdists.txt | grep . | xargs -P 4 -I{} \\
        .venv/bin/pip download --no-binary :all: --no-deps --dest bench/.cache/encoding_sdists {}
    PYTHONPATH=OLD .venv/bin/python -m bench.encodings bench/.cache/encoding_sdists --json before.json
    PYTHONPATH=NEW .venv/bin/python -m bench.encodings bench/.cache/encoding_sdists --json after.json
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

from codemix.document import Document, Dropped, Quarantined, ReadCount
from codemix.pipelines.readers import read_counted
from codemix.sources import SourceConfig


def crawl(folder: Path) -> dict:
    """Outcome counts over every archive in ``folder``, read as one ``archive`` source."""
    archives = sorted(str(p) for p in folder.iterdir() if p.name.endswith((".tar.gz", ".zip", ".tar.bz2", ".tgz")))
    source = SourceConfig(name="sdists", type="archive", paths=archives, license="MIT")
    counts: collections.Counter = collections.Counter()
    drops: collections.Counter = collections.Counter()
    errors: collections.Counter = collections.Counter()
    encodings: collections.Counter = collections.Counter()
    examples: dict[str, str] = {}
    start = time.process_time()
    for archive in archives:
        for outcome in read_counted(source, archive):
            if isinstance(outcome, ReadCount):
                counts["read"] += outcome.records
            elif isinstance(outcome, Document):
                counts["documents"] += 1
                if "original_encoding" in outcome.metadata:
                    key = f"{outcome.metadata['original_encoding']} ({outcome.metadata['encoding_evidence']})"
                    encodings[key] += 1
                    examples.setdefault(key, outcome.metadata.get("location", ""))
            elif isinstance(outcome, Dropped):
                drops[outcome.reason] += 1
            elif isinstance(outcome, Quarantined):
                counts["quarantined"] += 1
                errors[outcome.error.split(":")[0]] += 1
    return {"archives": len(archives), "read": counts["read"], "documents": counts["documents"],
            "dropped": dict(drops.most_common()), "quarantined": counts["quarantined"],
            "quarantine_errors": dict(errors.most_common()), "transcoded": dict(encodings.most_common()),
            "examples": examples, "cpu_seconds": round(time.process_time() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", type=Path, help="write the counts here too")
    args = parser.parse_args(argv)
    result = crawl(args.folder)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
