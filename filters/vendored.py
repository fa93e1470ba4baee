"""Vendored and generated paths by GitHub linguist's own rules, the ones The Stack v2 filtered with
(through go-enry).

``data/linguist/vendor.yml`` is linguist's ``lib/linguist/vendor.yml`` as published (MIT, GitHub,
Inc.; github-linguist/linguist at b45dbe9b2825a43285bcd035861be91cc0a7299e): regular expressions
matched anywhere in a repository path (``(3rd|[Tt]hird)[-_]?[Pp]arty/``, ``(^|/)node_modules/``,
minified JavaScript...). Refresh it by copying the newer file; the test checks every pattern compiles.
Exceptions: linguist lists ``.github/`` and git's config files (``.gitignore``...) to keep them out
of its language statistics, but nothing there is another project's code (workflows, CI and issue
templates, ignore rules the repository wrote); they are judged like the rest of the repository. ``data/linguist/generated.yml`` holds the path tests of linguist's ``lib/linguist/generated.rb``
(lock files, ``.idea/``, Gradle wrappers...; same commit and license), derived as its header says.
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import functools
import glob
import hashlib
import json
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources

import yaml

from codemix.filters.declared import declared_copies, may_declare, named_sections, section_holders, sections_owner
from codemix.filters.fetch_lists import copies_into, fetched_copies, may_list_copies
from codemix.filters.generated import VENDORED_PATHS, path_matches
from codemix.filters.licenses import PUBLIC_DOMAIN, license_ids, license_subject, manifest_license
from codemix.filters.regex_screen import required_literal
from codemix.filters.upstream_lists import (
    names_folder,
    prose_upstream_sections,
    section_names,
    section_titles,
    upstream_sections,
)

VENDOR_LIST = "data/linguist/vendor.yml"
GENERATED_LIST = "data/linguist/generated.yml"
# linguist lists .github/, an editor's project settings (.vscode/) and git's own config files (.gitignore,
# .gitattributes, .gitmodules) to keep them out of language statistics; each is the repository's own, not another
# project's code (raylib's ``projects/VSCode/.vscode/``, nanovg-zig's ``.vscode/launch.json``).
# A ``Vagrantfile`` (linguist lists it too) is the repository's own description of its development machine
# (hackhosting's, at its root).
OWN_CODE = re.compile(r"(?:^|/)\.(?:github|vscode)/|(?:^|/)\.git(?:attributes|ignore|modules)$|(?:^|/)Vagrantfile$")


@functools.cache
def linguist_patterns(name: str) -> re.Pattern:
    """One of linguist's lists as one regex (they are Ruby regexes that Python's ``re`` reads alike)."""
    patterns = yaml.safe_load(resources.files("codemix.filters").joinpath(name).read_text(encoding="utf-8"))
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def linguist_vendored() -> re.Pattern:
    return linguist_patterns(VENDOR_LIST)


def _vendored_match(path: str) -> bool:
    """Whether one of linguist's vendor.yml patterns matches somewhere in ``path``: the answer of
    ``linguist_vendored().search``, found pattern by pattern (each compiled alone keeps ``re``'s literal
    prefix scan, which the 150-way alternation loses: ~5x cheaper per path), each searched for only where the
    literal every match of it holds is (``regex_screen.required_literal``; ~5x cheaper again)."""
    return any(literal in path and compiled.search(path) for literal, compiled in _screened_list(VENDOR_LIST))


def _own_code(path: str) -> bool:
    """The repository's own ``.github/`` or git config file: not inside a folder linguist calls vendored
    (``deps/hiredis/.github/`` is hiredis's)."""
    match = OWN_CODE.search(path)
    return match is not None and not _vendored_match(path[:match.start() + 1])


def is_vendored(path: str, repo: str = "") -> bool:
    """Whether linguist calls the in-repo ``path`` vendored (``re.search``, as linguist matches), but for
    the repository's own ``.github/`` folder and, in repository ``repo``, a file that only a pattern
    naming that repository's own library matches (``vendored_pattern``)."""
    if not _vendored_match(path) or _own_code(path):
        return False
    return not repo or vendored_pattern(path, repo) is not None


@functools.cache
def _linguist_list(name: str) -> tuple[tuple[str, re.Pattern], ...]:
    patterns = yaml.safe_load(resources.files("codemix.filters").joinpath(name).read_text(encoding="utf-8"))
    return tuple((pattern, re.compile(pattern)) for pattern in patterns)


@functools.cache
def _screened_list(name: str) -> tuple[tuple[str, re.Pattern], ...]:
    return tuple((required_literal(compiled), compiled) for _, compiled in _linguist_list(name))


# A pattern that opens with a library's name, ``(^|/)jquery([^.]*)\.js$``: a copy of that library's file.
_LIBRARY_PATTERN = re.compile(r"\(\^\|/\)([A-Za-z][A-Za-z0-9]*)")


def _names_repository(pattern: str, repo: str) -> bool:
    """Whether ``pattern`` names the library that repository ``repo`` (``owner/name``) is: in jQuery's own
    repository ``src/jquery.js`` is its source, not a copy (the name compared without case or punctuation)."""
    library = _LIBRARY_PATTERN.match(pattern)
    name = repo.rsplit("/", 1)[-1].lower()
    # "pdf.js" is the library ``pdf.worker.js`` is named after: a name's language suffix is no part of it.
    own = {re.sub(r"[^a-z0-9]", "", name), re.sub(r"[^a-z0-9]", "", re.sub(r"[.\-_](?:js|ts|py|rs|go|rb)$", "", name))}
    return bool(library) and "" not in own and library.group(1).lower() in own


def vendored_pattern(path: str, repo: str = "") -> str | None:
    """The first of linguist's vendor.yml patterns that calls ``path`` vendored (the drop's detail), skipping
    those that name repository ``repo``'s own library."""
    if not _vendored_match(path) or _own_code(path):
        return None
    return next((pattern for pattern, compiled in _linguist_list(VENDOR_LIST)
                 if compiled.search(path) and not _names_repository(pattern, repo)), None)


# The package or namespace a source file declares (its first declaration in the head), by the file's extension, and
# whether its folders must spell all of it: Java, Scala and Groovy sources sit in folders spelling the whole package;
# Kotlin's may leave out the common root package, C#'s namespaces a root namespace.
_JVM_PACKAGE = re.compile(r"^[ \t]*package[ \t]+([A-Za-z_][\w.]*)", re.MULTILINE)
_PACKAGE_DECLARATION = (
    ((".java", ".scala", ".groovy"), _JVM_PACKAGE, True),
    ((".kt", ".kts"), _JVM_PACKAGE, False),
    ((".cs",), re.compile(r"^[ \t]*namespace[ \t]+([A-Za-z_][\w.]*)", re.MULTILINE), False),
)
# A Python module's imports from its own package: relative (``from .. import x``: its folder and the one above are
# packages) or absolute by a dotted path its folders spell (``from pex.cache.dirs import ...`` in ``pex/cache/``).
_RELATIVE_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.+)", re.MULTILINE)
_ABSOLUTE_IMPORT = re.compile(r"^[ \t]*(?:from|import)[ \t]+([A-Za-z_][\w.]*)", re.MULTILINE)
_PACKAGE_HEAD_CHARS = 20_000


def _spelled(declared: list[str], folders: list[str]) -> int:
    """How many trailing folders spell the end of ``declared``, in order."""
    span = 0
    while span < min(len(declared), len(folders)) and declared[-1 - span] == folders[-1 - span]:
        span += 1
    return span


def package_folders(path: str, text: str) -> int:
    """How many of the folders holding ``path`` (counted from its own up) its text shows to be one package tree:
    the trailing folders its package declaration names, in order, without case (caffeine's ``.../java/com/github/
    benmanes/caffeine/cache/Buffer.java``, ``package com.github.benmanes.caffeine.cache;``: 5; Java's, Scala's and
    Groovy's folders must spell the whole declaration); for a Python module, as many as its relative imports' dots
    or the folders an absolute import of its own package spells; 0 when it shows none."""
    folders = [folder.lower() for folder in path.split("/")[:-1]]
    name = path.rsplit("/", 1)[-1]
    head = text[:_PACKAGE_HEAD_CHARS]
    if name.endswith(".py"):
        dots = max((len(found.group(1)) for found in _RELATIVE_IMPORT.finditer(head)), default=0)
        spelled = max((k for found in _ABSOLUTE_IMPORT.finditer(head)
                       for dotted in [found.group(1).lower().split(".")]
                       for k in range(len(dotted), 1, -1) if dotted[:k] == folders[len(folders) - k:]), default=0)
        return min(max(dots, spelled), len(folders))
    for suffixes, declaration, whole in _PACKAGE_DECLARATION:
        if name.endswith(suffixes):
            found = declaration.search(head)
            if found is None:
                return 0
            declared = found.group(1).lower().split(".")
            span = _spelled(declared, folders)
            return span if span == len(declared) or not whole else 0
    return 0


def declared_package(path: str, text: str) -> str:
    """The package a JVM or C# source declares, lower case, when its folders spell two or more of its parts
    (``package_folders``), else ""."""
    name = path.rsplit("/", 1)[-1]
    for suffixes, declaration, _ in _PACKAGE_DECLARATION:
        if name.endswith(suffixes) and package_folders(path, text) >= 2:
            return declaration.search(text[:_PACKAGE_HEAD_CHARS]).group(1).lower()
    return ""


OWN_ROOT_PARTS = 3  # a package root of the repository's own: its first three parts (``app.cash.zipline``)


_AUTHORED = re.compile(r"\b(?:written|created|developed|authored) by\b|@?\bauthor\b:?", re.IGNORECASE)


def package_fact(path: str, text: str) -> VendoringFact | None:
    """The ``package`` fact of a source declaring the package its folders spell (``declared_package``): ``name`` the
    package's first ``OWN_ROOT_PARTS`` parts."""
    package = declared_package(path, text)
    if not package:
        return None
    return VendoringFact("package", _folder(path), path, name=".".join(package.split(".")[:OWN_ROOT_PARTS]))


def in_own_namespace(path: str, text: str, packages: Iterable[str]) -> bool:
    """Whether the file at ``path`` lies in the repository's own package tree though it declares no package itself: its
    folders spell the root of a package the repository's own sources declare (``packages``, ``OWN_ROOT_PARTS`` parts,
    or all of a shorter one) and linguist's folder patterns match only inside it (zipline's SQLDelight schemas in
    ``.../sqldelight/app/cash/zipline/loader/internal/cache/``, beside Kotlin sources declaring ``app.cash.zipline.
    loader.internal.cache``; linguist's ``(^|/)cache/``), or a file that a file-name pattern names and whose text names
    that root (zipline's ``proguard-rules.pro``, "-keep ... class app.cash.zipline.QuickJsException")."""
    if _LICENSE_NAME.fullmatch(path.rsplit("/", 1)[-1]):
        return False  # a license text names its package's holder, whoever that is (caffeine's trace parsers' cache2k)
    if first_copyright(file_header(text))[0] or _AUTHORED.search(_opening_comment(text[:_FILE_HEAD_CHARS])):
        # a file naming its author is judged by that (``names_owner``), not by its place: the LIRS distribution's
        # ``lirs.c``, "This program is written by Song Jiang", in caffeine's trace parser resources
        return False
    roots = {tuple(package.split(".")) for package in packages}
    folders = [folder.lower() for folder in path.split("/")[:-1]]
    for root in roots:
        for start in range(len(folders) - len(root) + 1):
            if tuple(folders[start:start + len(root)]) == root and _patterns_inside(path, start + 1):
                return True
    return _only_name_patterns(path) and any(f"{'.'.join(root)}." in text for root in roots if len(root) >= 2)


def _only_name_patterns(path: str) -> bool:
    """Whether every linguist vendor.yml pattern matching ``path`` matches within its file name."""
    start = path.rfind("/") + 1
    matched = [found for _, compiled in _linguist_list(VENDOR_LIST) if (found := compiled.search(path))]
    return bool(matched) and all(found.start() + (path[found.start()] == "/") >= start for found in matched)


def _patterns_inside(path: str, inner: int) -> bool:
    """Whether each of linguist's vendor.yml patterns matching ``path`` matches a folder at index ``inner`` or deeper
    (none matching the file's name alone), and one does."""
    matched = False
    for _, compiled in _linguist_list(VENDOR_LIST):
        if (found := compiled.search(path)) is None:
            continue
        start = found.start() + (path[found.start()] == "/")
        if "/" not in path[start:found.end()] or path.count("/", 0, start) < inner:
            return False
        matched = True
    return matched


def in_own_package(path: str, text: str) -> bool:
    """Whether each of linguist's vendor.yml folder patterns that matches ``path`` matches only folders inside the
    package tree the file itself shows (``package_folders``), below its outermost folder: a folder of the project's
    own package tree is not a vendor folder by its name alone (caffeine's ``com/github/benmanes/caffeine/cache/``,
    linguist's ``(^|/)cache/``). A pattern on the package's outermost folder (a ``vendor/`` package of single-module
    copies), a folder above it (``vendor/``, ``third_party/``) or the file's name still calls it vendored."""
    span = package_folders(path, text)
    if span < 2:
        return False
    return _patterns_inside(path, path.count("/") - span + 1)  # from the package's second folder


# A note opening with what its folder holds: gptoolbox's ``external/README.md``, "This directory contains matlab functions
# written by others"; gevent's ``deps/README.rst``, "Managing Embedded Dependencies".
_FOLDER_NOTE = re.compile(r"\bthis (?:directory|folder)\b|\b(?:embedded|bundled|vendored|third[- ]party) "
                          r"(?:code|dependencies|libraries|packages|sources)\b|\bwritten by others\b", re.IGNORECASE)
_NOTE_HEAD_CHARS = 300


def folder_note(path: str, text: str) -> bool:
    """Whether ``path`` is a README sitting right in a folder linguist calls vendored (``external/``, ``deps/``) that
    opens by saying what the folder holds: the repository's note about its copies, not one of them."""
    folder, name = _folder(path), path.rsplit("/", 1)[-1]
    if not folder or not _README.fullmatch(name):
        return False
    ends = [found.end() for _, compiled in _linguist_list(VENDOR_LIST) if (found := compiled.search(path))]
    return bool(ends) and all(end == len(folder) + 1 for end in ends) \
        and _FOLDER_NOTE.search(text[:_NOTE_HEAD_CHARS]) is not None


def is_generated(path: str) -> bool:
    """Whether linguist's path tests call the in-repo ``path`` generated (lock files, IDE folders...)."""
    return linguist_patterns(GENERATED_LIST).search(path) is not None


# --------------------------------------------------------------------------------------------
# Vendored trees from the repository's own evidence (issue 46). The path lists above are one signal;
# these are the others: what the repository declares (``[tool.vendoring]``, ``vendor.txt``,
# ``vendor/modules.txt``, ``.gitmodules``, a folder README that says it holds another project's code)
# and subtrees that carry another project's LICENSE beside its own package manifest. docs/repositories.md.


@dataclass(slots=True, frozen=True)
class VendoredTree:
    """An in-repository folder holding another project's code, and the evidence that says so."""

    folder: str  # no trailing slash
    evidence: str  # e.g. "own LICENSE.txt + package.json at tests/unity/"
    subfolders: bool = False  # only the folder's subfolders are another project's (their README says so)
    pattern: str = ""  # only the paths this glob names in the folder (``src/third_party/cxxurl/cxxurl/url.*``)
    # a folder told by its files' headers or by a name others give it, not by its own license or manifest: a file's own
    # evidence first, and a file whose header names the repository's holders stays the repository's
    of_copies: bool = False
    own: frozenset[str] = frozenset()  # the repository's holder words as the evidence names them (a notice's first section)
    glue: frozenset[str] = frozenset()  # files in the folder that are the repository's own (``with_own_glue``)

    def covers(self, path: str) -> bool:
        """Whether ``path`` lies in the tree: below its folder (a declared path is the file itself where it names
        one, ccache's ``src/third_party/cpp-httplib/httplib.h``), or named by its pattern."""
        if self.pattern:
            return fnmatch.fnmatchcase(path, self.pattern)
        return (path.startswith(self.folder + "/") or path == self.folder) and path not in self.glue


_GLOB = re.compile(r"[*?\[]")


@dataclass(slots=True, frozen=True)
class VendoringFact:
    """What one file says about vendoring. ``kind`` is ``declares`` (``folder`` is vendored, ``detail``
    says by what), ``license`` (a license file in ``folder``: ``detail`` its name, ``holders`` its
    copyright holders, ``digest`` its normalised text, ``license`` what it states) or ``manifest`` (a
    package manifest in ``folder``: ``detail`` its file name, ``name`` the package, ``members`` the
    workspace members it declares, ``inherits`` whether it defers to a workspace)."""

    kind: str
    folder: str
    detail: str
    name: str = ""
    holders: frozenset[str] = frozenset()
    digest: str = ""
    license: str = ""
    members: tuple[str, ...] = ()
    inherits: bool = False
    urls: frozenset[str] = frozenset()  # ``owner/name`` of the code-hosting URLs a manifest names
    names: frozenset[str] = frozenset()  # a license text's BSD endorsement clause names (``endorsement_names``)
    first_year: int = 0  # the earliest year of a license text's first copyright line
    template_only: bool = False  # a license text whose only copyright lines are the license document's own (the FSF's)
    project: str = ""  # the project a file's Xcode header names (``xcode_project``)
    defined: tuple[int, int] = (0, 0)  # a ``prefix`` fact's names with the prefix, of all the names the file defines
    derived: bool = False  # a ``header`` fact of a file saying it is based on, inspired by or ported from another's


MANIFEST_NAMES = ("package.json", "Cargo.toml", "pyproject.toml", "setup.py", "setup.cfg", "go.mod", "composer.json",
                  "CMakeLists.txt", "pom.xml", "build.gradle", "meson.build", "configure.ac",
                  # Erlang's rebar3, Elixir's mix, R's DESCRIPTION, SwiftPM, Dart's pub, Julia, Zig, OCaml's dune, Perl
                  "rebar.config", "mix.exs", "DESCRIPTION", "Package.swift", "pubspec.yaml", "Project.toml",
                  "build.zig.zon", "dune-project", "Makefile.PL", "Build.PL", "META.json", "META.yml",
                  # Elm, D's dub, V, Crystal, Gleam, Haxe, vcpkg, Leiningen
                  "elm.json", "dub.json", "dub.sdl", "v.mod", "shard.yml", "gleam.toml", "haxelib.json", "vcpkg.json",
                  "project.clj",
                  # Godot's addon manifest: ``[plugin]`` with ``name=``, ``author=``, ``version=``
                  "plugin.cfg",
                  # Arduino's library manifest (``name=``, ``author=``, ``maintainer=``, ``url=``) and PlatformIO's
                  "library.properties", "library.json")
_README = re.compile(r"README(?:\.[\w.-]+)?", re.IGNORECASE)
# A folder README that says the folder holds another project's code ("This directory contains a copy of
# ...", "vendored from upstream", Chromium's README.chromium fields).
_PROVENANCE = re.compile(
    r"\bthis (?:directory|folder|dir|subdirectory|tree|library|code) (?:contains|holds|includes|is|was)\b[^.\n]{0,60}?"
    r"\b(?:third[- ]party|vendored|a copy of|copies of|copied from|imported from|taken from|derived from|cloned from"
    r"|upstream)\b"
    r"|\b(?:vendored|copied|imported|taken|bundled) (?:verbatim )?from (?:the )?(?:upstream|https?://|github\b)"
    # uBlock's ``src/lib/lz4/README.md``: "The files in this directory are developed as a separate project at:"
    r"|\b(?:the files in )?this (?:directory|folder|code|library) (?:are|is) (?:developed|maintained) "
    r"(?:as a separate project|separately|upstream)\b"
    # a note opening with what the folder holds and where from: rapidjson's ``bin/jsonchecker/readme.txt``, "Test suite
    # from http://json.org/JSON_checker/."; "Test data obtained from https://github.com/..." (a port is not a copy)
    r"|\A\s*(?!(?:\w+ )*?(?:ported|inspired|based|adapted)\b)(?:[A-Za-z][\w-]* ){1,3}"
    r"(?:obtained |downloaded |taken |fetched |copied )?from https?://"
    # a credit note opening with who wrote the folder's code and where it was found: stallar's ``src/mmc3/credit.txt``,
    # "The MMC1 functions were written by cppchriscpp, 2018 Christopher Parker, and found here... https://github.com/..."
    r"|\A\s*(?:the )?(?:[\w-]+ ){0,3}(?:functions|files|code|routines|sources?|library) (?:were|was|are|is) (?:written|made|"
    r"created) by [^\n]{1,80}?\b(?:found|taken|copied|downloaded|obtained)(?: here| at| from)?\W{0,8}\s*https?://",
    re.IGNORECASE)
_CHROMIUM_FIELDS = ("Name", "URL", "Version")
# What a folder README's opening says the folder is for: FreshRSS's ``p/themes/Nord/README.md``, "A simple theme based on
# Nord's color scheme for [FreshRSS](https://freshrss.org)": written for the repository, not copied into it.
# ("the source code repository for RE2" says the folder is RE2's own repository, not written for a repository so named)
_WRITTEN_FOR = re.compile(r"(?<!repository )(?<!source code )(?<!\bcode )\bfor (?:the )?\[?([\w.-]{3,})")
_README_HEAD_CHARS = 600
# A folder README that says its subfolders are copies: gevent's ``src/greentest/README.rst``, "The test directories
# that begin with a number (e.g., 2.7 and 3.5) are copies of the standard library tests".
_SUBFOLDER_PROVENANCE = re.compile(r"\b(?:directories|folders|subdirectories|subfolders)\b.{0,80}?\bare "
                                   r"(?:(?:unmodified|verbatim|exact|vendored) )?(?:copies|a copy) of\b", re.IGNORECASE)


# A file whose opening says it is another project's file: "This file is a copy of ForEvolve/bootstrap-dark dark
# theme", "This is a slightly modified version of stb_truetype.h", "It is a partial copy of https://...". Read
# in the file's head only (a function's "this is a copy of the handle" deep in its code says nothing of the
# file); "based on", "inspired by" and a port are derived work, not copies. Without "this file" (or header,
# module...) as its subject, what it copies must be a file or a URL: CPython's ``_compat_pickle.py`` says "This is
# a copy of lib2to3.fixes.fix_imports.MAPPING", a table of its own project.
_COPY = (r"is (?:just |simply )?(?:a|an) (?:(?:slightly|lightly|partial|patched|trimmed|verbatim|literal|exact|modified|adjusted|"
         r"stripped[- ]down|vendored|temporary) )*"
         r"(?:copy|(?:modified|patched|vendored) version|fork) of")
# a file's path, perhaps under a variable for another project's root ("<PICO_SDK_PATH>/external/pico_sdk_import.cmake")
_SOURCE_FILE = (r"(?:<\w+>/|\$\{?\w+\}?/)?[\w./+-]+\.(?:h|hh|hpp|c|cc|cpp|cxx|m|js|mjs|ts|css|scss|py|go|rs|java|kt|rb|php|lua"
                r"|pl|sh|cs|swift|cmake)\b")
_FILE_PROVENANCE = re.compile(
    rf"\bthis (?:file|header|module|package|library|source file|script|stylesheet) {_COPY}\b"
    rf"|\b(?:this|it) {_COPY} (?:https?://\S+|{_SOURCE_FILE})"
    # gevent's ``_tblib.py``: "A vendored version of part of https://github.com/ionelmc/python-tblib"
    rf"|\b(?:a|an) (?:vendored|verbatim) (?:version|copy) of (?:(?:a )?parts? of )?(?:https?://\S+|{_SOURCE_FILE})"
    # difftastic's ``sample_files/r_1.R``: "This file is from https://github.com/rstudio/shiny, under the GPL v3."
    r"|\bthis file (?:is|was|comes) (?:taken |copied )?from https?://\S+"
    # Bash-it's ``knife.completion.bash``: "Published originally as public domain code at https://github.com/wk8/..."
    r"|\b(?:published|released|posted) originally (?:as [^\n]{0,40}? )?(?:at|on|in) https?://\S+"
    # pyglet's ``libs/win32/constants.py``: "Most of this file is win32con.py from Python for Windows Extensions:"
    rf"|\b(?:most|much|all|parts?) of this file (?:is|was|are|were|comes from) (?:taken from )?{_SOURCE_FILE} from\b"
    # gevent's ``win32util.py``: "The code is taken from twisted.python.win32 module."
    r"|\b(?:the|this) code (?:is|was) (?:taken|copied) (?:verbatim )?from (?:the )?\w+(?:\.\w+)+ module\b",
    re.IGNORECASE)
# Said in the comment a file opens with, before its first line of code, of what follows: hugo's ``tpl/math/round.go``,
# "The following implementation was taken from https://golang.org/cl/43652." Below the includes (nlohmann/json's
# ``cpp_future.hpp``, "The following code is taken from https://github.com/abseil/...") it is about one part.
_OPENING_PROVENANCE = re.compile(r"\b(?:the following|this) (?:implementation|code) (?:is|was) (?:taken|copied) "
                                 r"(?:verbatim )?from https?://\S+", re.IGNORECASE)
# A comment line of the head that opens with where the file came from, naming a file in a folder or a URL: gevent's
# ``stathelper.c`` "/* copied from Python-2.7.2/Modules/posixmodule.c */". A bare file name ("copied from utils.py")
# is as likely the project's own.
# Or naming a release of another project: rebar3's ``r3_hex_core.erl``, "%% Vendored from hex_core v0.18.0, do not edit
# manually".
_COPIED_LINE = re.compile(rf"^\W{{0,5}}(?:(?:code|shader|script|snippet) )?(?:(?:mostly|largely) )?(?:copied|taken|imported|vendored"
                          # LuaSnip's ``extras/_lambda.lua``, "-- Mostly borrowed from https://github.com/lunarmodules/Penlight/"
                          rf"|borrowed)"
                          # (the address alone on the next line: binjgb's ``simple.css``, "/* copied from", " * https://...")
                          rf"(?: and (?:modified|adapted|edited))? (?:verbatim )?from(?:[ \t]+|[ \t]*\n[^\w\n]{{0,4}}[ \t]*(?=https?://))"
                          rf"(?:https?://\S+|[\w.+-]+/{_SOURCE_FILE}|[\w.+-]+ v?\d+\.\d+(?:\.\d+)*\b"
                          # "Copied from Profiler module, branch: ..., commit: 150bbcf" (Pester's tracing sources)
                          rf"|(?:the )?[\w.+-]+ (?:module|library|project|package|crate|gem)\b[^\n]{{0,40}}\bcommit\b)"
                          # or a fork of a named release: FamiTone5's ";fork of Famitone2 v1.15 by Shiru 04'17"
                          rf"|^\W{{0,4}}(?:an? )?(?:unofficial )?fork of [\w.+-]+ v?\d+\.\d+",
                          re.IGNORECASE | re.MULTILINE)
# where a file's first definition starts: a comment below it is about a part of the file (oh-my-zsh's
# ``gradle.plugin.zsh``: "# taken from https://github.com/gradle/gradle-completion" inside its function)
_FIRST_DEFINITION = re.compile(r"\{|^[ \t]*(?:func|def|function|class|fn|sub|proc|void|static)\b", re.MULTILINE)
_SHADER_FROM = re.compile(r"^\W{0,4}(?:shader|script|snippet) from (?:https?://\S+|[^\n]{0,60}\n\W{0,4}https?://\S+)",
                          re.IGNORECASE | re.MULTILINE)
