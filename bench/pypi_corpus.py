"""A directory of distinct real Python files from PyPI sdists, for scaling benches past what one
machine has installed (the stdlib and a virtualenv hold ~370 MB of distinct ``*.py`` text).

Run from the repository root (downloads ~1.4 GB from PyPI; the only step of any bench that needs
the network)::

    .venv/bin/python -m bench.pypi_corpus                        # -> bench/.cache/pypi_py, 1.3 GB
    .venv/bin/python -m bench.scale --base-megabytes 64 --roots bench/.cache/pypi_py ...

The sdists are the pinned archive names in ``bench/pypi_corpus.txt``, read in that order until
``--target-bytes`` of distinct text. Each archive is checked against PyPI's sha256 and streamed,
never extracted: only regular ``*.py`` members with safe relative paths, at most 2 MB and valid
UTF-8 are written, each distinct content once, to ``OUT/<archive stem>/<member path>``.
``OUT/SOURCES.txt`` lists the files and bytes taken from each archive.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import re
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from bench import tokenize as common

BENCH = Path(__file__).resolve().parent
MAX_FILE_BYTES = 2 << 20
logger = logging.getLogger("bench.pypi_corpus")


def archive_stem(archive: str) -> str:
    return re.sub(r"\.(tar\.gz|tar\.bz2|tgz|zip)$", "", archive)


def download(archive: str, downloads: Path) -> Path:
    """The sdist, fetched once from PyPI and checked against the sha256 PyPI publishes for it."""
    path = downloads / archive
    project, version = archive_stem(archive).rsplit("-", 1)
    with urllib.request.urlopen(f"https://pypi.org/pypi/{project}/json", timeout=60) as response:
        page, releases = response.geturl(), json.load(response)["releases"]
    entry = next(entry for entry in releases[version] if entry["filename"] == archive)
    if not path.exists():
        downloads.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(path.suffix + ".part")
        url = urllib.parse.urljoin(page, entry["url"])  # some mirrors give links relative to the page
        with urllib.request.urlopen(url, timeout=300) as response, partial.open("wb") as out:
            while chunk := response.read(1 << 20):
                out.write(chunk)
        partial.rename(path)
    if hashlib.sha256(path.read_bytes()).hexdigest() != entry["digests"]["sha256"]:
        raise ValueError(f"{path}: sha256 differs from PyPI's; delete it and run again")
    return path


def safe_member_path(name: str) -> PurePosixPath | None:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not name.endswith(".py"):
        return None
    return path


def python_members(path: Path) -> Iterator[tuple[PurePosixPath, bytes]]:
    """(member path, bytes) of every regular, safely named ``*.py`` member of at most 2 MB, streamed."""
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                member = safe_member_path(info.filename)
                is_link = (info.external_attr >> 16) & 0o170000 == 0o120000
                if member and not info.is_dir() and not is_link and info.file_size <= MAX_FILE_BYTES:
                    yield member, archive.read(info)
        return
    with tarfile.open(path, mode="r|*") as archive:
        for info in archive:
            member = safe_member_path(info.name)
            if member and info.isreg() and info.size <= MAX_FILE_BYTES:
                yield member, archive.extractfile(info).read()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pypi_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", type=Path, default=BENCH / "pypi_corpus.txt")
    parser.add_argument("--downloads", type=Path, default=BENCH / ".cache" / "pypi_sdists")
    parser.add_argument("--out", type=Path, default=BENCH / ".cache" / "pypi_py")
    parser.add_argument("--target-bytes", type=float, default=1.3e9)
    args = parser.parse_args(argv)
    common.begin_run()
    archives = [line.strip() for line in args.list.read_text().splitlines() if line.strip() and line[0] != "#"]
    seen, total, sources = set(), 0, []
    for archive in archives:
        if total >= args.target_bytes:
            break
        files = size = 0
        for member, data in python_members(download(archive, args.downloads)):
            digest = hashlib.sha256(data).digest()
            if digest in seen or total >= args.target_bytes:
                continue
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            seen.add(digest)
            target = args.out / archive_stem(archive) / member
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files, size, total = files + 1, size + len(data), total + len(data)
        sources.append(f"{archive}\t{files}\t{size}")
        logger.info("%s: %d files, %.1f MB; total %.1f MB", archive, files, size / 1e6, total / 1e6)
    (args.out / "SOURCES.txt").write_text("# archive\tfiles\tbytes\n" + "\n".join(sources) + f"\n# TOTAL {total}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
