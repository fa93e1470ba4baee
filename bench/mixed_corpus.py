"""A mixed-language corpus from public repositories at pinned commits (issue 49), for bench.build and
bench.decontamination_languages.

    .venv/bin/python -m bench.mixed_corpus /tmp/mixed --megabytes 50

Each repository of ``REPOSITORIES`` is read from its bare mirror (the ``fetch`` tool's
``/work/.mirror/<owner>+<name>/repo``) at the commit listed there (refused if the mirror's HEAD moved:
the corpus is the listed one or none). Source files (a language ``detect_language`` names and
``LANGUAGES`` keeps), UTF-8 without NUL, 1 byte to 1 MB, are written under ``<out>/<owner>+<name>/<path>``
in the order of their paths' SHA-1 (a uniform sample), the next file always from the source with the fewest
bytes so far, until ``--megabytes``; the Python part
comes from the standard library (``bench.tokenize.default_roots``' first root). ``MORE_REPOSITORIES`` (for
the 200 MB race) are drawn from only once every file of the first table is written, so every corpus the
first table can fill (up to ~65 MB: the 3, 12, 16 and 50 MB corpora of bench/RESULTS.md) keeps exactly the
files it had. ``corpus.json`` lists each repository@commit the corpus drew from and the bytes per language.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sysconfig
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from codemix.pipelines.readers.language import detect_language

MIRRORS = Path("/work/.mirror")
# owner/name -> commit (the snapshot the fetch tool gave on 2026-11-29).
REPOSITORIES = {
    "go-delve/delve": "3b77598674c20a03bdfa41a5d0e3f42943d532ac",
    "google/gson": "9835b6f90192f79cdf5300c528fc6212455fb6c1",
    "BurntSushi/ripgrep": "3fce3b5bb0236da2df6d99672afb8a719642eca7",
    "tree-sitter/tree-sitter": "74b7d0c951ebdab16a8a4d64e7cf81e56046408a",
    "curl/curl": "5c61e168698a72b87437d58ed728bcdea6d5db42",
    "gabime/spdlog": "62302019babd8fdf63c1c6dc4c9faa48d441a7f0",
    "zeromq/libzmq": "6b708e4a453a31e240211792f42e4f0c67b7fc03",
    "vuejs/core": "e2bede96134f757aad5c5b33ac9be055022dbfc8",
    "jquery/jquery": "51eb576cca6ffce252dc152bf8e91d5230a0d887",
}
# The second table (snapshots of 2024-10 to 2026-08, fetched on 2026-11-29), read after the first is used up:
# ~150 MB more source, for the >= 200 MB race. Not redis: its code since 2024-03 is RSALv2/SSPL (valkey is
# its BSD-3-Clause fork).
MORE_REPOSITORIES = {
    "valkey-io/valkey": "55bbbe09a3b37a98c907dbfbc225768ff253e84f",
    "prometheus/prometheus": "d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86",
    "tokio-rs/tokio": "ea91b33ca57ff0581b38e735cc108f831bccbdaa",
    "rust-lang/cargo": "af373f761aa4e42b093c2e453078fd73c8ce54dd",
    "serde-rs/serde": "1023d077510b4aef36a41ef56fdb7798568a2654",
    "apache/commons-lang": "d15939ef46f0bd4144994df8be95cf5a7f91eb52",
    "apache/commons-collections": "cf36204c913a268681f9e7786f48383d6a464ed4",
    "ocornut/imgui": "46d39d56febc2a00bdd2270dc88c8a13f2a0441a",
    "fmtlib/fmt": "60ccad511fd680cb91d8b60a315759f71c67bef9",
    "google/googletest": "7260682388d493f155be62c3ce2efc7c7a9a3dcf",
    "lodash/lodash": "9429a4ee03056e5b7be9a85a54571d7630f05983",
    "mozilla/pdf.js": "0f26334f9d6f96119f6e5164fb65832fbbde7344",
    "google-gemini/gemini-cli": "5411f113cafae26161b4969b0237b8e1e024e2c2",
    "sympy/sympy": "e950d313a932bc6cccbc95376b3821cd2f8b5af4",
    "astropy/astropy": "1fdfae1fe1881234e08855ac662dae86e538ed7c",
    "sphinx-doc/sphinx": "e44a40eb2f810558ccd9da1425421270ccb81351",
}
# Each source's license (SPDX), declared in bench.build's spec: the repository's own LICENSE/COPYING.
LICENSES = {"go-delve+delve": "MIT", "google+gson": "Apache-2.0", "BurntSushi+ripgrep": "MIT",
            "tree-sitter+tree-sitter": "MIT", "curl+curl": "curl", "gabime+spdlog": "MIT", "zeromq+libzmq": "MPL-2.0",
            "vuejs+core": "MIT", "jquery+jquery": "MIT", "python+stdlib": "PSF-2.0",
            "valkey-io+valkey": "BSD-3-Clause", "prometheus+prometheus": "Apache-2.0", "tokio-rs+tokio": "MIT",
            "rust-lang+cargo": "MIT", "serde-rs+serde": "MIT", "apache+commons-lang": "Apache-2.0",
            "apache+commons-collections": "Apache-2.0", "ocornut+imgui": "MIT", "fmtlib+fmt": "MIT",
            "google+googletest": "BSD-3-Clause", "lodash+lodash": "MIT", "mozilla+pdf.js": "Apache-2.0",
            "google-gemini+gemini-cli": "Apache-2.0", "sympy+sympy": "BSD-3-Clause",
            "astropy+astropy": "BSD-3-Clause", "sphinx-doc+sphinx": "BSD-2-Clause"}
LANGUAGES = frozenset({"python", "go", "java", "rust", "c", "cpp", "javascript", "typescript", "tsx"})
MAX_BYTES = 1 << 20


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True, input=data).stdout


def repository_files(name: str, commit: str) -> list[tuple[str, str, str]]:
    """(path, language, text) of every kept file of ``name`` at ``commit``, in path order."""
    repo = MIRRORS / name.replace("/", "+") / "repo"
    if not (repo / "HEAD").exists():
        raise SystemExit(f"{name}: no mirror at {repo} (fetch github:{name} first)")
    head = git(repo, "rev-parse", "HEAD").decode().strip()
    if head != commit:
        raise SystemExit(f"{name}: the mirror is at {head}, the corpus lists {commit}")
    listing = []
    for entry in git(repo, "ls-tree", "-r", "-l", "-z", commit).split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _, kind, blob, size = meta.split()
        if kind == b"blob" and size.isdigit() and 0 < int(size) <= MAX_BYTES:  # "BAD": absent from the snapshot
            listing.append((path.decode(), blob.decode(), int(size)))
    listing.sort(key=lambda entry: hashlib.sha1(entry[0].encode()).digest())  # a uniform sample of paths
    listing = [(path, blob, size) for path, blob, size in listing if detect_language(path, "") in LANGUAGES]
    batch = git(repo, "cat-file", "--batch", data="".join(f"{blob}\n" for _, blob, _ in listing).encode())
    kept, at = [], 0
    for path, _, size in listing:
        header_end = batch.index(b"\n", at)
        data = batch[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
        if b"\0" in data:
            continue
        try:
            kept.append((path, detect_language(path, ""), data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return kept


def stdlib_files() -> list[tuple[str, str, str]]:
    root = Path(sysconfig.get_path("stdlib"))
    paths = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts and p.stat().st_size <= MAX_BYTES)
    paths.sort(key=lambda p: hashlib.sha1(str(p.relative_to(root)).encode()).digest())
    return [(str(p.relative_to(root)), "python", p.read_text(encoding="utf-8", errors="replace")) for p in paths]


def picks(tiers: list[dict[str, list]]) -> Iterator[tuple[str, tuple[str, str, str]]]:
    """(source, file) in corpus order: within a tier the next file always from the source with the fewest
    bytes so far; a tier starts once every file of the tiers before it is taken (so a smaller corpus is
    always a prefix of a larger one)."""
    written: Counter = Counter()
    for sources in tiers:
        cursors = dict.fromkeys(sources, 0)
        while left := [name for name, files in sources.items() if cursors[name] < len(files)]:
            name = min(left, key=lambda n: (written[n], n))  # the source with the fewest bytes so far
            file = sources[name][cursors[name]]
            cursors[name] += 1
            written[name] += len(file[2].encode("utf-8"))
            yield name, file


def build(out: Path, megabytes: float) -> dict:
    """Write the corpus under ``out`` (the files of ``picks`` until ``megabytes``); its summary."""
    first = {name: repository_files(name, commit) for name, commit in REPOSITORIES.items()}
    first["python/stdlib"] = stdlib_files()
    tiers = [first]
    if megabytes * 1e6 > sum(len(text.encode("utf-8")) for files in first.values() for _, _, text in files):
        tiers.append({name: repository_files(name, commit) for name, commit in MORE_REPOSITORIES.items()})
    budget, written, languages, files = megabytes * 1e6, Counter(), Counter(), 0
    for name, (path, language, text) in picks(tiers):
        if sum(written.values()) >= budget:
            break
        target = out / name.replace("/", "+") / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        size = len(text.encode("utf-8"))
        written[name] += size
        languages[language] += size
        files += 1
    if sum(written.values()) < budget:
        raise SystemExit(f"the pinned repositories hold {sum(written.values()) / 1e6:.1f} MB of source, "
                         f"not {megabytes:g}: add repositories to MORE_REPOSITORIES")
    pinned = {**REPOSITORIES, **MORE_REPOSITORIES}
    summary = {"megabytes": round(sum(written.values()) / 1e6, 2),
               "repositories": {n: c for n, c in pinned.items() if written[n]},
               "python": f"stdlib {sysconfig.get_python_version()}", "files": files,
               "megabytes_by_language": {k: round(v / 1e6, 2) for k, v in languages.most_common()}}
    (out / "corpus.json").write_text(json.dumps(summary, indent=2))
    return summary


def read(out: Path) -> list[tuple[str, str, str]]:
    """(path, language, text) of every file of a corpus ``build`` wrote."""
    files = []
    for path in sorted(p for p in out.rglob("*") if p.is_file() and p.name != "corpus.json"):
        relative = str(path.relative_to(out))
        files.append((relative, detect_language(relative, ""), path.read_text(encoding="utf-8")))
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--megabytes", type=float, default=50)
    args = parser.parse_args()
    print(json.dumps(build(args.out, args.megabytes), indent=2))


if __name__ == "__main__":
    main()
