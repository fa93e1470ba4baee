"""Import graphs of one repository: which in-repository files each file imports, in six languages.

Python, JavaScript/TypeScript, Java, C/C++, Go and Rust, by bounded regular expressions: no pattern has
two adjacent parts that can match the same characters and every open-ended scan is length-bounded, so
hostile text (a line of 200,000 dots, thousands of unclosed "import (") costs linear time.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_PY_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)
_PY_FROM = re.compile(
    r"^[ \t]*from[ \t]+(\.*)[ \t]*(\w[\w.]*)?[ \t]+import[ \t]*(\([^()]{0,10000}\)|[^\n#;]*)", re.MULTILINE
)
_JS_SPEC = re.compile(r"""(?:\bfrom|\bimport|\brequire)\s*(?:\(\s*)?['"]([^'"\n]{1,500})['"]""")
_JAVA_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+?)(\.\*)?[ \t]*;", re.MULTILINE)
_C_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]{1,500})[>"]', re.MULTILINE)
_GO_MODULE = re.compile(r"^module[ \t]+\"?([^\s\"]+)", re.MULTILINE)
_GO_BLOCK = re.compile(r"\bimport[ \t]*\(([^()]{0,20000})\)")
_GO_SINGLE = re.compile(r'\bimport[ \t]+(?:[\w.]+[ \t]+)?"([^"\n]{1,500})"')
_GO_QUOTED = re.compile(r'"([^"\n]{1,500})"')
_RUST_MOD = re.compile(r"^[ \t]*(?:pub(?:\([^)\n]{0,100}\))?[ \t]+)?mod[ \t]+(\w+)[ \t]*;", re.MULTILINE)
_RUST_USE = re.compile(r"^[ \t]*(?:pub(?:\([^)\n]{0,100}\))?[ \t]+)?use[ \t]+([^;]{1,2000});", re.MULTILINE)

PY_SOURCE_ROOTS = ("src",)
JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
C_LANGUAGES = frozenset({"c", "cpp", "cuda", "objective-c", "objective-c++"})
# Directories a build usually puts on the include path (-I), besides the repository root.
C_INCLUDE_DIRS = frozenset({"include", "inc", "src", "lib"})
RUST_CRATE_DIRS = frozenset({"bin", "tests", "examples", "benches"})  # each .rs there is a crate root


@dataclass(slots=True)
class _RepoIndex:
    """Lookups built once per repository so each import resolves in O(1) or O(matches)."""

    paths: frozenset[str]
    dirs: dict[str, list[str]]  # directory -> files directly in it
    dirs_by_name: dict[str, list[str]]  # last component -> directories holding files
    by_name: dict[str, list[str]]  # basename -> paths
    go_modules: list[tuple[str, str]]  # (go.mod directory, module path), longest module path first
    include_roots: list[str]


def _build_index(texts: dict[str, str]) -> _RepoIndex:
    paths = frozenset(texts)
    dirs: dict[str, list[str]] = defaultdict(list)
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in sorted(paths):
        dirs[posixpath.dirname(path)].append(path)
        by_name[posixpath.basename(path)].append(path)
    go_modules = []
    for path in by_name.get("go.mod", []):
        match = _GO_MODULE.search(texts.get(path, ""))
        if match:
            go_modules.append((posixpath.dirname(path), match.group(1).rstrip("/")))
    go_modules.sort(key=lambda module: (-len(module[1]), module))
    every_dir = {a for d in dirs for a in _ancestors(d)}  # include/ may hold only subdirectories
    roots = [""] + sorted(d for d in every_dir if posixpath.basename(d) in C_INCLUDE_DIRS)
    dirs_by_name: dict[str, list[str]] = defaultdict(list)
    for directory in dirs:
        dirs_by_name[posixpath.basename(directory)].append(directory)
    return _RepoIndex(paths, dict(dirs), dict(dirs_by_name), dict(by_name), go_modules, roots)


def _normal(*parts: str) -> str | None:
    """The joined, normalised repository path, or None when it climbs out of the repository."""
    path = posixpath.normpath(posixpath.join(*parts)) if parts else "."
    if path.startswith(("../", "/")) or path == "..":
        return None
    return "" if path == "." else path


def _ancestors(directory: str) -> list[str]:
    """``a/b`` -> ``["a/b", "a", ""]``: nearest first, like a script's own directory on sys.path."""
    out = [directory]
    while directory:
        directory = posixpath.dirname(directory)
        out.append(directory)
    return out


def _first_existing(index: _RepoIndex, candidates: Iterable[str | None]) -> str | None:
    return next((c for c in candidates if c is not None and c in index.paths), None)


# Python -------------------------------------------------------------------------------------


def _py_file(index: _RepoIndex, base: str, parts: list[str]) -> str | None:
    """``base/a/b.py`` or the package ``base/a/b/__init__.py`` (stubs as a fallback)."""
    stem = _normal(base, *parts)
    if stem is None:
        return None
    modules = [stem + ".py", stem + ".pyi"] if parts else [None, None]
    packages = [_normal(stem, "__init__.py"), _normal(stem, "__init__.pyi")]
    return _first_existing(index, [modules[0], packages[0], modules[1], packages[1]])


def _py_from(index: _RepoIndex, base: str, module: str, names: list[str]) -> set[str]:
    """Targets of ``from module import names`` rooted at ``base``.

    A name that is itself a submodule (``from pkg import mod``) links to that file; any other name
    links to the longest existing prefix of ``module`` (for ``import a.b.c``, the deepest of
    ``a/b/c.py``, ``a/b/__init__.py``, ``a/__init__.py`` present).
    """
    parts = [p for p in module.split(".") if p]
    prefixes = range(len(parts), 0, -1) if parts else [0]  # no parts: ``from . import x``, the package
    module_file = next((f for k in prefixes if (f := _py_file(index, base, parts[:k]))), None)
    found = set()
    for name in names:
        found.add(_py_file(index, base, parts + [name]) or module_file)
    if not names:
        found.add(module_file)
    return {f for f in found if f}


def _py_names(clause: str) -> list[str]:
    """First word of each comma-separated item that is a (dotted) name: ``a.b as c, (d)`` -> a.b, d."""
    words = (item.split() for item in re.sub(r"[()\\]", " ", clause).split(","))
    return [w[0] for w in words if w and all(part.isidentifier() for part in w[0].split("."))]


def _python_imports(path: str, text: str, index: _RepoIndex) -> set[str]:
    """``import a.b``, ``from a import b``, ``from ..a import b``; absolute names are tried from
    the file's own directory upward to the repository root, then from ``src/`` (the src layout,
    where tests import the installed package); the first root that resolves wins."""
    package = posixpath.dirname(path)
    roots = _ancestors(package)
    roots += [root for root in PY_SOURCE_ROOTS if root not in roots]
    found: set[str] = set()
    for match in _PY_IMPORT.finditer(text):
        for module in _py_names(match.group(1)):
            found |= next((t for root in roots if (t := _py_from(index, root, module, []))), set())
    for match in _PY_FROM.finditer(text):
        dots, module = match.group(1), match.group(2) or ""
        names = [name for name in _py_names(match.group(3)) if "." not in name]
        if dots:
            base = _normal(package, *[".."] * (len(dots) - 1))
            found |= _py_from(index, base, module, names) if base is not None else set()
        elif module:
            found |= next((t for root in roots if (t := _py_from(index, root, module, names))), set())
    return found


# JavaScript / TypeScript ----------------------------------------------------------------------


def _js_imports(path: str, text: str, index: _RepoIndex) -> set[str]:
    """Relative specifiers of ``import``/``export ... from``/``require()``/``import()``, resolved
    like Node and tsc: exact file, then added extensions, then ``dir/index.*``; a ``./x.js``
    specifier in TypeScript (ESM style) may name ``x.ts``."""
    found = set()
    for match in _JS_SPEC.finditer(text):
        spec = match.group(1)
        if not spec.startswith(("./", "../")) and spec not in (".", ".."):
            continue  # a package from node_modules, or an alias we cannot see
        base = _normal(posixpath.dirname(path), spec)
        if base is None:
            continue
        stem, extension = posixpath.splitext(base)
        candidates = [base] + [base + e for e in JS_EXTENSIONS] + [_normal(base, "index" + e) for e in JS_EXTENSIONS]
        if extension in (".js", ".jsx", ".mjs", ".cjs"):
            candidates += [stem + e for e in (".ts", ".tsx", ".mts", ".cts")]
        found.add(_first_existing(index, candidates))
    return {f for f in found if f}


# Java ------------------------------------------------------------------------------------------


def _java_imports(path: str, text: str, index: _RepoIndex) -> set[str]:
    """``import com.x.Y;`` -> any ``.../com/x/Y.java``; ``import static com.x.Y.m;`` drops trailing
    members until a class file matches; ``import com.x.*;`` -> every class file in ``.../com/x/``."""
    found: set[str] = set()
    for match in _JAVA_IMPORT.finditer(text):
        parts = match.group(1).split(".")
        if match.group(2):
            suffix = "/".join(parts)
            found |= {
                p
                for d in index.dirs_by_name.get(parts[-1], [])
                if d == suffix or d.endswith("/" + suffix)
                for p in index.dirs[d]
                if p.endswith(".java")
            }
            continue
        for k in range(len(parts), min(2, len(parts)) - 1, -1):
            suffix = "/".join(parts[:k]) + ".java"
            hits = [p for p in index.by_name.get(parts[k - 1] + ".java", []) if p == suffix or p.endswith("/" + suffix)]
            if hits:
                found |= set(hits)
                break
    return found


# C / C++ ---------------------------------------------------------------------------------------


def _c_imports(path: str, text: str, index: _RepoIndex) -> set[str]:
    """``#include "x.h"`` relative to the including file, then to the include roots (the repository
    root and every include/, inc/, src/, lib/ directory); ``<x.h>`` to the include roots only."""
    found = set()
    for match in _C_INCLUDE.finditer(text):
        quote, name = match.groups()
        bases = ([posixpath.dirname(path)] if quote == '"' else []) + index.include_roots
        found.add(_first_existing(index, (_normal(base, name) for base in bases)))
    return {f for f in found if f}


# Go --------------------------------------------------------------------------------------------


def _go_package_dir(import_path: str, index: _RepoIndex) -> str | None:
    """The repository directory of an import path under one of the repository's go.mod modules.

    Repositories without go.mod (GOPATH era, before Go 1.16 made modules the default) get no Go
    edges: their own import prefix is unknown, and matching path tails would link
    ``github.com/other/util`` to the repository's own ``util/``."""
    for module_dir, module in index.go_modules:
        if import_path == module or import_path.startswith(module + "/"):
            return _normal(module_dir, import_path[len(module) + 1 :])
    return None


def _go_imports(path: str, text: str, index: _RepoIndex) -> set[str]:
    """An imported Go package is a directory: the edge goes to all its non-test ``.go`` files."""
    specs = [m.group(1) for m in _GO_SINGLE.finditer(text)]
    specs += [q.group(1) for block in _GO_BLOCK.finditer(text) for q in _GO_QUOTED.finditer(block.group(1))]
    found: set[str] = set()
    for spec in specs:
        directory = _go_package_dir(spec, index)
        if directory is not None:
            found |= {p for p in index.dirs.get(directory, []) if p.endswith(".go") and not p.endswith("_test.go")}
    return found


# Rust ------------------------------------------------------------------------------------------


def _rust_module_dir(path: str) -> str:
    """Where ``mod x;`` in ``path`` looks for ``x.rs``: the file's own directory for crate roots
    and ``mod.rs``, otherwise ``dir/stem/`` (Rust 2018 non-mod-rs files)."""
    directory, name = posixpath.split(path)
    if name in ("lib.rs", "main.rs", "mod.rs", "build.rs") or posixpath.basename(directory) in RUST_CRATE_DIRS:
        return directory
    return posixpath.join(directory, name.removesuffix(".rs"))


def _rust_expand_use(tree: str, depth: int = 0) -> list[str]:
    """``a::{b, c::{d, e}}`` -> ``["a::b", "a::c::d", "a::c::e"]``; aliases and ``self`` removed."""
    if depth > 16:
        return []
    opening = tree.find("{")
    if opening < 0:
        return [tree.removesuffix("::self")]
    level, items, start = 0, [], opening + 1
    for i in range(opening, len(tree)):
        level += {"{": 1, "}": -1}.get(tree[i], 0)
        if (tree[i] == "," and level == 1) or level == 0:
            items.append(tree[start:i])
            start = i + 1
        if level == 0:
            break
    prefix = tree[:opening]
    return [path for item in items if item for path in _rust_expand_use(prefix + item, depth + 1)]


def _rust_resolve(index: _RepoIndex, base: str, segments: list[str]) -> str | None:
    """The deepest ``base/a/b.rs`` or ``base/a/b/mod.rs`` named by a prefix of ``segments``."""
    for k in range(len(segments), 0, -1):
        stem = _normal(base, *segments[:k])
        if stem is not None and (hit := _first_existing(index, [stem + ".rs", _normal(stem, "mod.rs")])):
            return hit
    return None


def _rust_imports(path: str, text: str, index: _RepoIndex) -> set[str]:
    """``mod x;`` -> ``x.rs`` or ``x/mod.rs``; ``use crate::a::b`` from the crate root directory
    (nearest ancestor holding lib.rs or main.rs); ``self::``/``super::`` from the module's place."""
    module_dir = _rust_module_dir(path)
    found = {
        _first_existing(index, [_normal(module_dir, m + ".rs"), _normal(module_dir, m, "mod.rs")])
        for m in _RUST_MOD.findall(text)
    }
    crate = next(
        (
            d
            for d in _ancestors(posixpath.dirname(path))
            if _first_existing(index, [_normal(d, "lib.rs"), _normal(d, "main.rs")])
        ),
        None,
    )
    for match in _RUST_USE.finditer(text):
        tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", match.group(1)))
        for used in _rust_expand_use(tree):
            segments = used.split("::")
            base = crate if segments[0] == "crate" else module_dir if segments[0] in ("self", "super") else None
            while base is not None and segments and segments[0] in ("crate", "self", "super"):
                base = _normal(base, "..") if segments.pop(0) == "super" else base
            if base is not None:
                found.add(_rust_resolve(index, base, segments))
    return {f for f in found if f}


_PARSERS: dict[str, Callable[[str, str, _RepoIndex], set[str]]] = {
    "python": _python_imports,
    "javascript": _js_imports,
    "typescript": _js_imports,
    "tsx": _js_imports,
    "java": _java_imports,
    "go": _go_imports,
    "rust": _rust_imports,
    **{language: _c_imports for language in C_LANGUAGES},
}


def import_graph(files: list[tuple[str, str, str]]) -> dict[str, set[str]]:
    """Edges ``file -> in-repository files it imports`` for one repository's ``(path, language, text)``.

    Languages are ``pipelines.readers.language`` names; Python, JavaScript/TypeScript, Java,
    C/C++, Go and Rust are parsed with bounded regular expressions, others get no edges. Imports
    that resolve outside the repository (stdlib, packages) and self-imports are left out. Every
    path appears as a key. Best effort by design: a missed edge only weakens the ordering.
    """
    texts = {path: text for path, _, text in files}
    index = _build_index(texts)
    graph: dict[str, set[str]] = {path: set() for path in texts}
    for path, language, text in files:
        parser = _PARSERS.get(language)
        if parser is not None:
            graph[path] |= parser(path, text, index) - {path}
    return graph
