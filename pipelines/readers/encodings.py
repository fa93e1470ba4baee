"""Text that is not UTF-8: the encoding a file declares, or one a detector is confident of.

A file whose bytes fail strict UTF-8 is decoded, in this order, with
1. the encoding it declares: a PEP 263 / Emacs / Vim coding cookie in its first two lines, an XML
   declaration, an HTML ``<meta charset>`` in its first 1024 bytes (the WHATWG prescan window; the
   labels latin-1 and ascii mean windows-1252 there), or an ``.editorconfig`` ``charset`` the reader found;
2. else the encoding charset-normalizer detects, when it is confident: at least ``MIN_DETECT_BYTES``
   of input and a mess ratio ("chaos") of at most ``MAX_CHAOS``.
A declaration whose codec Python lacks, or that the bytes do not decode with, counts as none. What
neither decodes is the drop reason ``not_utf8``: the file is readable, just not text we can trust.
"""

from __future__ import annotations

import codecs
import functools
import importlib.metadata
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

MIN_DETECT_BYTES = 64  # below this the detector guesses (14 bytes of "b\xf6se" read as Big5)
MAX_CHAOS = 0.15  # charset-normalizer's own cut-off is 0.2; CJK test texts come out at <= 0.15
HTML_PRESCAN_BYTES = 1024
# WHATWG Encoding Standard: in HTML these labels name windows-1252.
_HTML_WINDOWS_1252 = frozenset({"latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1", "ascii", "us-ascii",
                                "iso_8859-1", "cp819", "ibm819"})
# PEP 263's pattern, plus Emacs ``-*- coding: X -*-`` and Vim ``fileencoding=X`` in any comment style.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)|-\*-.*?coding:[ \t]*([-\w.]+)"
                     rb"|\b(?:fileencoding|fenc)=([-\w.]+)", re.MULTILINE)
_XML = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?encoding[ \t\r\n]*=[ \t\r\n]*[\"']([-\w.:]+)[\"']")
_HTML_META = re.compile(rb"<meta[^>]+?charset[ \t\r\n]*=[ \t\r\n]*[\"']?([-\w.:]+)", re.IGNORECASE)
# .editorconfig's charset values (https://spec.editorconfig.org), as Python codecs.
EDITORCONFIG_CHARSETS = {"latin1": "latin-1", "utf-8": "utf-8", "utf-8-bom": "utf-8-sig",
                         "utf-16be": "utf-16-be", "utf-16le": "utf-16-le"}


@dataclass(frozen=True, slots=True)
class Decoded:
    """Text decoded from a legacy encoding: the text, the codec's name, and how it was chosen."""

    text: str
    encoding: str
    evidence: str  # "coding cookie", "xml declaration", "html meta", ".editorconfig", "detected by charset-normalizer X"

    def metadata(self) -> dict[str, str]:
        return {"original_encoding": self.encoding, "encoding_evidence": self.evidence}


def codec_name(label: str) -> str | None:
    """Python's name for the codec ``label`` names, or None when it names none."""
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def declared_encoding(data: bytes, editorconfig: str | None = None) -> tuple[str, str] | None:
    """``(codec, evidence)`` of the encoding ``data`` declares, or that an .editorconfig gave; else None."""
    first_two = b"\n".join(data.split(b"\n", 2)[:2])
    if match := _COOKIE.search(first_two):
        return _named(next(g for g in match.groups() if g), "coding cookie")
    if match := _XML.match(data):
        return _named(match.group(1), "xml declaration")
    if match := _HTML_META.search(data[:HTML_PRESCAN_BYTES]):
        label = match.group(1).decode("ascii", "replace").lower()
        return _named(b"cp1252" if label in _HTML_WINDOWS_1252 else match.group(1), "html meta")
    if editorconfig:
        return _named(EDITORCONFIG_CHARSETS.get(editorconfig.lower(), editorconfig).encode(), ".editorconfig")
    return None


def _named(label: bytes, evidence: str) -> tuple[str, str] | None:
    name = codec_name(label.decode("ascii", "replace"))
    return (name, evidence) if name else None


