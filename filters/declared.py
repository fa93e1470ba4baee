"""Copies a repository declares in files of its own that name other projects beside paths of its tree.

Read structurally, whatever the file is called (docs/repositories.md, "Vendored trees"):

- a section headed by paths of the tree whose text names another project's origin, version or copyright (ccache's
  ``LICENSE.adoc``: "=== src/third_party/cpp-httplib/httplib.h", then "Copied from cpp-httplib v0.20.0 downloaded
  from https://github.com/yhirose/cpp-httplib");
- a list of names and versions (premake's ``contrib/VERSIONS.txt``: "curl - 8.11"), each name a folder beside it;
- a package manager's install record: composer's ``require`` installed into its ``vendor-dir`` (FreshRSS's
  ``lib/composer.json``, ``"vendor-dir": "./"``), Cargo's ``[source.*] directory`` of vendored crates.

Each answer is ``(target, detail)``: ``target`` a path relative to the repository root, a folder, a file or a glob
(``src/third_party/cxxurl/cxxurl/url.*``); ``detail`` the words that say so.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator

# Text a person wrote: lists and license files have these extensions, or none (VERSIONS, LICENSE).
_TEXT_EXTENSIONS = (".txt", ".md", ".markdown", ".adoc", ".asciidoc", ".rst", ".text")
_MAX_CHARS = 400_000


def may_declare(path: str) -> bool:
    """Whether the file at ``path`` can hold a list of copies (a cheap test on its name): a text file, or a
    package manager's record."""
    name = path.rsplit("/", 1)[-1]
    # Without an extension, a name written in capitals (VERSIONS, LICENSE, NOTICE), not a Makefile or a script.
    return name in ("composer.json", "config.toml", "config", "dep5", "REUSE.toml") or path.endswith("debian/copyright") or name.lower().endswith(_TEXT_EXTENSIONS) or (
        "." not in name and name.isupper())


def declared_copies(path: str, text: str) -> Iterator[tuple[str, str]]:
    """``(target, detail)`` for each path of the repository that the file at ``path`` declares another project's."""
    folder, name = (path.rsplit("/", 1) if "/" in path else ("", path))
    if name == "composer.json":
        yield from composer_installs(folder, text)
    elif name in ("config.toml", "config") and folder.rsplit("/", 1)[-1] == ".cargo":
        yield from cargo_vendored(_parent(folder), text)
    elif name == "REUSE.toml":
        yield from reuse_toml_annotations(path, folder, text)
    elif len(text) <= _MAX_CHARS and _DEP5_OWN.search(text):
        yield from dep5_stanzas(path, folder, text)
    elif len(text) <= _MAX_CHARS:
        yield from path_sections(path, folder, text)
        yield from version_list(path, folder, text)
        yield from listed_paths(path, folder, text)


def _parent(folder: str) -> str:
    return folder.rsplit("/", 1)[0] if "/" in folder else ""


def _join(folder: str, sub: str) -> str:
    sub = sub.strip().strip("/")
    while sub.startswith("./"):
        sub = sub[2:]
    sub = "" if sub == "." else sub
    return f"{folder}/{sub}" if folder and sub else folder or sub


# --------------------------------------------------------------------------------------------
# Package managers' records of what they installed into the tree.


def composer_installs(folder: str, text: str) -> Iterator[tuple[str, str]]:
    """Composer installs each required package ``vendor/name`` into ``<vendor-dir>/vendor/name`` (``vendor`` by
    default); a ``vendor-dir`` of its own folder (FreshRSS's ``"./"``) puts them beside the project's own code."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return
    if not isinstance(data, dict):
        return
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    vendor_dir = config.get("vendor-dir") if isinstance(config.get("vendor-dir"), str) else "vendor"
    base = _join(folder, vendor_dir)
    where = f"composer.json at {folder or '.'}/"
    for key in ("require", "require-dev"):
        required = data.get(key) if isinstance(data.get(key), dict) else {}
        for package in required:
            if isinstance(package, str) and re.fullmatch(r"[\w.-]+/[\w.-]+", package):
                yield _join(base, package.lower()), f"{where} installs {package} into {vendor_dir!r}"
    if base != folder:
        yield base, f"{where}: its vendor-dir {vendor_dir!r}"


def cargo_vendored(folder: str, text: str) -> Iterator[tuple[str, str]]:
    """``cargo vendor``'s record in ``.cargo/config.toml``: ``[source.vendored-sources] directory = "vendor"``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return
    sources = data.get("source") if isinstance(data.get("source"), dict) else {}
    for source, table in sources.items():
        if isinstance(table, dict) and isinstance(table.get("directory"), str):
            yield _join(folder, table["directory"]), f".cargo config's [source.{source}] directory"


