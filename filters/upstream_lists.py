"""Sections of a folder's README, one per copied project, each giving the address of the project's upstream
repository and the version copied: Godot's ``thirdparty/README.md`` convention ("## brotli", "- Upstream:
https://github.com/google/brotli", "- Version: 1.1.0"), which Pixelorama's ``addons/README.md`` keeps for its addons.
The caller (``filters.vendored.listed_upstreams``) matches the names against the folder's subfolders."""

from __future__ import annotations

import re
from collections.abc import Iterator

_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$")
_FIELD = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?[*_]{0,2}(upstream|source|origin|repository|url|homepage|version|commit"
                    r"|revision)[*_]{0,2}[ \t]*:[*_]{0,2}[ \t]*(\S.*)$", re.IGNORECASE)
_ADDRESS = re.compile(r"https?://[^\s)\]>\"']+")
# "Upstream" says the folder follows another repository; a plain "Source:" or "URL:" says so only beside the version
# it was taken at (a "Source: https://..." line alone is as often a page the section cites)
_UPSTREAM, _PLACES, _VERSIONS = "upstream", ("source", "origin", "repository", "url", "homepage"), \
    ("version", "commit", "revision")
MIN_NAME = 5  # a name shorter than this matches a folder's by chance when one ends the other ("gif" and "libgif")


def upstream_sections(text: str) -> Iterator[tuple[str, str]]:
    """``(title, address)`` for each Markdown section whose fields name an upstream repository: an ``Upstream:``
    field, or a ``Source:``/``URL:``-like field beside a ``Version:``/``Commit:`` field."""
    title, fields = None, {}
    for line in (*text.splitlines(), "# end"):
        if heading := _HEADING.match(line):
            if title and (address := _address(fields)):
                yield title, address
            title, fields = heading.group(1).strip("`*_ "), {}
        elif title and (field := _FIELD.match(line)):
            fields.setdefault(field.group(1).lower(), field.group(2))


# A section saying in prose that what it covers is another project's, with that project's address: r7rs-libs's README,
# "## PFDS" / "A repackaging of Purely Functional Data Structures, originally written for R6RS Scheme:
# https://github.com/ijp/pfds"; its LICENSE.md, "## SLIB" / "written or collected by Aubrey Jaffer: http://...".
_PROSE_UPSTREAM = re.compile(r"\b(?:a )?repackaging of\b|\boriginally written for\b|\bported from\b|\bcollected by\b"
                             r"|\b(?:are|is|were|was) (?:taken|copied) from\b|\ba port of\b", re.IGNORECASE)
_OPENING_CHARS = 400  # the section's opening paragraph


def prose_upstream_sections(text: str) -> Iterator[tuple[str, str, str]]:
    """``(title, address, section)`` for each Markdown section whose opening paragraph says it repackages, ports or was
    taken from another project and gives an address (``section``: its whole text, whose copyright lines are that
    project's)."""
    title, body = None, []
    for line in (*text.splitlines(), "# end"):
        if heading := _HEADING.match(line):
            opening = "\n".join(body).strip().split("\n\n", 1)[0][:_OPENING_CHARS]
            if title and _PROSE_UPSTREAM.search(opening) and (found := _ADDRESS.search(opening)):
                yield title, found.group(0).rstrip(".,;:"), "\n".join(body)
            title, body = heading.group(1).strip("`*_ "), []
        elif title is not None:
            body.append(line)


def section_titles(text: str) -> Iterator[tuple[str, str]]:
    """``(title, section)`` for each Markdown section."""
    title, body = None, []
    for line in (*text.splitlines(), "# end"):
        if heading := _HEADING.match(line):
            if title:
                yield title, "\n".join(body)
            title, body = heading.group(1).strip("`*_ "), []
        elif title is not None:
            body.append(line)


def _address(fields: dict[str, str]) -> str | None:
    places = [fields[_UPSTREAM]] if _UPSTREAM in fields else \
        [fields[p] for p in _PLACES if p in fields] if any(v in fields for v in _VERSIONS) else []
    return next((found.group(0).rstrip(".,;") for value in places if (found := _ADDRESS.search(value))), None)


def section_names(title: str, address: str) -> frozenset[str]:
    """The names a section goes by, lower case, letters and digits only: its title and its upstream repository's."""
    parts = [part for part in address.split("://", 1)[-1].split("/") if part]
    project = parts[2] if len(parts) > 2 and parts[0] in ("github.com", "gitlab.com", "codeberg.org",
                                                          "bitbucket.org") else ""
    return frozenset(name for name in (_plain(title), _plain(project.removesuffix(".git"))) if name)


def names_folder(names: frozenset[str], folder_name: str) -> bool:
    """Whether a folder is the one a section names: the same name, or one ending or opening the other
    ("godot-dockable-container" and ``dockable_container``), the shorter of ``MIN_NAME`` or more characters."""
    folder = _plain(folder_name)
    return any(name == folder or min(len(name), len(folder)) >= MIN_NAME
               and (name.endswith(folder) or folder.endswith(name) or name.startswith(folder) or folder.startswith(name))
               for name in names)


def _plain(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())