# "This file is under the GPLv2 license, as it is part of git source code" (difftastic's ``makefile_1.mk``): part of
# a named project's source, which is not this repository.
_PART_OF = re.compile(r"\b(?:this file|it) is (?:a )?part of (?:the )?([\w.+-]+)(?:'s)? source code\b", re.IGNORECASE)
# A comment line of the head saying only where the whole file came from: Pester's ``src/schemas/NUnit3/TestResult.xsd``,
# "<!-- Source: https://github.com/nunit/nunit/tree/master/src/NUnitFramework/framework/Schemas -->" below its XML
# declaration; ``junit_schema_4.xsd``, "<!-- from <llg.cubic.org's JUnit page> -->". A line saying more ("Based on
# https://...", "See https://...") cites a model or a reference, not the file's source.
_LABELLED_SOURCE = re.compile(r"^[ \t]*\W{0,5}(?:source|upstream|origin)[ \t]*:", re.IGNORECASE)
_SOURCE_LINE = re.compile(r"^[ \t]*\W{0,5}(?:source|from|upstream|origin|code from)[ \t]*:?[ \t]+(https?://[^\s>]+)[ \t]*"
                          r"(?:-->|\*/)?[ \t]*$", re.IGNORECASE | re.MULTILINE)
# Or a parenthesis in its opening comment giving the address the code came from: xindi's ``outbound-link-tracking.js``,
# "track outbound link information in Google Analytics (source: http://www.blastam.com/blog/...)".
_SOURCE_NOTE = re.compile(r"\((?:source|taken from|copied from|code from)[ \t]*:?[ \t]*(https?://[^\s()]+)[ \t]*\)",
                          re.IGNORECASE)
_SOURCE_NOTE_LINES = 2
_FILE_HEAD_CHARS = 1_500
# (an XML declaration, a shebang, PHP's opening tag: the university's ``mail/extras/ntlm_sasl_client.php``, "<?php" over
# "** Source: http://www.phpclasses.org/browse/file/7495.html")
_DECLARATION = re.compile(r"\A(?:[ \t]*(?:<\?xml|#!|<\?php\b)[^\n]*\n)+")


def _source_line(head: str, path: str) -> re.Match | None:
    """``_SOURCE_LINE`` in the comment a file opens with (past an XML declaration or a shebang). A tool's settings
    file (a dotfile: ``.rubocop.yml``, "# from https://evilmartians.com/chronicles/...") configures the repository's
    own tools wherever its settings came from; a line below code is about a part (ZeroBrane's ``dist/utils.lua``,
    "-- Source: http://lua-users.org/wiki/CopyTable" over one function)."""
    if path.rsplit("/", 1)[-1].startswith("."):
        return None
    opening = _opening_comment(_DECLARATION.sub("", head, count=1))
    for said in _SOURCE_LINE.finditer(opening):
        before = opening[:said.start()].removesuffix("\n").rsplit("\n", 1)[-1] if said.start() else ""
        before = before.strip().lstrip("/*#;%-<!").removesuffix("*/").removesuffix("-->").strip()
        # a line of its own, not the end of a sentence ("This tool generates the tests in x_spec.cr\n# from
        # https://github.com/...", crystal's ``generate_glob_specs.sh``): below a blank line, a sentence's end or a
        # field ("// Repo: https://github.com/AdguardTeam/Scriptlets")
        if _QUESTION_PAGE.search(said.group(1)):
            continue  # an answer's address cites the snippet below it (VBAChromeDevProtocol's ``Functions.bas``)
        # (a labelled field, "# Source: https://github.com/gabomdq/SDL_GameControllerDB" below a title line, SNKRX's
        # ``engine/gamecontrollerdb.txt``, is no sentence's end)
        if not before or before.endswith((".", ":", ";", "!", "?", ")")) or _FIELD_LINE.match(before) \
                or _LABELLED_SOURCE.match(said.group(0)):
            return said
    return None


# A head whose first lines point to another repository and state terms: VBAChromeDevProtocol's ``WinHttpCommon.bas``,
# "' see https://github.com/EagleAglow/vba-websocket-class" over "' MIT licensed": that repository's file, under them.
_TERMS_LINE = re.compile(r"^\W{0,5}(?:(?:MIT|BSD|ISC|Apache|MPL|GPL|LGPL|Zlib)[\w.-]*[ \t]+licen[cs]ed|licen[cs]ed under\b"
                         r"|@?licen[cs]e[ \t]*:?[ \t]*(?:MIT|BSD|ISC|Apache|MPL|GPL|LGPL|Zlib)\b)", re.IGNORECASE | re.MULTILINE)
_POINTER_LINES = 3


def _licensed_from(opening: str, repo: str) -> str | None:
    """The first lines of an opening comment naming another owner's hosted repository and, on a line of their own,
    the terms the file comes under (``_TERMS_LINE``): "see https://github.com/EagleAglow/vba-websocket-class" over "MIT
    licensed"; else None."""
    first = _first_lines(opening, _POINTER_LINES)
    terms = _TERMS_LINE.search(first)
    if terms is None:
        return None
    own_owner = repo.lower().split("/")[0]
    for owner, name in _hosted(first):
        if owner.lower() != own_owner:
            said = " ".join(terms.group(0).strip(" '/#*;-").split())
            return f"{owner}/{name.removesuffix('.git')} ({said})"
    return None


_FIELD_LINE = re.compile(r"[\w -]{1,20}:\s")
_QUESTION_PAGE = re.compile(r"//(?:[\w-]+\.)*(?:stackoverflow\.com|stackexchange\.com|superuser\.com|serverfault\.com)/")
# A line of the opening comment that is the address of a file of the same name in another repository: the file is that
# one (markdown-preview.nvim's ``app/_static/markdown.css``, ".../iamcco/markdown.css/blob/master/dest/github/markdown.css")
_FILE_ADDRESS = re.compile(r"^[ \t]*\W{0,5}[ \t]*https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)/"
                           r"([\w.-]+)/([\w.-]+)/(?:-/)?(?:blob|raw|src)/[^\s\"'<>]*/([^\s/\"'<>]+)[ \t]*(?:-->|\*/)?[ \t]*$"
                           r"|^[ \t]*\W{0,5}[ \t]*https?://raw\.githubusercontent\.com/([\w.-]+)/([\w.-]+)/[^\s\"'<>]*/"
                           r"([^\s/\"'<>]+)[ \t]*(?:-->|\*/)?[ \t]*$", re.MULTILINE)


def _file_address(head: str, path: str, repo: str) -> str | None:
    """The address of the same-named file in another repository, alone on a line of the opening comment, or None."""
    name = path.rsplit("/", 1)[-1]
    if not name:
        return None
    for said in _FILE_ADDRESS.finditer(_opening_comment(_DECLARATION.sub("", head, count=1))):
        owner, project, file = said.group(1, 2, 3) if said.group(1) else said.group(4, 5, 6)
        if file == name and f"{owner}/{project}".lower() != repo.lower():
            return " ".join(said.group(0).split())
    return None


# A comment line crediting the code to another project's repository: Uniswap v2-core's ``SafeMath.sol``, "// a library
# for performing overflow-safe math, courtesy of DappHub (https://github.com/dapphub/ds-math)".
_COURTESY = re.compile(r"^[ \t]*(?://|#|\*|--)[^\n]*?\bcourtesy of [^\n]{0,60}?(?:https?://)?(?:github\.com|gitlab\.com)/"
                       r"[\w.-]+/[\w.-]+", re.IGNORECASE | re.MULTILINE)


def copied_file_statement(text: str, repo: str = "", path: str = "") -> str | None:
    """The words of a file's head that say the file is a copy of another project's file, or None; "part of X
    source code" counts when X is not the name of repository ``repo``. ``path``: the file's, when known."""
    head = text[:_FILE_HEAD_CHARS]
    words = " ".join(head.split())
    opening = _opening_comment(head)
    if said := (_FILE_PROVENANCE.search(words) or _COPIED_LINE.search(opening)
                or _OPENING_PROVENANCE.search(" ".join(opening.split()))):
        return " ".join(said.group(0).split())
    # the comments above the first definition: a Godot script's "## Code taken and modified from https://..." below its
    # ``extends Node``; a shader's "Shader from https://godotshaders.com/shader/..." (a page of a shader library)
    comments = header_comments(_FIRST_DEFINITION.split(text[:_FILE_HEAD_CHARS], 1)[0])
    # (a source note on the first lines of the file's first comment, past a wrapper's opening line)
    first = "\n".join([line for line in header_comments(text).splitlines() if re.search(r"\w", line)][:_SOURCE_NOTE_LINES])
    if said := (_COPIED_LINE.search(comments) or _SHADER_FROM.search(comments) or _source_line(head, path)
                or _SOURCE_NOTE.search(first)):
        homes = {f"{owner}/{name}".lower() for owner, name in _hosted(said.group(0))}
        if not (repo and repo.lower() in homes):
            return " ".join(said.group(0).split())
    if path and repo and (address := _file_address(head, path, repo)):
        return address
    # (a head naming its own holder says "some parts taken from": CyberChef's operations, "@copyright Crown Copyright")
    if repo and not first_copyright(file_header(text))[0] and (pointed := _licensed_from(opening, repo)):
        return pointed
    # (a head naming its holder is read by the holder rules: an owner's jQuery plugin may point to jquery.org/license)
    if repo and not first_copyright(file_header(text))[0] and (site := _site_license(header_comments(head), repo)):
        return site
    courtesy = _COURTESY.search(head.split("{", 1)[0])  # above the first definition, about the file's code
    if courtesy and not (repo and any(f"{owner}/{name}".lower() == repo.lower() for owner, name in _hosted(courtesy.group(0)))):
        return " ".join(courtesy.group(0).split())
    if path and repo and (home := _home_named_for_file(head, path, repo)):
        return home
    if repo and (adapted := _ADAPTED_WORK.search(opening)) and not named_by_remote(adapted.group(1), repo):
        return " ".join(adapted.group(0).split()).lstrip(";#/*-! ")
    if path and (based := _BASED_ON_NAMESAKE.search(" ".join(opening.split()))) \
            and based.group(2).lower() == path.rsplit("/", 1)[-1].lower():
        return based.group(0)
    part = _PART_OF.search(words)
    if part and repo and _plain(part.group(1)) not in {_plain(repo.rsplit("/", 1)[-1]), _plain(repo.split("/")[0])}:
        return part.group(0)
    return None


# A head's line that is a site's licence page alone, "/// GMLscripts.com/license" (the scripts of a snippet site): the
# file is under that site's terms, so it is that site's. A licence publisher's page names terms, not a home.
_SITE_LICENSE = re.compile(r"^[^\w\n]*(?:see:?[ \t]+)?(?:https?://)?(?:www\.)?((?:[\w-]+\.)+[a-z]{2,})/licen[cs]es?(?:\.\w+)?/?"
                           r"[ \t]*(?:\*/)?[ \t\r]*$", re.IGNORECASE | re.MULTILINE)
_LICENSE_PUBLISHERS = re.compile(r"(?:^|\.)(?:opensource|gnu|fsf|apache|creativecommons|mozilla|unlicense|spdx|boost|"
                                 r"eclipse|choosealicense|wtfpl|php|python|perl|w3|zlib|libpng|x)\.(?:org|net|com)$",
                                 re.IGNORECASE)


def _site_license(comments: str, repo: str) -> str | None:
    """The head's pointer to the licence page of a site the repository's address does not name, or None."""
    for line in _SITE_LICENSE.finditer(comments):
        host = line.group(1).lower()
        if not _LICENSE_PUBLISHERS.search(host) and not named_by_remote(host.split(".")[-2], repo):
            return f"its head points to {host}'s licence page ({' '.join(line.group(0).split())!r})"
    return None


def copied_file_fact(path: str, text: str, repo: str = "") -> VendoringFact | None:
    """A ``copied_file`` fact of a file whose head says it is another project's (``copied_file_statement``), whose
    companions go with it (``companions``); None for any other file."""
    said = copied_file_statement(text, repo, path) if repo else None
    return VendoringFact("copied_file", _folder(path), path, name=said) if said else None


_MINIFIED = re.compile(r"[.-]min$", re.IGNORECASE)
COMPANION_MIN_CHARS = 3  # a shorter name (``a.js``, ``ui.css``) is one an own file takes by chance


def companions(facts: Iterable[VendoringFact], trees: Iterable[VendoredTree] = ()) -> tuple[VendoredTree, ...]:
    """A copy's companions: the files of its folder named as it is but for the extension (a GameMaker script's ``.yy``
    resource beside its ``.gml``, GMLscripts.com's ``b64_to_byte``; a plugin's ``.css`` beside its ``.js``) came with
    it, and the whole folder where the copy is its namesake module (``_namesake_package``). A companion's own head
    answers first (``of_copies``); a copy already inside a vendored tree adds none."""
    facts, trees, found = list(facts), tuple(trees), []
    present = [fact.detail for fact in facts if fact.kind == "present"]
    counts: dict[str, int] = {}
    for path in present:
        parts = path.split("/")[:-1]
        for depth in range(len(parts) + 1):
            counts["/".join(parts[:depth])] = counts.get("/".join(parts[:depth]), 0) + 1
    for fact in facts:
        if fact.kind != "copied_file" or vendored_tree(fact.detail, trees) is not None:
            continue
        stem = _MINIFIED.sub("", fact.detail.rsplit("/", 1)[-1].rsplit(".", 1)[0])
        if _namesake_package(fact.folder, stem, counts):
            found.append(VendoredTree(fact.folder, f"{fact.detail}, named for its folder, says {fact.name!r}",
                                      of_copies=True))
        elif len(stem) >= COMPANION_MIN_CHARS:
            found.append(VendoredTree(fact.folder, f"named as {fact.detail}, which says {fact.name!r}",
                                      pattern=_join(fact.folder, glob.escape(stem) + ".*"), of_copies=True))
            found += [VendoredTree(_folder(other), f"named as {fact.detail}, which says {fact.name!r}",
                                   pattern=glob.escape(other), of_copies=True)
                      for other in sibling_companions(fact.detail, stem, present)]
    return tuple(found)


def _namesake_package(folder: str, stem: str, counts: dict[str, int]) -> bool:
    """Whether a copy is its folder's namesake module (``libraries/ripple/ripple.lua``, its ``_URL`` another's home):
    the folder below the root is that library's, its readme and settings with it, unless it holds a third of the
    repository's files or more (``PACKAGE_SHARE``: its main package)."""
    return bool(folder) and folder.rsplit("/", 1)[-1].lower() == stem.lower() and len(stem) >= COMPANION_MIN_CHARS \
        and counts.get(folder, 0) * PACKAGE_SHARE < counts.get("", 0)


def sibling_companions(path: str, stem: str, present: Iterable[str]) -> list[str]:
    """The files named ``stem`` with another extension than the copy at ``path`` has, in the folders beside the copy's
    folder, where that folder has a parent: a site's assets sorted by type (hugo-theme-learn's
    ``static/css/auto-complete.css`` beside ``static/js/auto-complete.js``). At the top level, and with the copy's own
    extension (a framework's ``components/*/init.js``), siblings are the repository's own parts."""
    folder, name = _folder(path), path.rsplit("/", 1)[-1]
    if "/" not in folder:
        return []
    parent, extension = folder.rsplit("/", 1)[0], name.rsplit(".", 1)[-1]
    return [other for other in present if _folder(other) != folder and _folder(_folder(other)) == parent
            and _MINIFIED.sub("", other.rsplit("/", 1)[-1].rsplit(".", 1)[0]) == stem
            and other.rsplit(".", 1)[-1] != extension]


# A head naming its work as another's, adapted: "; ISSOtm's Menu System, adapted for use in the VuiBui engine." (esprit's
# ``src/libs/menus.asm``); the owner's own work so named stays (``named_by_remote``).
_ADAPTED_WORK = re.compile(r"^[^\w\n]*([A-Z][\w-]+)(?:'s|’s) (?:[A-Z][\w-]*[ \t]?){1,4}, (?:adapted|modified|ported) "
                           r"(?:for|from|to)\b", re.MULTILINE)


# A head saying the file is based on another's file of its own name: "Based on Jones' hardware.inc" in esprit's
# ``src/include/hardware.inc`` (the community file, revised by many): a revision of that file, not the repository's.
_BASED_ON_NAMESAKE = re.compile(r"\b(?i:based on) ([A-Z][\w.-]*(?: [A-Z][\w.-]*){0,2})(?:'s?|’s?) ([\w+-]+(?:\.[\w+-]+)*\.\w{1,5})\b")


# A module's own home field: Python's ``__url__ = "..."`` (``__homepage__``), or a comment's "Homepage:" field line
# (an import path, a citation in a sentence, a link to another file of the repository named: none of these)
_HOME_FIELD = re.compile(r"^[ \t]*(?:__(?:url|homepage|home_page)__[ \t]*=[ \t]*[\"']|[#/*;\-'! \t]*(?:home[ -]?page|project "
                         r"home)[ \t]*:[ \t]*)(https?://[^\s\"'<>]+)", re.IGNORECASE | re.MULTILINE)


def _home_named_for_file(head: str, path: str, repo: str) -> str | None:
    """A hosted repository of another owner named for the file itself (4 letters or more), named as the file's home by
    a field of its head (fishconfig's ``vifm/scripts/termpdf.py``, ``__url__ = "https://github.com/dsanson/termpdf.py"``);
    else None."""
    name = path.rsplit("/", 1)[-1]
    names = {_plain(name), _plain(name.split(".", 1)[0])}
    own_owner = repo.lower().split("/", 1)[0]
    for owner, project in _hosted(" ".join(field.group(1) for field in _HOME_FIELD.finditer(head))):
        project = project.removesuffix(".git")
        if owner.lower() != own_owner and len(_plain(project)) >= 4 and _plain(project) in names:
            return f"its head names {owner}/{project}, the repository named for it"
    return None


# (Visual Basic's "'" too, where the line is not a string literal closed on it: "'use strict';" is code)
_COMMENT_LINE = re.compile(r"[\s\ufeff]*(?:$|/[/*]|\*|#|--|;|<!--|\"\"\"|\'\'\'|\(\*|%|''|'(?![^'\n]*'\W*$))")
# A Visual Basic module's export preamble above its comments: a class's "VERSION 1.0 CLASS" block, its "Attribute VB_*"
# lines and "Option Explicit" (VBAChromeDevProtocol's ``src/JsonConverter.bas``, "'from https://github.com/VBA-tools/...")
_VB_PREAMBLE = re.compile(r"\A(?:VERSION \d[\d.]* CLASS\r?\nBEGIN\r?\n(?:[^\n]*\n){0,8}?END\r?\n)?(?:Attribute VB_\w+ = [^\n]*\r?\n)+"
                          r"(?:Option Explicit[ \t]*\r?\n)?")


def _opening_comment(head: str) -> str:
    """The comment lines a file opens with (past a byte-order mark), up to its first line of code: a "copied from" above one struct in the
    code (delve's ``regs_ppc64le_arch.go``, "// Copied from src/syscall/ztypes_linux_ppc64le.go") is about that struct."""
    lines = []
    for line in _VB_PREAMBLE.sub("", head.lstrip("\ufeff"), count=1).splitlines():
        if not _COMMENT_LINE.match(line) and not (lines and lines[-1].rstrip().endswith(("/*", "\"\"\"", "\'\'\'"))):
            break
        lines.append(line)
    return "\n".join(lines)


# Comment blocks a header may open with, by their opener and closer.
_BLOCKS = (("/*", "*/"), ('"""', '"""'), ("'''", "'''"), ("<!--", "-->"), ("(*", "*)"), ("{-", "-}"), ("--[[", "]]"))
# ``<?php``, a package clause, ``'use strict';``, a few imports or a shader's declarations (raylib's ``raymarching.fs``:
# ``#version 330`` and seven ``in``/``out``/``uniform`` lines above Inigo Quilez's header) may come before a header
_HEADER_CODE_LINES = 12


def file_header(text: str) -> str:
    """A file's head up to its code: its opening comments, past at most ``_HEADER_CODE_LINES`` lines of code (a
    ``<?php``, a package clause, a shader's declarations). A copyright line below the code is about a part, not the
    file: YOURLS's own ``js/common.js`` appends the jQuery cookie plugin ("Copyright (c) 2006 Klaus Hartl", line 110)
    to its code."""
    return _header_parts(text)[0]


def header_comments(text: str) -> str:
    """The comment lines of ``file_header``, its code left out (a package clause names no holder or project)."""
    return _header_parts(text)[1]


# The filter reads one document's header by a dozen rules (its holder, notice, terms, release...): the last few
# documents' headers are kept, as is their first copyright line (pure functions of the text).
@functools.lru_cache(maxsize=4)
def _header_parts(text: str) -> tuple[str, str]:
    lines = list(_header_lines(text))
    return "".join(line for line, _ in lines), "".join(line for line, code in lines if not code)


def _header_lines(text: str) -> Iterator[tuple[str, bool]]:
    """(line, whether it is code) for each line of ``file_header``."""
    closing, code = "", 0
    for line in text[:_FILE_HEAD_CHARS * 2].splitlines(keepends=True):
        stripped = line.strip()
        is_code = False
        if closing:
            closing = "" if closing in stripped else closing
        elif (block := next((b for b in _BLOCKS if stripped.startswith(b[0])), None)) is not None:
            closing = "" if block[1] in stripped[len(block[0]):] else block[1]
        elif stripped and not _COMMENT_LINE.match(line):
            code, is_code = code + 1, True
            if code > _HEADER_CODE_LINES:
                return
        yield line, is_code


