"""``.h`` labels on real repositories against what a compiler accepts (issue 35).

    python -m bench.header_languages GIT_DIR [GIT_DIR ...] [--before OLD_LANGUAGE_PY]

For each repository (read at HEAD, extracted with ``git archive``) every ``.h`` file is labelled by
``header_language`` with the repository's census, and by the rule in ``--before`` (a copy of an older
``pipelines/readers/language.py``) alone. The independent reference is the compiler: each header is
checked with ``gcc -fsyntax-only -x c`` and ``g++ -fsyntax-only -x c++`` (include path: the header's
folder, the repository root and every folder holding a header). A header only g++ accepts is C++; one
that gcc accepts is valid C (a C++ library's neutral header may be labelled either); one neither
accepts (missing generated config, platform headers) says nothing. Prints one row per repository.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codemix.pipelines.readers.language import SourceCensus, header_language


def extract(git_dir: str, into: str) -> list[str]:
    """HEAD's files under ``into``; the repository's paths."""
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD"],
                             capture_output=True, text=True, check=True).stdout
    return listing.splitlines()


def compiles(root: str, header: str, includes: list[str], language: str) -> bool:
    compiler = "gcc" if language == "c" else "g++"
    flags = ["-I", os.path.join(root, os.path.dirname(header)), *(f"-I{d}" for d in includes)]
    result = subprocess.run([compiler, "-fsyntax-only", "-x", language, *flags, os.path.join(root, header)],
                            capture_output=True, timeout=60, check=False)
    return result.returncode == 0


def verdict(root: str, header: str, includes: list[str]) -> str:
    """``c`` (gcc accepts it), ``cpp`` (only g++ does) or ``?`` (neither)."""
    if compiles(root, header, includes, "c"):
        return "c"
    return "cpp" if compiles(root, header, includes, "c++") else "?"


def load_rule(path: str):
    spec = importlib.util.spec_from_file_location("old_language", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.header_language


def repository_row(git_dir: str, before) -> dict:
    with tempfile.TemporaryDirectory(prefix="codemix-headers-") as root:
        paths = extract(git_dir, root)
        census = SourceCensus.of(paths)
        headers = [p for p in paths if p.endswith(".h") and os.path.isfile(os.path.join(root, p))]
        includes = sorted({root} | {os.path.join(root, os.path.dirname(h)) for h in headers})
        with ThreadPoolExecutor(2) as pool:
            verdicts = list(pool.map(lambda h: verdict(root, h, includes), headers))
        row = collections.Counter()
        wrong = []
        for header, compiler in zip(headers, verdicts):
            text = Path(root, header).read_text(encoding="utf-8", errors="replace")
            now = header_language(text, census)
            row[f"{now}/{compiler}"] += 1
            if before is not None:
                row[f"before {before(text)}/{compiler}"] += 1
            if compiler == "cpp" and now != "cpp" or compiler == "c" and census.cpp == 0 and now != "c":
                wrong.append(f"{header} ({now}, compiler {compiler})")
        return {"repo": git_dir, "census": census, "headers": len(headers), "counts": dict(sorted(row.items())),
                "disagreements": wrong}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dirs", nargs="+")
    parser.add_argument("--before", help="an older language.py whose header_language(text) to compare")
    args = parser.parse_args()
    before = load_rule(args.before) if args.before else None
    for git_dir in args.git_dirs:
        print(repository_row(git_dir, before), flush=True)


if __name__ == "__main__":
    main()
