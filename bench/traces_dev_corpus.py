"""Issue 45's labelled development corpus: every spent holdout (``bench/traces_holdout*.tsv`` but the one not yet
run) plus runs collected for development (``bench/traces_dev_extra.tsv``), read with the transcript reader and
compared with message counts taken from each file without codemix.

    PYTHONSAFEPATH=1 python -m bench.traces_dev_corpus [--json OUT] [SYSTEM ...]

Per system: read or not (``whole``: the messages read are within 10% of the independent count; ``partial``:
some transcript was read; ``none``), messages read vs counted, the roles read and the first quarantine
reason. Files come from a local mirror of each repository (``git show COMMIT:PATH``, as the ``fetch`` tool
leaves it), cached under ``--cache``. Counts: ``bench.traces_holdout.SOURCE_COUNTS`` (holdouts 1-3, one
``json``/``re`` function per layout), the fourth holdout's collector's ``traces_holdout_4_counts.json``
(its stdlib script, ``repo/file`` keys), and ``bench.traces_dev_counts`` for the collected runs.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path

from bench.traces_dev_counts import EXTRA_COUNTS
from bench.traces_holdout import SOURCE_COUNTS, copy_sibling_records, given_count, slug
from codemix.document import Document, Quarantined
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

BENCH = Path(__file__).resolve().parent
# (holdout list, where its counts come from): a dict of counters by system, or a collector's JSON file.
CORPUS = ((BENCH / "traces_holdout.tsv", SOURCE_COUNTS), (BENCH / "traces_holdout_2.tsv", SOURCE_COUNTS),
          (BENCH / "traces_holdout_3.tsv", SOURCE_COUNTS), (BENCH / "traces_holdout_4.tsv", BENCH / "traces_holdout_4_counts.json"),
          (BENCH / "traces_holdout_5.tsv", BENCH / "traces_holdout_5_counts.json"),
          (BENCH / "traces_holdout_6.tsv", BENCH / "traces_holdout_6_counts.json"),
          (BENCH / "traces_holdout_7.tsv", BENCH / "traces_holdout_7_counts.json"),
          (BENCH / "traces_holdout_8.tsv", BENCH / "traces_holdout_8_counts.json"),
          (BENCH / "traces_holdout_9.tsv", BENCH / "traces_holdout_9_counts.json"),
          (BENCH / "traces_holdout_10.tsv", BENCH / "traces_holdout_10_counts.json"),
          (BENCH / "traces_holdout_11.tsv", BENCH / "traces_holdout_11_counts.json"),
          (BENCH / "traces_holdout_12.tsv", BENCH / "traces_holdout_12_counts.json"),
          (BENCH / "traces_holdout_13.tsv", BENCH / "traces_holdout_13_counts.json"),
          (BENCH / "traces_holdout_14.tsv", BENCH / "traces_holdout_14_counts.json"),
          (BENCH / "traces_holdout_15.tsv", BENCH / "traces_holdout_15_counts.json"),
          (BENCH / "traces_holdout_16.tsv", BENCH / "traces_holdout_16_counts.json"),
          (BENCH / "traces_holdout_17.tsv", BENCH / "traces_holdout_17_counts.json"),
          (BENCH / "traces_holdout_18.tsv", BENCH / "traces_holdout_18_counts.json"),
          (BENCH / "traces_dev_extra.tsv", EXTRA_COUNTS))


def corpus_rows(mirror: Path, cache: Path) -> list[dict]:
    """Every system of the corpus with its file (extracted from the mirror once) and its independent count."""
    rows = []
    for tsv, counts in CORPUS:
        given = json.loads(counts.read_text()) if isinstance(counts, Path) else {}
        for line in tsv.read_text().splitlines()[1:] if tsv.exists() else []:
            system, at, path = line.split("\t")[:3]
            repo, commit = at.split("@")
            target = cache / slug(system) / Path(path).name
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                git_dir = mirror / repo.replace("/", "+") / "repo"
                target.write_bytes(subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
                                                  check=True, capture_output=True).stdout)
                copy_sibling_records(git_dir, commit, path, target)
            row = {"system": system, "repo": at, "path": path, "file": target, "source": slug(system), "set": tsv.stem}
            counter = counts.get(system) if isinstance(counts, dict) else None
            row["counted"] = counter(target) if counter else given_count(given, row)
            rows.append(row)
    return rows


def read_row(row: dict, no_request: str = "opening_step") -> dict:
    """What the reader makes of one system's file: transcripts, messages, roles, formats, quarantines
    (``no_request``: the source's choice for runs no request reaches)."""
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], no_request=no_request,
                          limits=ReadLimits(max_file_bytes=50_000_000))
    outcomes = list(read_location(source, str(row["file"])))
    docs = [o for o in outcomes if isinstance(o, Document)]
    errors = [o.error for o in outcomes if isinstance(o, Quarantined)]
    messages = [m for d in docs for m in d.metadata["messages"]]
    roles = collections.Counter(m["role"] + ("/obs" if m.get("observation") else "") for m in messages)
    read, counted = len(messages), row["counted"]
    # a message tree's other branches are counted on its transcript (``branch_unread``), not read: accounted for
    unread = sum(int((d.metadata.get("transcript") or {}).get("branch_unread") or 0) for d in docs)
    state = ("none" if not docs else "whole" if counted and abs(read + unread - counted) <= 0.1 * counted
             else "false" if counted == 0 else "partial")  # ``false``: a file of no conversation was read
    return {"system": row["system"], "set": row["set"], "state": state, "counted": counted, "read": read,
            "branch_unread": unread,
            "transcripts": len(docs), "quarantined": len(errors), "roles": dict(roles),
            "formats": dict(collections.Counter(d.metadata.get("format") for d in docs)),
            "calls": sum(len(m.get("tool_calls") or []) for m in messages), "first_error": (errors or [""])[0][:160]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/traces-dev-corpus"))
    parser.add_argument("--json", type=Path, default=None, help="write the per-system results here")
    parser.add_argument("--no-request", default="opening_step", choices=("opening_step", "refuse"),
                        help="the sources' choice for runs no request reaches (SourceConfig.no_request)")
    parser.add_argument("only", nargs="*", help="systems whose name contains one of these (all by default)")
    args = parser.parse_args()
    results = []
    for row in corpus_rows(args.mirror, args.cache):
        if args.only and not any(o.lower() in row["system"].lower() for o in args.only):
            continue
        result = read_row(row, args.no_request)
        results.append(result)
        print(f"{result['state']:7s} {result['system'][:34]:34s} counted={result['counted']!s:>5} read={result['read']:5d} "
              f"tr={result['transcripts']:3d} q={result['quarantined']:3d} unread={result['branch_unread']} "
              f" {result['formats']} {result['roles']} "
              f"{result['first_error'][:90] if result['state'] == 'none' else ''}", flush=True)
    states = collections.Counter(r["state"] for r in results)
    runs = [r for r in results if r["counted"] != 0]
    read = collections.Counter(r["state"] for r in runs)
    print(f"{len(runs)} systems with a run: whole {read['whole']}, partial {read['partial']}, none {read['none']}; "
          f"{len(results) - len(runs)} controls of no conversation: read {states['false']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