def _plain(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


# A file whose opening banner is the address of its own published page, e.g. autoconf-archive's macros:
# "# https://www.gnu.org/software/autoconf-archive/ax_check_vscript.html" over ``m4/ax_check_vscript.m4``.
_URL = re.compile(r"https?://[^\s\"'<>()]+")
_BANNER_LINES = 5
_PAGE_EXTENSIONS = (".html", ".htm", ".md", ".rst", ".txt", ".adoc", ".xml")


def published_page(path: str, text: str, repo: str = "") -> str | None:
    """The URL in a file's first lines of a web page named as the file is (``<stem>.html``, a stem of 4 characters or
    more) or of the file itself (its whole name, ``.../lib/cpp_magic.h``), unless it names repository ``repo``: the
    file is published elsewhere and this is a copy; else None. A link to a download (``f1040.pdf`` in pdf.js's
    ``f1040.pdf.link``) or a project's home is no such page."""
    name = path.rsplit("/", 1)[-1].lower()
    stem, own = name.split(".", 1)[0], repo.rsplit("/", 1)[-1].lower()
    if len(stem) < 4 or name.endswith(_PAGE_EXTENSIONS):
        return None  # a page or document names its own rendered page
    # a Markdown link's target (rusqlite's ``src/unlock_notify.rs``: "//! [Unlock Notification](http://sqlite.org/
    # unlock_notify.html)", a doc comment naming the API it implements) is a reference, not the file's own address
    banner = re.sub(r"\]\([^)\s]*\)", "]", "\n".join(text.splitlines()[:_BANNER_LINES]))
    for url in _URL.findall(banner):
        last = url.rstrip("/.,;").rsplit("/", 1)[-1].lower()
        page = re.fullmatch(r"([^/]+)\.html?", last)
        # its page (``<stem>.html``), or the file itself in another repository (swift-nio's ``cpp_magic.h``: "this is
        # https://github.com/18sg/uSHET/blob/c09e0ac.../lib/cpp_magic.h")
        in_repository = url.split("://", 1)[-1].count("/") >= 3  # host/owner/project/.../name, not a doc's short link
        owner = repo.split("/", 1)[0].lower() if "/" in repo else ""
        same_owner = owner and re.search(rf"(?:github\.com|gitlab\.com)/{re.escape(owner)}/", url.lower())
        # or its home folder, the file's first words, over a release line: binjgb's ``reset.css``, "/*
        # http://meyerweb.com/eric/tools/css/reset/" over "v2.0 | 20110126"
        home = last == stem and banner.lstrip(" \t\n/*#;-<!").startswith(url) and _OWN_VERSION.search(banner)
        if (page and page.group(1) == stem or last == name and in_repository or home) and not (own and own in url.lower()) \
                and not same_owner:  # another repository of the same owner is a model, not another project
            return url
    return None


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _join(folder: str, sub: str) -> str:
    sub = sub.strip().strip("/").removeprefix("./")
    return f"{folder}/{sub}" if folder and sub else folder or sub


def may_say_vendored(path: str) -> bool:
    """Whether the file at ``path`` can give a ``VendoringFact`` (a cheap test on its name)."""
    folder, name = _folder(path), path.rsplit("/", 1)[-1]
    return (name in MANIFEST_NAMES or name.endswith((".gemspec", ".cabal", ".nimble")) or name == "vendor.txt"
            or name == "modules.txt" or path == ".gitmodules" or (name == "RECORD" and folder.endswith(".dist-info"))
            or (name in _ROLE_MANIFESTS and folder.rsplit("/", 1)[-1] == "meta") or bool(folder and _README.fullmatch(name))
            or _LICENSE_NAME.fullmatch(name) is not None or may_declare(path)
            or (not folder and _CHANGELOG.fullmatch(name) is not None) or (not folder and _CREDITS.fullmatch(name) is not None))


_ROOT_NOTICE = re.compile(r"notice(?:\.(?:txt|md))?", re.IGNORECASE)
_LICENSE_NAME = re.compile(r"(?:licen[cs]e|copying|copyright|unlicense|notice)(?:[-._ ].*)?|[\w-]+[-_.]licen[cs]e(?:\.\w+)?",
                           re.IGNORECASE)


def vendoring_facts(path: str, text: str, *, license_file: bool = False, detected: str | None = None) -> tuple:
    """The ``VendoringFact``s one repository file gives (none for most files). ``license_file``: the
    file is a license text (``filters.licenses``), ``detected`` the license it states."""
    folder, name = _folder(path), path.rsplit("/", 1)[-1]
    facts = list(_declarations(path, folder, name, text))
    if may_declare(path):
        facts += [fact for target, detail in declared_copies(path, text) for fact in _declared(target, detail)]
        if named := list(named_sections(path, text)):
            own = sections_owner(path, text)  # whose the file says the repository is, beside the projects it names
            facts += [VendoringFact("declares_named", folder, detail, name=name, holders=own) for name, detail in named]
        if not folder:
            own = sections_owner(path, text)
            facts += [VendoringFact("section", folder, detail, holders=names, names=own) for detail, names in
                      section_holders(path, text)]
    if license_file or _README.fullmatch(name):
        # "the third-party libraries under lib/" (polyphone's ``sources/LICENSE.txt``): the folder is others' code
        facts += [VendoringFact("declares", _join(folder, said.group(1)), f"{path} says {' '.join(said.group(0).split())!r}")
                  for said in _THIRD_PARTY_UNDER.finditer(text[:_THIRD_PARTY_CHARS])
                  if not said.group(1).startswith(("/", "."))]
    if not folder and not license_file and _ROOT_NOTICE.fullmatch(name):
        # who the root's NOTICE says holds the project (``repository_owner`` reads it where no license text does)
        facts.append(VendoringFact("notice", folder, name, holders=copyright_holders(text), first_year=_earliest_year(text)))
    if not folder and _CREDITS.fullmatch(name):
        facts += credited_files(path, text)
    if license_file and folder and (hosts := _hosts(text[:_LICENSE_HOME_CHARS])):
        facts.append(VendoringFact("license_home", folder, name, urls=hosts))
    if license_file and not folder:
        facts += [VendoringFact("credited", folder, f"{name} credits {said.group(1)!r} to {holder!r}",
                                name=_plain(said.group(1)), holders=frozenset({holder}))
                  for said in _CREDITED.finditer(text[:_THIRD_PARTY_CHARS])
                  for holder in copyright_holders(f"Copyright {said.group(2)}")]
    if license_file:
        holders = copyright_holders(text)
        facts.append(VendoringFact("license", folder, name, holders=holders,
                                   digest=_text_digest(text), license=detected or "", names=endorsement_names(text),
                                   first_year=_earliest_year(text), template_only=not holders and _names_template(text)))
    if name in MANIFEST_NAMES or name.endswith((".gemspec", ".cabal", ".nimble")):
        manifest = _manifest_fact(folder, name, text)
        if manifest is not None:
            # the root manifest's license: what the repository declares for itself (``root_license_copies``)
            declared = (manifest_license(path, text) or "") if not folder else ""
            facts.append(dataclasses.replace(manifest, license=declared) if declared else manifest)
    return tuple(facts)


# A root credits file linking a file of the tree, by its name, to the repository it came from: esprit's ``credits.md``,
# "[fortISSimO.asm](https://github.com/ISSOtm/fortISSimO)" under the author's name (``credited_copies``).
_CREDITS = re.compile(r"(?:credits|acknowledge?ments?|thanks|attributions?)(?:\.(?:md|markdown|txt|rst))?", re.IGNORECASE)
_LINKED_FILE = re.compile(r"\[`?([\w+-]+(?:\.[\w+-]+)*\.[A-Za-z][\w]{0,5})`?\]\((https?://[^\s)]+)\)")
CREDITS_MAX_CHARS = 50_000


def credited_files(path: str, text: str) -> list[VendoringFact]:
    """A ``credited_file`` fact for each file name a root credits file links to a hosted repository or gist."""
    return [VendoringFact("credited_file", "", f"{path} links {link.group(1)!r} to {link.group(2)}", name=link.group(1),
                          urls=frozenset(f"{owner}/{name}".lower() for owner, name in _hosted(link.group(2))))
            for link in _LINKED_FILE.finditer(text[:CREDITS_MAX_CHARS]) if _hosted(link.group(2))]


def credited_copies(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """The files a root credits file links, by their own name, to another owner's repository: each the one file of
    the tree so named (esprit's ``src/libs/fortISSimO.asm``, credited to ISSOtm's fortISSimO). A name two files share
    says nothing of which; a link to a repository of the owner's is the owner's work published elsewhere."""
    facts = list(facts)
    named: dict[str, list[str]] = {}
    for fact in facts:
        if fact.kind == "present":
            named.setdefault(fact.detail.rsplit("/", 1)[-1], []).append(fact.detail)
    own_owner = repo.lower().split("/", 1)[0]
    found = []
    for fact in facts:
        paths = (named.get(fact.name) or _near_names(fact.name, named)) if fact.kind == "credited_file" else []
        if len(paths) == 1 and fact.urls and not any(url.split("/")[0] == own_owner for url in fact.urls):
            found.append(VendoredTree(_folder(paths[0]), fact.detail, pattern=glob.escape(paths[0])))
    return tuple(found)


NEAR_NAME_RATIO = 0.85  # a credited name this alike to a file's, its extension the same: a slip of the pen
NEAR_NAME_MIN = 8


def _near_names(name: str, named: dict[str, list[str]]) -> list[str]:
    """The paths of the one file name that a credited name absent from the tree nearly spells, the extension the same
    (esprit's credits link "pal_fade_dmgcgb.asm" for its ``src/libs/pal_fade_dmgbc.asm``); none where several do."""
    stem, _, extension = name.rpartition(".")
    if len(stem) < NEAR_NAME_MIN:
        return []
    near = [other for other in named if other.rpartition(".")[2] == extension
            and difflib.SequenceMatcher(None, stem.lower(), other.rpartition(".")[0].lower()).ratio() >= NEAR_NAME_RATIO]
    return named[near[0]] if len(near) == 1 else []


# A root licence text's copyright line naming a project before its holder: "BOSL2 Copyright (c) 2017-2020, Revar
# Desmera" in PolyDiceGenerator's LICENSE, beside its own "PolyDiceGenerator Copyright (c) 2020, charmaur".
_CREDITED = re.compile(r"^[ \t]*([A-Za-z][\w.+-]*)[ \t]+copyright[ \t]+((?:\(c\)|©)?[ \t]*(?:19|20)\d\d[^\n]*)$",
                       re.IGNORECASE | re.MULTILINE)


def credited_projects(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """The folders named for a project the root's licence text credits to a holder, the project not the repository:
    PolyDiceGenerator's ``BOSL2/`` (its LICENSE: "BOSL2 Copyright (c) 2017-2020, Revar Desmera"), a library copied
    whole beside the one model file its owner wrote."""
    facts = list(facts)
    own = _plain(repo.rsplit("/", 1)[-1]) if repo else ""
    known = {f.folder for f in facts if f.kind == "present" and f.folder}
    known |= {"/".join(folder.split("/")[:depth]) for folder in known for depth in range(1, folder.count("/") + 1)}
    found = []
    for fact in facts:
        if fact.kind != "credited" or not fact.name or fact.name == own or len(fact.name) < NAMED_TEXT_MIN:
            continue
        for folder in sorted(known):
            if _plain(folder.rsplit("/", 1)[-1]) == fact.name and not any(t.folder == folder for t in found):
                found.append(VendoredTree(folder, f"the root's {fact.detail}, a project of another holder"))
    return tuple(found)


_WRITTEN_BY = re.compile(r"\b(?:all )?written by\b", re.IGNORECASE)  # a section saying who wrote its collection
_PROSE_SECTION = "says it is taken from"  # a root section's words about the collection it names
_THIRD_PARTY_NAME = re.compile(r"third[-_ ]?party", re.IGNORECASE)
_LISTED_COPY = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]+(?:all (?:the )?files (?:in|under) )?`([\w./+-]+)`[ \t]*(?:\([^)\n]*\))?[ \t]*$",
                          re.IGNORECASE | re.MULTILINE)
_MAX_LIST_CHARS = 20_000
_THIRD_PARTY_UNDER = re.compile(r"\bthird[- ]party (?:librar(?:y|ies)|code|sources?|dependencies|components|modules|"
                                r"packages) (?:under|in) `?([\w.-]+(?:/[\w.-]+)*)/`?", re.IGNORECASE)
_THIRD_PARTY_CHARS = 2_000


def _declared(target: str, detail: str) -> tuple[VendoringFact, ...]:
    """A declared path's fact: ``declares`` for a folder or file (a path, ``dir/*``), ``declares_paths`` (``name``
    the glob) for the files a glob names in a folder."""
    wildcard = _GLOB.search(target)
    if wildcard is None:
        return (VendoringFact("declares", target, detail),)
    base = target[:wildcard.start()].rsplit("/", 1)[0]
    if target in (f"{base}/*", f"{base}/**"):
        return (VendoringFact("declares", base, detail),)
    return (VendoringFact("declares_paths", base, detail, name=target),)


# An Ansible role's manifest, ``meta/main.yml``: ``galaxy_info`` with its ``role_name``, ``namespace`` and ``author``.
_ROLE_MANIFESTS = ("main.yml", "main.yaml")


def _galaxy_role(path: str, role: str, text: str):
    """A role folder named as ``ansible-galaxy install`` names what it installs, ``<namespace>.<role_name>`` from the
    role's own manifest (dokku-ansible's ``roles/geerlingguy.docker/``, ``roles/dokku_bot.ansible_dokku/``): installed
    from Galaxy, whoever wrote it. A role written in the repository goes by its plain name (``roles/docker/``)."""
    try:
        info = (yaml.safe_load(text) or {}).get("galaxy_info")
    except (yaml.YAMLError, AttributeError, RecursionError, ValueError):
        return
    if not role or not isinstance(info, dict) or not isinstance(info.get("role_name"), str):
        return
    names = {f"{owner}.{info['role_name']}".lower() for key in ("namespace", "author")
             if isinstance(owner := info.get(key), str) and owner.strip()}
    if role.rsplit("/", 1)[-1].lower() in names:
        yield VendoringFact("declares", role, f"{path}: galaxy_info names the role {role.rsplit('/', 1)[-1]!r}, "
                                              f"the name ansible-galaxy installs it under")


def _declarations(path: str, folder: str, name: str, text: str):
    if name == "pyproject.toml":
        vendoring = _toml(text).get("tool", {}).get("vendoring", {})
        if isinstance(vendoring, dict) and isinstance(vendoring.get("destination"), str):
            yield VendoringFact("declares", _join(folder, vendoring["destination"]), f"[tool.vendoring] in {path}")
    elif name == "vendor.txt":  # the `vendoring` tool's requirements file, in the folder it fills
        yield VendoringFact("declares", folder, f"vendor.txt at {folder or '.'}/")
        for line in text.splitlines():
            package = re.match(r"\s*([A-Za-z0-9][\w.-]*)\s*(?:==|>=|~=|\[|$)", line)
            if package and not line.lstrip().startswith("#"):
                yield VendoringFact("declares", _join(folder, package.group(1).lower().replace("-", "_")),
                                    f"vendor.txt at {folder or '.'}/")
    elif name == "modules.txt" and folder.rsplit("/", 1)[-1] == "vendor":  # Go's `go mod vendor` record
        yield VendoringFact("declares", folder, f"{path}")
        for module in re.findall(r"^# (\S+) \S+", text, re.MULTILINE):
            yield VendoringFact("declares", _join(folder, module), f"{path}")
    elif name == "RECORD" and folder.endswith(".dist-info"):
        yield from _installed_record(path, folder, text)
    elif name in _ROLE_MANIFESTS and folder.rsplit("/", 1)[-1] == "meta" and "galaxy_info" in text:
        yield from _galaxy_role(path, _folder(folder), text)
    elif not folder and _CHANGELOG.fullmatch(name):
        yield from _synced(path, text)
    elif _THIRD_PARTY_NAME.search(name) and name.lower().endswith((".md", ".txt", ".rst")) or name == "THIRDPARTY":
        # a third-party notice's list of what it covers: "- All files in `basejump_files`", "- `include/bsg_defines.v`"
        # (tcp_hw's ``THIRDPARTYLICENSES.md``)
        for listed in _LISTED_COPY.finditer(text[:_MAX_LIST_CHARS]):
            target = listed.group(1).strip("/")
            if target and not target.startswith((".", "/")) and ("/" in target or "." in target or listed.group(0).lower()
                                                                  .lstrip(" \t-*0123456789.").startswith("all files")):
                yield VendoringFact("declares", _join(folder, target), f"{path} lists `{target}`")
    elif not folder and (_README.fullmatch(name) or _LICENSE_NAME.fullmatch(name)) and name.lower().endswith(".md"):
        # the root's README or sectioned license text, a section per collection the repository repackages
        upstream = set()
        for title, address, section in prose_upstream_sections(text):
            upstream.add(title)
            if (names := section_names(title, address)):
                yield VendoringFact("lists_upstream", folder, f"{path}'s section {title[:40]!r} {_PROSE_SECTION} "
                                    f"{address[:80]}", names=names,
                                    urls=frozenset(f"{o}/{n}".lower() for o, n in _hosted(address)))
        if _LICENSE_NAME.fullmatch(name):
            # a root license text's section about a collection it does not say is taken from elsewhere states the
            # repository's own terms for it (r7rs-libs's "## Robin", "all written by Peter Lane", the Open Works
            # License): its files' headers under those terms are no copies' by the root's other sections
            for title, section in section_titles(text):
                if title not in upstream and _WRITTEN_BY.search(section) and (plain := _plain(title)):
                    yield VendoringFact("own_section", folder, f"{path}'s section {title[:40]!r}", names=frozenset({plain}))
    elif path == ".gitmodules":
        for sub in re.findall(r"^\s*path\s*=\s*(.+?)\s*$", text, re.MULTILINE):
            yield VendoringFact("declares", sub.strip("/"), ".gitmodules")
    elif folder and not _README.fullmatch(name) and name.lower().endswith((".txt", ".md")) \
            and (said := _PROVENANCE.match(text[:_README_HEAD_CHARS].lstrip())) is not None:
        # a note opening with what the folder is, whatever its name: swift-crypto's ``Sources/CCryptoBoringSSL/hash.txt``,
        # "This directory is derived from BoringSSL cloned from https://boringssl.googlesource.com/boringssl at ..."
        yield VendoringFact("declares", folder, f"{path} says {' '.join(said.group(0).split())[:60]!r}")
    elif folder and _README.fullmatch(name):
        for title, address in upstream_sections(text):
            if (names := section_names(title, address)):
                yield VendoringFact("lists_upstream", folder, f"{path}'s section {title[:40]!r} names its upstream "
                                    f"{address[:80]}", names=names, urls=frozenset(f"{o}/{n}".lower() for o, n in
                                                                                    _hosted(address)))
        head = text[:4000]
        if holders := copyright_holders(head):  # a README naming who holds the folder's copyright
            yield VendoringFact("license", folder, name, holders=holders)
        if written_for := frozenset(_plain(word) for word in _WRITTEN_FOR.findall(head[:_README_HEAD_CHARS])):
            yield VendoringFact("written_for", folder, name, names=written_for)
        chromium = all(re.search(rf"^{field}:\s*\S", head, re.MULTILINE) for field in _CHROMIUM_FIELDS)
        said = _PROVENANCE.search(head)
        if chromium or said:
            quote = "Name/URL/Version fields" if chromium else repr(" ".join(said.group(0).split())[:60])
            yield VendoringFact("declares", folder, f"{path} says {quote}")
        elif subfolders := _SUBFOLDER_PROVENANCE.search(" ".join(head.split())):
            yield VendoringFact("declares_subfolders", folder, f"{path} says {subfolders.group(0)[:80]!r}")


# A root changelog's entries that say the repository merged in another repository at a commit, again and again: a subtree
# kept in sync (setuptools' NEWS.rst, "Synced with pypa/distutils@d7633fbed", "Merge with pypa/distutils@24bd3179b").
_CHANGELOG = re.compile(r"(?:NEWS|CHANGELOG|CHANGES|HISTORY)(?:\.\w+)?", re.IGNORECASE)
_SYNCED = re.compile(r"\b(?:synced|merged?|sync|updated?) (?:with|from) ([\w.-]+)/([\w.-]+)@[0-9a-f]{7,40}\b", re.IGNORECASE)
SYNCED_MIN = 2


def _synced(path: str, text: str) -> Iterator[VendoringFact]:
    counts: dict[tuple[str, str], int] = {}
    for found in _SYNCED.finditer(text):
        key = (found.group(1).lower(), found.group(2).lower().removesuffix(".git"))
        counts[key] = counts.get(key, 0) + 1
    for (owner, name), count in sorted(counts.items()):
        if count >= SYNCED_MIN:
            yield VendoringFact("synced", "", f"{path} says {count} times it synced with {owner}/{name}@...",
                                name=_plain(name), urls=frozenset({f"{owner}/{name}"}))


_LICENSE_HOME_CHARS = 2_000
_HOST = re.compile(r"https?://(?:www\.)?((?:[\w-]+\.)+[a-z]{2,})\b", re.IGNORECASE)


def _hosts(text: str) -> frozenset[str]:
    return frozenset(host.lower() for host in _HOST.findall(text))