def detected_encoding(data: bytes) -> tuple[str, str] | None:
    """``(codec, evidence)`` when charset-normalizer is confident of an encoding. Among its equally good
    candidates (a mostly-ASCII file with a few accented letters fits every Western code page), windows-1252
    wins: the WHATWG default for Western legacy text, and what such a file was most likely written in."""
    if len(data) < MIN_DETECT_BYTES:
        return None
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches or matches[0].chaos > MAX_CHAOS:
        return None
    best = matches[0]
    tied = [m for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
    label = "cp1252" if any("cp1252" in m.could_be_from_charset for m in tied) else best.encoding
    name = codec_name(label)
    return (name, f"detected by charset-normalizer {importlib.metadata.version('charset-normalizer')}") if name else None


def decode_legacy(data: bytes, editorconfig: str | None = None) -> Decoded | None:
    """``data`` (which failed UTF-8) decoded with its declared or confidently detected encoding, or None."""
    for find in (lambda: declared_encoding(data, editorconfig), lambda: detected_encoding(data)):
        if (found := find()) is None:
            continue
        try:
            return Decoded(data.decode(found[0]), *found)
        except UnicodeDecodeError:
            continue  # a wrong declaration: the detector may still know
    return None


# --- .editorconfig (https://spec.editorconfig.org) -------------------------------------------------

EDITORCONFIG_MAX_BYTES = 1 << 16  # larger .editorconfig files in a git tree or an archive are not read
Sections = tuple[tuple[tuple[str, dict[str, str]], ...], bool]  # (glob, properties) per section; root = true


def editorconfig_charset(root: str, path: str) -> str | None:
    """The ``charset`` the ``.editorconfig`` files on disk from ``root`` down to ``path``'s folder give
    the file ``path`` (relative to ``root``, ``/``-separated)."""
    return charset_in_tree(path, lambda folder: _editorconfig(os.path.join(root, folder, ".editorconfig")))


def charset_in_tree(path: str, sections_in: Callable[[str], Sections]) -> str | None:
    """The ``charset`` that the ``.editorconfig`` of each folder from the top down to ``path``'s
    (``sections_in(folder)``, ``""`` the top) give ``path``: a closer file overrides a farther one, a
    later section an earlier one, and a file that says ``root = true`` ignores those above it."""
    parts = path.split("/")
    charset = None
    for depth in range(len(parts)):
        sections, is_root = sections_in("/".join(parts[:depth]))
        if is_root:
            charset = None
        below = "/".join(parts[depth:])
        for glob, properties in sections:
            if "charset" in properties and _glob_regex(glob).fullmatch(below):
                charset = properties["charset"]
    return charset


class TreeEditorConfigs:
    """The ``.editorconfig`` files of a tree that is not on disk (a git commit, an archive), gathered
    by ``load()`` -> ``{folder: file bytes}`` the first time a charset is asked for: only files that are
    not UTF-8 ask, so a tree of UTF-8 text never pays for the gathering."""

    def __init__(self, load: Callable[[], dict[str, bytes]]):
        self._load = load
        self._parsed: dict[str, Sections] | None = None

    def charset(self, path: str) -> str | None:
        if self._parsed is None:
            self._parsed = {folder: parse_editorconfig(data.decode("utf-8", "replace"))
                            for folder, data in self._load().items()}
        return charset_in_tree(path, lambda folder: self._parsed.get(folder, ((), False)))


def editorconfig_folder(path: str) -> str | None:
    """The folder (``""`` the top) an ``.editorconfig`` at ``path`` configures; None for other files."""
    folder, _, name = path.rpartition("/")
    return folder if name == ".editorconfig" else None


def _editorconfig(file: str) -> Sections:
    """``(sections, root)`` of one .editorconfig; none when it is missing or unreadable."""
    try:
        return _parsed_editorconfig(file, os.stat(file).st_mtime_ns)
    except OSError:
        return (), False


@functools.lru_cache(maxsize=4096)
def _parsed_editorconfig(file: str, _mtime_ns: int) -> Sections:
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            return parse_editorconfig(handle.read())
    except OSError:
        return (), False


def parse_editorconfig(text: str) -> Sections:
    """``(sections, root)`` of an .editorconfig's text (INI-like: ``[glob]`` headers, ``key = value``)."""
    sections: list[tuple[str, dict[str, str]]] = []
    preamble: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            sections.append((line[1:-1], {}))
        elif "=" in line:
            key, value = (part.strip().lower() for part in line.split("=", 1))
            (sections[-1][1] if sections else preamble)[key] = value
    return tuple(sections), preamble.get("root") == "true"


@functools.lru_cache(maxsize=4096)
def _glob_regex(glob: str) -> re.Pattern[str]:
    """An editorconfig section glob as a regex over paths below its file: no ``/`` matches in any folder."""
    anywhere = "/" not in glob
    return re.compile(("(?:.*/)?" if anywhere else "") + _translate(glob.lstrip("/")))


def _translate(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (end := glob.find("]", i + 1)) > i:
            body = glob[i + 1:end]
            body = body.replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        elif c == "{" and (end := glob.find("}", i + 1)) > i and "," in glob[i + 1:end]:
            out.append("(?:" + "|".join(_translate(item) for item in glob[i + 1:end].split(",")) + ")")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)