# --------------------------------------------------------------------------------------------
# A section headed by paths of the tree, saying where they came from.

# A heading line: Markdown's and AsciiDoc's marks, or a line underlined as reStructuredText underlines.
_HEADING = re.compile(r"^(?:#{1,6}|={1,6})\s+(.+?)\s*(?:#+|=+)?\s*$")
_UNDERLINE = re.compile(r"^([=\-~^*+#])\1{2,}\s*$")
# A path of the tree: folders and a name, globs allowed (``src/third_party/fmt/fmt/*.h``), in backticks or not.
_PATH = re.compile(r"`?((?:[\w.+-]+/)+(?:[\w.*?+-]+|\*)?)`?")
_JOINERS = re.compile(r"^(?:\s|,|;|&|\band\b|\bor\b|\(|\)|:)*$", re.IGNORECASE)
# What the section says of the paths: another project's origin, a copy, a version of it from a URL, a holder.
_ORIGIN = re.compile(
    r"\b(?:copied|taken|downloaded|imported|extracted|vendored|adapted|derived|ported) (?:verbatim )?from\b"
    r"|\b(?:a|an) (?:\w+ )?(?:subset|copy|fork) of\b"
    r"|https?://\S+.{0,60}?\bv?\d+\.\d+"
    r"|^\W*copyright\b.{0,12}(?:\(c\)|©|\b(?:19|20)\d\d\b)", re.IGNORECASE | re.MULTILINE)


def path_sections(path: str, folder: str, text: str) -> Iterator[tuple[str, str]]:
    """Each path a heading names, where the section below it says the paths came from another project. The paths
    are read from the repository's root and, for a file below it, from the file's own folder."""
    lines = text.splitlines()
    fenced = _in_fences(lines)
    headings = [(i, paths) for i, paths in ((i, _heading_paths(lines, i)) for i in range(len(lines)) if not fenced[i])
                if paths]
    for n, (start, paths) in enumerate(headings):
        end = headings[n + 1][0] if n + 1 < len(headings) else len(lines)
        section = _first_paragraph(lines[start + 1:min(end, start + 400)])
        said = _ORIGIN.search(section)
        if said is None:
            continue
        quote = " ".join(said.group(0).split())[:60]
        for found in paths:
            for base in dict.fromkeys(("", folder)):
                yield _join(base, found), f"{path}'s section on {found} says {quote!r}"


def _first_paragraph(lines: list[str]) -> str:
    """The first paragraph of a section: what it says of the paths its heading names (ccache's "Copied from cpp-httplib
    v0.20.0 downloaded from ..."), not a later description of another file (merlin's ``doc/dev/ARCHITECTURE.md``,
    "`preprocess/lexer_ident.mll`: a subset of the OCaml lexer", 23 lines into its ``src/ocaml/support`` section)."""
    text = "\n".join(lines).strip("\n")
    return re.split(r"\n[ \t]*\n", text, maxsplit=1)[0]


_FENCE = re.compile(r"^\s*(```|~~~)")


def _in_fences(lines: list[str]) -> list[bool]:
    """Whether each line is inside a Markdown code fence: a shell comment there ("# ./Gemfile", jekyll's themes page;
    "# thirdparty/CMakeLists.txt", nlohmann/json's README) is no heading."""
    inside, marks = False, []
    for line in lines:
        fence = _FENCE.match(line)
        marks.append(inside or fence is not None)
        inside = inside != (fence is not None)
    return marks


def _heading_paths(lines: list[str], i: int) -> tuple[str, ...]:
    """The paths a heading line holds when they are all it says ("src/a/*.h and src/a/b.cc"), else ()."""
    match = _HEADING.match(lines[i])
    title = match.group(1) if match else None
    if title is None and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]) and lines[i].strip():
        title = lines[i].strip()
    if not title:
        return ()
    paths = [m.group(1) for m in _PATH.finditer(title) if not m.group(1).startswith(("http", "www."))]
    rest = _PATH.sub(" ", title)
    paths = [p.removeprefix("./").rstrip("/") for p in paths]
    if not paths or not _JOINERS.match(rest) or any("//" in p or ":" in p or "/" not in p for p in paths):
        return ()  # a path in a folder of the tree, not a bare name ("./Gemfile")
    return tuple(paths)


