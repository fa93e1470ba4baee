"""Import order of the long stage on real repositories: the greedy rule alone against components first.

Run by hand from the repository root (pytest does not collect it)::

    .venv/bin/python -m bench.import_order NAME=GIT_DIR[@REF] ...    # bare or working git directories

Each repository's files at REF are read from git (``ls-tree``/``cat-file``, no checkout), with the
language the crawl gives them; files over 1 MB or not UTF-8 are left out, as the crawl's filters
would. Both orders see the same ``mixtures.imports`` graph; the report counts edges, cycles, and
edges that point forward (a file placed before a file it imports) outside and inside cycles.
"""

from __future__ import annotations

import argparse
import subprocess
import time
from collections import defaultdict

from codemix.mixtures.imports import import_graph
from codemix.mixtures.repository import _fewest_imports_first, dependency_order, import_order_report
from codemix.pipelines.readers.language import detect_language

MAX_BYTES = 1_000_000


def read_repository(git_dir: str, ref: str) -> list[tuple[str, str, str]]:
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-l", "-z", ref], check=True,
                             capture_output=True).stdout.decode().split("\0")
    blobs = []
    for entry in filter(None, listing):
        meta, path = entry.split("\t", 1)
        _, kind, sha, size = meta.split()
        if kind == "blob" and size.isdigit() and int(size) <= MAX_BYTES:
            blobs.append((path, sha))
    batch = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(f"{sha}\n" for _, sha in blobs).encode()).stdout
    files, offset = [], 0
    for path, _ in blobs:
        header_end = batch.index(b"\n", offset)
        size = int(batch[offset:header_end].split()[2])
        data = batch[header_end + 1:header_end + 1 + size]
        offset = header_end + 1 + size + 1
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        files.append((path, detect_language(path, text), text))  # "" too: the crawl keeps go.mod
    return files


def greedy_order(paths: list[str], graph: dict[str, set[str]]) -> list[str]:
    """The baseline: DeepSeek-Coder's rule over the whole repository as one component (codemix before)."""
    nodes = sorted(set(paths))
    present = set(nodes)
    return _fewest_imports_first(nodes, {p: sorted(d for d in graph.get(p, ()) if d in present and d != p) for p in nodes})


def measure(name: str, git_dir: str, ref: str) -> dict:
    files = read_repository(git_dir, ref)
    languages = defaultdict(int)
    for _, language, _ in files:
        languages[language or "unknown"] += 1
    graph = import_graph(files)
    paths = [path for path, _, _ in files]
    start = time.process_time()
    after = dependency_order(paths, graph)
    seconds = time.process_time() - start
    before = import_order_report(greedy_order(paths, graph), graph)
    report = import_order_report(after, graph)
    top = ", ".join(f"{lang} {n}" for lang, n in sorted(languages.items(), key=lambda kv: -kv[1])[:3])
    return {"name": name, "ref": ref, "files": report.files, "languages": top, "edges": report.edges,
            "cycles": report.cycles, "cycle_edges": report.cycle_edges,
            "before": before.forward_outside_cycles, "after": report.forward_outside_cycles,
            "inside_before": before.forward_inside_cycles, "inside_after": report.forward_inside_cycles,
            "order_cpu_s": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.import_order", description=__doc__.splitlines()[0])
    parser.add_argument("repositories", nargs="+", help="NAME=GIT_DIR[@REF] (REF defaults to HEAD)")
    args = parser.parse_args(argv)
    print("| repository | ref | files | top languages | import edges | cycles | edges in cycles "
          "| forward outside cycles, greedy | forward outside cycles, components | forward inside cycles "
          "(greedy / components) | order CPU s |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for item in args.repositories:
        name, _, location = item.partition("=")
        git_dir, _, ref = location.partition("@")
        row = measure(name, git_dir, ref or "HEAD")
        print(f"| {row['name']} | `{row['ref'][:12]}` | {row['files']:,} | {row['languages']} | {row['edges']:,} "
              f"| {row['cycles']} | {row['cycle_edges']:,} | {row['before']:,} | {row['after']:,} "
              f"| {row['inside_before']:,} / {row['inside_after']:,} | {row['order_cpu_s']:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