def domain_packages(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """The folders whose own license text points to a site whose domain, reversed, is the folder's package path: the
    project of that domain (image-viewer-actionscript3's ``src/com/greensock/LICENSE.txt``, "http://greensock.com/
    licensing", over GreenSock's ``package com.greensock`` beside the repository's ``com/leondejong/``). A domain named
    for the repository or its owner is its own."""
    own = {_plain(part) for part in repo.lower().split("/")} - {""}
    found = []
    for fact in facts:
        if fact.kind != "license_home":
            continue
        folders = [part.lower() for part in fact.folder.split("/")]
        for host in sorted(fact.urls):
            labels = list(reversed(host.split(".")))
            if len(labels) >= 2 and folders[-len(labels):] == labels and _plain(labels[-1]) not in own:
                found.append(VendoredTree(fact.folder, f"own {fact.detail} at {fact.folder}/ points to {host}, the "
                                                       f"domain its package path spells"))
                break
    return tuple(found)


# A GameMaker extension's manifest (``<name>/<name>.yy``, "modelName"/"resourceType": "GMExtension") naming the package
# it was published as on the Marketplace: "packageID": "com.yoyogames.googleplaylicensingextension" (PixelMan-GMS2's
# ``extensions/GooglePlayLicensingAsExt/``, YoYo Games' extension bundling Google's licensing library). The 2.3 format
# allows trailing commas, so its fields are read by pattern, not as JSON.
_GM_EXTENSION = re.compile(r'"(?:modelName|resourceType)"\s*:\s*"GMExtension"')
_GM_PACKAGE = re.compile(r'"packageI[dD]"\s*:\s*"([A-Za-z][\w-]*(?:\.[\w-]+)+)"')


def extension_fact(path: str, text: str) -> VendoringFact | None:
    """The ``extension`` fact of a GameMaker extension manifest naming its published package (``name``: the package id)."""
    folder, name = _folder(path), path.rsplit("/", 1)[-1]
    if not (name.endswith(".yy") and folder.rsplit("/", 1)[-1] == name[:-3]) or not _GM_EXTENSION.search(text[:2_000]):
        return None
    package = _GM_PACKAGE.search(text)
    return VendoringFact("extension", folder, name, name=package.group(1)) if package else None


def published_extensions(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """The folders of extensions published under a package id whose publisher (its second label, the domain's name:
    ``yoyogames`` in ``com.yoyogames.googleplaylicensingextension``) the repository's address does not name: an
    extension installed from its publisher, not written here."""
    found = []
    for fact in facts:
        labels = fact.name.split(".") if fact.kind == "extension" else []
        if len(labels) >= 3 and repo and not named_by_remote(labels[1], repo):
            found.append(VendoredTree(fact.folder, f"GameMaker extension manifest {fact.detail} at {fact.folder}/ "
                                                   f"names the package {fact.name!r}, published by {labels[1]!r}"))
    return tuple(found)


def synced_trees(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """The folder named for a repository the root changelog says it synced with at commit after commit (``_SYNCED``,
    letters and digits compared: setuptools' ``setuptools/_distutils/``, pypa/distutils), not this repository."""
    facts = list(facts)
    synced = [f for f in facts if f.kind == "synced" and repo.lower() not in f.urls]
    if not synced:
        return ()
    held: dict[str, int] = {}  # every folder, and how many files lie below it
    for fact in facts:
        if fact.kind == "present" and fact.folder:
            parts = fact.folder.split("/")
            for depth in range(1, len(parts) + 1):
                held["/".join(parts[:depth])] = held.get("/".join(parts[:depth]), 0) + 1
    found = []
    for fact in synced:
        # the folder so named holding the most files, twice as many as any other so named (not the docs about it)
        named = sorted((count, folder) for folder, count in held.items() if _plain(folder.rsplit("/", 1)[-1]) == fact.name)
        if named and (len(named) == 1 or named[-1][0] >= 2 * named[-2][0]):
            found.append(VendoredTree(named[-1][1], f"{fact.detail}, the folder named for it"))
    return tuple(found)


def fetched_facts(path: str, text: str) -> tuple[VendoringFact, ...]:
    """The ``fetched`` facts of a script or data file (``filters.fetch_lists``): each path or name it says it
    fetches from another repository, ``name`` the target, ``urls`` that repository."""
    if not may_list_copies(path):
        return ()
    return tuple(VendoringFact("fetched", _folder(path), detail, name=target, urls=frozenset({url}))
                 for target, url, detail in fetched_copies(path, text))


FETCHED_MIN_SIBLINGS = 2  # a bare name matches a folder by chance (a clone of ``docs`` into a build folder)
FETCHED_FOLDER_SHARE = 0.5  # more than this share of a folder's subfolders fetched: the folder is one of copies


def fetched_trees(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """The folders a script or data file of the repository says it fetches from another owner's repository
    (``fetched_facts``): a path it names that the tree holds (ohmyzsh's ``plugins/gitfast`` by
    ``.github/dependencies.yml``), or folders named as its entries, two or more side by side (vimrc's
    ``sources_non_forked/ale``, ``.../nerdtree`` by ``update_plugins.py``). Where those are most of their parent's
    subfolders (three or more), the parent is a folder of copies, those the list no longer names too (vimrc's
    ``gist-vim``). The repository's own owner's repositories are its own (a split it publishes, a sibling project)."""
    facts = list(facts)
    own_owner = repo.lower().split("/", 1)[0] if repo else ""
    fetched = [f for f in facts if f.kind == "fetched" and (copies_into(f.detail)
                                                           or not any(url.split("/", 1)[0] == own_owner for url in f.urls))]
    if not fetched:
        return ()
    files = {f.detail for f in facts if f.kind == "present"}
    known = {"/".join(parts[:depth]) for parts in (f.folder.split("/") for f in facts if f.kind == "present" and f.folder)
             for depth in range(1, len(parts) + 1)}
    found: dict[str, str] = {}
    by_parent: dict[str, dict[str, str]] = {}
    patterns: dict[str, str] = {}
    for fact in fetched:
        if "/" in fact.name and _GLOB.search(fact.name.rsplit("/", 1)[-1]):
            # the files a copy's glob names in the folder, where the tree holds any (abapGit's ``src/json/z*``)
            if any(fnmatch.fnmatchcase(file, fact.name) for file in files):
                patterns.setdefault(fact.name, fact.detail)
            continue
        if "/" in fact.name or fact.name == fact.folder:  # a path, or the folder a record in it names (``.gitrepo``)
            for target in (fact.name, _join(fact.folder, fact.name)):
                if target in known or target in files:
                    found.setdefault(target, fact.detail)
                    break
            continue
        for folder in known:
            # (or named for it with the kind of thing it is after a dot: yazi's ``full-border.yazi``)
            if _plain(fact.name) in (_plain(folder.rsplit("/", 1)[-1]), _plain(folder.rsplit("/", 1)[-1].rsplit(".", 1)[0])):
                by_parent.setdefault(_folder(folder), {}).setdefault(folder, fact.detail)
    for parent, folders in sorted(by_parent.items()):
        # (a lock's entry pinned at a revision names what it installed, alone too: yazi's flavour)
        if len(folders) < FETCHED_MIN_SIBLINGS and not all(" pins " in detail for detail in folders.values()):
            continue
        subfolders = {folder for folder in known if _folder(folder) == parent}
        if parent and len(folders) >= 3 and len(folders) > FETCHED_FOLDER_SHARE * len(subfolders):
            lists = [detail.split(" ", 1)[0] for detail in folders.values()]
            found[parent] = f"{len(folders)} of the {len(subfolders)} folders in {parent}/ fetched " \
                            f"({max(sorted(set(lists)), key=lists.count)} lists them), a folder of copies"
        else:
            found.update(folders)
    return (*(VendoredTree(folder, evidence) for folder, evidence in sorted(found.items())
              if not any(folder.startswith(other + "/") for other in found)),
            *(VendoredTree(_folder(pattern), evidence, pattern=pattern) for pattern, evidence in sorted(patterns.items())
              if not any(pattern.startswith(other + "/") for other in found)))


GLUE_MIN_SIBLINGS = 5  # folders beside a copy that hold a file named as the convention says


def with_own_glue(trees: Iterable[VendoredTree], facts: Iterable[VendoringFact]) -> tuple[VendoredTree, ...]:
    """The ``trees`` less each file named by the convention of the repository's own folders beside them: a file
    named for its folder with the suffix (more than an extension) that most sibling folders' files have
    (``GLUE_MIN_SIBLINGS`` or more, more than half): ohmyzsh's ``plugins/gitfast/gitfast.plugin.zsh`` beside the
    copied git completion, as in ``plugins/git/git.plugin.zsh`` and ~300 other plugins: the framework's wrapper
    around the copy, its own. A file naming a copyright holder is the copy's (kube-ps1's, renamed to the convention
    by the copy recipe)."""
    trees, facts = tuple(trees), list(facts)
    files = {f.detail for f in facts if f.kind == "present"}
    held = {f.detail for f in facts if f.kind == "holder"}  # a file naming a holder is the copy's (kube-ps1's)
    subfolders: dict[str, set[str]] = {}
    for path in files:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            subfolders.setdefault("/".join(parts[:depth - 1]), set()).add("/".join(parts[:depth]))
    found = []
    for tree in trees:
        if tree.pattern or tree.subfolders or tree.folder in files:
            found.append(tree)
            continue
        base, siblings = tree.folder.rsplit("/", 1)[-1], subfolders.get(_folder(tree.folder), set())
        glue = set()
        for path in files:
            if _folder(path) == tree.folder and (name := path.rsplit("/", 1)[-1]).startswith(base + ".") \
                    and path not in held:
                suffix = name[len(base):]
                if suffix.count(".") < 2:
                    continue  # a bare extension names a library's own namesake module (``libraries/ser/ser.lua``)
                named = sum(f"{sibling}/{sibling.rsplit('/', 1)[-1]}{suffix}" in files for sibling in siblings)
                if named >= GLUE_MIN_SIBLINGS and named * 2 > len(siblings):
                    glue.add(path)
        found.append(dataclasses.replace(tree, glue=tree.glue | frozenset(glue)) if glue else tree)
    return tuple(found)


def _installed_record(path: str, folder: str, text: str) -> Iterator[VendoringFact]:
    """An installed distribution's ``RECORD`` (``pip install --target``, the wheel's file list: "packaging/version.py,
    sha256=...,16688"): the folders and modules it lists beside its ``.dist-info`` folder, and that folder, are the
    distribution's, another project's (setuptools' ``setuptools/_vendor/packaging/`` and ``packaging-26.0.dist-info/``).
    Paths leaving the folder (``../../bin/wheel``) are not followed."""
    parent, own = _folder(folder), folder.rsplit("/", 1)[-1]
    tops = {line.split(",", 1)[0].split("/", 1)[0] for line in text.splitlines() if "," in line}
    detail = f"{path} lists it"
    yield VendoringFact("declares", folder, detail)
    for top in sorted(tops - {own, "", ".", ".."}):
        if not top.startswith(("..", "/")) and not top.endswith(".pth"):
            yield VendoringFact("declares", _join(parent, top), detail)


def _toml(text: str) -> dict:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _manifest_fact(folder: str, name: str, text: str) -> VendoringFact | None:
    """The package a manifest names, the workspace members it declares and whether it defers to one."""
    package, members, inherits = "", (), False
    if name.endswith(".json") and name not in ("META.json",):
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            return None
        if not isinstance(data, dict):
            return None
        package = data.get("name") if isinstance(data.get("name"), str) else ""
        if name == "library.json":  # PlatformIO's: "authors": {"name": ...} or a list of them
            authors = data.get("authors")
            authors = authors if isinstance(authors, list) else [authors]
            urls = frozenset(f"{owner}/{repo.removesuffix('.git')}".lower() for owner, repo in _hosted(text))
            return VendoringFact("manifest", folder, name, name=package, urls=urls, holders=_author_names(
                a.get("name") if isinstance(a, dict) else a for a in authors if isinstance(a, (dict, str))))
        workspaces = data.get("workspaces")
        workspaces = workspaces.get("packages") if isinstance(workspaces, dict) else workspaces
        members = tuple(w for w in workspaces if isinstance(w, str)) if isinstance(workspaces, list) else ()
    elif name in ("Cargo.toml", "pyproject.toml"):
        data = _toml(text)
        table = data.get("package") or data.get("project") or data.get("tool", {}).get("poetry") or {}
        package = table.get("name", "") if isinstance(table, dict) else ""
        workspace = data.get("workspace") or data.get("tool", {}).get("uv", {}).get("workspace") or {}
        members = tuple(m for m in workspace.get("members", []) if isinstance(m, str)) \
            if isinstance(workspace, dict) else ()
        inherits = isinstance(table, dict) and any(isinstance(v, dict) and v.get("workspace") is True
                                                   for v in table.values())
    elif name == "plugin.cfg":
        found = dict(re.findall(r'^(name|author)\s*=\s*"([^"\n]*)"', text, re.MULTILINE))
        author = found.get("author", "").strip()
        return VendoringFact("manifest", folder, name, name=found.get("name", ""),
                             holders=frozenset({" ".join(author.lower().split())}) if author else frozenset())
    elif name == "library.properties":
        # Arduino's library manifest names its authors: ArduinoJson's "author=Benoit Blanchon <blog.benoitblanchon.fr>"
        found = dict(re.findall(r"^(name|author)[ \t]*=[ \t]*([^\n]*)", text, re.MULTILINE))
        urls = frozenset(f"{owner}/{repo.removesuffix('.git')}".lower() for owner, repo in _hosted(text))
        return VendoringFact("manifest", folder, name, name=found.get("name", "").strip(), urls=urls,
                             holders=_author_names(found.get("author", "").split(",")))
    elif name == "CMakeLists.txt" and not _CMAKE_PROJECT.search(text):
        # A CMakeLists.txt without ``project()`` is a part of an enclosing build, not a package: ccache's
        # ``src/third_party/fmt/CMakeLists.txt`` wires the copied fmt into ccache's build.
        return None
    else:
        found = re.search(r"^module\s+(\S+)|\bproject\s*\(\s*([\w.+-]+)|\bname\s*=\s*['\"]([^'\"]+)['\"]"
                          r"|<artifactId>([^<]+)</artifactId>|AC_INIT\(\s*\[?([\w.+-]+)", text, re.MULTILINE)
        package = next((g for g in found.groups() if g), "") if found else ""
    if not isinstance(package, str):
        package = ""
    urls = frozenset(f"{owner}/{repo.removesuffix('.git')}".lower() for owner, repo in _hosted(text))
    return VendoringFact("manifest", folder, name, name=package, members=members, inherits=inherits, urls=urls)


def _author_names(authors: Iterable) -> frozenset[str]:
    """A manifest's authors as holder names, less their addresses ("Benoit Blanchon <blog.benoitblanchon.fr>")."""
    names = (re.sub(r"<[^<>]*>|\([^()]*\)|\S+@\S+|https?://\S+", " ", a) for a in authors if isinstance(a, str))
    return frozenset(" ".join(n.lower().split()) for n in names if n.strip())


def _hosted(text: str) -> Iterator[tuple[str, str]]:
    """(owner, name) of each repository address ``text`` holds (``_HOSTED``)."""
    for found in _HOSTED.finditer(text):
        owner, name = (found.group(1), found.group(2)) if found.group(1) else (found.group(3), found.group(4))
        yield owner, name


_CMAKE_PROJECT = re.compile(r"^\s*project\s*\(", re.IGNORECASE | re.MULTILINE)
# a hosting site's address, or npm's shorthand for one ("repository": "github:json-schema-org/JSON-Schema-Test-Suite")
_HOSTED = re.compile(r"(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)[/:]([\w.-]+)/([\w.-]+)"
                     r"|\b(?:github|gitlab|bitbucket):([\w.-]+)/([\w.-]+)")


# a holder line has a year or (c), or a person's name with an address and no year: "Copyright Zoltan Herczeg
# (hzmester@freemail.hu). All rights reserved." (sljit's sources)
# "Copyright (C) 20xx, ChaN, all right reserved." (FatFs's notice, its year left a placeholder): "20xx" a year too
_HOLDER_MARK = re.compile(r"^\s*(?:\(c\)|©|&copy;)|\b(?:19|20)(?:\d\d|xx)\b"
                          r"|^\s*[A-Z][\w'-]+(?:[ \t]+[A-Z][\w.'-]+){1,3}[ \t]*[(<][^()<>\s]+@[^()<>\s]+[)>]"
                          # or a holder with its site after a comma and no year: grunt-cli's completion, "Copyright jQuery
                          # Foundation and other contributors, https://jquery.org/" (copied into Bash-it)
                          r"|^\s*[A-Za-z][\w.'-]*(?:[ \t]+[\w.'-]+){1,5},[ \t]*https?://[\w.-]+\.[a-z]{2,}/?[ \t]*$")
# Dist::Zilla's LICENSE opens "This software is copyright (c) 2010- by Tatsuhiko Miyagawa." (every CPAN distribution
# it builds): the same line, in a sentence.
# (or after the project's name on its line: PolyDiceGenerator's BSD text, "PolyDiceGenerator Copyright (c) 2020, charmaur")
_COPYRIGHT = re.compile(r"^[\W_]*(?:portions\s+|this (?:software|program|library) is\s+"
                        r"|[\w.+-]+[ \t]+(?=copyright[ \t]*(?:\(c\)|©|(?:19|20)\d\d)))?copyright\b\s*(.+)$",
                        re.IGNORECASE | re.MULTILINE)


# A license text's own copyright, part of its standard text: "Copyright (C) 2007 Free Software Foundation, Inc. ...
# Everyone is permitted to copy and distribute verbatim copies of this license document" (the GNU texts, the
# Artistic License 2.0, the SSPL): it names who wrote the license, never who holds the code it governs.
# Between its words, any markup a format puts at line ends: RTF's "\" (sqlitebrowser's ``installer/windows/license.rtf``)
_GAP = r"[\s\\]+"
_LICENSE_DOCUMENT = re.compile(_GAP.join(("permitted", "to", "copy", "and", "distribute", "verbatim", "copies", "of",
                                          "this", r"licen[cs]e", "document")), re.IGNORECASE)
_TEMPLATE_REACH = 400  # characters after the copyright line within which the license document's own notice follows


def _license_documents_own(text: str, match: re.Match) -> bool:
    """Whether the ``Copyright`` line ``match`` is the license text's own: the license document's notice follows it
    closely, with no other copyright line between (a holder's line above a GNU text is the holder's)."""
    following = text[match.end():match.end() + _TEMPLATE_REACH]
    if (other := _COPYRIGHT.search(following)) is not None:
        following = following[:other.start()]
    return _LICENSE_DOCUMENT.search(following) is not None


def _holder_lines(text: str) -> Iterator[str]:
    """The ``Copyright`` lines of a text that name a holder: a year or ``(c)``, and not the license text's own
    copyright (``_license_documents_own``)."""
    head = text[:20_000]
    for match in _COPYRIGHT.finditer(head):
        # "copyright = '© 2023 ABC Widgets, Inc.'" is a setting in an example (hugo's docs page ``Copyright.md``)
        if _HOLDER_MARK.search(match.group(1)) and not match.group(1).lstrip().startswith("=") \
                and not _license_documents_own(head, match):
            yield match.group(1)
    yield from _MARKED_YEARS.findall(head)


# "(C) 1995-2022 Jean-loup Gailly and Mark Adler" under zlib's "Copyright notice:": a holder line without the word
_MARKED_YEARS = re.compile(r"^[ \t]*(?:\(c\)|©)[ \t]*((?:19|20)\d\d\b[^\n]*)$", re.IGNORECASE | re.MULTILINE)


def _names_template(text: str) -> bool:
    head = text[:20_000]
    return any(_license_documents_own(head, match) for match in _COPYRIGHT.finditer(head))


_PLACEHOLDER = re.compile(r"\{\{|\{%|<%|\$\{")


def copyright_holders(text: str) -> frozenset[str]:
    """Lower-case holders of a license text's ``Copyright`` lines, years, ``(c)`` and "all rights
    reserved" removed (``Copyright (c) 2010-2024 The Foo Authors.`` -> ``the foo authors``); prose about
    copyright and the license text's own copyright line (``_holder_lines``) name no holder."""
    holders = set()
    for line in _holder_lines(text):
        line = re.sub(r"\.\s+see\s.*$", "", line, flags=re.IGNORECASE)  # "Mitchell. See LICENSE.": a pointer, no holder
        line = re.sub(r"\(c\)|©|all rights? reserved\.?|<[^>]*>|\([^()\s]+@[^()\s]+\)|\b(?:19|20)(?:\d\d|xx)\b|\bpresent\b|[-–,;.*_]", " ", line,
                      flags=re.IGNORECASE)  # "2024-present": a year range, not a holder's name
        line = re.sub(r"\band\b.*\bcontributors\b|\bcontributors\b", " ", line, flags=re.IGNORECASE)
        words = " ".join(line.lower().split()).removeprefix("by ")  # "copyright (c) 2013 by Tatsuhiko Miyagawa"
        # a template's placeholders name no one: rebar3's project template "Copyright (c) {{copyright_year}},
        # {{author_name}}"
        if words and not words.startswith(("notice", "holder", "holders", "owner", "law", "[")) \
                and not _PLACEHOLDER.search(words):
            holders.add(words)
    return frozenset(holders)


# Words that say nothing of who the holder is ("the Foo project authors" and "Foo, Inc." share "foo").
_GENERIC_HOLDER_WORDS = frozenset(["the", "and", "by", "of", "for", "inc", "ltd", "llc", "gmbh", "corp", "corporation", "company", "project", "projects", "authors", "author", "contributors", "contributor", "developers", "team", "foundation", "software", "org", "com", "net", "www", "http", "https", "copyright", "holders", "holder", "all", "rights", "reserved", "others", "other"])


# Two-letter words of holder lines that name no one; a two-letter name stays one ("The Go Authors").
_SHORT_GENERIC = frozenset(["an", "as", "at", "by", "co", "de", "et", "al", "in", "is", "of", "on", "or", "to", "uk",
                            "us", "eu", "cc", "ab", "ag", "bv", "sa", "oy", "kg", "nv", "pc"])


def holder_words(holders: Iterable[str]) -> frozenset[str]:
    return frozenset(word for holder in holders for word in re.findall(r"[a-z0-9]{2,}", holder)
                     if word not in _GENERIC_HOLDER_WORDS and word not in _SHORT_GENERIC)


def _earliest_year(text: str) -> int:
    years = [int(year) for line in _holder_lines(text) for year in _YEAR.findall(line)]
    return min(years, default=0)


def _text_digest(text: str) -> str:
    return hashlib.blake2b(" ".join(text.split()).encode(), digest_size=8).hexdigest()


def _members_cover(members: tuple[str, ...], base: str, folder: str) -> bool:
    relative = folder[len(base) + 1:] if base else folder
    return any(fnmatch.fnmatchcase(relative, member.strip("/").removeprefix("./")) for member in members)


def vendored_trees(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """The repository's vendored folders: every declared one, and every folder that carries its own
    license text (or other copyright holders) and package manifest, unless it is the repository's own
    package: a workspace member, a manifest deferring to the workspace or naming this repository's URL
    (``repo``, or one the root manifest names), the root's copyright holders or license text."""
    facts = sorted(facts, key=lambda f: (f.folder.count("/"), f.folder, f.kind, f.detail))  # outer folders first
    trees: dict[str, str] = {}
    known: set[str] = set()  # every folder the tree holds
    for fact in facts:
        if fact.kind == "present" and fact.folder:
            parts = fact.folder.split("/")
            known.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    guessed = set()  # declared folders found by the end of their path: each file's own header answers first
    present = {f.detail for f in facts if f.kind == "present"}
    for fact in facts:
        if fact.kind == "declares" and fact.folder:
            folder = _declared_folder(fact.folder, known, present)
            if folder != fact.folder and folder not in trees and folder in known:  # a file named in a list is itself
                guessed.add(folder)
            trees.setdefault(folder, fact.detail)
    trees.update((folder, evidence) for folder, evidence in listed_upstreams(facts, repo).items() if folder not in trees)
    named = _named_folders(facts, trees)
    trees.update({folder: evidence for folder, (evidence, _) in named.items()})
    root_licenses = [f for f in facts if f.kind == "license" and f.folder == ""]
    root_holders = frozenset().union(*(f.holders for f in root_licenses))
    root_digests = {f.digest for f in root_licenses}
    root_ids = {f.license for f in root_licenses if f.license}
    manifests = {f.folder: f for f in facts if f.kind == "manifest"}
    urls: dict[str, frozenset[str]] = {}  # every manifest of a folder: CPAN's Makefile.PL beside the META.json naming the repository
    for fact in facts:
        if fact.kind == "manifest":
            urls[fact.folder] = urls.get(fact.folder, frozenset()) | fact.urls
    workspaces = [(f.folder, f.members) for f in manifests.values() if f.members]
    if not root_holders and any(f.template_only for f in root_licenses):
        # The root's texts name only their license documents' own copyright (a GNU text's FSF): the most named of
        # the repository's people stands in (uBlock's Raymond Hill; none where its files name no one, SteamKit).
        people = repository_owner(facts, [VendoredTree(folder, "") for folder in trees]).people
        root_holders = frozenset(people[:1])
    elif not root_holders and root_licenses:
        # A bare license text naming no one (swift-nio's Apache-2.0 LICENSE.txt): the repository's people stand in
        # ("Apple Inc. and the SwiftNIO project authors"), so a folder's license naming Fedor Indutny is llhttp's.
        root_holders = frozenset(repository_owner(facts, [VendoredTree(folder, "") for folder in trees]).people)
    root_words = holder_words(root_holders)
    own_urls = {repo.lower()} | urls.get("", frozenset())
    owner_name = repo.lower().split("/", 1)[0] if repo else ""
    # No license text at the root (cpanminus, a monorepo of its author's CPAN distributions): the holders its folders'
    # own texts name in two or more folders, and its people, are the repository's, not evidence of copies.
    own_words = frozenset() if root_licenses else _folder_people_words(facts, trees)
    own_name = _plain(repo.rsplit("/", 1)[-1])
    written_for = {f.folder for f in facts if f.kind == "written_for" and own_name and own_name in f.names}
    # folders holding a file whose header names the root's holders: the repository's own files are there
    own_folders = {f.folder for f in facts if f.kind == "holder" and holder_words([f.name]) & root_words}
    for lic in (f for f in facts if f.kind == "license" and f.folder and f.folder not in trees
                and f.folder not in written_for and f.folder.rsplit("/", 1)[-1] != "LICENSES"  # REUSE's texts
                # a Debian package's ``debian/copyright`` names who packaged the folder above it (infon's
                # ``contrib/infon-devel/debian/``, "debianized by Joachim Breitner"), not another project's code
                and not (f.detail == "copyright" and f.folder.rsplit("/", 1)[-1] == "debian")):
        words = holder_words(lic.holders)
        if urls.get(lic.folder, frozenset()) & own_urls:
            continue  # its manifest points at this repository: a package developed here
        manifest = manifests.get(lic.folder)
        # (another repository of this repository's owner, merged in, is its own: hugo's ``docs/``, gohugoio/hugoDocs)
        if urls.get(lic.folder) and manifest is not None and not manifest.inherits and not _inside(lic.folder, trees) \
                and not any(url.split("/")[0] == repo.lower().split("/")[0] for url in urls[lic.folder]) \
                and not any(_members_cover(members, base, lic.folder) for base, members in workspaces
                            if not base or lic.folder.startswith(base + "/")):
            # its own license text beside a manifest naming another repository as its home, whoever holds it: a copy
            # of that project (jsonschema's ``json/``, the JSON-Schema-Test-Suite, "github:json-schema-org/...",
            # under the same author's MIT as the repository)
            trees[lic.folder] = (f"own {lic.detail} + {manifest.detail} at {lic.folder}/ naming "
                                 f"{min(urls[lic.folder])!r}, not this repository")
            continue
        if words and root_words and not words & root_words and not _inside(lic.folder, trees) \
                and not (_named_for_another(lic, own_name) and lic.folder in own_folders):
            trees[lic.folder] = (f"own {lic.detail} at {lic.folder}/ naming {min(lic.holders)!r}, "
                                 f"not the repository's {min(root_holders)!r}")
            continue
        if not root_licenses and (why := _unlicensed_repositorys_other_text(lic, facts, trees, repo)):
            trees[lic.folder] = why
            continue
        manifest = manifests.get(lic.folder)
        if manifest is None or manifest.inherits or lic.digest in root_digests or words & root_words:
            continue
        if not root_licenses and not urls.get(lic.folder) and (not words or words & own_words):
            continue  # no root text to differ from: only another holder or another project's home says "copy"
        if any(_members_cover(members, base, lic.folder) for base, members in workspaces
               if not base or lic.folder.startswith(base + "/")):
            continue
        if not lic.holders and (not lic.license or lic.license in root_ids):
            # An empty or unreadable license file says nothing of who wrote the code; the root's own license naming no
            # one says the folder is under the repository's terms (rebar3's project templates, ``LICENSE.md`` beside a
            # ``rebar.config`` template, both Apache-2.0).
            continue
        trees[lic.folder] = f"own {lic.detail} + {manifest.detail} at {lic.folder}/"
    people_words = None  # the words of the people the repository's own files name, read once a manifest names authors
    for folder, manifest in sorted(manifests.items()):
        # a manifest naming its author (Godot's ``plugin.cfg``, Arduino's ``library.properties``) who is none of the
        # repository's holders nor its people, and naming no repository of this owner: an addon by another
        # (Pixelorama's ``addons/dockable_container``, author "gilzoide", beside Orama Interactive's MIT)
        words = holder_words(manifest.holders)
        if words and people_words is None:
            people_words = holder_words(repository_owner(facts, [VendoredTree(f, "") for f in trees]).people)
        if folder and words and root_words and not words & root_words and not words & (people_words or frozenset()) \
                and not any(url == repo.lower() or url.split("/")[0] == owner_name for url in urls.get(folder, ())) \
                and folder not in trees and not _inside(folder, trees):
            trees[folder] = f"own {manifest.detail} at {folder}/ naming its author {min(manifest.holders)!r}, " \
                            f"not the repository's {min(root_holders)!r}"
            continue
        if folder and folder not in trees and not _inside(folder, trees) and _for_others(_folder(folder)) \
                and not manifest.inherits and not urls.get(folder, frozenset()) & own_urls \
                and not any(_members_cover(members, base, folder) for base, members in workspaces
                            if not base or folder.startswith(base + "/")):
            trees[folder] = f"own {manifest.detail} at {folder}/, inside {_folder(folder)}/ named for others' code"
    trees.update(_released_alone(facts, trees, root_ids, workspaces, owner_name))
    trees.update(_held_apart(facts, trees))
    trees.update(_under_others_terms(facts, trees, root_ids, root_words))
    # a file's own header first: one naming the root's holders is the repository's glue (pdf.js's
    # ``external/qcms/qcms_utils.js``, "Copyright 2025 Mozilla Foundation", beside ``LICENSE_QCMS``)
    named_texts = _named_texts(facts, trees, repo)
    trees.update(_beside_vendored_trees(facts, trees))
    subfolders = {f.folder: f.detail for f in facts if f.kind == "declares_subfolders" and f.folder not in trees}
    paths = {f.name: f for f in facts if f.kind == "declares_paths" and not _inside(f.folder + "/", trees)}
    return (*(VendoredTree(folder, evidence, of_copies=True, own=named[folder][1])
              if named.get(folder, ("",))[0] == evidence else
              VendoredTree(folder, evidence, of_copies=True, own=root_words) if folder in guessed else
              VendoredTree(folder, evidence)
              for folder, evidence in sorted(trees.items())),
            *(VendoredTree(folder, evidence, subfolders=True) for folder, evidence in sorted(subfolders.items())),
            *(VendoredTree(f.folder, f.detail, pattern=pattern) for pattern, f in sorted(paths.items())),
            *(VendoredTree(path, evidence, of_copies=True, own=root_words) for path, evidence in sorted(named_texts.items())
              if path not in trees and not _inside(path, trees)))


def _declared_folder(folder: str, known: set[str], files: set[str] = frozenset()) -> str:
    """A declared folder as the tree holds it: itself, else the one folder whose path ends with it (polyphone's
    ``packaging/debian/copyright`` names ``lib/qtsingleapplication/*`` of the package built from ``sources/``); a
    declared file the tree lacks, the one file of its name below the same first folder (tcp_hw's notice lists
    ``include/noc_defs.vh``, the tree holds ``include/common/noc_defs.vh``)."""
    if folder in known or folder in files or not known or "/" not in folder:  # a bare name ends many paths by chance
        return folder
    ends = [other for other in known if other.endswith("/" + folder)]
    if len(ends) == 1:
        return ends[0]
    first, name = folder.split("/", 1)[0], folder.rsplit("/", 1)[-1]
    named = [file for file in files if file.startswith(first + "/") and file.rsplit("/", 1)[-1] == name]
    return named[0] if len(named) == 1 and not ends else folder


_BUILD_FILE = re.compile(r"(?:GNU)?[Mm]akefile|CMakeLists\.txt|meson\.build|configure(?:\.ac)?|build\.(?:sh|zig)|SConstruct")


# Files that act only at a repository's root: its hosting site's and CI services' settings, its editor workspace, its git
# attributes. Beside a folder's own README and license text they say the folder is another repository's root, copied
# in (powerlevel10k's ``gitstatus/``: ``.gitattributes``, ``.clang-format``, ``.vscode/``; valkey's ``deps/hiredis/``:
# ``.github/``, ``.travis.yml``).
_CI_ROOT = re.compile(r"\.github|\.circleci|\.travis\.yml|\.?appveyor\.yml|\.cirrus\.yml|\.gitlab-ci\.yml"
                      r"|azure-pipelines\.yml|\.?codecov\.yml")
_EDITOR_ROOT = re.compile(r"\.gitattributes|\.vscode|\.clang-format|\.clang-tidy|\.editorconfig|\.gitmodules")
EDITOR_ROOT_MIN = 2  # one such file is often a folder's own (an ``.editorconfig`` for a subproject's style)


def _repository_root(held: set[str]) -> str | None:
    """The root-only files a folder holds (its file names and first-level subfolder names) when they make it a
    repository's root: a CI or hosting file, or ``EDITOR_ROOT_MIN`` editor and git files; else None."""
    ci = sorted(name for name in held if _CI_ROOT.fullmatch(name))
    editor = sorted(name for name in held if _EDITOR_ROOT.fullmatch(name))
    if ci or len(editor) >= EDITOR_ROOT_MIN:
        return ", ".join((ci + editor)[:3])
    return None


# A license text named for the project whose files sit beside it: tig's ``compat/utf8proc.license.md`` beside
# ``utf8proc.c``, ``utf8proc.h``, ``utf8proc_data.c``; pdf.js's ``LICENSE_JBIG2`` beside ``jbig2.js``. A text named for
# its terms (``LICENSE-MIT``) or its part of the repository (``LICENSE-docs``) names no project.
_NAMED_TEXT = re.compile(r"(?:licen[cs]e|copying)[-_.]([a-z][\w+-]*?)(?:\.(?:txt|md|rst))?"
                         r"|([a-z][\w+-]*?)[-_.](?:licen[cs]e|copying)(?:\.\w+)?", re.IGNORECASE)
_NOT_PROJECTS = frozenset(["mit", "apache", "apache2", "bsd", "gpl", "gpl2", "gpl3", "lgpl", "agpl", "mpl", "isc", "zlib",
                           "cc", "cc0", "ccby", "ofl", "psf", "python", "boost", "artistic", "unlicense", "wtfpl", "eupl",
                           "code", "docs", "doc", "documentation", "data", "fonts", "font", "assets", "images", "art",
                           "thirdparty", "3rdparty", "other", "others", "dependencies", "deps", "vendor", "examples",
                           "content", "spec", "specs", "tests", "test", "template", "templates", "txt", "md", "rst",
                           "markdown", "html", "lib", "lesser", "header", "headers", "notice", "spdx"])
# an engine's record of how it imports an asset, written by the repository's editor (Godot's ``Roboto-Regular.ttf.import``,
# Unity's ``.meta``), is the repository's, whoever made the asset
_SIDECAR = re.compile(r"\.\w+\.(?:import|meta|uid)$")
NAMED_TEXT_MIN = 3  # a project's name shorter than this matches files by chance


def _text_project(lic: VendoringFact, own: str) -> str:
    """The project a license text's name names (``_NAMED_TEXT``), letters and digits, or "" where it names terms, a
    part of the repository, the repository itself or too short a name."""
    named = _NAMED_TEXT.fullmatch(lic.detail) if lic.kind == "license" else None
    project = _plain(named.group(1) or named.group(2)) if named else ""
    if len(project) < NAMED_TEXT_MIN or project in _NOT_PROJECTS or (own and (project in own or own in project)):
        return ""
    return project


def _named_for_another(lic: VendoringFact, own: str) -> bool:
    """Whether a license text is named for a project that is not its folder's (binjgb's ``LICENSE.gbstudio`` in
    its own ``docs/``): in a folder holding the repository's own files, the text of that project's files
    (``_named_texts``), not of the folder. (spdlog's ``include/spdlog/fmt/bundled/fmt.license.rst`` sits among fmt's
    files alone: the folder is fmt's.)"""
    project = _text_project(lic, own)
    return bool(project) and _plain(lic.folder.rsplit("/", 1)[-1]) != project


def _named_texts(facts: list[VendoringFact], trees: dict[str, str], repo: str) -> dict[str, str]:
    """The files sitting beside a license text named for a project (``_NAMED_TEXT``) whose names open with that
    project's name, and the text itself: that project's files, whoever its text names. The repository's own name
    (jackson-core's ``META-INF/jackson-core-LICENSE``) is its own."""
    own = _plain(repo.rsplit("/", 1)[-1])
    names: dict[str, list[str]] = {}
    for fact in facts:
        if fact.kind == "present":
            names.setdefault(fact.folder, []).append(fact.detail)
    found = {}
    texts: dict[str, int] = {}  # license texts per folder: a second one (pdf.js's ``LICENSE_PDFJS_QCMS``) says it is mixed
    for fact in facts:
        if fact.kind == "license":
            texts[fact.folder] = texts.get(fact.folder, 0) + 1
    pointing: dict[str, list[str]] = {}  # each file a header points to ("(see LICENSE.gbstudio)"), the files pointing
    for fact in facts:
        if fact.kind == "points_notice":
            pointing.setdefault(_join(fact.folder, fact.name), []).append(fact.detail)
    for lic in facts:
        project = _text_project(lic, own)
        if not project or _inside(lic.folder, trees):
            continue
        path = _join(lic.folder, lic.detail)
        if lic.folder and _plain(lic.folder.rsplit("/", 1)[-1]) == project and texts.get(lic.folder, 0) == 1:
            # the text named for the folder's own name: the folder is that project (Password Gorilla's
            # ``sources/tcllib/tcllib.licence.terms`` over its tcllib modules)
            found.setdefault(lic.folder, f"{path}, the license text named for {project!r}, the folder's own name")
            continue
        files = [p for p in names.get(lic.folder, []) if p != path and _plain(p.rsplit("/", 1)[-1]).startswith(project)
                 and not _SIDECAR.search(p)]
        files += [p for p in pointing.get(path, []) if p not in files]
        for file in files:
            found.setdefault(file, f"{file} beside {path}, the license text named for {project!r}")
        if files:
            found.setdefault(path, f"{path}, the license text of {project!r} ({len(files)} files named so beside it)")
        elif all(_LICENSE_NAME.fullmatch(p.rsplit("/", 1)[-1]) for p in names.get(lic.folder, [])):
            # beside nothing but other license texts: the files it covers are binaries (psi-thesis-guide's
            # ``degree-thesis/fonts/LICENSE-Roboto.txt`` beside Roboto's .ttf files)
            found.setdefault(path, f"{path}, the license text of {project!r}, beside only license texts")
    return found


def _under_others_terms(facts: list[VendoringFact], trees: dict[str, str], root_ids: set[str],
                        root_words: frozenset[str]) -> dict[str, str]:
    """The folders with their own license text under other terms than the root's (naming no holder, or others), whose
    files' headers name one other holder (in ``PEOPLE_MIN_FILES`` or more) and none the root's: another project's
    build or tree (vscode-pdfviewer's ``lib/``: Apache-2.0 beside the root's MIT, Mozilla Foundation in the headers of
    pdf.js's build and viewer)."""
    if not root_ids or not root_words:
        return {}
    root = frozenset().union(*(license_ids(expression) for expression in root_ids))
    holders = [f for f in facts if f.kind == "holder"]
    found = {}
    for lic in facts:
        folder = lic.folder
        if lic.kind != "license" or not folder or folder in trees or _inside(folder, trees) or not lic.license \
                or license_ids(lic.license) <= root or holder_words(lic.holders) & root_words:
            continue
        inside = [f.name for f in holders if _below(f.folder, folder)]
        if any(holder_words([name]) & root_words for name in inside):
            continue
        counts = {name: inside.count(name) for name in inside if holder_words([name])}
        if counts and max(counts.values()) >= PEOPLE_MIN_FILES:
            holder = max(counts, key=counts.get)
            why = (f"own {lic.detail} ({lic.license}, not the root's) at {folder}/, its files' headers naming {holder!r} "
                   f"({counts[holder]}), none the repository's {min(root_words)!r}")
            # the subfolders holding that holder's files, where none sits in the folder itself: the extension's own
            # header-less glue beside them stays (vscode-pdfviewer's ``lib/main.js`` beside ``lib/build/``, ``lib/web/``)
            places = {f.folder for f in holders if _below(f.folder, folder) and f.name == holder}
            if folder in places:
                found[folder] = why
            else:
                found.update({_join(folder, place[len(folder) + 1:].split("/")[0]): why for place in places})
                found[_join(folder, lic.detail)] = why
    return found


def _held_apart(facts: list[VendoringFact], trees: dict[str, str]) -> dict[str, str]:
    """The folders with their own license text and README whose files name a holder (in ``PEOPLE_MIN_FILES`` or more)
    that no file outside them names, where the files at the repository's root name another: another project's root
    copied in (pigz's ``zopfli/``: Apache-2.0 ``COPYING``, Google Inc. in its 23 files, Mark Adler in ``pigz.c``)."""
    holders = [f for f in facts if f.kind == "holder"]
    root_words = holder_words(f.name for f in holders if f.folder == "")
    if not root_words:
        return {}
    readmes = {f.folder for f in facts if f.kind == "present" and _README.fullmatch(f.detail.rsplit("/", 1)[-1])}
    found = {}
    for lic in facts:
        folder = lic.folder
        if lic.kind != "license" or not folder or folder not in readmes or folder in trees or _inside(folder, trees) \
                or holder_words(lic.holders) & root_words:
            continue
        inside = [f.name for f in holders if _below(f.folder, folder)]
        outside = holder_words(f.name for f in holders if not _below(f.folder, folder))
        counts = {name: inside.count(name) for name in inside}
        named = [name for name, count in counts.items() if count >= PEOPLE_MIN_FILES and holder_words([name])]
        if named and not any(holder_words([name]) & outside for name in inside):
            found[folder] = (f"own {lic.detail} and README at {folder}/, its files naming {max(named, key=counts.get)!r}, "
                             f"whom no file beyond it names, not the root files' {min(root_words)!r}")
    return found


# A header sending the reader to another file for its copyright: Lua's "See Copyright Notice in lua.h", zlib's "For
# conditions of distribution and use, see copyright notice in zlib.h"
# ; Shrinker's renamed copies of abapGit, "LICENSE and NOTICE / See include program ZSHRINKER_ABAPGIT_LICENSE" (a
# program named without its file's extensions)
_NOTICE_POINTER = re.compile(r"\bsee (?:the )?copyright notice in ([\w.+-]+\.[A-Za-z]\w*)"
                             r"|\bconditions of distribution and use,? see (?:(?:the )?copyright notice in )?"
                             r"([\w.+-]+\.[A-Za-z]\w*)"
                             r"|\blicen[cs]e and notice\W+see (?:the )?(?:include (?:program )?|file )([\w.+-]{3,})"
                             # binjgb's ``simple.css``: "copied from <address> (see LICENSE.gbstudio)"
                             r"|\(see ((?:licen[cs]e|copying)[-_.][\w.+-]+)\)",
                             re.IGNORECASE)


# A notice saying the repository holds another project's code: Shrinker's ``zshrinker_demo_abap2xlsx_licen.prog.abap``,
# "Shrinker is using an adapted copy of abap2xlsx ..." (the notice its renamed copies point to)
_COPY_NOTICE = re.compile(r"\b(?:is using|uses|contains|includes|bundles|ships)[ \t\n*#/]+(?:an? )?(?:(?:adapted|modified|"
                          r"renamed|patched|partial|shrinked|shrunk(?:en)?|verbatim)[ \t\n*#/]+)*copy of[ \t\n*#/]+"
                          r"\[?([A-Za-z][\w.+-]{2,})", re.IGNORECASE)


def notice_pointer_fact(path: str, text: str) -> VendoringFact | None:
    """The ``points_notice`` fact of a file whose header names no holder and sends the reader to another file's
    copyright notice (``name``: that file's name); else the ``copy_notice`` fact of a header saying the repository
    uses a copy of another project (``name``: that project), for the files pointing to it."""
    header = header_comments(text)
    pointer = _NOTICE_POINTER.search(header)
    if pointer is None and (said := _COPY_NOTICE.search(header)) is not None:
        return VendoringFact("copy_notice", _folder(path), path, name=said.group(1).rstrip("."))
    if pointer is None or first_copyright(header)[0]:
        return None
    return VendoringFact("points_notice", _folder(path), path,
                         name=pointer.group(1) or pointer.group(2) or pointer.group(3) or pointer.group(4))


def pointed_copies(facts: Iterable[VendoringFact], owner: RepositoryOwner,
                   trees: Iterable[VendoredTree] = (), repo: str = "") -> tuple[VendoredTree, ...]:
    """The files whose headers send the reader to a notice naming another project's holder (``notice_pointer_fact``;
    the file so named in the same folder, else the one file of that name): rxi/lite's ``src/lib/lua52/lapi.c``, "See
    Copyright Notice in lua.h", whose header names Lua.org, PUC-Rio from 1994, before rxi's 2020."""
    facts, trees = list(facts), tuple(trees)
    holders = {f.detail: f for f in facts if f.kind == "holder"}
    own = _plain(repo.rsplit("/", 1)[-1]) if repo else ""
    notices = {f.detail: f for f in facts if f.kind == "copy_notice" and _plain(f.name) not in ("", own)}
    files = {f.detail for f in facts if f.kind == "present"}
    by_name: dict[str, list[VendoringFact]] = {}
    for fact in (*holders.values(), *(f for path, f in notices.items() if path not in holders)):
        name = fact.detail.rsplit("/", 1)[-1]
        by_name.setdefault(name, []).append(fact)
        if name.split(".", 1)[0].lower() != name:  # a program named without its extensions, in any case
            by_name.setdefault(name.split(".", 1)[0].lower(), []).append(fact)
    found = []
    for fact in facts:
        if fact.kind != "points_notice" or vendored_tree(fact.detail, trees) is not None:
            continue
        named = fact.name if "." in fact.name else fact.name.lower()
        target = holders.get(_join(fact.folder, fact.name)) or notices.get(_join(fact.folder, fact.name)) or \
            (by_name[named][0] if len(by_name.get(named, ())) == 1 else None)
        if target is not None and target.kind == "copy_notice":
            why = f"says the repository uses a copy of {target.name!r}"
        else:
            why = _foreign_holder(target.name, target.first_year, frozenset(), owner) if target is not None else None
        if why:
            found.append(VendoredTree(fact.detail, f"{fact.detail} points to {target.detail}'s notice, whose {why}"))
            if vendored_tree(target.detail, trees) is None:  # the notice's own file, whose notice may close it
                found.append(VendoredTree(target.detail, f"{target.detail}, the notice other files point to: {why}"))
            # the metadata file serialized with each (abapGit's ``X.prog.xml`` beside ``X.prog.abap``)
            found += [VendoredTree(meta, f"{meta}, the metadata of {copy}, a copy by {target.detail}'s notice, whose {why}")
                      for copy in (fact.detail, target.detail) for meta in _metadata(copy, files)]
    return tuple(dict.fromkeys(found))


def _metadata(path: str, files: set[str]) -> list[str]:
    """The XML or JSON files named as ``path`` but for its last extension, beside it."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else ""
    return [f"{stem}{ext}" for ext in (".xml", ".json") if stem and f"{stem}{ext}" in files and f"{stem}{ext}" != path]


def _released_alone(facts: list[VendoringFact], trees: dict[str, str], root_ids: set[str],
                    workspaces: list[tuple[str, tuple[str, ...]]], owner: str = "") -> dict[str, str]:
    """The folders that are projects released on their own: their own license text under other terms than the root's,
    and either their own changelog and their own build file (oh-my-zsh's ``plugins/zsh-navigation-tools/``:
    "dual-licensed under MIT and GPLv3" naming no one, beside the root's MIT, with its ``NEWS`` and ``Makefile``) or
    their own README beside files that act only at a repository's root (``_repository_root``), whoever holds them. A
    workspace member is the repository's own package, and so is a folder whose manifest names another repository of
    the same ``owner`` (ModShell's ``syntax/modshell-script/``, its VS Code extension, "homepage":
    "https://github.com/pozsarzs/modshell-script": the owner's project kept beside the program, as hugo's ``docs/``)."""
    if not root_ids:
        return {}
    homed = {f.folder for f in facts if f.kind == "manifest" and owner and any(url.split("/")[0] == owner for url in f.urls)}
    root = frozenset().union(*(license_ids(expression) for expression in root_ids))
    names: dict[str, set[str]] = {}
    for fact in facts:
        if fact.kind == "present" and fact.folder:
            parts = fact.detail.split("/")
            for depth in range(1, len(parts)):  # a file's name in its folder, a subfolder's (``.github``) in each above
                names.setdefault("/".join(parts[:depth]), set()).add(parts[depth])
    found = {}
    for lic in facts:
        if lic.kind != "license" or not lic.folder or lic.folder in trees or _inside(lic.folder, trees) \
                or not lic.license or license_ids(lic.license) <= root:
            continue
        held = names.get(lic.folder, set())
        if lic.folder in homed or any(_members_cover(members, base, lic.folder) for base, members in workspaces
                                      if not base or lic.folder.startswith(base + "/")):
            continue
        changelog = sorted(name for name in held if _CHANGELOG.fullmatch(name))
        build = sorted(name for name in held if _BUILD_FILE.fullmatch(name))
        readme = sorted(name for name in held if _README.fullmatch(name))
        if changelog and build:
            found[lic.folder] = (f"own {lic.detail} ({lic.license}, not the root's), {changelog[0]} and {build[0]} at "
                                 f"{lic.folder}/: a project released on its own")
        elif readme and (rooted := _repository_root(held)):
            found[lic.folder] = (f"own {lic.detail} ({lic.license}, not the root's), {readme[0]} and {rooted} at "
                                 f"{lic.folder}/: another repository's root")
    return found


ROOT_COPY_MIN_FILES = 3  # files naming a root license text's holders, nearly all in one folder, to call the text a copy's
ROOT_COPY_SHARE = 0.9


def root_license_copies(facts: Iterable[VendoringFact]) -> tuple[VendoredTree, ...]:
    """The copied code a license text at the root belongs to, beside the repository's own license. A root text is a
    copy's when the repository declares another license for itself (its root manifest's license field: nim-glfw's
    ``glfw.nimble``, "MIT", beside GLFW's zlib ``LICENSE.md`` naming Marcus Geelnard and Camilla Löwy) or, declaring
    none, when another root text names other holders, and ``ROOT_COPY_MIN_FILES`` or more file headers name its holders.
    The copy is the folder holding nearly all of those files (``ROOT_COPY_SHARE``; GLFW's ``glfw/``, its sources,
    headers and deps, the folder named for the project their banners name), while the repository has files outside it;
    or, where they are spread, those files themselves when the text is named for what it licenses beside a plain one
    (gofumpt's ``LICENSE.google``, "The Go Authors", whose gofmt and go/printer sources it modified, beside Daniel
    Martí's ``LICENSE``). The text itself is the copy's too."""
    facts = list(facts)
    root = [f for f in facts if f.kind == "license" and f.folder == "" and f.holders]
    declared = {f.license for f in facts if f.kind == "manifest" and f.folder == "" and f.license}
    found: list[VendoredTree] = []
    for lic in root:
        words, ids = holder_words(lic.holders), set(license_ids(lic.license))
        if not words or not ids or not _copys_text(lic, words, ids, root, declared):
            continue
        places = [f.detail for f in facts if f.kind == "holder" and holder_words([f.name]) & words]
        if len(places) < ROOT_COPY_MIN_FILES:
            continue
        folder = _holding_folder(places)
        outside = folder and any(f.kind == "present" and not f.detail.startswith(folder + "/") and f.detail != lic.detail
                                 for f in facts)
        own = f"the license {min(declared)!r} the repository declares" if declared else \
            "the other root texts' holders"
        evidence = f"root {lic.detail} ({lic.license}) names {min(lic.holders)!r}, not {own}"
        if outside:
            found += [VendoredTree(lic.detail, evidence), _copy_folder(facts, folder, f"{evidence}, in {folder}/")]
        elif license_subject(lic.detail) and any(not license_subject(other.detail) for other in root if other is not lic):
            found += [VendoredTree(lic.detail, evidence),
                      *(VendoredTree(path, f"{path}'s header names {min(lic.holders)!r}, the holder root {lic.detail} "
                                           f"({lic.license}) names, not {own}") for path in places)]
    return tuple(found)


def _copys_text(lic: VendoringFact, words: frozenset[str], ids: set[str], root: list[VendoringFact],
                declared: set[str]) -> bool:
    """Whether the root text ``lic`` is not the repository's own: its root manifest declares a license that is not it
    (nor a choice holding it), or, declaring none, another root text names other holders."""
    if declared:
        return not any(ids <= set(license_ids(expression)) for expression in declared)
    return any(not holder_words(other.holders) & words for other in root if other is not lic)


def _copy_folder(facts: list[VendoringFact], folder: str, evidence: str) -> VendoredTree:
    """The copy holding ``folder``: the innermost folder around it named for the project its files' release banners
    name (GLFW's ``glfw/``), whose subfolders are the copy (``src/``, ``include/``, ``deps/``) and the files beside them
    the repository's (``glfw/wrapper.nim``); else ``folder`` itself."""
    parts = folder.split("/")
    named = next(("/".join(parts[:depth]) for depth in range(len(parts), 0, -1)
                  if _plain(parts[depth - 1]) in _banner_names(facts, "/".join(parts[:depth]))), "")
    if named:
        return VendoredTree(named, f"{evidence}; {named}/ is named for its files' project", subfolders=True)
    return VendoredTree(folder, evidence)


def _banner_names(facts: list[VendoringFact], folder: str) -> frozenset[str]:
    """The projects the release banners of ``PEOPLE_MIN_FILES`` or more files in ``folder`` name."""
    counts: dict[str, int] = {}
    for fact in facts:
        if fact.kind == "banner" and (fact.folder == folder or fact.folder.startswith(folder + "/")):
            counts[fact.name] = counts.get(fact.name, 0) + 1
    return frozenset(name for name, count in counts.items() if count >= PEOPLE_MIN_FILES)


def _holding_folder(paths: list[str]) -> str:
    """The deepest folder holding ``ROOT_COPY_SHARE`` of the paths ("" when only the root does): a port of one of the
    copy's examples elsewhere keeps its author's line (nim-glfw's ``examples/triangle.nim``)."""
    counts: dict[str, int] = {}
    for path in paths:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            counts["/".join(parts[:depth])] = counts.get("/".join(parts[:depth]), 0) + 1
    held = [folder for folder, count in counts.items() if count >= ROOT_COPY_SHARE * len(paths)]
    return max(held, key=lambda folder: folder.count("/"), default="")


NAMED_MIN_SIBLINGS = 2  # a name alone matches folders by chance (a section "Lua" and the project's ``api/lua/``)


def _named_folders(facts: list[VendoringFact], trees: dict[str, str]) -> dict[str, tuple[str, frozenset[str]]]:
    """The folders named as the projects a license or notice file's sections name (``declared.named_sections``),
    where two or more sibling folders are so named: ZeroBrane's ``lualibs/copas``, ``lualibs/metalua``,
    ``lualibs/luacheck``... by its root LICENSE's sections; a folder named so alone (``api/lua``) is no copy."""
    named: dict[str, dict[str, tuple[str, frozenset[str]]]] = {}
    for fact in facts:
        if fact.kind == "declares_named":
            named.setdefault(fact.folder, {}).setdefault(fact.name, (fact.detail, fact.holders))
    if not named:
        return {}
    known = {"/".join(parts[:depth]) for parts in (f.folder.split("/") for f in facts if f.folder)
             for depth in range(1, len(parts) + 1)}
    found = {}
    for base, names in sorted(named.items()):
        by_parent: dict[str, list[str]] = {}
        for folder in sorted(known):
            if (not base or folder.startswith(base + "/")) and _plain(folder.rsplit("/", 1)[-1]) in names:
                by_parent.setdefault(_folder(folder), []).append(folder)
        for parent, folders in by_parent.items():
            if len(folders) >= NAMED_MIN_SIBLINGS:
                for folder in folders:
                    if folder not in trees and not _inside(folder, trees):
                        detail, own = names[_plain(folder.rsplit("/", 1)[-1])]
                        found[folder] = (f"{detail}, one of {len(folders)} folders of {parent or '.'}/ so named", own)
    return found


def listed_upstreams(facts: list[VendoringFact], repo: str = "") -> dict[str, str]:
    """The subfolders a README's sections name, each section giving the folder's upstream repository and the version
    taken (``filters.upstream_lists``): copies, whoever owns the upstream (Pixelorama's ``addons/keychain``, "Upstream:
    https://github.com/Orama-Interactive/Keychain", the same owner's plugin); a section naming this repository is
    about the repository itself."""
    listed = [f for f in facts if f.kind == "lists_upstream" and repo.lower() not in f.urls]
    if not listed:
        return {}
    children: dict[str, set[str]] = {}
    for fact in facts:
        parts = fact.folder.split("/") if fact.kind == "present" and fact.folder else []
        for depth in range(1, len(parts) + 1):
            children.setdefault("/".join(parts[:depth - 1]), set()).add(parts[depth - 1])
    found: dict[str, str] = {}
    for fact in listed:
        for child in sorted(children.get(fact.folder, ())):
            # a section in prose names its folder exactly (r7rs-libs's "PFDS" is ``pfds/``, not ``pfds-tests/``)
            exact = _PROSE_SECTION in fact.detail
            if _plain(child) in fact.names if exact else names_folder(fact.names, child):
                found.setdefault(_join(fact.folder, child), fact.detail)
    return found


def _unlicensed_repositorys_other_text(lic: VendoringFact, facts: list[VendoringFact], trees: dict[str, str],
                                       repo: str) -> str | None:
    """Why a folder's own license text, in a repository with no license text at its root, is a copy's: it names
    holders none of whom the repository's address names (``named_by_remote``), nor any file's head outside the folders
    whose texts name them. Such a repository grants nothing of its own, so a text in one of its folders naming someone
    else is what came with that folder (fishconfig's yazi plugins, each with its MIT text naming yazi-rs;
    JJA-input-playground's ``datafiles/`` notice of SDL's and Chromium's terms). The owner's own text stays, and so
    does one naming who wrote the repository's files elsewhere (gorilla's ``sources/blowfish/``, Frank Pilhofer's BSD
    text, who heads ``sources/gorilla.tcl``)."""
    words = holder_words(lic.holders)
    if not repo or not words or _inside(lic.folder, trees) or any(named_by_remote(holder, repo) for holder in lic.holders):
        return None
    texts = [f.folder for f in facts if f.kind == "license" and f.folder and holder_words(f.holders) & words]
    if any(f.kind == "holder" and holder_words([f.name]) & words and not any(_below(f.folder, text) for text in texts)
           for f in facts):
        return None
    return (f"own {lic.detail} at {lic.folder}/ naming {min(lic.holders)!r}, in a repository with no license text "
            f"whose address names none of them")


def _folder_people_words(facts: list[VendoringFact], trees: dict[str, str]) -> frozenset[str]:
    """The holder words of a repository without a root license text: those its folders' license texts name in two
    or more folders (an author's distributions side by side), and those of its people (``repository_owner``)."""
    folders: dict[str, set[str]] = {}
    for fact in facts:
        if fact.kind == "license" and fact.folder:
            for word in holder_words(fact.holders):
                folders.setdefault(word, set()).add(fact.folder)
    people = repository_owner(facts, [VendoredTree(folder, "") for folder in trees]).people
    return frozenset(word for word, places in folders.items() if len(places) >= 2) | holder_words(people)


# --------------------------------------------------------------------------------------------
# Single files copied in with no statement that they are copies: their own header names another holder, and
# either its copyright predates the repository's own (valkey's ``src/lzf.h``: Marc Lehmann, 2000; the root's
# earliest year is 2006) or its BSD endorsement clause protects another name (``src/crc16.c``: the University of
# California, where the root's protects Redis). A contributor's own file under another license (valkey's
# ``src/connection.c``, 2022, MIT) is neither.


@dataclass(slots=True, frozen=True)
class RepositoryOwner:
    """Who a repository says it is, from its root license texts: their copyright holders, the names their BSD
    endorsement clauses protect ("Neither the name of Redis nor..."), the earliest year they claim (0: none); and
    its people, the holders its own files name most often (``people``, from the year ``people_year``): hugo's "The
    Hugo Authors", CyberChef's "Crown Copyright", where the root's license is a bare text naming no one."""

    holders: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    first_year: int = 0
    people: tuple[str, ...] = ()  # the most named first
    people_year: int = 0
    # Holders whose headers in the repository carry different years: they came back to write more (valkey's "zhenwei
    # pi", 2020 and 2022, MIT files in a BSD project), where a copy keeps the one date its original had.
    returning: frozenset[str] = frozenset()
    # The Xcode projects its own files' headers name (``xcode_project``, letters and digits), as its people are counted.
    projects: frozenset[str] = frozenset()
    # (detail, holder names, the file's own section's holder names) of the root's license or notice sections about
    # other projects (``declared.section_holders``)
    sections: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = ()
    # the package roots its own sources declare (``package_fact``, by ``PEOPLE_MIN_FILES`` or more files)
    packages: frozenset[str] = frozenset()
    # the top folders (letters and digits) the root's sectioned license text covers as its own collections
    own_sections: frozenset[str] = frozenset()
    # no license text nor NOTICE at its root (its own files have no terms to keep them by, whatever a README says)
    unlicensed: bool = False

    # The root's texts answer when they name holders; its people, where they name no one (a bare Apache-2.0 text).
    # difftastic's sample files name other projects' holders more often than its own root names Wilfred Hughes.
    def words(self) -> frozenset[str]:
        return holder_words(self.holders or frozenset(self.people))

    def earliest(self) -> int:
        return self.first_year if self.holders else self.people_year

    def named(self) -> str:
        return min(self.holders) if self.holders else self.people[0] if self.people else ""


@dataclass(slots=True, frozen=True)
class Vendored:
    """One repository's vendored trees, its owner (``RepositoryOwner``) and the files it holds the same copy of in
    several folders (``copies``: (path, evidence) pairs, ``copied_in_folders``), the filter stage's side input."""

    trees: tuple[VendoredTree, ...] = ()
    owner: RepositoryOwner = RepositoryOwner()
    copies: tuple[tuple[str, str], ...] = ()


# --------------------------------------------------------------------------------------------
# One file kept as identical copies in several folders of the repository: raylib's ``raygui.h`` beside the examples
# of seven folders (``examples/audio/``, ``examples/core/``...). A project's own source lives once; a library copied
# next to each of its users is another project's. Read together with the file's own license statement (the caller's
# check), so build files repeated per toolchain (libzmq's ``builds/deprecated-msvc/vs20*/libzmq.props``) stay own.
COPY_MIN_CHARS = 2_000  # below this, repeated boilerplate (a short config, a stub) is common
COPY_MIN_FOLDERS = 3


def copy_fact(path: str, text: str) -> VendoringFact | None:
    """The ``copy`` fact of a file long enough to tell copies of it (its whitespace-normalised digest), else None."""
    if len(text) < COPY_MIN_CHARS:
        return None
    return VendoringFact("copy", _folder(path), path, digest=_text_digest(text))


_BLOCK_COMMENT = re.compile(r"\s*/\*.*?\*/", re.DOTALL)
_LEGAL_WORD = re.compile(r"\b(?:licen[cs]ed?|copyright)\b", re.IGNORECASE)
_OPENING_CHARS = 40_000  # a single-file library's opening comment runs to hundreds of lines (raygui.h: 350)


def states_terms(text: str) -> bool:
    """Whether a file's opening comment (a ``/* ... */`` block, or its leading comment lines) speaks of its license
    or copyright: raygui.h's "LICENSE: zlib/libpng ... Copyright (c) 2014-2026 Ramon Santamaria", line 331."""
    head = text[:_OPENING_CHARS]
    block = _BLOCK_COMMENT.match(head)
    opening = block.group(0) if block else _opening_comment(head)
    return _LEGAL_WORD.search(opening) is not None


def copied_in_folders(facts: Iterable[VendoringFact]) -> tuple[tuple[str, str], ...]:
    """(path, evidence) for each file whose text the repository holds in ``COPY_MIN_FOLDERS`` or more folders."""
    by_digest: dict[str, list[VendoringFact]] = {}
    for fact in facts:
        if fact.kind == "copy":
            by_digest.setdefault(fact.digest, []).append(fact)
    found = []
    for copies in by_digest.values():
        folders = sorted({fact.folder for fact in copies})
        if len(folders) >= COPY_MIN_FOLDERS:
            shown = ", ".join(f"{folder or '.'}/" for folder in folders[:3]) + (", ..." if len(folders) > 3 else "")
            found += [(fact.detail, f"the same text in {len(folders)} folders ({shown})") for fact in copies]
    return tuple(sorted(found))


# BSD's third clause: "Neither the name of X nor the names of its contributors may be used", "The names of its
# contributors may not be used to endorse" (MT19937's wording).
_ENDORSEMENT = re.compile(r"\bneither the names? of (.{1,80}?) nor\b|\bthe names? of (.{1,80}?) (?:may|must|shall) not be used")
_YEAR = re.compile(r"\b(?:19[7-9]\d|20\d\d)\b")


def endorsement_names(text: str) -> frozenset[str]:
    """The names a BSD text's endorsement clause protects, lower case, single-spaced."""
    words = " ".join(re.sub(r"[^a-z0-9]+", " ", text[:20_000].lower()).split())
    return frozenset(next(g for g in match.groups() if g) for match in _ENDORSEMENT.finditer(words))


@functools.lru_cache(maxsize=8)
def first_copyright(text: str) -> tuple[str, int]:
    """The first copyright holder a text names (a file's original author, where others adapted it) and the
    earliest year on that line; ("", 0) when it names none."""
    for match in _COPYRIGHT.finditer(text):
        if _license_documents_own(text, match):
            continue  # a license text's own copyright (``_holder_lines``)
        found = copyright_holders(match.group(0)) or _holder_below(text, match) or _tagged_author(text, match)
        if found:
            years = [int(year) for year in _YEAR.findall(match.group(1))]
            return min(found), min(years, default=0)
    return "", 0


# A documentation comment's tags: "-- @author Landon Manning" beside "-- @copyright 2019" (LDoc, JSDoc): the author is
# the holder the year-only copyright tag leaves unnamed (the Simple Tiled Implementation's ``init.lua``).
_COPYRIGHT_TAG = re.compile(r"^[^\w\n@]*@copyright\b", re.IGNORECASE)
_AUTHOR_TAG = re.compile(r"^[^\w\n@]*@author[ \t]+([A-Z][\w.'-]*(?:[ \t]+[A-Z][\w.'-]*){0,3})[ \t]*(?:[<(][^\n]*)?\r?$",
                         re.MULTILINE)


def _tagged_author(text: str, match: re.Match) -> frozenset[str]:
    """The ``@author`` tag's name of the comment holding a year-only ``@copyright`` tag (``match``), else none."""
    if not _COPYRIGHT_TAG.match(match.group(0)):
        return frozenset()
    author = _AUTHOR_TAG.search(text)
    return copyright_holders(f"Copyright (c) {author.group(1)}") if author else frozenset()


def _holder_below(text: str, match: re.Match) -> frozenset[str]:
    """The holder on the line below a copyright line of years alone, as BSD's files lay it out: "Copyright (c) 1989,
    1993, 1994" over "The Regents of the University of California.  All rights reserved." (r-lib/fs's
    ``src/bsd/setmode.c``)."""
    if not _YEAR.search(match.group(1)) or re.search(r"[a-z]{3}", re.sub(r"\(c\)", "", match.group(1), flags=re.IGNORECASE)):
        return frozenset()
    below = re.sub(r"^[\W_]+", "", text[match.end():].lstrip("\r\n").split("\n", 1)[0])
    return copyright_holders(f"Copyright (c) {below}") if below[:1].isupper() else frozenset()


def holder_fact(path: str, text: str) -> VendoringFact | None:
    """The ``holder`` fact of a file whose head names a copyright holder: who (``name``) and from when; none for a
    file that a path list calls vendored (linguist's, ``generated.VENDORED_PATHS``) or a license text (a package's
    holder): the people are counted on what the repository may have written."""
    if (is_vendored(path) and not in_own_package(path, text)) or path_matches(path, VENDORED_PATHS) or _LICENSE_NAME.fullmatch(path.rsplit("/", 1)[-1]):
        return None
    holder, year = first_copyright(text[:_FILE_HEAD_CHARS * 2])
    if not holder and _END_NOTICE.search(header_comments(text)):  # Lua's lua.h, its notice in its last lines
        holder, year = first_copyright(text[-_FILE_HEAD_CHARS * 2:])
    if not holder and path.rsplit("/", 1)[-1] == "__init__.py":  # a package's module fields
        holder, year = _module_author(text)
    if not holder:
        return None
    return VendoringFact("holder", _folder(path), path, name=holder, first_year=year, project=xcode_project(path, text))


_END_NOTICE = re.compile(r"\bsee (?:the )?copyright notice at the end of this file\b", re.IGNORECASE)


# Xcode's file template: "//", "//  <file name>", "//  <project>", "//", "//  Created by <author> on <date>.",
# "//  Copyright (c) <year> <holder>." The project line names the Xcode project the file was created in.
_XCODE_HEADER = re.compile(r"\A(?://[ \t]*\r?\n)?//[ \t]+(\S[^\n]*?)[ \t]*\r?\n//[ \t]+(\S[^\n]*?)[ \t]*\r?\n//")


def xcode_project(path: str, text: str) -> str:
    """The project an Xcode file header names on the line below the file's own name ("//  EXTScope.h", "//  extobjc"),
    else ""."""
    match = _XCODE_HEADER.match(text[:400])
    if not match or match.group(1) != path.rsplit("/", 1)[-1] or _COPYRIGHT.match(match.group(2)):
        return ""
    return match.group(2)


PEOPLE_SHARE = 0.1  # a holder named by at least this share of the files the most named holder is (and by 3 or more)
PEOPLE_MIN_FILES = 3
ONE_FOLDER_SHARE = 5  # a folder holding less than a fifth of the repository's files is a small part of it


def repository_owner(facts: Iterable[VendoringFact], trees: Iterable[VendoredTree] = (), repo: str = "") -> RepositoryOwner:
    """The ``RepositoryOwner`` the root's license facts state, with the people the repository's own files name
    (``holder`` facts of files outside its vendored ``trees``); ``repo`` (owner/name) tells, where the root names no
    holder, a copied package's holder from its people (``named_by_remote``)."""
    facts, trees = list(facts), tuple(trees)
    root = [f for f in facts if f.kind == "license" and f.folder == "" and vendored_tree(f.detail, trees) is None]
    # no license text at the root: its NOTICE's holders (Clipjump's NOTICE.txt, "Copyright (C) 2013 Avi Aryan / Licensed
    # under Apache License v2.0")
    root = root or [f for f in facts if f.kind == "notice" and f.holders]
    years = [f.first_year for f in root if f.first_year]
    named: dict[str, list[int]] = {}
    places: dict[str, set[str]] = {}  # the names of the folders a holder's files sit in
    folders: dict[str, set[str]] = {}  # the folders a holder's files sit in, and how many files each folder holds
    present: dict[str, int] = {}
    for fact in facts:
        if fact.kind == "holder" and vendored_tree(fact.detail, trees) is None:
            named.setdefault(fact.name, []).append(fact.first_year)
            places.setdefault(fact.name, set()).add(fact.folder.rsplit("/", 1)[-1])
            folders.setdefault(fact.name, set()).add(fact.folder)
        elif fact.kind == "present":
            present[fact.folder] = present.get(fact.folder, 0) + 1
    most = max((len(years_) for years_ in named.values()), default=0)
    # A holder other than the most named whose files all sit in folders of one name is one copied package, not the
    # repository's people: jackson-core's Schubfach, Raffaello Giulietti's 7 files in ``.../io/schubfach/`` (main and
    # test), beside Tatu Saloranta's 20 across the project.
    # (or whose files sit at the root, as the repository's own do: pigz's ``pigz.c``, ``yarn.h``, ``try.h`` by Mark
    # Adler, beside Google's 23 zopfli files copied into ``zopfli/``, with no license text at the root)
    people = {holder: years_ for holder, years_ in named.items()
              if len(years_) >= max(PEOPLE_MIN_FILES, most * PEOPLE_SHARE) and holder_words([holder])
              and (len(years_) == most or len(places[holder]) >= 2 or "" in folders[holder])}
    # The most named too, where its files lie in one subtree holding a small share of the repository's files and
    # others of the people are named beyond such a subtree: hxcpp's sljit copy (Zoltan Herczeg, 21 files in
    # ``src/hx/cppia/sljit_src/``) beside the Haxe Foundation's files; Phobos's zlib (Gailly and Adler in
    # ``etc/c/zlib/``) beside the D Language Foundation's across ``std/``.
    total = sum(present.values())
    subtrees = {holder: _small_subtree(folders[holder], present, total) for holder in people}
    for holder, base in sorted(subtrees.items(), key=lambda item: (item[1] is None, -len(item[1] or ""), item[0])):
        if base is not None and any(other != holder and any(not _below(folder, base) for folder in folders[other])
                                    for other in people):
            del people[holder]  # smallest subtrees first: one of the people always stays
    # Where the root names no holder, the most named may be an upstream's: a holder whose files all lie in one such
    # subtree, whom neither the repository's owner nor its name names, is a copied package's (the university's
    # jqPlot, "Chris Leonello" in ``web-app/plugin/jqplot-1095/``, in AlissonDiniz's repository with no license text).
    if repo and not any(f.holders for f in root):
        for holder, base in subtrees.items():
            if base is not None and holder in people and not named_by_remote(holder, repo):
                del people[holder]
    return RepositoryOwner(frozenset().union(*(f.holders for f in root)), frozenset().union(*(f.names for f in root)),
                           min(years, default=0), tuple(sorted(people, key=lambda holder: (-len(people[holder]), holder))),
                           min((year for years_ in people.values() for year in years_ if year), default=0),
                           frozenset(holder for holder, years_ in named.items() if len(set(years_) - {0}) >= 2
                                     and not _fills_one_folder(len(years_), folders[holder], present)),
                           _own_projects(facts, trees),
                           tuple(sorted((f.detail, f.holders, f.names) for f in facts if f.kind == "section" and f.holders)),
                           _own_packages(facts, trees),
                           frozenset().union(*(f.names for f in facts if f.kind == "own_section" and not f.folder)),
                           not root)


def named_by_remote(holder: str, repo: str) -> bool:
    """Whether a holder is the one the repository's address names (``repo``: owner/name): a word of the holder's (3
    letters or more) in the owner's handle or the repository's name, or the handle in the holder's name ("Alisson N. Q.
    Diniz" in ``AlissonDiniz/university``; "leon" in ``leondejong/...``)."""
    handles = [handle for handle in (_plain(part) for part in repo.lower().split("/", 1)) if handle]
    words = [word for word in holder_words([holder.lower()]) if len(word) >= 3]
    return any(word in handle for word in words for handle in handles) \
        or any(len(handle) >= 4 and handle in _plain(holder) for handle in handles)


def _small_subtree(folders: set[str], present: dict[str, int], total: int) -> str | None:
    """The folder below the root holding all ``folders``, where it holds less than ``1 / ONE_FOLDER_SHARE`` of the
    repository's ``total`` files (``present``: each folder's own files); else None."""
    common: list[str] = []
    for names in zip(*(folder.split("/") for folder in folders)):
        if len(set(names)) > 1:
            break
        common.append(names[0])
    if not common or not all(folders):
        return None
    base = "/".join(common)
    held = sum(count for folder, count in present.items() if _below(folder, base))
    return base if held * ONE_FOLDER_SHARE < total else None


def _below(folder: str, base: str) -> bool:
    return folder == base or folder.startswith(base + "/")


def _own_packages(facts: list[VendoringFact], trees: tuple[VendoredTree, ...]) -> frozenset[str]:
    counts: dict[str, int] = {}
    for fact in facts:
        if fact.kind == "package" and vendored_tree(fact.detail, trees) is None:
            counts[fact.name] = counts.get(fact.name, 0) + 1
    return frozenset(name for name, count in counts.items() if count >= PEOPLE_MIN_FILES)


def sectioned_holder(text: str, owner: RepositoryOwner) -> str | None:
    """Why a file whose header's first holder is the holder a section of the root's license or notice file names for
    another project (``RepositoryOwner.sections``), not its own first section's, is that project's file, or None:
    ZeroBrane's ``lualibs/lexers/*.lua``, "Copyright 2006-2020 Mitchell. See LICENSE.", the holder of its LICENSE's
    "scintillua" section, while its own section names Paul Kulchenko (whose files Mitchell's 129 lexers outnumber)."""
    holder, _ = first_copyright(file_header(text))
    words = holder_words([holder])
    for detail, names, own in owner.sections:
        shared = words & names
        # most of its words, and two where it has two: a first name alone ("Robert") is no one's
        if words and not words & own and len(shared) * 2 >= len(words) and len(shared) >= min(2, len(words)):
            return f"header names {holder!r}: {detail}"
    return None


def _fills_one_folder(files: int, folders: set[str], present: dict[str, int]) -> bool:
    """Whether a holder's files all sit in one folder (not the root) and are most of its files: a copied library whose
    files carry the years they were written in (zipline's ``zipline/native/quickjs/``, Fabrice Bellard 2017-2021), not
    a contributor who came back to a project's folder (valkey's "zhenwei pi", two of ``src/``'s hundreds)."""
    folder = next(iter(folders)) if len(folders) == 1 else ""
    return bool(folder) and files * 2 > present.get(folder, 0)


def _own_projects(facts: list[VendoringFact], trees: tuple[VendoredTree, ...]) -> frozenset[str]:
    """The Xcode projects named by the headers of at least ``PEOPLE_SHARE`` of the files that name the most named one
    (and by ``PEOPLE_MIN_FILES`` or more), outside the vendored ``trees``: ReactiveObjC's 251 "ReactiveObjC", not the 4
    "extobjc" of the macros copied in."""
    counts: dict[str, int] = {}
    for fact in facts:
        if fact.kind == "holder" and fact.project and vendored_tree(fact.detail, trees) is None:
            counts[_plain(fact.project)] = counts.get(_plain(fact.project), 0) + 1
    most = max(counts.values(), default=0)
    return frozenset(name for name, count in counts.items() if count >= max(PEOPLE_MIN_FILES, most * PEOPLE_SHARE))


def foreign_project(project: str, holder: str, owner: RepositoryOwner, repo: str = "") -> str | None:
    """Why a file whose Xcode header names another project than the repository's own files do (``owner.projects``,
    nor the repository's name, within or around it: "ReactiveObjCTests") and another holder than its root's or its
    people is another project's file, or None: ReactiveObjC's ``extobjc/EXTScope.h``, "//  extobjc" and "Copyright (C)
    2012 Justin Spahr-Summers", beside 251 files of project "ReactiveObjC" by "GitHub, Inc." (the same year and the
    same MIT, so no other header rule sees it)."""
    name, own = _plain(project), _plain(repo.rsplit("/", 1)[-1])
    words = holder_words([holder])
    if not name or not words or name in owner.projects or (own and (own in name or name in own)):
        return None
    if words & owner.words() or words & holder_words(owner.people):
        return None
    return f"its Xcode header names project {project!r} and {holder!r}, not the repository's {owner.named()!r}"


def foreign_notice(text: str, owner: RepositoryOwner, notice: str | None) -> str | None:
    """Why a file's own header says it is another project's file, or None: it states a license of its own
    (``notice``, read by the caller), its first copyright holder shares no word with the repository's holders,
    and that copyright predates the repository's earliest, or its BSD endorsement clause protects a name the
    root's texts do not. A copyright line alone (CPython's ``textwrap.py``: "Copyright (C) 1999-2001 Gregory P.
    Ward") says who wrote the file, not that it came under another project's terms."""
    if not notice:
        return None
    head = file_header(text)
    holder, year = first_copyright(head)
    return _foreign_holder(holder, year, endorsement_names(head), owner)


def _foreign_holder(holder: str, year: int, endorsed: frozenset[str], owner: RepositoryOwner) -> str | None:
    own_words = owner.words()
    words = holder_words([holder])
    if not own_words and words:
        # A repository that names no one (ithowifi: a GPL-3.0 text, no holder in its own files): a BSD clause
        # protecting the file's own holder's name ("Neither the name of Sensirion AG nor...") says whose it is.
        names = frozenset(name for name in endorsed if holder_words([name]) & words)
        return f"header names {holder!r}, its BSD clause protects {min(names)!r}, in a repository naming no one" \
            if names else None
    if not own_words or not words or words & own_words:
        return None
    if year and owner.earliest() and year < owner.earliest():
        return f"header names {holder!r} from {year}, before the repository's {owner.named()!r} from {owner.earliest()}"
    # The template's "Neither the name of the copyright holder nor..." protects no one's name.
    names = frozenset(name for name in endorsed if holder_words([name]))
    if names and not names & owner.names:
        return f"header names {holder!r}, its BSD clause protects {min(names)!r}, not the repository's {owner.named()!r}"
    return None


# --------------------------------------------------------------------------------------------
# A folder most of whose files are copies by their own headers (``foreign_notice``) is a folder of copies, its
# header-less files with them: r-lib/fs's ``src/bsd/``, five BSD and libbsd files and ``cdefs.h``, which says nothing.
FOLDER_COPIES_MIN = 3


# hugo's ``attributes/attributes.go``: "This extension is based on/inspired by https://github.com/mdigger/goldmark-attributes"
# over that project's MIT notice: the repository's own work after another's
_BASED_ON = re.compile(r"\b(?:based on|inspired by)\b", re.IGNORECASE)


def header_fact(path: str, text: str, notice: str | None) -> VendoringFact | None:
    """The ``header`` fact of a file whose header states its own license (``notice``) and names a holder: what
    ``foreign_notice`` reads, kept so that a folder's files can be counted together (``folders_of_copies``)."""
    comments = header_comments(text)
    homes = frozenset() if _CONTRIBUTED.search(comments) else \
        frozenset(f"{owner}/{name.removesuffix('.git')}".lower() for owner, name in _hosted(comments))
    if not notice and not homes:
        return None
    head = file_header(text)
    holder, year = first_copyright(head)
    if not holder and path.rsplit("/", 1)[-1] == "__init__.py":
        holder, year = _module_author(text)
    if not holder:
        return None
    return VendoringFact("header", _folder(path), path, name=holder, first_year=year, names=endorsement_names(head),
                         project=xcode_project(path, text), urls=homes,
                         derived=derived_work(text) or _BASED_ON.search(comments) is not None)


# A Python package's module fields: ``__author__ = "Brent Pedersen"`` and ``__year__ = "2013"`` in methylize's copy of
# combined-pvalues, ``methylize/cpv/__init__.py`` (its ``__license__`` is the notice ``reuse.own_license`` reads)
_AUTHOR_FIELD = re.compile(r"^__author__[ \t]*=[ \t]*[\"']([^\"'\n]{3,80})[\"']", re.MULTILINE)
_YEAR_FIELD = re.compile(r"^__(?:year|copyright|date)__[ \t]*=[ \t]*[\"']?[^\n]*?\b((?:19|20)\d\d)\b", re.MULTILINE)


def _module_author(text: str) -> tuple[str, int]:
    """A package's ``__author__`` field, as a holder, with the year its fields give (0: none); ("", 0) without one."""
    head = text[:_FILE_HEAD_CHARS]
    author = _AUTHOR_FIELD.search(head)
    holders = copyright_holders(f"Copyright (c) {author.group(1)}") if author else frozenset()
    if not holders:
        return "", 0
    year = _YEAR_FIELD.search(head)
    return min(holders), int(year.group(1)) if year else 0


# A package's head file, which its language loads for the folder (``require "sti"`` loads ``sti/init.lua``): its
# header speaks for the package.
PACKAGE_HEADS = ("__init__.py", "init.lua")
PACKAGE_SHARE = 3  # a package holding a third of the repository's files or more is its main one


def _package_head(path: str) -> bool:
    """Whether a file is its folder's head: the file a language loads for the folder (``PACKAGE_HEADS``), or the module
    named for the folder (BYTEPATH's ``libraries/bitser/bitser.lua``, its readme and tests beside it)."""
    folder, name = _folder(path), path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0].lower()
    # (the name itself: zsh's completion ``_coffee`` in oh-my-zsh's ``plugins/coffee/`` is a command's, not the folder's)
    return name in PACKAGE_HEADS or (len(stem) >= COMPANION_MIN_CHARS and stem == folder.rsplit("/", 1)[-1].lower())


def package_heads(facts: Iterable[VendoringFact], owner: RepositoryOwner, trees: Iterable[VendoredTree],
                  repo: str = "") -> tuple[VendoredTree, ...]:
    """The package folders (not the root) whose head file's (``_package_head``) header is another project's by
    ``folders_of_copies``' reading (another holder, under terms of its own, older than the repository or with
    another BSD endorsement name, or beside a home of another owner): the whole package is that project's, its
    header-less modules with it (the Simple Tiled Implementation's ``sti/``, "@author Landon Manning" and
    "@copyright 2019" in ``init.lua``; methylize's ``cpv/``, ``__author__ = "Brent Pedersen"``). Not a package
    holding a third of the repository's files or more (``PACKAGE_SHARE``), nor one with a file naming the
    repository's holders."""
    facts, trees, found = list(facts), tuple(trees), []
    present = {f.folder: 0 for f in facts if f.kind == "present"}
    for f in facts:
        if f.kind == "present":
            present[f.folder] += 1
    total, own_words = sum(present.values()), owner.words()
    # (a package holding a third of the repository or more is its main one, whose head may keep an older author's
    # line, as a fork does; one holding a file naming the repository's holders mixes its own files in)
    mixed = {f.folder for f in facts if f.kind == "holder" and holder_words([f.name]) & own_words}
    for fact in facts:
        name = fact.detail.rsplit("/", 1)[-1]
        if fact.kind != "header" or not fact.folder or not _package_head(fact.detail) \
                or (fact.derived and name not in PACKAGE_HEADS) \
                or vendored_tree(fact.detail, trees) is not None \
                or sum(count for folder, count in present.items() if _below(folder, fact.folder)) * PACKAGE_SHARE >= total \
                or any(_below(folder, fact.folder) for folder in mixed):
            continue
        why = _foreign_holder(fact.name, fact.first_year, fact.names, owner) or _elsewhere(fact, owner, repo)
        if why:
            found.append(VendoredTree(fact.folder, f"{fact.detail}, the package's head: {why}", of_copies=True,
                                      own=owner.words()))
    return tuple(found)


def header_companions(facts: Iterable[VendoringFact], owner: RepositoryOwner, trees: Iterable[VendoredTree],
                      repo: str = "") -> tuple[VendoredTree, ...]:
    """The header-less companions (``sibling_companions``: its name, another extension, a folder beside its own) of a
    file whose header names another holder beside that holder's hosted repository (``_elsewhere``): hugo-theme-docdock's
    ``static/css/auto-complete.css`` beside ``static/js/auto-complete.js``, "Copyright (c) 2014 Simon Steinberger /
    Pixabay" over "https://github.com/Pixabay/JavaScript-autoComplete". A companion's own head answers first."""
    facts, trees = list(facts), tuple(trees)
    present = [fact.detail for fact in facts if fact.kind == "present"]
    found = []
    for fact in facts:
        name = fact.detail.rsplit("/", 1)[-1]
        stem = _MINIFIED.sub("", name.rsplit(".", 1)[0])
        if fact.kind != "header" or fact.derived or "." not in name or len(stem) < COMPANION_MIN_CHARS \
                or vendored_tree(fact.detail, trees) is not None or not (why := _elsewhere(fact, owner, repo)):
            continue
        found += [VendoredTree(_folder(other), f"named as {fact.detail}, whose {why}", pattern=glob.escape(other),
                               of_copies=True, own=owner.words()) for other in sibling_companions(fact.detail, stem, present)]
    return tuple(found)


def file_fact(path: str) -> VendoringFact:
    """The ``present`` fact: that the repository holds ``path`` (folders' files are counted with it)."""
    return VendoringFact("present", _folder(path), path)


def folders_of_copies(facts: Iterable[VendoringFact], owner: RepositoryOwner,
                      trees: Iterable[VendoredTree], repo: str = "") -> tuple[VendoredTree, ...]:
    """The folders (not the root) with ``FOLDER_COPIES_MIN`` or more files whose headers say they are other projects'
    (``foreign_notice``'s reading) and more of them than the folder's other files, none of which names the repository's
    holders or people (merlin's ``src/ocaml/typing/``, its modified copy of OCaml's typechecker beside files of its
    own, is read file by file), outside the vendored ``trees``."""
    facts, trees = list(facts), tuple(trees)
    if not (owner.holders or owner.people):
        return _unnamed_folders_of_copies(facts, trees, repo) if owner.unlicensed and repo else ()
    files: dict[str, int] = {}
    copies: dict[str, list[tuple[str, str]]] = {}
    own_words = owner.words()  # the root's holders (its people where the root names none), as ``foreign_notice``
    mixed = set()  # folders holding a file whose header names the repository's holders: its own files among copies
    # files naming another's holder with no terms read (FatFs's ``mmc_pico_spi.c``, "Copyright (C) 2018, ChaN" over
    # ChaN's own wording of terms): counted with the copies their folder holds, never making one alone
    named_apart: dict[str, set[str]] = {}
    for fact in facts:
        if fact.kind == "present" and fact.folder:
            files[fact.folder] = files.get(fact.folder, 0) + 1
        elif fact.kind == "holder" and holder_words([fact.name]) & own_words:
            mixed.add(fact.folder)
        elif fact.kind == "holder" and fact.folder and vendored_tree(fact.detail, trees) is None \
                and _foreign_holder(fact.name, fact.first_year, frozenset(), owner):
            named_apart.setdefault(fact.folder, set()).add(fact.detail)
        elif fact.kind == "header" and fact.folder and vendored_tree(fact.detail, trees) is None:
            why = _foreign_holder(fact.name, fact.first_year, fact.names, owner) \
                or foreign_project(fact.project, fact.name, owner, repo) or _elsewhere(fact, owner, repo)
            if why:
                copies.setdefault(fact.folder, []).append((fact.detail, fact.name))
    for folder, copied in _one_folder_holders(facts, owner, trees).items():
        copies.setdefault(folder, [])
        copies[folder] = sorted(set(copies[folder]) | set(copied))
    found = []
    for folder, copied in sorted(copies.items()):
        apart = len(named_apart.get(folder, set()) - {path for path, _ in copied})
        if len(copied) >= FOLDER_COPIES_MIN and (len(copied) + apart) * 2 > files.get(folder, 0) and folder not in mixed \
                and vendored_tree(folder + "/", trees) is None:
            holders = sorted({holder for _, holder in copied})
            found.append(VendoredTree(folder, f"{len(copied) + apart} of the {files[folder]} files of {folder}/ are other "
                                              f"projects' by their headers ({', '.join(holders[:3])}...)",
                                      of_copies=True, own=own_words))
    return tuple(found)


def _unnamed_folders_of_copies(facts: list[VendoringFact], trees: tuple[VendoredTree, ...],
                               repo: str) -> tuple[VendoredTree, ...]:
    """In a repository with no license text at its root that names no one of its own, the folders (not the root) with
    ``FOLDER_COPIES_MIN`` or more files whose headers grant their own terms under holders its address does not name
    (``named_by_remote``), more of them than the folder's other files and none naming a holder it does: the
    university's ``web-app/plugin/jqplot-1095/plugins/``, jqPlot's plugins with its modified ``jqplot.json2.js``
    ("2010-11-01 Chris Leonello ... Public Domain", no copyright line)."""
    files: dict[str, int] = {}
    copies: dict[str, set[str]] = {}
    holders: dict[str, set[str]] = {}
    mixed = set()
    present = [fact.detail for fact in facts if fact.kind == "present" and fact.folder]
    for fact in facts:
        if fact.kind == "present" and fact.folder:
            files[fact.folder] = files.get(fact.folder, 0) + 1
        elif fact.kind in ("holder", "header") and fact.folder and holder_words([fact.name]) \
                and vendored_tree(fact.detail, trees) is None:
            if named_by_remote(fact.name, repo):
                mixed.add(fact.folder)
            elif fact.kind == "header":
                copies.setdefault(fact.folder, set()).add(fact.detail)
                holders.setdefault(fact.folder, set()).add(fact.name)
    for path in present:  # a minified build beside its copy is that copy (``jqplot.barRenderer.min.js``)
        if _folder(path) in copies and re.sub(r"\.min(?=\.\w+$)", "", path) in copies[_folder(path)]:
            copies[_folder(path)].add(path)
    return tuple(VendoredTree(folder, f"{len(paths)} of the {files[folder]} files of {folder}/ grant their own terms "
                                      f"under holders the repository's address does not name ("
                                      f"{', '.join(sorted(holders[folder])[:3])}...), in a repository naming no one",
                              of_copies=True)
                 for folder, paths in sorted(copies.items())
                 if len(paths) >= FOLDER_COPIES_MIN and len(paths) * 2 > files.get(folder, 0) and folder not in mixed
                 and vendored_tree(folder + "/", trees) is None)


ONE_FOLDER_HOLDER_MIN = 5


def _one_folder_holders(facts: list[VendoringFact], owner: RepositoryOwner,
                        trees: tuple[VendoredTree, ...]) -> dict[str, list[tuple[str, str]]]:
    """The files of a holder who is not the repository's, nor one of its people, whose files stating their own terms
    with no year (``ONE_FOLDER_HOLDER_MIN`` or more) all sit in one folder and whose name no file elsewhere carries:
    one copied package (sljit in hxcpp's ``src/hx/cppia/sljit_src/``: "Copyright Zoltan Herczeg", BSD terms, 21
    files). With years, such files are a maintainer's package as often (runc's ``internal/pathrs/``, Aleksa Sarai's
    2024-2025 Apache headers): the years are read by ``foreign_notice``."""
    own_words = owner.words() | holder_words(owner.people)
    where: dict[str, set[str]] = {}  # each holder word, the folders whose files' holders carry it
    for fact in facts:
        if fact.kind == "holder" and vendored_tree(fact.detail, trees) is None:
            for word in holder_words([fact.name]):
                where.setdefault(word, set()).add(fact.folder)
    headers: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for fact in facts:
        if fact.kind == "header" and fact.folder and not fact.first_year and vendored_tree(fact.detail, trees) is None \
                and (words := holder_words([fact.name])) and not words & own_words \
                and all(where.get(word, set()) <= {fact.folder} for word in words):
            headers.setdefault((fact.folder, fact.name), []).append((fact.detail, fact.name))
    return {folder: copied for (folder, _), copied in headers.items() if len(copied) >= ONE_FOLDER_HOLDER_MIN}


def _elsewhere(fact: VendoringFact, owner: RepositoryOwner, repo: str) -> str | None:
    """Whether a ``header`` fact names a holder who is not the repository's beside a hosted repository that is not this
    one (mkdocs's ``lunr-language/``, lunr-languages' forks: "https://github.com/MiKr13/lunr-languages", Mihir Kumar)."""
    words = holder_words([fact.name])
    if not words or words & owner.words() or words & holder_words(owner.people):
        return None
    homes = sorted(home for home in fact.urls if home != repo.lower() and home.split("/")[0] != repo.lower().split("/")[0])
    return f"header names {fact.name!r} and {homes[0]!r}" if homes else None


def owns_header(text: str, own: frozenset[str]) -> bool:
    """Whether a file's header names, as its first copyright holder, a holder sharing a word with ``own``, the
    repository's holders as the evidence of a folder of copies names them (``VendoredTree.own``)."""
    holder, _ = first_copyright(file_header(text))
    return bool(holder_words([holder]) & own)


def in_own_section(path: str, owner: RepositoryOwner) -> bool:
    """Whether the file lies in a top folder the root's sectioned license text covers as the repository's own
    collection (``RepositoryOwner.own_sections``)."""
    return "/" in path and _plain(path.split("/", 1)[0]) in owner.own_sections


def named_for_repository(path: str, repo: str) -> bool:
    """Whether a file's name holds the repository's name (four characters or more, case and punctuation aside): glue
    written for it, as libgit2's ``deps/clar/clar_libgit2.c``."""
    own = _plain(repo.rsplit("/", 1)[-1])
    return len(own) >= 4 and own in _plain(path.rsplit("/", 1)[-1])


def named_in_own_folder(path: str, repo: str) -> bool:
    """Whether a file named for the repository (``named_for_repository``) sits where only a folder of its path, not its
    own name, matches one of linguist's vendor.yml patterns: the repository's own code in a folder so named (abapGit's
    ``src/env/zcl_abapgit_env_factory.clas.abap``, linguist's ``(^|/)env/``: its classes carry the repository's
    namespace)."""
    return named_for_repository(path, repo) and not _only_name_patterns(path) and not any(
        (found := compiled.search(path)) and found.end() > path.rfind("/") + 1
        for _, compiled in _linguist_list(VENDOR_LIST))


_LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*(?:include|import)[ \t]*"([^"\n]+)"', re.MULTILINE)


def names_its_place(text: str, folder: str) -> bool:
    """Whether a file in a vendored ``folder`` (two parts or more) names that folder's place in the repository and
    climbs from it to the repository's root: SNKRX's ``engine/love/build_windows.bat``, "-w ..\\..\\ -xr!engine/love"
    beside LOVE's runtime there. A copy does not know where it was put; the repository's build glue does. (A Godot
    addon's own "addons/gdUnit4/plugin.cfg" names where Godot installs it, and climbs nowhere.)"""
    if "/" not in folder:
        return False
    head = text[:_PLACE_CHARS].replace("\\", "/")
    climb = "../" * (folder.count("/") + 1)
    return climb in head and re.search(rf"(?<![\w./:-]){re.escape(folder)}(?![\w.-])", head) is not None


_PLACE_CHARS = 20_000


def includes_own_glue(text: str, repo: str) -> bool:
    """Whether a file whose header names no holder includes a local file named for the repository
    (``named_for_repository``): libgit2's header-less test main ``deps/clar/main.c`` opens with ``#include
    "clar_libgit2.h"``, its glue around the copied clar, so it was written for libgit2, not taken with clar."""
    if first_copyright(file_header(text))[0]:
        return False
    return any(named_for_repository(target, repo) for target in _LOCAL_INCLUDE.findall(text[:_FILE_HEAD_CHARS * 2]))


def names_owner(path: str, text: str, owner: RepositoryOwner) -> bool:
    """Whether a file's first copyright line names the repository's people (``RepositoryOwner.people``, the holders
    its own files name most; not the root's texts, whose NOTICE may list the copies' holders): hugo's "Copyright
    2024 The Hugo Authors" in its ``cache/`` package, CyberChef's "@copyright Crown Copyright 2025" in its own
    ``src/core/vendor/ascon.mjs``. A license text names its package's holder, whoever that is."""
    if _LICENSE_NAME.fullmatch(path.rsplit("/", 1)[-1]):
        return False
    holder, _ = first_copyright(file_header(text))
    return bool(holder_words([holder]) & holder_words(owner.people))


# A release of its own: "Version: 1.2.2", "@version 2.1" in a header's comments.
# A version field opening a comment line, not a license's "Version 2.0" nor a generator's "pycrc v0.8.2" in a sentence.
_RELEASE = re.compile(r"^[ \t]*[^\w\s]*[ \t]*(@?version[ \t]*:?[ \t]*v?\d+(?:\.\d+)+)", re.IGNORECASE | re.MULTILINE)


def foreign_release(text: str, owner: RepositoryOwner, repo: str = "") -> str | None:
    """Why a file's header says it is a release of another project, or None: its comments name a holder that is not
    the repository's, a version of its own and a URL that is not the repository's: YOURLS's
    ``js/jquery.notifybar.js``, "Notify Bar - jQuery plugin * Copyright (c) 2009-2010 Dmitri Smirnov ... Version: 1.2.2
    ... Project home: http://www.dmitri.me/blog/notify-bar"."""
    comments = header_comments(text)
    holder, _ = first_copyright(comments)
    words, own_words = holder_words([holder]), owner.words()
    release = _RELEASE.search(comments)
    if not words or not own_words or words & own_words or release is None or (repo and names_repository(comments, repo)):
        return None
    own = repo.lower()
    # its home, not the repository's nor its license's page (opensource.org/licenses/mit-license.php)
    url = next((url for url in _URL.findall(comments) if not (own and own in url.lower()) and "licen" not in url.lower()
                and "creativecommons.org" not in url.lower()), None)
    if url is None:
        return None
    return f"header names {holder!r}, {release.group(1)!r} and {url!r}, not the repository's"


def unnamed_repository_copy(text: str, notice: str | None, governing: Iterable[str], repo: str,
                            path: str = "") -> str | None:
    """Why a file of a repository naming no one (no holder at its root, no people) is another's, by the repository's
    address (``named_by_remote``), or None: its header names a holder or author whom neither the owner nor the
    repository's name names, and either grants the file under terms of its own (``notice``) where nothing of the
    repository's governs its path (the university's copies of jqPlot, Raphael and a PHP Classes SASL client, each "Dual
    licensed under the MIT or GPL" or "License: BSD", in a repository with no license text), or opens with a release
    line of its own over that holder's copyright (image-viewer's ``AC_RunActiveContent.js``, "//v1.7" over "Copyright
    2005-2007 Adobe Systems Incorporated", under a root Apache text naming no one). A file at the root is the
    repository's own statement (nablang's ``BSDL``, its licence text under a name no licence reader knows), and a head
    naming the owner's handle anywhere is the owner's work ("Ported by John Novak" in ``johnnovak/nim-glfw``'s port of
    GLFW's example, over Camilla Löwy's zlib notice)."""
    head, governing = file_header(text), sorted(governing)
    holder = header_holder(text)
    if not holder or not repo or "/" not in path or named_by_remote(holder, repo) \
            or names_repository(header_comments(text), repo) or _names_owner_handle(header_comments(text), repo):
        return None
    terms = "the public domain" if notice == PUBLIC_DOMAIN else notice
    if notice and not governing:
        return f"header names {holder!r} under {terms}, in a repository naming no one and licensing nothing of its own"
    # (terms of no family the repository's own are, as ``foreign_terms`` reads them: clj-kondo's copy of potemkin,
    # "Copyright (c) 2013 Zachary Tellman" under MIT, in an EPL-1.0 repository naming no one)
    if notice and not ({_family(name) for name in license_ids(notice)} or {_family(notice)}) \
            & {_family(name) for name in governing}:
        return (f"header names {holder!r} under {terms}, in a repository naming no one under "
                f"{' AND '.join(governing)}")
    release = _OWN_VERSION.search(_opening_comment(head))
    if release is not None and first_copyright(head)[0]:
        return (f"header names {holder!r} and its own release {' '.join(release.group(0).strip(' /;#*-').split())!r}, "
                f"in a repository naming no one")
    return None


def _names_owner_handle(comments: str, repo: str) -> bool:
    handle = _plain(repo.split("/", 1)[0])
    return len(handle) >= 4 and handle in _plain(comments)


# A header saying its code was ported, converted or adapted into this repository's code (Crystal's "Source port of
# Dragonbox's reference implementation in C++", "Crystal adaptation of "mu" from the "nsync" library", "source code
# derived from the following"; Phobos's "Based on the CEPHES math library ... Conversion to D by Don Clugston"): the
# repository's own derived work, whose header keeps its origin's notice.
# (a bare "Ported from Eclipse Collections 11.0" in a Java file of caffeine's is a modified copy, not a translation)
DERIVED = re.compile(r"\bsource port of\b|\bported to [A-Z]\w*|\badaptation of\b|\bconver(?:sion|ted) (?:to|into) [A-Z]\w*"
                     r"|\b(?:code|cases|implementation) derived from\b|\btranslated (?:from|to|into)\b", re.IGNORECASE)


def derived_work(text: str) -> bool:
    """Whether a file's header says it is a port, conversion or adaptation made here (``DERIVED``)."""
    return DERIVED.search(header_comments(text)) is not None


# "Example contributed by bzt (@bztsrc) and reviewed by Ramon Santamaria" (raylib's examples): written for the repository,
# whatever project of the author's its notes link.
_CONTRIBUTED = re.compile(r"\bcontributed by\b", re.IGNORECASE)


def foreign_home(text: str, owner: RepositoryOwner, repo: str = "") -> str | None:
    """Why a file whose header names a holder who is not the repository's and, beside it, that holder's own repository
    on a code-hosting site is a copy from there, or None: mkdocs's ``lunr-language/lunr.da.js``, "Lunr languages,
    `Danish` language * https://github.com/MihaiValentin/lunr-languages * Copyright 2014, Mihai Valentin" (the holder's
    words in the address's owner). A header pointing at this repository, or at someone else's, says nothing."""
    comments = header_comments(text)
    holder, _ = first_copyright(comments)
    words = {word for word in holder_words([holder]) if len(word) >= 3}
    if not words or words & owner.words() or words & holder_words(owner.people) or _CONTRIBUTED.search(comments):
        return None
    for home_owner, name in _hosted(comments):
        home = f"{home_owner}/{name.removesuffix('.git')}".lower()
        if repo and (home == repo.lower() or home_owner.lower() == repo.lower().split("/")[0]):
            return None
        if any(word in _plain(home_owner) for word in words):
            return f"header names {holder!r} and {home!r}, that holder's repository, not this one"
    return None


_BANNER_VERSION = re.compile(r"^[^\w\n]*([\w.+-]+)\s+(?:[-–]\s+)?(v\d+(?:\.\d+)+)\b[^\n]*", re.IGNORECASE)
# a bundle's "(c) 2014-2021 Evan You" below its "Vue.js v2.6.14" banner, without the word "copyright"
_BANNER_HOLDER = re.compile(r"^[^\w\n(]*\((?:c|C)\)\s*(?:(?:19|20)\d\d(?:\s*[-–,]\s*(?:(?:19|20)\d\d|present))*)\s+"
                            r"([^\n|]+?)\s*(?:\||$)", re.MULTILINE)


def _bare_banner(path: str, text: str) -> str:
    """A first line that is only a release of the file's own name ("FamiTone2 v1.12" opening ``famitone2.s``) in a
    head naming no one, else ""."""
    head = text[:300].lstrip("\ufeff \t\r\n")  # a byte-order mark too
    if "\n" in head and not re.search(r"\w", head.split("\n", 1)[0]):
        head = head.split("\n", 1)[1]
    banner = _BANNER_VERSION.match(head)
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    if banner is None or banner.group(1).lower().split(".", 1)[0] != stem or len(stem) < 3 \
            or banner.group(0).strip(" /;#*!\r\t") != f"{banner.group(1)} {banner.group(2)}" \
            or header_holder(text) or _BANNER_HOLDER.search(text[:300]):
        return ""
    return f"{banner.group(1)} {banner.group(2)}"


def banner_release(path: str, text: str, owner: RepositoryOwner, repo: str = "") -> str | None:
    """Why a file's first line says it is a release of a single-file library, or None: it names the file itself with
    a version ("stb_image - v2.30 - public domain image loader - http://nothings.org/stb", "stb_truetype.h - v1.26 -
    public domain" over "authored from 2009-2021 by Sean Barrett"; a bundle's "Vue.js v2.6.14" over "(c) 2014-2021 Evan
    You"), and on that line a home that is not the repository's, or in its header an author or holder who is not the
    repository's. raylib's own "rlgl v6.0 - A
    multi-OpenGL abstraction layer" names no home and Ramon Santamaria, the repository's."""
    head = text[:300].lstrip("\ufeff \t\r\n")  # a byte-order mark too
    if "\n" in head and not re.search(r"\w", head.split("\n", 1)[0]):
        head = head.split("\n", 1)[1]  # a bare opener ("/*!") above the banner line
    banner = _BANNER_VERSION.match(head)
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    if banner is None or banner.group(1).lower().split(".", 1)[0] != stem or len(stem) < 3:
        return None
    own = repo.rsplit("/", 1)[-1].lower()
    # (a home under the repository's owner is the owner's library published from another of its repositories:
    # musializer's ``thirdparty/nob.h``, "nob - v1.20.6 - ... https://github.com/tsoding/nob.h")
    home = next((url for url in _URL.findall(banner.group(0)) if not (own and own in url.lower())
                 and not (repo and _home_is_repositorys(url, repo))), None)
    marked = _BANNER_HOLDER.search(text[:300])
    holder = header_holder(text) or (" ".join(marked.group(1).lower().split()) if marked else "")
    own_words = owner.words() | holder_words(owner.people)
    # a bare release line naming no one, as the first line of a file named for it (FamiTone2's ";FamiTone2 v1.12" in
    # NES games), beside a repository of another name: that release
    bare = not holder and own and _plain(banner.group(1)) != _plain(own) and banner.group(0).strip(" /;#*!\r\t") == \
        f"{banner.group(1)} {banner.group(2)}"
    if home is None and not bare and not (holder and own_words and not holder_words([holder]) & own_words):
        return None
    return f"its banner names {banner.group(1)!r} {banner.group(2)}" + (f" and {home!r}" if home else f" by {holder!r}"
                                                                        if holder else ", naming no one")


# A project's release banner at the head of each of its files: GLFW's "// GLFW 3.4 - www.glfw.org" (or "GLFW 3.4 X11 -
# www.glfw.org", a platform's file) over its sources.
_PROJECT_BANNER = re.compile(r"^[^\w\n]*([A-Za-z][\w+.-]*)\s+v?(\d+(?:\.\d+)+)(?:\s+[\w/+.-]+){0,2}\s+[-–]\s+"
                             r"((?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)+)[/\w.-]*\s*$", re.MULTILINE)
_PROJECT_BANNER_LINES = 4


# (or its home alone on the next line: "-- lust v0.1.0 - Lua test framework" over "-- https://github.com/bjornbytes/lust")
_PROJECT_BANNER_BELOW = re.compile(r"^[^\w\n]*([A-Za-z][\w+.-]*)\s+v?(\d+(?:\.\d+)+)[ \t]+[-–][ \t]+[^\n]*\n[^\w\n]*"
                                   r"(https?://(?:www\.)?[\w-]+(?:\.[\w-]+)+[/\w.-]*)[ \t\r]*$", re.MULTILINE)


def _banner(text: str) -> re.Match | None:
    head = "\n".join(line for line in text[:600].splitlines()[:_PROJECT_BANNER_LINES + 2] if re.search(r"\w", line))
    first = "\n".join(head.splitlines()[:_PROJECT_BANNER_LINES])
    return _PROJECT_BANNER.search(first) or _PROJECT_BANNER_BELOW.search(first)


def banner_fact(path: str, text: str) -> VendoringFact | None:
    """The ``banner`` fact of a file whose first comment lines name a project's release and home (``project_banner``):
    ``name`` the project, letters and digits (a copy's folder may be named for it, ``root_license_copies``)."""
    banner = _banner(text)
    return VendoringFact("banner", _folder(path), path, name=_plain(banner.group(1))) if banner else None


def project_banner(text: str, repo: str = "") -> str | None:
    """Why a file whose first comment lines name a project, its release and its home ("GLFW 3.4 - www.glfw.org") is
    that project's file, or None where the project is the repository (its name, letters and digits, equal) or the
    home names the repository: nim-glfw's copy of GLFW under ``glfw/src/``, whose headers name GLFW's holders, who
    are also the holders of the GLFW license text the wrapper keeps at its root."""
    banner = _banner(text)
    own = repo.rsplit("/", 1)[-1]
    if banner is None or not own or _plain(banner.group(1)) == _plain(own) or _plain(own) in _plain(banner.group(3)) \
            or any(owner.lower() == repo.lower().split("/", 1)[0] for owner, _ in _hosted(banner.group(3))):
        return None  # (a home under the repository's own owner: the owner's library, published from another repository)
    return f"its banner names {banner.group(1)!r} {banner.group(2)} at {banner.group(3)!r}, not the repository"


def foreign_pointer(text: str, owner: RepositoryOwner, pointed: str | None, governing: Iterable[str]) -> str | None:
    """Why a file's header points to a license file its folders do not hold, or None: it names a holder that is not
    the repository's, and its pointer names a license (``pointed``, "a BSD-style license that can be found in the
    LICENSE file") that none of the licenses governing its path (``governing``, ids) is: hugo's copies of Go's
    templates, "Copyright 2011 The Go Authors", under hugo's Apache-2.0 LICENSE."""
    if not pointed:
        return None
    holder, _ = first_copyright(file_header(text))
    words, own_words = holder_words([holder]), owner.words()
    family = _family(pointed)
    governing = {_family(name) for name in governing}
    if not own_words or not words or words & own_words or not governing or family in governing:
        return None
    return (f"header names {holder!r}, not the repository's {owner.named()!r}, and points to a {pointed} license "
            f"file that its folders do not hold (theirs: {', '.join(sorted(governing))})")


# A header's author where it has no copyright line: JSR-166's "Written by Doug Lea and Martin Buchholz with assistance
# from members of JCP JSR-166 Expert Group and released to the public domain".
# (or "Script by Andrius Valkiunas http://www.existical.com/", a GameMaker Marketplace script's credit line)
_AUTHOR_LINE = re.compile(r"^[\W_]*(?:written|authored|created|script)(?: from [\d-]+| in \d{4})? by:?\s+(.+?)"
                          r"(?:\s+with\b|\s+and released\b|\s+(?:https?:|www\.)|[,.;/]|$)",
                          re.IGNORECASE | re.MULTILINE)
# Or a name with its address after "by" on the comment's first lines: neslib's ";NES hardware-dependent functions by
# Shiru (shiru@mail.ru)"
_AUTHOR_ADDRESS = re.compile(r"\bby:?[ \t]+([A-Z][\w.'-]*(?:[ \t]+[A-Z][\w.'-]*){0,3})[ \t]*[(<][^()<>\s]+@[^()<>\s]+[)>]")
# "Feel free to do anything you want with this code, consider it Public Domain" (Shiru's NES library)
_PUBLIC_DOMAIN = re.compile(r"\b(?:released|dedicated|placed|put) (?:in|into|to) the public domain\b"
                            r"|\bconsider (?:it|this(?: code| file)?) (?:to be )?(?:in the )?public domain\b")


# The licenses' own addresses, as a header lists them for the texts of the terms it grants: Argon2's "You may use this
# work under the terms of a Creative Commons CC0 1.0 License/Waiver or the Apache Public License 2.0, at your option.
# The terms of these licenses can be found at: - CC0 1.0 Universal : http://creativecommons.org/publicdomain/zero/1.0
# - Apache 2.0 : http://www.apache.org/licenses/LICENSE-2.0".
_LICENSE_ADDRESSES = (
    (re.compile(r"apache\.org/licenses/license-2\.0", re.IGNORECASE), "Apache-2.0"),
    (re.compile(r"creativecommons\.org/publicdomain/zero/1\.0", re.IGNORECASE), "CC0-1.0"),
    (re.compile(r"mozilla\.org/mpl/2\.0", re.IGNORECASE), "MPL-2.0"),
    (re.compile(r"opensource\.org/licenses?/mit(?:-license)?\b", re.IGNORECASE), "MIT"),
    (re.compile(r"gnu\.org/licenses/(?:old-licenses/)?(a?gpl|lgpl)", re.IGNORECASE), None),
    (re.compile(r"unlicense\.org", re.IGNORECASE), "Unlicense"),
)
_GRANT = re.compile(r"\b(?:under the terms of|licensed under|(?:use|redistribute|distribute) (?:this|it) [^.]{0,40}?under)\b",
                    re.IGNORECASE)


def header_terms(text: str) -> str | None:
    """The terms a file's head grants where it states no license by name (``foreign_terms`` reads them when no notice
    names one): a public-domain dedication (``PUBLIC_DOMAIN``), else the licenses whose own addresses a granting
    sentence lists (``_LICENSE_ADDRESSES``), a choice between them where the head offers one."""
    head = text[:_FILE_HEAD_CHARS]
    words = " ".join(re.sub(r"[\W_]+", " ", head.lower()).split())  # comment marks aside
    if _PUBLIC_DOMAIN.search(words):
        return PUBLIC_DOMAIN
    flat = " ".join(head.split())
    grant = _GRANT.search(flat)
    if grant is None:
        return None
    named = []
    for address, license_id in _LICENSE_ADDRESSES:
        if found := address.search(flat[grant.start():]):
            named.append(license_id or found.group(1).upper() + "-family")
    return " OR ".join(dict.fromkeys(named)) or None


# an include guard above a C header's comment (nerdle-nes's ``LIB/neslib.h``: "#ifndef __NESLIB_H__", "#define ...")
_GUARD_LINE = re.compile(r"[ \t]*#[ \t]*(?:ifndef|define|pragma once)\b")


def _first_lines(opening: str, count: int) -> str:
    """The first ``count`` lines of an opening comment with words in them, an include guard's lines aside."""
    lines = [line for line in opening.splitlines() if re.search(r"\w", line) and not _GUARD_LINE.match(line)]
    return "\n".join(lines[:count])


def header_holder(text: str) -> str:
    """The first copyright holder a file's head names, else the author its opening comment names ("Written by Doug
    Lea"), lower case; "" when neither."""
    head = file_header(text)
    holder, _ = first_copyright(head)
    if holder:
        return holder
    opening = _opening_comment(head)
    # (or a "(c) <years> <holder>" line without the word, on its first lines: XRegExp's "// (c) 2007-2012 Steven Levithan")
    author = _AUTHOR_LINE.search(opening) or _AUTHOR_ADDRESS.search(_first_lines(opening, 3)) \
        or _BANNER_HOLDER.search(_first_lines(opening, 3))
    return " ".join(author.group(1).lower().split()) if author else ""


# A file's own release on a line of its opening comment: nesdoug's "// version 1.2, 1/1/2022", "@version 2.1", "v1.01"
_OWN_VERSION = re.compile(r"^[^\w\n]*(?:@?version|ver\.|rev(?:ision)?)[ \t]*:?[ \t]*v?\d+(?:\.\d+)+\b|^[^\w\n]*v\d+(?:\.\d+)+\b",
                          re.IGNORECASE | re.MULTILINE)


def authored_release_fact(path: str, text: str) -> VendoringFact | None:
    """The ``authored`` fact of a file whose opening comment names its author on a line of its own and the file's own
    release, with no copyright line: nesdoug's library as NES games copy it, "// Written by Doug Fraker" over "//
    version 1.2, 1/1/2022" (stallar's ``src/lib/nesdoug.h``, ``nesdoug.s``). ``name``: the author, lower case;
    ``project``: the release line. A license text or a file a path list calls vendored says nothing of the kind."""
    if _LICENSE_NAME.fullmatch(path.rsplit("/", 1)[-1]) or is_vendored(path) or path_matches(path, VENDORED_PATHS):
        return None
    head = file_header(text)
    if first_copyright(head)[0]:
        return None  # a copyright line's holder is read by the notice and release rules
    opening = _opening_comment(head)
    first = _first_lines(opening, _BASED_ON_LINES)
    author = _AUTHOR_LINE.search(opening) or _AUTHOR_ADDRESS.search(first)
    said = _OWN_VERSION.search(opening)
    if author is None or said is None:
        author = said = _RELEASE_BY.search(first) or _RELEASE_BY_LINE.search(opening) or _VERSION_DATE_AUTHOR.search(opening) \
            or _based_on_code(opening)
    if author is None or said is None:
        if banner := _bare_banner(path, text):
            return VendoringFact("authored", _folder(path), path, project=banner)
        if titled := _self_titled(path, first):
            return VendoringFact("authored", _folder(path), path, name=" ".join(titled.group(1).lower().split()),
                                 project=" ".join(titled.group(0).strip(" /;#*-").split()))
        credited = _credited_home(_leading_comments(text))
        return credited_fact(path, *credited) if credited else None
    name = " ".join(next(group for group in author.groups() if group).lower().split())
    if not holder_words([name]):
        return None
    return VendoringFact("authored", _folder(path), path, name=name, project=" ".join(said.group(0).strip(" /;#*-").split()))


def _self_titled(path: str, first: str) -> re.Match | None:
    """A first line naming the file itself and its author: errbit's ``reset.css``, "Reset.css - by Eric Meyer" (then
    "Modified for NewsStand"): that author's file, as a release line naming its author is (``authored_releases``)."""
    name = path.rsplit("/", 1)[-1]
    if len(name.split(".", 1)[0]) < COMPANION_MIN_CHARS:
        return None
    return re.match(rf"[^\w\n]*{re.escape(name)}[ \t]*[-–:,]?[ \t]*by[ \t]+([A-Z][\w.'-]*(?:[ \t]+[A-Z][\w.'-]*){{0,3}})"
                    r"[ \t]*(?:\*/)?[ \t]*$", first.split("\n", 1)[0], re.IGNORECASE)


# A head saying whose the file is and where it lives, its home an address on its first lines: hugo-theme-learn's
# ``static/css/hybrid.css``, "vim-hybrid theme by w0ng (https://github.com/w0ng/vim-hybrid)"; ``jquery.sticky.js``,
# "Author: Anthony Garand" over "Website: http://stickyjs.com/"; ``auto-complete.js``, a release "JavaScript
# autoComplete v1.0.4" over its GitHub address. ``authored_releases`` compares the author with the repository's
# people and the home with its address.
_AUTHOR_CREDIT = re.compile(r"^[^\w\n@]*@?author(?:\(s\)|s)?[ \t]*:?[ \t]+([A-Za-z][\w.'-]*(?:[ \t]+[A-Z][\w.'-]*){0,3})"
                           r"[ \t]*(?:[<(,][^\n]*)?$", re.IGNORECASE | re.MULTILINE)
# (the head's first "by": the work's author, unless it names whose idea, tool or work the file follows)
_BY_NAME = re.compile(r"\bby[ \t]+([A-Za-z][\w.'-]*(?:[ \t]+[A-Z][\w.'-]*){0,3})[ \t]*(?:[(<,]|$)", re.MULTILINE)
_NOT_AUTHORSHIP = re.compile(r"\b(?:inspired|generated|powered|suggested|reported|based|influenced|followed|used|work|"
                             r"ideas?|code|made possible)[ \t]+$", re.IGNORECASE)
_RELEASE_TITLE = re.compile(r"\A[^\w\n]*((?:[A-Za-z][\w.+-]*[ \t]+){1,3}v\d+(?:\.\d+){1,3})\b", re.IGNORECASE)
_HOME = re.compile(r"https?://[^\s\"'<>()]+")
_CREDIT_LINES = 8  # the credit and its home sit at the top of the opening comment


def _leading_comments(text: str) -> str:
    """The comment lines a file opens with, blank lines inside a block comment too, up to its first line of code."""
    lines = []
    for line, code in _header_lines(text):
        if code:
            break
        lines.append(line)
    return "".join(lines)


def _credited_home(opening: str) -> tuple[str, str, list[str], list[str]] | None:
    """(author or "", release or credit words, addresses, addresses tied to the credit) of an opening comment whose
    first lines credit the file to an author (a field, or "<work> by <name>") or name its release, with an address that
    is no licence's page. An address is tied to the credit on the credit's line or the next, in a home field
    ("Website:", "URL:") or after "from"; one naming a tool the file is about ("Jake : https://...") is not."""
    first = _first_lines(opening, _CREDIT_LINES)
    homes = [home.rstrip(".,;") for home in _HOME.findall(first) if _may_be_home(home)]
    if not homes:
        return None
    by = next(re.finditer(r"\bby\b", first), None)
    if by is not None and _NOT_AUTHORSHIP.search(first[:by.start()]):
        by = None
    credit = _AUTHOR_CREDIT.search(first) or (_BY_NAME.match(first, by.start()) if by is not None else None)
    release = None if credit else _RELEASE_TITLE.search(first)
    said = credit or release
    if said is None:
        return None
    line = first.count("\n", 0, said.start())
    lines = first.splitlines()
    near = "\n".join(lines[line:line + 2])
    tied = [home.rstrip(".,;") for home in _HOME.findall(near)] + [field.group(1).rstrip(".,;")
                                                                    for field in _HOME_LINE.finditer(first)]
    tied = [home for home in tied if _may_be_home(home)]
    if credit:
        return credit.group(1), " ".join(credit.group(0).strip(" /;#*-(<,").split()), homes, tied
    return "", release.group(1), homes, tied


# A home field, or a line giving where the file came from: "Website: http://stickyjs.com/", ";; URL: https://...",
# "Original One Dark Syntax theme from https://github.com/atom/one-dark-syntax".
_HOME_LINE = re.compile(r"^[^\w\n]*(?:(?:web ?site|home ?page|home|url|project|repository|repo|source|origin(?:al)?)[ \t]*:"
                        r"|[^\n]*?\bfrom)[ \t]+(https?://[^\s\"'<>()]+)", re.IGNORECASE | re.MULTILINE)


def _may_be_home(address: str) -> bool:
    """Whether an address may be a project's home: not a licence's page nor a question site's."""
    return not _LICENSE_PUBLISHERS.search(_host(address)) and not _QUESTION_PAGE.search(address) \
        and not re.search(r"/licen[cs]e", address, re.IGNORECASE)


def _named_for(home: str, path: str) -> bool:
    """Whether an address is a home named for the file at ``path``: a hosted repository, or a site, whose name and the
    file's name (its stem) hold one another or share a word of four letters or more ("vim-hybrid" for ``hybrid.css``,
    "stickyjs.com" for ``jquery.sticky.js``, "one-dark-syntax" for ``atom-one-dark-reasonable.css``). A person's page
    (``github.com/<user>``) names no project."""
    hosted = list(_hosted(home))
    if hosted:
        project = hosted[0][1].removesuffix(".git")
    elif re.search(r"//(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)(?:/|$)", home, re.IGNORECASE):
        return False
    else:
        labels = _host(home).split(".")
        project = labels[-2] if len(labels) >= 2 else ""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    home_plain, stem_plain = _plain(project), _plain(stem)
    if len(home_plain) < 4 or len(stem_plain) < 4:
        return False
    if home_plain in stem_plain or stem_plain in home_plain:
        return True
    words = [word for word in re.split(r"[\W_]+", stem.lower()) if len(word) >= 4]
    return any(word in home_plain for word in words) \
        or any(word in stem_plain for word in re.split(r"[\W_]+", project.lower()) if len(word) >= 4)


def credited_fact(path: str, author: str, credit: str, homes: list[str], tied: list[str]) -> VendoringFact | None:
    """The ``authored`` fact of a credited head (``_credited_home``) whose addresses tied to the credit include a home
    named for the file (``_named_for``): ``urls`` all its addresses (``authored_releases`` passes a head giving the
    repository's)."""
    name = " ".join(author.lower().split())
    if (name and not holder_words([name])) or not any(_named_for(home, path) for home in tied):
        return None
    return VendoringFact("authored", _folder(path), path, name=name, project=credit, urls=frozenset(homes))


# Or a release line naming its author: Clipjump's ``lib/Gdip_All.ahk``, "; Gdip standard library v1.45 by tic (Tariq
# Porter) 07/09/11"; its ``lib/SQLiteDB/Class_SQLiteDB.ahk``, "Version: 0.0.01.00/2011-08-10/just me" (version, date,
# author: the AutoHotkey forum's change lines).
_RELEASE_BY_BODY = r"v(?:ersion)?[ \t]*\d+(?:\.\d+)+\b[^\n]{0,30}?\bby[ \t]+([A-Za-z][\w.'-]+(?:[ \t]+\(?[A-Z][\w.'-]*\)?){0,3})"
_RELEASE_BY = re.compile(r"\b" + _RELEASE_BY_BODY, re.IGNORECASE)
# (lower in the opening comment, a line of its own: unHTML's "; v 1.3 / (a & w) Nov 2008 by derRaphael(at)oleco.net")
_RELEASE_BY_LINE = re.compile(r"^[^\w\n]*" + _RELEASE_BY_BODY, re.IGNORECASE | re.MULTILINE)
_VERSION_DATE_AUTHOR = re.compile(r"^[^\w\n]*(?:version[ \t]*:?[ \t]*)?\d+(?:\.\d+){1,3}/\d{4}-\d\d-\d\d/"
                                  r"([A-Za-z][\w.'-]*(?:[ \t][A-Za-z][\w.'-]*){0,2})", re.IGNORECASE | re.MULTILINE)
# Or that it is another's code with changes, on the first lines of its opening comment: stallar's ``src/lib/unrle.s``,
# "; RLE decompressor based on Shiru's"; its ``src/crt0.s``, "; based on code by Groepaz/Hitmen <groepaz@gmx.net>,
# Ullrich von Bassewitz <uz@cc65.org>". Based on someone's paper, algorithm or idea is a work of the repository's own.
_BASED_ON_CODE = re.compile(r"\bbased on (?:code|work|sources?) (?:by|from) ([A-Z][\w.'-]*(?:[ \t/]+[A-Z][\w.'-]*){0,3})"
                            r"[ \t]*<[^<>\s]+@[^<>\s]+>"
                            r"|\bbased on ([A-Z][\w.-]*(?:[ \t]+[A-Z][\w.-]*){0,2})'s(?:[ \t]+(?:code|library|version|"
                            r"implementation|routines?|source))?[ \t]*(?:\*/)?[ \t]*$", re.MULTILINE)
_BASED_ON_LINES = 3


def _based_on_code(opening: str) -> re.Match | None:
    """``_BASED_ON_CODE`` on the first lines of an opening comment; "based on X's" only where the comment ends there or
    goes on after a blank line (difftastic's "This is heavily based on GitHub's" goes on, "[linguist](...)", naming
    what of GitHub's)."""
    first = _first_lines(opening, _BASED_ON_LINES)
    said = _BASED_ON_CODE.search(first)
    if said is None or said.group(1):
        return said
    rest = opening[opening.find(said.group(0)) + len(said.group(0)):].split("\n", 2)
    following = rest[1] if len(rest) > 1 else ""
    return said if not re.search(r"\w", following) else None


def authored_releases(facts: Iterable[VendoringFact], owner: RepositoryOwner,
                      trees: Iterable[VendoredTree], repo: str = "") -> tuple[VendoredTree, ...]:
    """Each file whose opening comment names an author who is not the repository's (its root's holders, its people) and
    the file's own release or that it is based on that author's code (``authored_release_fact``), with the files beside it of the same name but for the extension
    (nesdoug's ``nesdoug.s`` beside ``nesdoug.h``): another's release copied in. A file among them whose own header names
    the repository's holders stays its own (``of_copies``). A repository naming no one has no one to compare with."""
    own_words = owner.words() | holder_words(owner.people)
    facts, trees = list(facts), tuple(trees)
    present = [fact.detail for fact in facts if fact.kind == "present"]
    found = []
    for fact in facts:
        if fact.kind != "authored" or vendored_tree(fact.detail, trees) is not None \
                or (repo and names_repository(fact.detail, repo)):
            continue
        if fact.urls and (not repo or any(_home_is_repositorys(home, repo) for home in fact.urls)):
            continue  # a credit whose home is the repository's (its owner's account, its name)
        if not fact.name:  # a bare release banner: the release of another name than the repository's
            if not repo or names_repository(fact.project, repo):
                continue
            why = f"{fact.detail}'s first line names the release {fact.project!r}, naming no one"
        elif own_words and not holder_words([fact.name]) & own_words:
            why = (f"{fact.detail}'s opening comment names its author {fact.name!r} ({fact.project!r}), not the "
                   f"repository's {owner.named()!r}")
        else:
            continue
        name = fact.detail.rsplit("/", 1)[-1]
        stem = name.split(".", 1)[0]
        pattern = _join(fact.folder, f"{glob.escape(stem)}.*") if stem and "." in name else fact.detail
        found.append(VendoredTree(fact.folder, why, pattern=pattern, of_copies=True, own=own_words))
        found += [VendoredTree(_folder(other), why, pattern=glob.escape(other), of_copies=True, own=own_words)
                  for other in (sibling_companions(fact.detail, stem, present) if stem and "." in name else ())]
    return tuple(found)


def _home_is_repositorys(home: str, repo: str) -> bool:
    """Whether an address is the repository's: hosted under its owner, or naming it (``names_repository``)."""
    own_owner, site = repo.lower().split("/", 1)[0], _host(home).split(".")
    return any(owner.lower() == own_owner for owner, _ in _hosted(home)) or names_repository(home, repo) \
        or (len(site) >= 2 and named_by_remote(site[-2], repo))


def _host(address: str) -> str:
    """The host an address names, lower case, "www." aside; "" for none."""
    found = _HOST.match(address)
    return found.group(1).lower() if found else ""


def names_repository(header: str, repo: str) -> bool:
    """Whether a file's header names repository ``repo`` (its name, 4 letters or more, trailing digits aside: "rebar"
    for erlang/rebar3's "rebar: Erlang Build Tools"): a file written for it."""
    name = re.sub(r"\d+$", "", _plain(repo.rsplit("/", 1)[-1]))
    return len(name) >= 4 and name in _plain(header)


def foreign_terms(text: str, owner: RepositoryOwner, notice: str | None, governing: Iterable[str],
                  repo: str = "") -> str | None:
    """Why a file's own header grants it under another holder's terms, or None: it names a holder (``header_holder``)
    that shares no word with the repository's, and the license its notice states (``notice``, or a public-domain
    dedication) is of no family the licenses governing its path are: caffeine's copies of Eclipse Collections' tests,
    "Copyright (c) 2021 Goldman Sachs" under the EPL in an Apache-2.0 tree, of JSR-166's, "Written by Doug Lea ...
    released to the public domain". A holder whose headers carry several years (``RepositoryOwner.returning``) is a
    contributor writing for the repository under terms of their own (valkey's "zhenwei pi", MIT under BSD)."""
    governing_ids = sorted(governing)
    governing = {_family(name) for name in governing_ids}
    holder = header_holder(text)
    words, own_words = holder_words([holder]), owner.words()
    if not notice or not governing or not words or not own_words or words & own_words or holder in owner.returning \
            or (repo and names_repository(header_comments(text), repo)):
        return None
    stated = {_family(name) for name in license_ids(notice)} or {_family(notice)}
    if stated & governing:
        return None
    terms = "the public domain" if notice == PUBLIC_DOMAIN else notice
    return (f"header names {holder!r} under {terms}, not the repository's {owner.named()!r} under "
            f"{' AND '.join(governing_ids)}")


def _family(license_id: str) -> str:
    """A license's family, versions and variants aside: ``bsd`` for BSD-3-Clause, ``gpl`` for GPL-2.0-or-later."""
    return re.split(r"[-.\d]", license_id.lower().removeprefix("licenseref-"), maxsplit=1)[0]


# A folder whose name says it holds other projects' code: one signal, read only together with a package manifest of
# its own in a subfolder (difftastic's ``vendored_parsers/tree-sitter-janet-simple/package.json``, no LICENSE).
_FOR_OTHERS = re.compile(r"(?:^|[-_. ])(?:vendor(?:ed|s)?|third[-_ ]?party|3rd[-_ ]?party|externals?|extern|deps"
                         r"|bundled)(?:$|[-_. ])", re.IGNORECASE)


def placement_fact(path: str) -> VendoringFact | None:
    """The ``placed`` fact of a file in a subfolder of a folder named for others' code (``_for_others``): which
    subfolder of it the file is in, so that its siblings can be counted (``_beside_vendored_trees``)."""
    parts = path.split("/")
    for depth in range(len(parts) - 2, 0, -1):
        parent = "/".join(parts[:depth])
        if _for_others(parent):
            return VendoringFact("placed", "/".join(parts[:depth + 1]), parent)
    return None


def _beside_vendored_trees(facts: Iterable[VendoringFact], trees: dict[str, str]) -> dict[str, str]:
    """The subfolders of a folder named for others' code most of whose subfolders (three or more in all) are
    vendored trees by their own evidence: difftastic's ``vendored_parsers/highlights/`` beside four vendored grammars,
    gevent's ``deps/greenlet/`` beside c-ares, libev and libuv. The folder's name and its siblings' own evidence
    together; neither alone (pdf.js's ``external/`` holds its own build tools beside the copies it names)."""
    children: dict[str, set[str]] = {}
    held: dict[str, set[str]] = {}  # the names of the files each folder holds, at any depth
    for fact in facts:
        if fact.kind == "placed":
            children.setdefault(fact.detail, set()).add(fact.folder)
        elif fact.kind == "present":
            parts = fact.detail.split("/")
            for depth in range(1, len(parts)):
                held.setdefault("/".join(parts[:depth]), set()).add(parts[-1])
    found = {}
    for parent, subs in sorted(children.items()):
        copies = sorted(sub for sub in subs if sub in trees)
        if len(subs) >= 3 and len(copies) * 2 > len(subs) and not _inside(parent, trees) and parent not in trees:
            for sub in sorted(subs - set(copies)):
                if held.get(sub) and all(_README.fullmatch(name) for name in held[sub]):
                    continue  # a folder holding nothing but its note copies nothing (spork's ``deps/fonts/README.txt``)
                found[sub] = (f"in {parent}/, named for others' code, beside {len(copies)} vendored trees of its "
                              f"{len(subs)} subfolders ({', '.join(c.rsplit('/', 1)[-1] for c in copies[:3])}...)")
    return found


def _for_others(folder: str) -> bool:
    return bool(folder) and _FOR_OTHERS.search(folder.rsplit("/", 1)[-1]) is not None


def _inside(folder: str, trees: dict[str, str]) -> bool:
    return any(folder.startswith(tree + "/") for tree in trees)


def vendored_tree(path: str, trees: Iterable[VendoredTree]) -> VendoredTree | None:
    """The innermost vendored tree holding ``path`` (its own package), or None; a tree of subfolders answers
    with the subfolder holding ``path`` (``src/greentest/3.12``), never for the files beside them."""
    found = [_subfolder(tree, path) if tree.subfolders else tree for tree in trees if tree.covers(path)]
    found = [tree for tree in found if tree is not None]
    return max(found, key=lambda tree: len(tree.pattern or tree.folder)) if found else None


def _subfolder(tree: VendoredTree, path: str) -> VendoredTree | None:
    rest = path[len(tree.folder) + 1:]
    return VendoredTree(f"{tree.folder}/{rest.split('/', 1)[0]}", tree.evidence) if "/" in rest else None


# --------------------------------------------------------------------------------------------
# A header-less copy of a library the repository says it is built on: Yams's README opens "A sweet and swifty YAML
# parser built on [LibYAML](https://github.com/yaml/libyaml)", and ``Sources/CYaml/src/*.c`` carry LibYAML's sources
# without a line naming anyone; every function they define is ``yaml_*``. A binding's own glue defines its own names
# (sqlite3-ruby's ``ext/sqlite3/database.c``: ``rb_sqlite3_*``, ``set_*``) while it calls the library's.
_C_FAMILY = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".m", ".mm")
# a macro or a function defined or declared at the start of a line: ``#define YAML_H``, ``yaml_malloc(size_t size)``,
# ``YAML_DECLARE(int) yaml_parser_initialize(...)``; indented lines are calls inside a body
_DEFINED = re.compile(r"^(?:#[ \t]*define[ \t]+([A-Za-z_]\w*)|(?:[A-Za-z_][\w \t*]*?[ \t*])?([A-Za-z_]\w*)[ \t]*\()",
                      re.MULTILINE)
_NOT_NAMES = frozenset(["if", "while", "for", "switch", "return", "sizeof", "else", "do", "case"])
PREFIX_MIN_NAMES = 5
PREFIX_SHARE = 0.6
_UPSTREAM_CHARS = 20_000
_PREFIX_CHARS = 400_000  # an amalgamation (sqlite3.c, 9 MB) shows its names early


def defined_prefix(text: str) -> tuple[str, int, int]:
    """The prefix (before the first ``_``, lower case) ``PREFIX_SHARE`` of a C-family file's defined names share, how
    many share it (0 where too few do) and how many there are; it is chosen among the names that are not upper-case
    macros where there are any (``IS_ALPHA`` in ``yaml_private.h`` beside ``yaml_malloc``), the macros with the prefix
    counted with them."""
    names = [a or b for a, b in _DEFINED.findall(text[:_PREFIX_CHARS])]
    names = [name for name in names if name not in _NOT_NAMES and "_" in name.strip("_")]
    chosen = [name for name in names if not name.isupper()] or names
    counts: dict[str, int] = {}
    for name in chosen:
        prefix = name.strip("_").split("_", 1)[0].lower()
        counts[prefix] = counts.get(prefix, 0) + 1
    if not counts:
        return "", 0, 0
    prefix = max(counts, key=lambda key: (counts[key], key))
    if counts[prefix] < len(chosen) * PREFIX_SHARE:
        return prefix, 0, len(chosen)
    # the macros sharing the prefix count too (writer.c's ``YAML_DECLARE`` beside its four ``yaml_*`` functions)
    macros = sum(1 for name in names if name.isupper() and name.strip("_").split("_", 1)[0].lower() == prefix)
    return prefix, counts[prefix] + (macros if chosen is not names else 0), len(chosen) + (macros if chosen is not names else 0)


def prefix_fact(path: str, text: str) -> VendoringFact | None:
    """The ``prefix`` fact of a header-less C-family file (no copyright line in its header) most of whose defined
    names share one prefix (``PREFIX_MIN_NAMES`` or more, ``PREFIX_SHARE`` of them), with the words of its opening
    comments that name that prefix's library (``names``: SQLite's ``sqlite3.h``, "This header file defines the
    interface that the SQLite library presents to client programs"), else None."""
    if not path.lower().endswith(_C_FAMILY) or first_copyright(file_header(text))[0]:
        return None
    prefix, shared, total = defined_prefix(text)
    if len(prefix) < 3 or shared < PREFIX_MIN_NAMES:
        return None
    # a library named as one: "libyaml", "the SQLite library", "the SQLite interface" (jq's ``src/exec_stack.h`` opens "Stack" over its
    # ``stack_*`` functions, a word, not a library)
    comments = " ".join(header_comments(text).split())
    named = frozenset(word for word in re.findall(r"\b(lib[\w+-]{2,}|[A-Za-z][\w+-]{2,}(?= (?:librar(?:y|ies)|interface|API)\b))", comments)
                      if _names_prefix(word, prefix) and not word.isupper())  # "REDISMODULE API": its own macros
    return VendoringFact("prefix", _folder(path), path, name=prefix, defined=(shared, total), names=named)


def _names_prefix(word: str, prefix: str) -> bool:
    """Whether a library's name is the prefix of its names: "libyaml" of ``yaml_*``, "SQLite" of ``sqlite3_*`` (a
    version digit after it)."""
    return any(prefix == name or prefix.rstrip("0123456789") == name for name in _library_names(word))


def upstream_fact(path: str, text: str) -> VendoringFact | None:
    """The ``upstream`` fact of a root README: the repositories it links to (``owner/name``, lower case)."""
    if "/" in path or not _README.fullmatch(path):
        return None
    urls = frozenset(f"{owner}/{name.removesuffix('.git')}".lower().rstrip(".")
                     for owner, name in _hosted(text[:_UPSTREAM_CHARS]))
    return VendoringFact("upstream", "", path, urls=urls) if urls else None


def _library_names(url: str) -> set[str]:
    name = _plain(url.rsplit("/", 1)[-1])
    return {name, name.removeprefix("lib")} - {""}


def upstream_copies(facts: Iterable[VendoringFact], repo: str = "") -> tuple[VendoredTree, ...]:
    """Each header-less C-family file (``prefix_fact``) whose names are prefixed with the name of a library the root
    README links to (``upstream_fact``; "libyaml" less its "lib") or that its own opening comment names ("the
    interface that the SQLite library presents", ``sqlite3_*``), not the repository's own name: a copy of it."""
    facts = list(facts)
    own = _library_names(repo) if repo else set()
    linked: dict[str, tuple[str, str]] = {}
    for fact in facts:
        if fact.kind == "upstream":
            for url in sorted(fact.urls):
                for name in _library_names(url) - own:
                    linked.setdefault(name, (fact.detail, url))
    found = []
    for fact in facts:
        # "libcurl" (``LIBCURL_*``) in curl/curl: the library the repository is
        if fact.kind != "prefix" or _names_prefix(repo.rsplit("/", 1)[-1], fact.name) or fact.name in own \
                or fact.name.removeprefix("lib") in own:
            continue
        defines = f"defines {fact.defined[0]} of its {fact.defined[1]} names as {fact.name}_*"
        if fact.name in linked:
            readme, url = linked[fact.name]
            found.append(VendoredTree(fact.detail, f"{readme} links {url}; {fact.detail}, naming no holder, {defines}"))
        elif fact.names:
            found.append(VendoredTree(fact.detail, f"{fact.detail}, naming no holder, names {min(fact.names)!r} in its "
                                                   f"opening comment and {defines}"))
    return tuple(found)


def written_for_repository(trees: Iterable[VendoredTree], facts: Iterable[VendoringFact], repo: str) -> tuple[VendoredTree, ...]:
    """The ``trees`` less the folders (told by their own license or manifest) whose every file but license texts and
    READMEs is named for the repository (``named_for_repository``): a contribution written for it under its author's
    own license, rapidjson's ``contrib/natvis/`` (``rapidjson.natvis``, its README and Bart Muzzin's MIT LICENSE)."""
    trees, facts = tuple(trees), list(facts)
    kept = []
    for tree in trees:
        inside = [f.detail for f in facts if f.kind == "present" and tree.covers(f.detail)]
        code = [path for path in inside if not (_LICENSE_NAME.fullmatch(path.rsplit("/", 1)[-1])
                                                or _README.fullmatch(path.rsplit("/", 1)[-1]))]
        if tree.of_copies or tree.pattern or tree.folder in inside or not code \
                or not all(named_for_repository(path, repo) for path in code):
            kept.append(tree)
    return tuple(kept)
