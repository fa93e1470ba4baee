"""Secret detection/redaction speed: MB of a corpus redacted per CPU second, by checkout.

    PYTHONPATH=. PYTHONSAFEPATH=1 .venv/bin/python -m bench.redaction_speed CORPUS --tree /tmp/old-tree --tree . [--rounds 3]

``CORPUS`` is a folder ``bench.mixed_corpus`` wrote. Each round runs every ``--tree`` in turn (the order
rotated each round), each in a fresh process with ``PYTHONPATH=<tree>``, which reads the corpus, then
times ``redact_text`` over every file with the process's CPU clock (reading excluded). Prints per tree
the median, min and max MB per CPU s and the sha256 of all redacted texts (equal hashes: same output).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import hashlib, json, sys, time
from pathlib import Path
from bench.mixed_corpus import read
from codemix.filters import secrets
files = read(Path(sys.argv[1]))
config = secrets.RedactionConfig()
digest = hashlib.sha256()
start = time.process_time()
for path, language, text in files:
    redacted, _ = secrets.redact_text(text, config, language)
    digest.update(path.encode() + b"\\0" + redacted.encode() + b"\\0")
cpu = time.process_time() - start
print(json.dumps({"file": secrets.__file__, "cpu_s": cpu, "mb": sum(len(t.encode()) for _, _, t in files) / 1e6,
                  "sha256": digest.hexdigest()}))
"""


def run(tree: Path, corpus: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(corpus)], env=env, cwd=tree, check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    if not result["file"].startswith(str(tree.resolve())):
        raise SystemExit(f"{tree}: imported {result['file']}, not this checkout")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--tree", type=Path, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trees = [t.resolve() for t in args.tree]
    results: dict[Path, list[dict]] = {t: [] for t in trees}
    for r in range(args.rounds):
        for tree in trees[r % len(trees):] + trees[:r % len(trees)]:
            results[tree].append(run(tree, args.corpus))
            print(f"round {r + 1} {tree}: {results[tree][-1]['cpu_s']:.2f} CPU s", file=sys.stderr)
    for tree, rounds in results.items():
        rates = [x["mb"] / x["cpu_s"] for x in rounds]
        print(json.dumps({"tree": str(tree), "mb": rounds[0]["mb"], "cpu_s": [round(x["cpu_s"], 2) for x in rounds],
                          "mb_per_cpu_s": {"median": round(statistics.median(rates), 2), "min": round(min(rates), 2),
                                           "max": round(max(rates), 2)},
                          "sha256": sorted({x["sha256"] for x in rounds})}))


if __name__ == "__main__":
    main()
