"""A multi-GB corpus of real code for bench.scaleout: distinct text files from local Python roots and
bare git mirrors (HEAD and tags spread over each mirror's history), written as nested parts.

    .venv/bin/python -m bench.mirror_corpus /tmp/scaleout-corpus --megabytes 256 512 1024 2048

Every candidate is named by its git blob id (``sha1("blob <size>\\0" + bytes)``), so a text is kept
once whatever repository, tag or local root holds it. Candidates are taken in blob-id order (a hash:
a uniform sample of the pool) until each size is reached, and written under ``part-<MB>`` holding the
files between the previous size and this one, so size N is every part up to ``part-N`` and each size
holds the smaller ones. Kept: UTF-8 text without NUL, 1 byte to 1 MB. Left out: the secret scanners'
repositories (their fixtures are fake secrets by design). ``parts.json`` lists each part's files
and bytes and the refs read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from bench.tokenize import default_roots, python_files

MIRRORS = Path("/work/.mirror")
SKIP = ("trufflesecurity+trufflehog", "gitleaks+gitleaks")
TAGS_PER_REPOSITORY = 20
MAX_BYTES = 1 << 20


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def spread_tags(repo: Path, count: int) -> list[str]:
    """Up to ``count`` tags spread evenly over the repository's tags in creation order."""
    tags = git(repo, "tag", "--sort=creatordate").split()
    if len(tags) <= count:
        return tags
    return [tags[round(i * (len(tags) - 1) / (count - 1))] for i in range(count)]


def mirror_candidates(mirrors: Path) -> tuple[dict[str, tuple], list[str]]:
    """blob id -> ("git", repo, path, size), over HEAD and spread tags of every mirror."""
    found: dict[str, tuple] = {}
    refs = []
    for directory in sorted(mirrors.iterdir()):
        repo = directory / "repo"
        if directory.name in SKIP or not (repo / "HEAD").exists():
            continue
        for ref in ["HEAD", *spread_tags(repo, TAGS_PER_REPOSITORY)]:
            try:
                listing = git(repo, "ls-tree", "-r", "-l", "-z", ref)
            except subprocess.CalledProcessError:
                continue
            refs.append(f"{directory.name}@{ref}")
            for line in filter(None, listing.split("\0")):
                meta, path = line.split("\t", 1)
                mode, kind, sha, size = meta.split()
                if kind == "blob" and size.isdigit() and 0 < int(size) <= MAX_BYTES and not mode.startswith("12"):
                    found.setdefault(sha, ("git", str(repo), path, directory.name))
    return found, refs


def local_candidates(roots: list[Path]) -> dict[str, tuple]:
    found = {}
    for path in python_files(roots):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if 0 < len(data) <= MAX_BYTES:
            found.setdefault(blob_id(data), ("file", str(path), path.name, "local"))
    return found


def text_of(data: bytes) -> bool:
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class BlobReader:
    """``git cat-file --batch`` per repository, started on first use."""

    def __init__(self):
        self.processes: dict[str, subprocess.Popen] = {}

    def read(self, repo: str, sha: str) -> bytes:
        process = self.processes.get(repo)
        if process is None:
            process = subprocess.Popen(["git", "--git-dir", repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE)
            self.processes[repo] = process
        process.stdin.write(sha.encode() + b"\n")
        process.stdin.flush()
        _, _, size = process.stdout.readline().split()
        data = process.stdout.read(int(size))
        process.stdout.read(1)
        return data

    def close(self) -> None:
        for process in self.processes.values():
            process.stdin.close()
            process.wait()


def write_parts(out: Path, megabytes: list[float], candidates: dict[str, tuple]) -> list[dict]:
    reader, parts = BlobReader(), []
    limits = iter(sorted(megabytes))
    limit = next(limits)
    part = {"megabytes": limit, "files": 0, "bytes": 0}
    total = 0
    for sha in sorted(candidates):
        kind, where, path, origin = candidates[sha]
        data = reader.read(where, sha) if kind == "git" else Path(where).read_bytes()
        if not text_of(data):
            continue
        target = out / f"part-{limit:g}MB" / origin / sha[:2] / f"{sha[2:12]}_{os.path.basename(path)[-80:]}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        part["files"] += 1
        part["bytes"] += len(data)
        total += len(data)
        if total >= limit * 1e6:
            parts.append(part)
            print(f"part {limit:g} MB: {part['files']} files, {part['bytes'] / 1e6:.1f} MB", file=sys.stderr)
            limit = next(limits, None)
            if limit is None:
                break
            part = {"megabytes": limit, "files": 0, "bytes": 0}
    reader.close()
    if limit is not None:
        raise SystemExit(f"the pool ran out at {total / 1e6:.0f} MB, short of {limit:g} MB")
    return parts


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.mirror_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--megabytes", type=float, nargs="+", default=[256, 512, 1024, 2048])
    parser.add_argument("--mirrors", type=Path, default=MIRRORS)
    args = parser.parse_args(argv)
    candidates, refs = mirror_candidates(args.mirrors)
    print(f"{len(candidates)} blobs from {len(refs)} refs, {sum(1 for _ in candidates)} candidates", file=sys.stderr)
    local = local_candidates(default_roots())
    for sha, entry in local.items():
        candidates.setdefault(sha, entry)
    print(f"{len(candidates)} candidates with {len(local)} local .py", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    parts = write_parts(args.out, args.megabytes, candidates)
    (args.out / "parts.json").write_text(json.dumps({"parts": parts, "refs": refs}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