# --------------------------------------------------------------------------------------------
# A license or notice file made of sections, each headed by a project's name, not a path: ZeroBrane's root LICENSE,
# "--[[ ZeroBrane Studio License ]]" (Paul Kulchenko) then "--[[ Copas License ]]", "--[[ Metalua License ]]",
# "--[[ LuaCheck ]]"... each naming other holders. The names are matched against the tree's folders by the caller
# (``filters.vendored.vendored_trees``): a name says nothing alone, a folder of that name beside others so named does.

# A title between decorations: "--[[ Copas License ]]-----", "=== zlib ===", "**** LPeg ****".
_DECORATED = re.compile(r"^\s*[^\w\s]{2,}\s*([A-Za-z][\w.+-]*(?:[ \t]+[\w.+()-]+){0,4}?)\s*[^\w\s]{2,}\s*$")
_NOT_A_TITLE = re.compile(r"\b(?:licen[cs]es?|notices?|copyright|copying|terms|conditions|the|for|of)\b", re.IGNORECASE)
_SECTIONED_NAME = re.compile(r"licen[cs]e|notice|copying|copyright|third", re.IGNORECASE)
_COPYRIGHT_LINE = re.compile(r"^[^\w\n(]*(?:(?:[\w.+-]+ is )?copyright\b.{0,12}(?:\(c\)|©|\b(?:19|20)\d\d\b)|(?:\(c\)|©)\s*(?:19|20)\d\d).*$",
                             re.IGNORECASE | re.MULTILINE)


def named_sections(path: str, text: str) -> Iterator[tuple[str, str]]:
    """``(name, detail)`` for each section of a license or notice file headed by a name (``name`` lower case,
    letters and digits only, "License" and the like left out) whose copyright lines share no name with the file's
    first section's, the repository's own: the projects whose terms the file carries beside its own."""
    for _, title, holders, _ in _foreign_sections(path, text):
        name = re.sub(r"[^a-z0-9]", "", _NOT_A_TITLE.sub(" ", title).lower())
        if len(name) >= 3:
            yield name, f"{path}'s section {title.strip()!r} names {' '.join(holders[0].split())[:60]!r}"


def section_holders(path: str, text: str) -> Iterator[tuple[str, frozenset[str]]]:
    """``(detail, holder names)`` for each section ``named_sections`` reads as another project's: whom the file says
    that project's files name (ZeroBrane's LICENSE, section "scintillua": "Copyright (c) 2007-2016 Mitchell")."""
    for start, title, holders, names in _foreign_sections(path, text):
        section = f"section {title.strip()!r}" if title.strip() else f"section at line {start + 1}"
        yield f"{path}'s {section} names {' '.join(holders[0].split())[:60]!r}", names


def _foreign_sections(path: str, text: str) -> Iterator[tuple[int, str, list[str], frozenset[str]]]:
    """``(first line, title, copyright lines, holder names)`` of each section of a license or notice file whose
    holders share no name with the file's first section's (the repository's own)."""
    if _SECTIONED_NAME.search(path.rsplit("/", 1)[-1]) is None or len(text) > _MAX_CHARS:
        return
    lines = text.splitlines()
    own, sections = _own_and_sections(lines)
    for (start, title), end in sections:
        holders = _COPYRIGHT_LINE.findall("\n".join(lines[start + 1:end]))
        names = _holder_names(holders)
        if names and not names & own:
            yield start, title, holders, names


# A section opened by a rule line, its first sentence naming what it covers: libgit2's COPYING, "-----" then "The bundled
# ZLib code is licensed under the ZLib license:", "The Clar framework is licensed under the ISC license:".
_RULE = re.compile(r"^\s*([-=*_])\1{9,}\s*$")
_SUBJECT = re.compile(r"^\s*The (?:bundled |built-in |included |embedded |vendored |third[- ]party )?([A-Za-z][\w.+-]*)"
                      r"(?: [a-z][\w-]*){0,3}(?: \([\w./-]+\))? (?:is|are) (?:licensed|distributed|released|covered|"
                      r"copyrighted)\b")


def sections_owner(path: str, text: str) -> frozenset[str]:
    """The words naming the repository's own holders in a file read by ``named_sections`` (its first section's)."""
    if _SECTIONED_NAME.search(path.rsplit("/", 1)[-1]) is None or len(text) > _MAX_CHARS:
        return frozenset()
    return _own_and_sections(text.splitlines())[0]


