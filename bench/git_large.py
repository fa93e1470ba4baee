"""Peak memory reading a very large git repository, against its number of files.

    python -m bench.git_large 200000 50000 ...   # files per generated repository

Each repository is generated with ``git fast-import`` (one commit; files of 40-80 bytes spread over
folders of 1,000) and read whole by the git reader in a fresh process, which reports its peak RSS
(``ru_maxrss``, and the same after its imports, before reading) and the records it read. ``--reader FILE`` reads with another version of
``pipelines/readers/git.py`` (e.g. ``git show COMMIT:pipelines/readers/git.py > old.py``), to compare.
``--part I/N`` reads one part of N, as one worker of a split crawl does (it lists the whole tree and
reads only its part's blobs), and also times ``tree_size``, the listing that sizes the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import collections, importlib.util, json, resource, sys, time
from codemix.pipelines.readers import common
from codemix.sources import SourceConfig
path, reader_file, part = sys.argv[1], sys.argv[2], tuple(map(int, sys.argv[3].split("/")))
if reader_file:
    spec = importlib.util.spec_from_file_location("git_under_test", reader_file)
    module = importlib.util.module_from_spec(spec); sys.modules[spec.name] = module; spec.loader.exec_module(module)
else:
    from codemix.pipelines.readers import git as module
source = SourceConfig(name="bench", type="git", paths=[path])
imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start, counts = time.perf_counter(), collections.Counter()
for outcome in common.guarded(module.read_git, source, path, (part[0], part[1])):
    counts[type(outcome).__name__] += 1
read_s, sized = time.perf_counter() - start, time.perf_counter()
entries = module.tree_size(path, "HEAD") if part[1] > 1 else None
print(json.dumps({"seconds": round(read_s, 1), "counts": counts, "tree_size": entries,
                  "tree_size_s": round(time.perf_counter() - sized, 1),
                  "rss_after_imports_mb": round(imported, 1),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def generate(root: str, files: int) -> str:
    """A bare repository whose one commit holds ``files`` small files, written by git fast-import."""
    subprocess.run(["git", "init", "-q", "--bare", root], check=True)
    lines = []
    for i in range(files):
        data = f"def f{i}():\n    return {i} * {i % 97}\n".encode()
        lines.append(b"blob\nmark :%d\ndata %d\n%s\n" % (i + 1, len(data), data))
    lines.append(b"commit refs/heads/main\ncommitter b <b@b> 0 +0000\ndata 4\nbig\n")
    lines += [b"M 100644 :%d pkg%03d/mod%d.py\n" % (i + 1, i // 1000, i) for i in range(files)]
    subprocess.run(["git", "--git-dir", root, "fast-import", "--quiet"], input=b"".join(lines), check=True)
    subprocess.run(["git", "--git-dir", root, "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", type=int, nargs="+")
    parser.add_argument("--reader", default="")
    parser.add_argument("--part", default="0/1", help="I/N: read part I of N")
    args = parser.parse_args()
    for files in args.files:
        with tempfile.TemporaryDirectory(prefix="codemix-large-") as tmp:
            start = time.perf_counter()
            root = generate(os.path.join(tmp, "large.git"), files)
            made = time.perf_counter() - start
            result = subprocess.run([sys.executable, "-c", CHILD, root, args.reader, args.part], capture_output=True,
                                    text=True, check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
            print(json.dumps({"files": files, "part": args.part, "generated_s": round(made, 1),
                              **json.loads(result.stdout)}))


if __name__ == "__main__":
    main()