def _own_and_sections(lines: list[str]) -> tuple[frozenset[str], list[tuple[tuple[int, str], int]]]:
    """The repository's own holder names (those the text before the first heading names, else the first section's)
    and the other sections ((start, title), end); nothing where the file has fewer than three sections or no own
    holders to tell other projects' sections from."""
    fenced = _in_fences(lines)
    # a rule line opens a section too, untitled where its first sentence names no subject (jq's COPYING: "jq uses parts
    # of the open source C library "decNumber"..."): its holders are another project's, its name unknown
    headings = [(i, title if title is not None else "") for i, title in
                ((i, _section_title(lines, i)) for i in range(len(lines)) if not fenced[i])
                if title or (title is None and _RULE.match(lines[i]))]
    if len(headings) < 3:
        return frozenset(), []
    bounds = [start for start, _ in headings[1:]] + [len(lines)]
    own = _holder_names(_COPYRIGHT_LINE.findall("\n".join(lines[:headings[0][0]])))
    sections = list(zip(headings, bounds))
    if not own:
        own, sections = _holder_names(_COPYRIGHT_LINE.findall("\n".join(lines[:bounds[0]]))), sections[1:]
    return (own, sections) if own else (frozenset(), [])


# A file's name alone on a line with a colon, over the notice it carries: jq's COPYING, "dtoa.c:" over "Copyright (c) 1991,
# 2000, 2001 by Lucent Technologies."
# (A copyright line may open with the project's name: jq's "jq is copyright (C) 2012 Stephen Dolan".)
_FILE_TITLE = re.compile(r"^\s*([A-Za-z][\w+-]*\.[A-Za-z]{1,4}):\s*$")


def _section_title(lines: list[str], i: int) -> str | None:
    """A heading's title: Markdown's or AsciiDoc's, a decorated line, a file's name with a colon, a line underlined as
    reST underlines, or the subject of the sentence that opens a section after a rule line."""
    match = _HEADING.match(lines[i]) or _DECORATED.match(lines[i]) or _FILE_TITLE.match(lines[i])
    if match:
        return match.group(1)
    if _RULE.match(lines[i]):
        following = next((line for line in lines[i + 1:i + 4] if line.strip()), "")
        subject = _SUBJECT.match(following)
        return subject.group(1) if subject else None
    if i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]) and 0 < len(lines[i].split()) <= 5:
        return lines[i].strip()
    return None


# --------------------------------------------------------------------------------------------
# Debian's machine-readable copyright format (DEP-5: ``debian/copyright``, REUSE's ``.reuse/dep5``, R's
# ``inst/COPYRIGHTS``): a ``Files: *`` stanza names the repository's own holders, and a stanza for other paths whose
# holders share no name with them declares those paths another project's (RcppArmadillo's "Files:
# inst/include/armadillo_bits/*" / "Copyright 2008-2016 Conrad Sanderson"; libzmq's ``external/unity/*``).

_DEP5_OWN = re.compile(r"^Files:\s*\*\s*$", re.MULTILINE)
_DEP5_FIELD = re.compile(r"^([A-Za-z-]+):?(?:\s+|$)(.*)$")
# Words of a copyright line that name no one.
_NOT_A_NAME = re.compile(r"\b(?:copyright|\(c\)|all|rights|reserved|and|the|others?|contributors?|authors?|inc|ltd|"
                         r"llc|corporation|project|https?|www|com|org|net)\b|[^a-z]+")


def _dep5_stanzas(text: str) -> Iterator[tuple[list[str], list[str]]]:
    """(paths, copyright lines) of each stanza; a field's value runs on over the indented lines below it."""
    paths: list[str] = []
    holders: list[str] = []
    field = ""
    for line in text.splitlines() + [""]:
        if not line.strip():
            if paths:
                yield paths, holders
            paths, holders, field = [], [], ""
            continue
        match = _DEP5_FIELD.match(line) if not line[0].isspace() else None
        if match:
            field = match.group(1).lower()
            value = match.group(2)
        else:
            value = line
        if field == "files":
            paths += [p.rstrip(":,") for p in value.split()]
        elif field == "copyright":
            holders.append(value)


def _holder_names(lines: list[str]) -> frozenset[str]:
    return frozenset(w for line in lines for w in _NOT_A_NAME.sub(" ", line.lower()).split() if len(w) > 2)


def dep5_stanzas(path: str, folder: str, text: str) -> Iterator[tuple[str, str]]:
    """Each path of a stanza whose copyright holders share no name with the ``Files: *`` stanza's: another project's
    code, by the repository's own record. Paths are read from the root and from the package the file describes (the
    folder above ``debian/`` or ``.reuse/``); the ``debian/*`` stanza is the packagers' own, part of the same package."""
    stanzas = list(_dep5_stanzas(text))
    own = frozenset().union(*(_holder_names(holders) for paths, holders in stanzas if paths == ["*"]))
    base = _parent(folder) if folder.rsplit("/", 1)[-1] in ("debian", ".reuse") else ""
    for paths, holders in stanzas:
        names = _holder_names(holders)
        if not own or not names or names & own or paths == ["*"]:
            continue
        for found in paths:
            if found.startswith("debian/") or found == "*" or "/" not in found.rstrip("*"):
                continue
            for root in dict.fromkeys(("", base)):
                yield _join(root, found), f"{path}'s stanza on {found} names {' '.join(holders[0].split())[:60]!r}"


# REUSE.toml, DEP-5's successor (REUSE 3.2): ``[[annotations]]`` tables of ``path`` globs with their
# ``SPDX-FileCopyrightText``; the one for every path (``**``) names the repository's holders, one for other paths whose
# holders share no name with them declares those paths another project's (abapGit's ``src/json/**/*``, "2020 Alexander
# Tsybulsky <https://github.com/sbcgua/ajson>", beside "2014 abapGit Contributors" for ``**``).
_EVERY_PATH = ("**", "**/*", "*")


def _strings(value) -> list[str]:
    return [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def reuse_toml_annotations(path: str, folder: str, text: str) -> Iterator[tuple[str, str]]:
    """Each path glob of an annotation whose copyright holders share no name with the every-path annotation's."""
    try:
        annotations = tomllib.loads(text).get("annotations", [])
    except (tomllib.TOMLDecodeError, ValueError):
        return
    tables = [(_strings(a.get("path")), _strings(a.get("SPDX-FileCopyrightText"))) for a in annotations
              if isinstance(a, dict)] if isinstance(annotations, list) else []
    own = frozenset().union(*(_holder_names(holders) for paths, holders in tables if set(paths) & set(_EVERY_PATH)))
    for paths, holders in tables:
        names = _holder_names(holders)
        if not own or not names or names & own or set(paths) & set(_EVERY_PATH):
            continue
        for found in paths:
            if "/" in found.rstrip("*"):
                yield _join(folder, found.replace("/**/*", "/*").replace("/**", "/*")), \
                    f"{path}'s annotation on {found} names {' '.join(holders[0].split())[:60]!r}"


# --------------------------------------------------------------------------------------------
# A list of paths under a line saying where they came from: swift-crypto's ``Sources/CXKCP/vendored-sources.txt``,
# "Vendored code from XKCP#master (heads/master-0-g11297f5):" then "- FIPS202-opt64/KeccakHash.c"...

_FROM_LINE = re.compile(r"^\W*(?:vendored|copied|imported|taken|bundled)\b[^\n]{0,40}?\bfrom\b", re.IGNORECASE)
_LISTED_PATH = re.compile(r"^\s*[-*+]\s+`?([\w.+-]+(?:/[\w.+-]+)*\.[\w]+|[\w.+-]+(?:/[\w.+-]+)+/?)`?\s*$")


def listed_paths(path: str, folder: str, text: str) -> Iterator[tuple[str, str]]:
    """Each path of the list (two or more, relative to the file's folder) below a first line saying they were copied
    or vendored from somewhere."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or _FROM_LINE.match(lines[0]) is None:
        return
    listed = [m.group(1) for m in map(_LISTED_PATH.match, lines[1:]) if m]
    if len(listed) < _LIST_MIN:
        return
    said = " ".join(lines[0].split())[:60]
    for found in listed:
        yield _join(folder, found), f"{path} lists it under {said!r}"


# --------------------------------------------------------------------------------------------
# A list of names and versions: "curl - 8.11", "zlib 1.3.2", "* lua: 5.3.5".

_VERSION_LINE = re.compile(r"^\s*(?:[-*+]\s+)?([A-Za-z][\w.+-]*?)\s*(?:\s|[-–:@])\s*v?(\d+(?:\.\d+)+[\w.+-]*)\s*$")
_LIST_MIN = 2


def version_list(path: str, folder: str, text: str) -> Iterator[tuple[str, str]]:
    """``folder/<name>`` for each line of a file that is a list of names and versions (two lines or more, and
    most of its lines but a title): what each folder beside the file is a copy of."""
    lines = [line for line in text.splitlines() if line.strip() and not _UNDERLINE.match(line)]
    listed = [m for m in map(_VERSION_LINE.match, lines) if m]
    if len(listed) < _LIST_MIN or len(listed) * 2 < len(lines) - 1:
        return
    for match in listed:
        yield _join(folder, match.group(1)), f"{path} lists {match.group(1)} {match.group(2)}"
