"""A repository's license, from its license files and package metadata, and the policy on it.

Design notes: docs/design/filters.md, "filters/licenses.py".
"""

from __future__ import annotations

import collections
import configparser
import email.parser
import fnmatch
import functools
import json
import re
import tomllib
import unicodedata
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from codemix.config import join, require
from codemix.filters.natural_language import markup_prose
from codemix.filters.regex_screen import required_literal

# SPDX ids whose terms let code be redistributed in a training set with attribution at most. The
# default license policy, and what dedup's keeper prefers when it picks a cluster's survivor.
_PERMISSIVE_IDS = """
MIT MIT-0 MIT-CMU X11 Apache-2.0 BSD-2-Clause BSD-3-Clause BSD-3-Clause-Clear 0BSD ISC HPND PSF-2.0 Python-2.0
Unlicense Zlib CC0-1.0 BSL-1.0 CC-BY-4.0 NCSA WTFPL UPL-1.0 BlueOak-1.0.0 PostgreSQL FSFAP FSFUL FSFULLR ICU
bzip2-1.0.6 BSD-2-Clause-Patent BSD-2-Clause-Views BSD-3-Clause-LBNL FSFULLRWD LicenseRef-public-domain blessing dtoa
MIT-Khronos-old LicenseRef-khronos BSD-1-Clause NIST-PD SGI-OpenGL HPND-Kevlin-Henney Unlicense-libwhirlpool FSFAP-no-warranty-disclaimer MIT-Modern-Variant
SHL-0.5 SHL-0.51 SHL-2.0 SHL-2.1 LicenseRef-owl-0.9.4 LicenseRef-bsd-endorsement-allowed
LicenseRef-bsd-3-clause-jtag LicenseRef-BSD-unstated-clauses LicenseRef-other-permissive RSA-MD LicenseRef-fatfs curl Beerware CC-BY-3.0 AFL-3.0 W3C MulanPSL-2.0 Libpng libpng-2.0 IJG Info-ZIP TCL
PHP-3.0 PHP-3.01 libtiff Fair LicenseRef-happy-bunny SunPro LicenseRef-ugui
"""
PERMISSIVE_LICENSES = frozenset(_PERMISSIVE_IDS.split())
_PERMISSIVE_LOWER = frozenset(name.lower() for name in PERMISSIVE_LICENSES)

# Common SPDX ids, for canonical spelling ("apache-2.0" -> "Apache-2.0") and for telling an SPDX
# expression from a free-text name ("MIT" vs "MIT License"). Deprecated bare GNU ids included.
_KNOWN_IDS = """
0BSD AFL-3.0 AGPL-1.0 AGPL-3.0 AGPL-3.0-only AGPL-3.0-or-later Apache-1.0 Apache-1.1 Apache-2.0 APSL-2.0
Artistic-1.0 Artistic-1.0-Perl Artistic-2.0 BlueOak-1.0.0 BSD-1-Clause BSD-2-Clause BSD-2-Clause-Patent BSD-2-Clause-Views
BSD-3-Clause BSD-3-Clause-Clear BSD-3-Clause-LBNL BSD-4-Clause BSD-4-Clause-UC bzip2-1.0.6 BSL-1.0 BUSL-1.1 CC-BY-3.0 CC-BY-4.0 CC-BY-NC-4.0 CC-BY-NC-SA-4.0
CC-BY-ND-4.0 CC-BY-SA-3.0 CC-BY-SA-4.0 CC0-1.0 CDDL-1.0 CDDL-1.1 CECILL-2.1 curl ECL-2.0 Elastic-2.0
EPL-1.0 EPL-2.0 EUPL-1.1 EUPL-1.2 GFDL-1.1 GFDL-1.1-only GFDL-1.1-or-later GFDL-1.2 GFDL-1.2-only GFDL-1.2-or-later GFDL-1.3 GFDL-1.3-only GFDL-1.3-or-later FSFAP FSFUL FSFULLR FSFULLRWD GPL-1.0 GPL-1.0-only GPL-1.0-or-later GPL-2.0 GPL-2.0-only
GPL-2.0-or-later GPL-3.0 GPL-3.0-only GPL-3.0-or-later HPND ICU ISC LGPL-2.0 LGPL-2.0-only LGPL-2.0-or-later
LGPL-2.1 LGPL-2.1-only LGPL-2.1-or-later LGPL-3.0 LGPL-3.0-only LGPL-3.0-or-later Libpng libpng-2.0 LPD-document
LPPL-1.0 LPPL-1.1 LPPL-1.2 LPPL-1.3a LPPL-1.3c MIT MIT-0 MIT-CMU MPL-1.0 MPL-1.1 MPL-2.0 MPL-2.0-no-copyleft-exception MS-PL MS-RL NCSA
ODbL-1.0 OFL-1.0 OFL-1.1 OpenSSL OSL-3.0 PHP-3.01 PostgreSQL PSF-2.0 Python-2.0 Ruby SSPL-1.0 Unicode-3.0
Unicode-DFS-2016 Unicode-TOU Unlicense UPL-1.0 Vim NIST-PD SGI-OpenGL HPND-Kevlin-Henney Unlicense-libwhirlpool FSFAP-no-warranty-disclaimer MIT-Modern-Variant SHL-0.5 SHL-0.51 SHL-2.0 SHL-2.1 W3C WTFPL X11 Zlib ZPL-2.1 blessing dtoa Minpack MIT-Khronos-old
JSON Beerware CC-BY-NC-3.0 CC-BY-NC-SA-3.0 CC-BY-ND-3.0 CC-BY-NC-ND-3.0 CC-BY-NC-ND-4.0 CPL-1.0 MS-PL MS-RL PHP-3.0
MulanPSL-2.0 PolyForm-Noncommercial-1.0.0 Artistic-1.0-Perl IJG Info-ZIP TCL Sleepycat RSA-MD libtiff Fair SunPro
"""
_CANONICAL_IDS = {name.lower(): name for name in _KNOWN_IDS.split()}
_ID_SYNTAX = re.compile(r"[A-Za-z0-9.\-]+\+?")
_OPERATORS = frozenset({"AND", "OR", "WITH"})
# Values that say "no license information" rather than naming one.
_NO_LICENSE = frozenset({"", "unknown", "none", "noassertion", "other", "n/a", "license", "dual license"})
PROPRIETARY = "LicenseRef-proprietary"
PUBLIC_DOMAIN = "LicenseRef-public-domain"
IETF_TRUST = "LicenseRef-ietf-trust"  # an RFC "subject to the rights, licenses and restrictions contained in BCP 78"
IETF = "LicenseRef-ietf"  # an RFC before BCP 78: "This document and translations of it may be copied and furnished to others"
ISO_8879 = "LicenseRef-iso-8879"  # ISO 8879's notice on SGML entity sets (ScanCode's iso-8879)
KHRONOS = "LicenseRef-khronos"  # the Khronos Group's older grant for "the Materials", before MIT-Khronos-old's
# Grants SPDX has no id for, named by what their own words say (docs/repositories.md, "Licenses per path"):
NONCOMMERCIAL = "LicenseRef-noncommercial"  # a grant whose conditions forbid selling the software or using it for profit
BSD_ENDORSEMENT_ALLOWED = "LicenseRef-bsd-endorsement-allowed"  # BSD's clauses, the third letting the name endorse
UGUI = "LicenseRef-ugui"  # ChaN's earlier FatFs terms, µGUI's too (ScanCode's ugui)
FATFS = "LicenseRef-fatfs"  # ChaN's "FatFs License", BSD's grant with one condition (ScanCode's fatfs)
OTHER_PERMISSIVE = "LicenseRef-other-permissive"  # a permissive grant no listed license has (ScanCode's other-permissive)
HAPPY_BUNNY = "LicenseRef-happy-bunny"  # GLM's Happy Bunny License, MIT's text and a wish (ScanCode's happy-bunny)
ST_MCD = "LicenseRef-st-mcd-2.0"  # ST's firmware notice, "for guidance only" (ScanCode's st-mcd-2.0)
ARM_CORTEX_MX = "LicenseRef-arm-cortex-mx"  # ARM's CMSIS terms: free within tools for ARM's processors only
OWL = "LicenseRef-owl-0.9.4"  # the Open Works License 0.9.4 (ScanCode's owl-0.9.4)
BSD_3_REGENTS = "LicenseRef-bsd-3-clause-jtag"  # BSD's three clauses, the Regents' disclaimer (ScanCode's key)
BSD_UNSTATED = "LicenseRef-BSD-unstated-clauses"  # "BSD" named with terms in the author's own words, not BSD's clauses


# --------------------------------------------------------------------------------------------
# SPDX expressions: parse to a small tree, render canonically, evaluate against an allowed set.
# A node is ("OR", children) | ("AND", children) | ("ID", license_id, exception_or_None).


class _BadExpression(ValueError):
    pass


def _license_id(token: str, strict: bool) -> str:
    """Canonical spelling of one license id; ``strict`` accepts only known ids and LicenseRefs."""
    base, plus = (token[:-1], "+") if token.endswith("+") else (token, "")
    if base.upper() in _OPERATORS or not _ID_SYNTAX.fullmatch(token):
        raise _BadExpression(token)
    if base.lower() in _CANONICAL_IDS:
        return _CANONICAL_IDS[base.lower()] + plus
    if base.lower().startswith(("licenseref-", "documentref-")) or not strict:
        return token
    raise _BadExpression(token)


def alternatives(expression: str) -> list[str]:
    """The operands of an expression's top-level OR ("A OR (B AND C)" -> ["A", "B AND C"]); itself when no OR."""
    return _operands(expression, "OR")


def canonical_id(identifier: str) -> str:
    """A known SPDX id as SPDX spells it ("bsd-3-clause" -> "BSD-3-Clause"); any other as given."""
    return _CANONICAL_IDS.get(identifier.lower(), identifier)


def _parse_term(tokens: list[str], i: int, strict: bool) -> tuple[tuple, int]:
    if i >= len(tokens):
        raise _BadExpression("expression ends early")
    if tokens[i] == "(":
        node, i = _parse_or(tokens, i + 1, strict)
        if i >= len(tokens) or tokens[i] != ")":
            raise _BadExpression("unbalanced parenthesis")
        return node, i + 1
    license_id = _license_id(tokens[i], strict)
    if i + 1 < len(tokens) and tokens[i + 1].upper() == "WITH":
        if i + 2 >= len(tokens) or not _ID_SYNTAX.fullmatch(tokens[i + 2]):
            raise _BadExpression("WITH needs an exception id")
        return ("ID", license_id, tokens[i + 2]), i + 3
    return ("ID", license_id, None), i + 1


def _parse_chain(operator: str, operand: Callable, tokens: list[str], i: int, strict: bool) -> tuple[tuple, int]:
    node, i = operand(tokens, i, strict)
    children = [node]
    while i < len(tokens) and tokens[i].upper() == operator:
        node, i = operand(tokens, i + 1, strict)
        children.append(node)
    return (children[0] if len(children) == 1 else (operator, tuple(children))), i


def _parse_and(tokens: list[str], i: int, strict: bool) -> tuple[tuple, int]:
    return _parse_chain("AND", _parse_term, tokens, i, strict)


def _parse_or(tokens: list[str], i: int, strict: bool) -> tuple[tuple, int]:
    return _parse_chain("OR", _parse_and, tokens, i, strict)


def parse_expression(text: str, *, strict: bool = False) -> tuple | None:
    """The expression tree of an SPDX expression (operators in any case), or None if it is not one.

    ``strict`` rejects ids outside the known table, so a free-text name such as "BSD" is not
    mistaken for an id; non-strict accepts any syntactically valid id.
    """
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    try:
        node, end = _parse_or(tokens, 0, strict)
    except _BadExpression:
        return None
    return node if end == len(tokens) else None


def _render(node: tuple, parent: str = "") -> str:
    if node[0] == "ID":
        return node[1] if node[2] is None else f"{node[1]} WITH {node[2]}"
    text = f" {node[0]} ".join(_render(child, node[0]) for child in node[1])
    return f"({text})" if parent else text


def _allowed(node: tuple, allowed: frozenset[str]) -> bool:
    if node[0] == "OR":
        return any(_allowed(child, allowed) for child in node[1])
    if node[0] == "AND":
        return all(_allowed(child, allowed) for child in node[1])
    license_id = node[1].lower().removesuffix("+")  # "X+" grants at least X
    # An exception only adds permissions, so "X WITH e" is allowed when X is (or when listed whole).
    return license_id in allowed or (node[2] is not None and f"{license_id} with {node[2].lower()}" in allowed)


def _expression_allowed(expression: str, allowed: frozenset[str]) -> bool:
    node = parse_expression(expression)
    return node is not None and _allowed(node, allowed)


def is_permissive(license_expr: str) -> bool:
    """Whether an SPDX expression grants a permissive option under ``PERMISSIVE_LICENSES``."""
    return _expression_allowed(license_expr, _PERMISSIVE_LOWER)


def combine(expressions: Iterable[str | None], operator: str = "AND") -> str:
    """Distinct expressions joined by ``operator`` in sorted order (compound ones parenthesised); an
    operand that is itself a chain of the same operator is flattened ("A AND B" and "B" -> "A AND B")."""
    parts = sorted({part for e in expressions if e for part in _operands(e, operator)})
    if len(parts) == 1:
        return parts[0]
    return f" {operator} ".join(f"({p})" if re.search(r" (?:AND|OR) ", p) else p for p in parts)


def _operands(expression: str, operator: str) -> list[str]:
    node = parse_expression(expression)
    if node is None or node[0] != operator:
        return [expression]
    return [_render(child) for child in node[1]]


# --------------------------------------------------------------------------------------------
# Free-text license names ("Apache License, Version 2.0", "GPLv3+", "BSD") -> SPDX.


def _versioned(table: dict[str, str], default: str) -> Callable[[str, re.Match], str]:
    """Resolver picking the first version number after the family's name, e.g. "2.0" or "v3"."""

    def resolve(name: str, match: re.Match) -> str:
        found = re.search(r"(\d+)(?:\.(\d+))?", name[match.end() :])
        if not found:
            return default
        major, minor = found.group(1), found.group(2) or "0"
        return table.get(f"{major}.{minor}", table.get(major, default))

    return resolve


def _gnu(table: dict[str, str], unversioned: str) -> Callable[[str, re.Match], str]:
    """Resolver for GNU licenses: a version, then "-or-later" / "-only" when the name says so."""
    versioned = _versioned(table, "")

    def resolve(name: str, match: re.Match) -> str:
        base = versioned(name, match)
        if not base:
            return unversioned
        if re.search(r"\+|or later|any later|>=", name):
            return f"{base}-or-later"
        return f"{base}-only" if re.search(r"\bonly\b", name) else base

    return resolve


def _bsd(name: str, match: re.Match) -> str:
    if re.search(r"\b(?:4|four)[ -]?clause|original", name):
        return "BSD-4-Clause"
    if re.search(r"\b(?:2|two)[ -]?clause|simplified|freebsd|\bbsd[ -]?(?:2|two)\b(?![ .-]?\d)", name):  # "BSD 2"
        return "BSD-2-Clause"
    return "BSD-3-Clause"  # "new", "modified", "3-clause" and the bare name: see the module docstring


def _fixed(spdx: str) -> Callable[[str, re.Match], str]:
    return lambda name, match: spdx


# Ordered most specific first: "LGPL" before "GPL", "MIT-0" before "MIT", "Unlicense" before
# "UNLICENSED" (npm's word for proprietary). Each pattern runs on the lower-cased name.
_NAME_FAMILIES: tuple[tuple[re.Pattern, Callable[[str, re.Match], str]], ...] = tuple(
    (re.compile(pattern), resolve)
    for pattern, resolve in (
        (r"\bunlicense\b", _fixed("Unlicense")),
        (r"\bproprietary\b|\bunlicensed\b|all rights reserved", _fixed(PROPRIETARY)),
        (r"\bcc0\b|cc zero|creative commons zero", _fixed("CC0-1.0")),
        (r"\b0bsd\b|zero[ -]clause bsd|bsd zero[ -]clause", _fixed("0BSD")),
        (r"\bmit-0\b|mit no attribution", _fixed("MIT-0")),
        # Franz's LLGPL, "the Lisp Lesser GNU Public License" (the LGPL with a preamble for Lisp; ScanCode's llgpl)
        (r"\bllgpl\b|lisp lesser", _fixed("LicenseRef-llgpl")),
        (r"\bagpl|affero", _gnu({"3": "AGPL-3.0"}, "AGPL-3.0")),
        (
            r"\blgpl|lesser general|library general|library or lesser",
            _gnu({"2": "LGPL-2.0", "2.1": "LGPL-2.1", "3": "LGPL-3.0"}, "LGPL-2.0-or-later"),
        ),
        (r"\bgpl|general public", _gnu({"1": "GPL-1.0", "2": "GPL-2.0", "3": "GPL-3.0"}, "GPL-1.0-or-later")),
        (r"\bapache", _versioned({"1.0": "Apache-1.0", "1.1": "Apache-1.1", "2": "Apache-2.0"}, "Apache-2.0")),
        (r"\bmpl\b|mozilla", _versioned({"1.0": "MPL-1.0", "1.1": "MPL-1.1", "2": "MPL-2.0"}, "MPL-2.0")),
        (r"\bepl\b|eclipse public", _versioned({"1": "EPL-1.0", "2": "EPL-2.0"}, "EPL-2.0")),
        (r"\bbsdl?\b", _bsd),  # Ruby's COPYING calls the BSD license "the 2-clause BSDL"
        (r"open font license|\bofl\b", _versioned({"1.0": "OFL-1.0", "1.1": "OFL-1.1"}, "OFL-1.1")),
        # the non-commercial and no-derivatives variants by name ("CC BY-NC-SA 4.0", "Creative Commons
        # Attribution-NonCommercial 4.0"), before the families they extend
        (r"creative commons attribution[- ]non ?commercial[- ]share ?alike|\bcc[- ]by[- ]nc[- ]sa\b",
         _versioned({"3.0": "CC-BY-NC-SA-3.0", "4.0": "CC-BY-NC-SA-4.0"}, "CC-BY-NC-SA-4.0")),
        (r"creative commons attribution[- ]non ?commercial[- ]no ?deriv|\bcc[- ]by[- ]nc[- ]nd\b",
         _versioned({"3.0": "CC-BY-NC-ND-3.0", "4.0": "CC-BY-NC-ND-4.0"}, "CC-BY-NC-ND-4.0")),
        (r"creative commons attribution[- ]non ?commercial|\bcc[- ]by[- ]nc\b",
         _versioned({"3.0": "CC-BY-NC-3.0", "4.0": "CC-BY-NC-4.0"}, "CC-BY-NC-4.0")),
        (r"creative commons attribution[- ]no ?deriv|\bcc[- ]by[- ]nd\b",
         _versioned({"3.0": "CC-BY-ND-3.0", "4.0": "CC-BY-ND-4.0"}, "CC-BY-ND-4.0")),
        (r"creative commons attribution[- ]share ?alike|\bcc[- ]by[- ]sa\b",
         _versioned({"3.0": "CC-BY-SA-3.0", "4.0": "CC-BY-SA-4.0"}, "CC-BY-SA-4.0")),
        (r"creative commons attribution(?![- ]?no)|\bcc[- ]by\b(?![- ]?n)",
         _versioned({"3.0": "CC-BY-3.0", "4.0": "CC-BY-4.0"}, "CC-BY-4.0")),
        (r"\bpsf\b|python software foundation", _fixed("PSF-2.0")),
        (r"\bpython\b", _fixed("Python-2.0")),
        (r"\bisc\b", _fixed("ISC")),
        (r"\bopenssl\b", _fixed("OpenSSL")),
        (r"\blppl\b|latex project public", _versioned({"1.0": "LPPL-1.0", "1.1": "LPPL-1.1", "1.2": "LPPL-1.2",
                                                        "1.3a": "LPPL-1.3a", "1.3c": "LPPL-1.3c"}, "LPPL-1.3c")),
        (r"\bartistic\b", _versioned({"1.0": "Artistic-1.0", "2": "Artistic-2.0"}, "Artistic-1.0")),
        (r"\bicu\b", _fixed("ICU")),  # the ICU License (ICU 1.8.1 and later), decNumber's
        (r"\bmit\b|\bexpat\b", _fixed("MIT")),
        (r"\bzlib\b", _fixed("Zlib")),
        (r"\bbsl\b|\bboost\b", _fixed("BSL-1.0")),
        (r"\bwtfpl\b", _fixed("WTFPL")),
        (r"\bvim\b", _fixed("Vim")),  # "distributed under Vim's license"
        (r"universal permissive", _fixed("UPL-1.0")),
        (r"\bmulan(?: permissive software license| ?psl)|木兰宽松许可证", _versioned({"1": "MulanPSL-1.0", "2": "MulanPSL-2.0"}, "MulanPSL-2.0")),
        (r"public domain", _fixed(PUBLIC_DOMAIN)),
    )
)


def _license_from_name(name: str) -> str | None:
    lowered = name.lower().replace("licence", "license")
    lowered = re.sub(r"\bbsd-?([234])\b", r"bsd \1-clause", lowered)  # Cabal's and CPAN's "BSD3"
    for pattern, resolve in _NAME_FAMILIES:
        match = pattern.search(lowered)
        if match:
            return resolve(lowered, match)
    return None


def normalize_license(name: str, *, spdx_field: bool = False) -> str | None:
    """SPDX id or expression for a license as a metadata field states it; None if it names none.

    A valid SPDX expression of known ids is returned in canonical spelling; otherwise the name
    is read by family ("Apache License, Version 2.0" -> Apache-2.0, "GPLv3+" ->
    GPL-3.0-or-later, "BSD License" -> BSD-3-Clause). ``spdx_field`` marks fields defined to hold
    SPDX (License-Expression, Cargo, npm): there an unknown but well-formed id is kept as written.
    """
    text = " ".join(name.split())
    if text.lower() in _NO_LICENSE:
        return None
    if re.fullmatch(r"(?i)zlib\s*/\s*libpng(?: license)?", text):
        return "Zlib"  # OSI's name for the zlib license (raylib's "LICENSE: zlib/libpng"), not a choice of two
    as_expression = text.replace("/", " OR ")  # "MIT/Apache-2.0" is Cargo's old spelling of OR
    node = parse_expression(as_expression, strict=True)
    if node is not None:
        return _render(node)
    named = _license_from_name(text)  # before the loose parse, so "BSD" is not taken for an id
    if named is None and spdx_field and (node := parse_expression(as_expression)) is not None:
        return _render(node)
    return named


# --------------------------------------------------------------------------------------------
# Full license texts, matched by distinctive phrases on a normalised word stream.


# ``reuse.own_license`` reads one file's head by several rules, each of which asks for its words: the last few answers
# are kept (a pure function of the text).
@functools.lru_cache(maxsize=8)
def _words(text: str) -> str:
    """Lower-case words separated by single spaces: "and/or" -> "and or", "2.0" -> "2 0"."""
    text = _COMMENT_LEADER.sub(" ", text) if "dnl" in text or "REM" in text or "%%" in text else text
    if ("\nC" in text or "\nc" in text) and _FIXED_FORM_RUN.search(text):
        text = _FIXED_FORM_LEADER.sub(" ", text)
    return re.sub(r"[^a-z0-9]+", " ", text.lower().replace("licence", "license"))


# Comment leaders that are words (m4's ``dnl``, batch files' ``REM``), so a notice reads as one sentence.
# also batch files' "@REM", and PostScript's DSC comments (Adobe's CMaps, every line "%%Copyright: ...")
_COMMENT_LEADER = re.compile(r"^[ \t]*(?:@?(?:dnl|REM|rem)\b|%%[A-Za-z]+:)", re.MULTILINE)
# Fixed-form Fortran's comment column, a letter: "C" or "c" opening each line of a comment (numfort's NEWUOA, "C  |the
# License, or (at your option) any later version"), read where three lines in a row open so.
_FIXED_FORM_LEADER = re.compile(r"^[Cc](?=[ \t]|$)", re.MULTILINE)
_FIXED_FORM_RUN = re.compile(r"^[Cc](?:[ \t][^\n]*)?\n[Cc](?:[ \t][^\n]*)?\n[Cc](?:[ \t]|$)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class _Signature:
    """A license text: an anchor phrase, plus phrases that must (or must not) follow it closely. ``literal`` is text
    every match of the anchor contains (``regex_screen.required_literal``): where it is absent the anchor is not
    searched for."""

    spdx: str
    anchor: re.Pattern
    required: tuple[re.Pattern, ...]
    forbidden: tuple[re.Pattern, ...]
    literal: str = ""


def _signature(spdx: str, anchor: str, required: tuple[str, ...] = (), forbidden: tuple[str, ...] = ()) -> _Signature:
    compiled = re.compile(anchor)
    return _Signature(spdx, compiled, tuple(map(re.compile, required)), tuple(map(re.compile, forbidden)),
                      required_literal(compiled))


_MIT_GRANT = r"permission is hereby granted free of charge to any person obtaining a copy"
_KEVLIN_HENNEY = r"this copyright and permissions notice appear in all copies and derivatives"
_UC_ACKNOWLEDGEMENT = (r"all advertising materials mentioning features or use of this software must display the following "
                       r"acknowledgement this product includes software developed by the university of california "
                       r"berkeley and its contributors")
# The GFDL's texts by their titles and dates: the text itself, read as a grant (its name alone needs a verb before it).
_GFDL_TITLES = tuple(_signature(f"GFDL-{version}", rf"gnu free documentation license version {version.replace('.', ' ')} "
                                                   rf"{date}")
                     for version, date in (("1.3", "3 november 2008"), ("1.2", "november 2002"), ("1.1", "march 2000")))
_UNLICENSE = r"this is free and unencumbered software released into the public domain"
_FSFAP = (r"copying and distribution of this (?:file|script) with or without modification are permitted in any medium "
          r"without royalty provided (?:the copyright notice and )?this notice (?:is|are) preserved")  # also without one
_HPND_GRANT = (r"permission to use copy modify (?:and )?distribute (?:and sell )?this software and its (?:associated )?"
               r"documentation for any purpose (?:(?:and )?without fee is hereby granted|is hereby granted without fee)")
_LIBTIFF_NAMES = (r"appear in all copies of the software and related documentation and (?:ii )?the names of (?:\w+ ){1,8}"
                  r"may not be used in any advertising or publicity relating to the software")
_MIT_NOTICE = r"above copyright notice and (?:this|\w+) permission notice (?:including the next paragraph )?shall be included"
_KHRONOS_GRANT = _MIT_GRANT + r" of this software and or associated documentation files the materials"
_KHRONOS_NOTICE = r"shall be included in all copies or substantial portions of the materials"
_KHRONOS_MODIFICATIONS = r"modifications to this file may mean it no longer accurately reflects khronos standards"
# also naming what it grants ("Redistribution and use of Petit FatFs in source and binary forms", "... of this software in")
_BSD_GRANT = r"redistribution and use (?:of (?:\w+ ){1,4})?in source and binary forms"
_BSD_PATENT = r"hereby grants to those receiving rights under this license a perpetual worldwide non exclusive"
_BSD_VIEWS = r"the views and conclusions contained in the software and documentation are those of the authors"
# ISC's grant, also in its older wording "this software and its documentation" (Nominum's, dnspython's).
_OPENSSL_ADVERTISING = r"this product includes software developed by the openssl project for use in the openssl toolkit"
_ISC_GRANT = (
    r"permission to use copy modify (?:and or |and )?distribute this software (?:and its documentation )?for any "
    r"purpose with or without fee"
)
_ISC_NOTICE = r"provided that the above copyright notice and this permission notice appear in all copies"
_FSFULLR = (r"this (?:file|makefile in|\w+) is free software the free software foundation gives unlimited permission to "
            r"copy and or distribute it with or without modifications as long as this notice is preserved")
_ENDORSEMENT_ALLOWED = r"(?<!nor )(?<!or )(?<!and )(?<!neither )\bthe names? of (?:the |its )?(?:\w+ ){0,8}?may be used to endorse or promote products"
_NOT_SOLD = (r"\b(?:you|licensee|user) (?:do|does|shall|will|may) not sell\b|\bnot (?:be )?(?:sold|for sale)\b"
             r"|\bnot for (?:commercial|profit)\b")
_HOLDERS_NOT_ADVERTISED = r"except as contained in this notice the name of a copyright holder shall not be used in advertising"
_W3C_TERMS = (r"by obtaining using and or copying this work you the licensee agree that you have read understood and will "
              r"comply with the following terms and conditions")
_W3C_GRANT = r"permission to copy modify and distribute this software and its documentation with or without modification"
_ZLIB_GRANT = (r"permission is granted to anyone to use this software for any purpose including commercial applications "
               r"and to alter it and redistribute it")
_ARTISTIC_1 = (r"the intent of this document is to state the conditions under which a package may be copied such that "
               r"the copyright holder maintains some semblance of artistic control")
_PSF_ANCHOR = r"python software foundation license version 2|license agreement is between the python software foundation"

# Same-anchor variants are listed most specific first: the table order breaks position ties.
# The Boost Software License's own grant, quoted whole (the MS STL numbers Crystal's specs port): its name alone after a
# verb is a notice, its grant's words anywhere are.
_BSL_TEXT = _signature("BSL-1.0", r"permission is hereby granted free of charge to any person or organization obtaining a "
                                  r"copy of the software and accompanying documentation covered by this license")
_SIGNATURES = (
    # Unicode's licenses grant in MIT's words ("...to any person obtaining a copy of the Unicode data files"
    # or "...of data files"), without MIT's notice clause: read before the MIT family, not as MIT-0.
    _signature("Unicode-3.0", r"unicode license v3"),
    _signature("Unicode-DFS-2016", _MIT_GRANT + r" of (?:the )?unicode data files"),
    # Bitstream Vera's font license: MIT's grant "of the fonts accompanying this license" (DejaVu's LICENSE), not MIT-0.
    _signature("Bitstream-Vera", _MIT_GRANT + r" of the fonts accompanying this license"),
    # ICU's (1.8.1 and later) grants in MIT's words, its notice to "appear in all copies of the Software and ... in
    # supporting documentation" instead of MIT's "shall be included".
    _signature("ICU", _MIT_GRANT, (r"permission notice appear in supporting documentation",)),
    # The Khronos Group's grant in MIT's words for "the Materials" (its API headers, glad's loaders): SPDX
    # MIT-Khronos-old where its paragraph on modified files follows, else the older text SPDX lists no id for
    # (ScanCode's khronos).
    _signature("MIT-Khronos-old", _KHRONOS_GRANT, (_KHRONOS_NOTICE, _KHRONOS_MODIFICATIONS)),
    _signature(KHRONOS, _KHRONOS_GRANT, (_KHRONOS_NOTICE,)),
    # The JSON License: MIT's text with "The Software shall be used for Good, not Evil." (a use restriction).
    _signature("JSON", _MIT_GRANT, (_MIT_NOTICE, r"the software shall be used for good not evil")),
    # GLM's Happy Bunny License (Modified MIT License): MIT's text with "Restrictions: By making use of the Software for
    # military purposes, you choose to make a Bunny unhappy." No SPDX id, ScanCode's happy-bunny (permissive).
    _signature(HAPPY_BUNNY, _MIT_GRANT, (_MIT_NOTICE, r"for military purposes you choose to make a bunny unhappy")),
    _signature("X11", _MIT_GRANT, (_MIT_NOTICE, r"except as contained in this notice the name")),
    _signature("MIT", _MIT_GRANT, (_MIT_NOTICE,)),
    _signature("MIT-0", _MIT_GRANT, forbidden=(_MIT_NOTICE, r"^\S+(?: \S+){12} of the font software")),
    # Texts granting in BSD's words whose own clauses make them other licenses, read before the BSD family: bzip2's
    # (zlib's "origin ... must not be misrepresented" and "altered source versions" clauses among BSD's), the BSD
    # Plus Patent License, the FreeBSD "views and conclusions" text, LBNL's "no obligation ... to provide any bug fixes".
    # Minpack's (University of Chicago, 1999): BSD's grant with an acknowledgment clause; SPDX Minpack.
    _signature("Minpack", r"minpack copyright notice \d{4} university of chicago", (_BSD_GRANT,)),
    # ChaN's FatFs License (its own title; ScanCode's fatfs): BSD's grant for "FatFs" with the one condition.
    _signature(FATFS, r"(?:petit )?fatfs module is an open source software", (_BSD_GRANT,)),
    # ChaN's earlier FatFs terms (R0.08 and before, also µGUI's; ScanCode's ugui): "No restriction on use. You can use,
    # modify and redistribute it for personal, non-profit or commercial products UNDER YOUR RESPONSIBILITY", the
    # copyright notice retained: permissive.
    _signature(UGUI, r"no restriction on use you can use modify and redistribute it for personal non profit or "
                     r"commercial products? under your responsibility"),
    # (not a BSD text followed by zlib's own, grant and all: raylib's reasings, Penner's BSD-3-Clause then raylib's zlib)
    _signature("bzip2-1.0.6", _BSD_GRANT, (r"the origin of this software must not be misrepresented",
                                           r"altered source versions must be plainly marked"), (_ZLIB_GRANT,)),
    _signature("BSD-2-Clause-Patent", _BSD_GRANT, (_BSD_PATENT,)),
    _signature("BSD-2-Clause-Views", _BSD_GRANT, (_BSD_VIEWS,), (r"may (?:not )?be used to endorse or promote products",)),
    _signature("BSD-3-Clause-LBNL", _BSD_GRANT, (r"you are under no obligation whatsoever to provide any bug fixes",)),
    # The OpenSSL License (with SSLeay's, SPDX OpenSSL): BSD's grant and advertising clause naming the OpenSSL Project.
    _signature("OpenSSL", _BSD_GRANT, (_OPENSSL_ADVERTISING,)),
    # The Apache License 1.0 (BSD's grant, its advertising clause naming the Apache Group) and Sleepycat's (BSD's grant,
    # the source of "the DB software" to be offered): read before the BSD family.
    _signature("Apache-1.0", _BSD_GRANT, (r"developed by the apache group for use in the apache http server project",)),
    _signature("Sleepycat", _BSD_GRANT, (r"information on how to obtain complete source code for the db software",)),
    _signature("PHP-3.01", r"the php license version 3 01"),
    _signature("PHP-3.0", r"the php license version 3 0\b"),
    # The University of California's own text, its acknowledgement naming Berkeley (BSD's getopt.c): SPDX BSD-4-Clause-UC.
    _signature("BSD-4-Clause-UC", _BSD_GRANT, (_UC_ACKNOWLEDGEMENT,)),
    _signature("BSD-4-Clause", _BSD_GRANT, (r"all advertising materials mentioning features or use of this software",)),
    _signature("BSD-3-Clause-Clear", _BSD_GRANT, (r"no express or implied licenses to any party s patent rights",)),
    # A third clause that lets the author's name be used to endorse (go-gl's copy of msinttypes' stdint.h: "The name
    # of the author may be used to endorse"; ScanCode's bsd-endorsement-allowed); "neither the name of ... nor (or) the
    # names of its contributors may be used" is BSD-3-Clause's.
    _signature(BSD_ENDORSEMENT_ALLOWED, _BSD_GRANT, (_ENDORSEMENT_ALLOWED,),
               (r"\bneither (?:\w+ ){0,60}?may be used to endorse",)),
    # BSD's three clauses with the University of California's disclaimer in PostgreSQL's words ("IN NO EVENT SHALL
    # REGENTS BE LIABLE ... REGENTS SPECIFICALLY DISCLAIMS ANY WARRANTIES": riscv-tests' LICENSE, copied in picorv32's
    # tests/): no SPDX id, ScanCode's bsd-3-clause-jtag.
    _signature(BSD_3_REGENTS, _BSD_GRANT, (r"may (?:not )?be used to endorse or promote products",
                                           r"regents specifically disclaims any warranties")),
    _signature("BSD-3-Clause", _BSD_GRANT, (r"may (?:not )?be used to endorse or promote products",)),
    _signature("BSD-2-Clause", _BSD_GRANT, (r"redistributions in binary form must reproduce",)),
    # One condition, the source's notice kept (hxcpp's LICENSE.txt): BSD-1-Clause.
    _signature("BSD-1-Clause", _BSD_GRANT + r" with or without modification are permitted provided that the following "
               r"condition is met", (r"redistributions of source code must retain the above copyright notice",)),
    # A grant in HPND's or ISC's words whose conditions forbid selling the software (Georgia Tech's ply.c: "...
    # provided that the above copyright notice ... appear in all copies of this software and that you do not sell
    # the software"), or one given for non-commercial or non-profit purposes only: noncommercial, no SPDX id. Read before
    # the grants sharing its words, which a condition of sale's would otherwise outrank by position.
    _signature(NONCOMMERCIAL, r"permission to use copy modify (?:and or |and )?distribute (?:and sell )?this software",
               (_NOT_SOLD,)),
    _signature(NONCOMMERCIAL, r"permission to use copy modify (?:and or |and )?distribute this software (?:and its "
                              r"(?:associated )?documentation )?for (?:\w+ ){0,5}?non ?(?:commercial|profit) purposes"),
    # Sun's notice on fdlibm's code (GLM's gtc/ulp.inl: "Developed at SunPro, a Sun Microsystems, Inc. business.
    # Permission to use, copy, modify, and distribute this software is freely granted, provided that this notice is
    # preserved."): SPDX SunPro.
    _signature("SunPro", r"permission to use copy modify and distribute this software is freely granted provided that "
                         r"this notice is preserved"),
    # Lucent's notice on David M. Gay's dtoa.c and on Plan 9's libraries (re2's rune.cc, jq's jv_dtoa.c): SPDX dtoa.
    _signature("dtoa", r"permission to use copy modify and distribute this software for any purpose without fee is "
               r"hereby granted provided that this entire notice is included in all copies of any software which is "
               r"or includes a copy or modification of this software"),
    # curl's: ISC's grant and notice with X11's clause on the holders' names in advertising.
    _signature("curl", _ISC_GRANT, (_ISC_NOTICE, _HOLDERS_NOT_ADVERTISED)),
    _signature("ISC", _ISC_GRANT, (_ISC_NOTICE,)),
    _signature("0BSD", _ISC_GRANT, forbidden=(_ISC_NOTICE,)),
    # Silicon Graphics' notice on its OpenGL samples (trackball.c): HPND's grant naming SGI, SPDX SGI-OpenGL.
    _signature("SGI-OpenGL", r"permission to use copy modify and distribute this software for any purpose and without "
               r"fee is hereby granted", (r"the name of silicon graphics inc not be used in advertising",)),
    # HPND's grant with Kevlin Henney's one condition, "this copyright and permissions notice appear in all copies and
    # derivatives" (raylib's dirent.h): SPDX HPND-Kevlin-Henney.
    # The University of California's grant on Sprite's and Tcl's older code ("Permission is hereby granted, without
    # written agreement and without license or royalty fees, ... provided that the above copyright notice and the
    # following two paragraphs appear in all copies of this software": TclX's tcllib.tcl): SPDX MIT-Modern-Variant.
    _signature("MIT-Modern-Variant", r"permission is hereby granted without written agreement and without license or "
               r"royalty fees to use copy modify and distribute this software and its documentation for any purpose"),
    _signature("HPND-Kevlin-Henney", _HPND_GRANT, (_KEVLIN_HENNEY,)),
    # libtiff's: HPND's grant "and sell", the notices "in all copies of the software and related documentation", and
    # "(ii) the names of Sam Leffler and Silicon Graphics may not be used in any advertising or publicity relating to
    # the software" (the LICENSE_libtiff.txt of GDAL's conda-forge recipe): SPDX libtiff, not HPND's nearest variant.
    _signature("libtiff", _HPND_GRANT, (_LIBTIFF_NAMES,)),
    _signature(
        "HPND",
        _HPND_GRANT,
        (r"appear in supporting documentation",),  # HPND's own condition, in each of its SPDX variants
        forbidden=(r"you do not sell the software",),  # a grant forbidding sale is no HPND (ply.c's Georgia Tech notice)
    ),
    # HPND's grant with fewer conditions, the notice in all copies only (TclX's "provided that the above copyright
    # notice appear in all copies. Karl Lehenbauer and Mark Diekhans make no representations ..."): a permissive grant
    # SPDX has no id for, ScanCode's other-permissive, not the nearest id.
    _signature(OTHER_PERMISSIVE, _HPND_GRANT, forbidden=(r"you do not sell the software",)),
    # The Ruby license's own conditions (its opening offers them beside the BSDL, or MIT in RubyGems').
    _signature("Ruby", r"you may make and (?:or copy|give away) verbatim copies of the source form of the software"),
    # Dragonbox's "the Apache License v2.0 with LLVM Exceptions" (LLVM's own license since its relicensing).
    _signature("Apache-2.0 WITH LLVM-exception", r"apache license (?:version |v ?)2 0 with llvm exceptions?"),
    _signature("Apache-2.0", r"apache license (?:version |v ?)2 0"),
    _signature("Apache-1.1", r"apache software license version 1 1"),
    # "Version 1.1", "v. 2.0", and SynEdit's "Mozilla Public License Ver. 1.0" (TSynTextDrawer).
    _signature("MPL-2.0", r"mozilla public license (?:mpl )?(?:version |ver |v )?2 0"),
    _signature("MPL-1.1", r"mozilla public license (?:mpl )?(?:version |ver |v )?1 1"),
    _signature("MPL-1.0", r"mozilla public license (?:mpl )?(?:version |ver |v )?1 0"),
    # The GNU Free Documentation License: its text by its title and date (AdaCore's aunit manual keeps it in
    # doc/share/gnu_free_documentation_license.rst), a document's notice by its name and version ("under the terms of
    # the GNU Free Documentation License, Version 1.3 or any later version").
    *_GFDL_TITLES,
    # The Solderpad Hardware License, named with its version after a verb ("licensed under the Solderpad Hardware License,
    # Version 0.51": Basejump STL's LICENSE in tcp_hw); Apache-2.0's terms for hardware, permissive.
    *(_signature(f"SHL-{version}", rf"solderpad hardware license (?:version |v ?){version.replace('.', ' ')}\b")
      for version in ("0.51", "0.5", "2.1", "2.0")),
    # Aubrey Jaffer's grant on SLIB and SCM ("Permission to copy this software, to modify it, to redistribute it, to
    # distribute modified versions, and to use it for any purpose is granted, subject to the following restrictions"):
    # no SPDX id, ScanCode's other-permissive.
    _signature(OTHER_PERMISSIVE, r"permission to copy this software to modify it to redistribute it to distribute "
                                 r"modified versions and to use it for any purpose is granted"),
    # Dorai Sitaram's grant on pregexp and schelog ("Permission to copy, modify, distribute, and use this work or a
    # modified copy of this work, for any purpose, is hereby granted, provided that the copy includes this copyright
    # notice"; "Permission to distribute and use this work for any purpose is hereby granted provided this copyright notice
    # is included" on quaternion and schelog): no SPDX id (ScanCode matches 29% of HPND-sell-regexpr's text),
    # other-permissive.
    _signature(OTHER_PERMISSIVE, r"permission to (?:(?:copy|modify|distribute|use|and) ){2,7}this work (?:or a modified "
                                 r"copy of this work )?for any purpose is hereby granted provided (?:that )?"),
    # Lisp code of the CMU AI Repository's era, SLIME's copies: Mark Kantrowitz's xref.lisp ("Use and copying of this
    # software and the preparation of derivative works based on this software are permitted, so long as the following
    # conditions are met"), Stephen Adams' match.lisp ("You are free to copy, distribute and make derivative works of
    # this source provided that this copyright notice is displayed"): no SPDX id, other-permissive.
    _signature(OTHER_PERMISSIVE, r"use and copying of this software and (?:the )?preparation of derivative works based "
                                 r"(?:up)?on this software are permitted so long as"),
    _signature(OTHER_PERMISSIVE, r"you are free to copy distribute and make derivative works of this (?:source|software|"
                                 r"code|program) provided that this copyright notice"),
    # The Fair License, whole in two sentences (C. Masloch's ldosboot and lmacros in FreeDOS' kernel: "Usage of the works
    # is permitted provided that this instrument is retained with the works, so that any entity that uses the works is
    # notified of this instrument. DISCLAIMER: THE WORKS ARE WITHOUT WARRANTY."): SPDX Fair.
    _signature("Fair", r"usage of the works is permitted provided that this instrument is retained with the works"),
    # Vim plugins' grant (Yegappan Lakshmanan's mru.vim and taglist.vim, in amix/vimrc): "Permission is hereby granted to
    # use and distribute this code, with or without modifications, provided that this copyright notice is copied with
    # it": no SPDX id, ScanCode's other-permissive.
    _signature(OTHER_PERMISSIVE, r"permission is hereby granted to use and distribute this code with or without "
                                 r"modifications provided that this copyright notice is copied with it"),
    # The Open Works License by its own line, "This is version 0.9.4 of the Open Works License": no SPDX id, ScanCode's
    # owl-0.9.4; permissive (its grant is MIT's, the notice kept).
    _signature(OWL, r"this is version 0 9 4 of the open works license"),
    *(_signature(f"GFDL-{version}{later}", rf"gnu free documentation license (?:version |v ?)"
                                           rf"{version.replace('.', ' ')}{words}\b")
      for version in ("1.3", "1.2", "1.1") for later, words in (("-or-later", " or any later version"), ("", ""))),
    _signature("EPL-2.0", r"eclipse public license (?:v ?|version )?2 0"),
    _signature("EPL-1.0", r"eclipse public license (?:v ?|version )?1 0"),
    # Python's own license is the PSF agreement followed by BeOpen's, CNRI's and CWI's (SPDX Python-2.0, distlib's
    # LICENSE.txt); the PSF agreement alone is PSF-2.0.
    _signature("Python-2.0", r"terms and conditions for accessing or otherwise using python",
               (r"beopen(?: com)? license agreement",)),
    # L. Peter Deutsch's notice for documents (the DEFLATE and zlib RFCs' wording; lz4's and zstd's format
    # specifications): a license for the document, not for code.
    _signature("LPD-document", r"permission is granted to copy and distribute this document for any purpose and "
               r"without charge"),
    _signature("PSF-2.0", _PSF_ANCHOR),
    # The IETF's terms for its RFCs (ScanCode's ietf-trust and ietf; no SPDX id): BCP 78's sentence, in a newer RFC's
    # head or an older one's "Full Copyright Statement", and the Internet Society's statement before BCP 78. A document's
    # terms: copies in full, not derivative works; not permissive, as L. Peter Deutsch's is not.
    _signature(IETF_TRUST, r"this document is subject to (?:the rights licenses and restrictions contained in )?bcp 78\b"),
    _signature(IETF, r"this document and translations of it may be copied and furnished to others"),
    # The Unlicense's first two paragraphs alone, without its "In jurisdictions that recognize copyright laws" or its
    # address (picorv32's firmware): SPDX's Unlicense-libwhirlpool.
    _signature("Unlicense-libwhirlpool", _UNLICENSE + r" anyone is free to copy modify publish use compile sell or "
               r"distribute this software", forbidden=(r"in jurisdictions that recognize copyright laws", r"unlicense org")),
    _signature("Unlicense", _UNLICENSE),
    # ISO 8879's notice on SGML entity sets and DTDs, "Permission to copy in any form is granted for use with conforming
    # SGML systems and applications as defined in ISO 8879, provided this notice is included in all copies" (ScanCode's
    # iso-8879; no SPDX id): a grant for use with SGML systems only.
    _signature(ISO_8879, r"permission to copy in any form is granted for use with conforming sgml systems and "
                         r"applications as defined in iso 8879"),
    # A US government work's notice (17 U.S.C. 105), as NIST words it on its software (JAMA's and TNT's headers).
    _signature("NIST-PD", r"pursuant to title 17 section 105 of the united states code this software is not subject "
                          r"to copyright protection", (r"\bnist\b",)),
    _signature("CC0-1.0", r"cc0 1 0 universal|creative commons zero"),
    # zlib's grant with none of its restrictions (SDL's test programs: "Permission is granted to anyone to use this
    # software for any purpose, including commercial applications, and to alter it and redistribute it freely."):
    # no SPDX id; ScanCode's other-permissive. Read where zlib's clauses do not follow (Zlib's own signature below).
    _signature(OTHER_PERMISSIVE, _ZLIB_GRANT + r" freely(?! subject to)", forbidden=(r"origin of this software must not",)),
    _signature(
        "Zlib",
        r"the origin of this software must not be misrepresented",
        (r"altered source versions must be plainly marked as such",),
    ),
    _BSL_TEXT,
    _signature("BSL-1.0", r"boost software license version 1 0"),
    _signature("WTFPL", r"do what the fuck you want to public license"),
    # Vim's license (ack.vim's and ctrlp.vim's LICENSE quote it): its first clause, as the text words it.
    _signature("Vim", r"there are no restrictions on distributing unmodified copies of vim except that they must "
                      r"include this license text"),
    _signature("UPL-1.0", r"universal permissive license"),
    # Texts known by their own titles or opening sentences (each as SPDX's license list and ScanCode's database
    # print it): Creative Commons 3.0's "Legal Code", the 4.0 no-derivatives texts, CDDL, EUPL, Microsoft's, OSL,
    # AFL, CPL, W3C's software notice, Mulan, Elastic, PolyForm, the Artistic License 1.0 (Perl's with its clause on
    # embedding the interpreter), libpng's, IJG's, Info-ZIP's, Tcl's and Poul-Henning Kamp's beer-ware.
    *(_signature(f"CC-BY-{kind}3.0", rf"creative commons legal code attribution {words}3 0") for kind, words in (
        ("NC-ND-", "noncommercial noderivs "), ("NC-SA-", "noncommercial sharealike "), ("NC-", "noncommercial "),
        ("ND-", "noderivs "), ("SA-", "sharealike "), ("", ""))),
    _signature("CC-BY-NC-ND-4.0", r"creative commons attribution noncommercial noderivatives 4 0"),
    _signature("CC-BY-ND-4.0", r"creative commons attribution noderivatives 4 0"),
    # Apple's terms for its open sources (FLEX's APPLE_LICENSE beside the code it took from Apple's objc4): by title
    *(_signature(f"APSL-{v}", rf"apple public source license (?:apsl )?version {v.replace('.', ' ')}\b")
      for v in ("2.0", "1.2", "1.1", "1.0")),
    _signature("CDDL-1.1", r"common development and distribution license cddl version 1 1"),
    _signature("CDDL-1.0", r"common development and distribution license cddl version 1 0"),
    _signature("EUPL-1.2", r"european union public license v ?1 2"),
    _signature("EUPL-1.1", r"european union public license v ?1 1"),
    _signature("MS-PL", r"microsoft public license ms pl this license governs use of the accompanying software"),
    _signature("MS-RL", r"microsoft reciprocal license ms rl this license governs use of the accompanying software"),
    _signature("OSL-3.0", r"open software license osl v ?3 0"),
    _signature("AFL-3.0", r"licensed under the academic free license version 3 0"),
    _signature("CPL-1.0", r"the accompanying program is provided under the terms of this common public license"),
    _signature("W3C", _W3C_TERMS, (_W3C_GRANT,)),
    _signature("MulanPSL-2.0", r"mulan permissive software license version 2"),
    # the header Mulan's text gives for files: "[Software Name] is licensed under Mulan PSL v2. You can use this software
    # according to the terms and conditions of the Mulan PSL v2."
    _signature("MulanPSL-2.0", r"you can use this software according to the terms and conditions of the mulan psl v2"),
    _signature("MulanPSL-1.0", r"you can use this software according to the terms and conditions of the mulan psl v1"),
    _signature("Elastic-2.0", r"elastic license 2 0", required=(r"the licensor grants you a non exclusive",)),
    _signature("PolyForm-Noncommercial-1.0.0", r"polyform noncommercial license 1 0 0"),
    # ARM's CMSIS headers: "ARM Limited (ARM) is supplying this software for use with Cortex-M processor based
    # microcontrollers. This file can be freely distributed within development tools that are supporting such ARM based
    # processors": use restricted to ARM's processors (ScanCode's arm-cortex-mx, proprietary-free), not permissive.
    _signature(ARM_CORTEX_MX, r"arm limited arm is supplying this software for use with cortex m\w* processor based "
                              r"microcontrollers"),
    # ST's firmware notice, "THE PRESENT FIRMWARE WHICH IS FOR GUIDANCE ONLY AIMS AT PROVIDING CUSTOMERS WITH CODING
    # INFORMATION ... STMICROELECTRONICS SHALL NOT BE HELD LIABLE": ST's terms for its libraries (ScanCode's st-mcd-2.0),
    # no grant to anyone else, not the folder's license.
    _signature(ST_MCD, r"the present (?:firmware|software) which is for guidance only aims at providing customers with "
                       r"coding information"),
    _signature("Artistic-1.0-Perl", _ARTISTIC_1, (r"you may embed this package s interpreter within an executable",)),
    _signature("Artistic-1.0", _ARTISTIC_1),
    _signature("libpng-2.0", r"png reference library license version 2"),
    _signature("Libpng", r"permission is hereby granted to use copy modify and distribute this source code or portions "
                         r"hereof for any purpose without fee subject to the following restrictions"),
    _signature("IJG", r"in plain english 1 we don t promise that this software works"),
    _signature("Info-ZIP", r"of the info zip copyright and license"),
    _signature("TCL", r"the following terms apply to all files associated with the software unless explicitly "
                      r"disclaimed in individual files"),
    _signature("Beerware", r"as long as you retain this notice you can do whatever you want with this stuff"),
    # RSA Data Security's notice on its MD4/MD5 code (tcllib's md5.c): SPDX RSA-MD.
    _signature("RSA-MD", r"license to copy and use this software is granted provided that it is identified as the "
                         r"rsa data security inc md[45] message digest algorithm"),
    _signature("BlueOak-1.0.0", r"blue oak model license"),
    _signature("NCSA", r"university of illinois ncsa open source license"),
    _signature("Artistic-2.0", r"the artistic license 2 0"),
    _signature("CC-BY-4.0", r"creative commons attribution 4 0"),
    _signature("CC-BY-SA-4.0", r"creative commons attribution sharealike 4 0"),
    _signature("CC-BY-NC-4.0", r"creative commons attribution noncommercial 4 0"),
    _signature("CC-BY-NC-SA-4.0", r"creative commons attribution noncommercial sharealike 4 0"),
    _signature("SSPL-1.0", r"server side public license"),
    # The SIL Open Font License grants in MIT's words ("...to any person obtaining a copy of the Font Software").
    _signature("OFL-1.1", r"sil open font license version 1 1"),
    # The FSF's all-permissive notices on Autoconf and Automake files (configure scripts, m4 macros).
    # (also "of this script": picorv32's linker scripts); without its sentence "This file is offered as-is, without any
    # warranty", SPDX's FSFAP-no-warranty-disclaimer.
    _signature("FSFAP", _FSFAP, (r"offered as is without any warranty",)),
    _signature("FSFAP-no-warranty-disclaimer", _FSFAP),
    # FSFUL on a configure script, and in its words on Autoconf's INSTALL ("This file is free documentation").
    _signature("FSFUL", r"this (?:configure script|file) is free (?:software|documentation) the free software "
                        r"foundation gives unlimited permission to copy distribute and modify it"),
    # Automake's Makefile.in notice is FSFULLR's with a warranty disclaimer "to the extent permitted by law".
    _signature("FSFULLRWD", _FSFULLR, (r"without any warranty to the extent permitted by law",)),
    _signature("FSFULLR", _FSFULLR),
    _signature("BUSL-1.1", r"business source license"),
    # SQLite's blessing in place of a license: the author disclaims copyright (SPDX "blessing").
    _signature("blessing", r"the authors? disclaims? copyright to this source code in place of a legal notice here "
                           r"is a blessing"),
    # The LaTeX Project Public License, named with its version in a notice ("distributed under the conditions of the
    # LaTeX Project Public License, either version 1.2 of this license or (at your option) any later version").
    # "version 1.3" without its letter is 1.3c, the 1.3 the LaTeX Project publishes.
    *(_signature(f"LPPL-{v}", rf"latex project public license (?:lppl )?(?:either )?(?:version |v ?){pattern}\b")
      for v, pattern in (("1.3a", "1 3a"), ("1.3c", "1 3c?"), ("1.2", "1 2"), ("1.1", "1 1"), ("1.0", "1 0"))),
)


def _literal_word(literal: str, counts: collections.Counter) -> str:
    """The whole word inside a signature's literal (its first and last pieces may be parts of words) that the fewest
    other literals hold, the longest of those: a word stream holding the literal holds it as a word, so a set of the
    stream's words screens the literals."""
    inner = literal.split(" ")[1:-1]
    return min(inner, key=lambda word: (counts[word], -len(word))) if inner else ""


def _literal_words() -> tuple[tuple[str, str], ...]:
    literals = tuple(dict.fromkeys(s.literal for s in _SIGNATURES))
    counts = collections.Counter(word for literal in literals for word in set(literal.split(" ")[1:-1]))
    return tuple((_literal_word(literal, counts), literal) for literal in literals)


# The signatures' distinct literals, each with the word it needs: a head's words screen them at a set lookup each.
_LITERAL_WORDS = _literal_words()


def _possible_signatures(words: str) -> list[_Signature]:
    """The signatures whose literal ``words`` holds, in ``_SIGNATURES``' order."""
    present = frozenset(words.split(" "))
    held = {literal for word, literal in _LITERAL_WORDS if (not word or word in present) and literal in words}
    return [s for s in _SIGNATURES if s.literal in held]


# The primary license starts within the first 100k characters; the rest is bundled notices.
_MAX_TEXT_CHARS = 100_000
# Conditions sit within a few thousand characters of the grant (MIT ~1k, BSD ~1.5k).
_WINDOW_CHARS = 4_000
# A file this short is a name ("MIT", "Apache-2.0"), not a license text.
_SHORT_FILE_CHARS = 120


def _signature_position(signature: _Signature, words: str) -> int | None:
    """Start of the first anchor whose window (up to the next same anchor) fits the signature."""
    if signature.literal not in words:
        return None  # ~10x cheaper than the anchor's search, and most heads hold no license text
    starts = [match.start() for match in signature.anchor.finditer(words)]
    for start, following in zip(starts, [*starts[1:], len(words)][: len(starts)], strict=True):
        window = words[start : min(following, start + _WINDOW_CHARS)]
        if all(p.search(window) for p in signature.required) and not any(p.search(window) for p in signature.forbidden):
            return start
    return None


# Also "the GNU Public License" (FreeDOS's boot32lb.asm: "under the terms of the GNU Public License (GPL), version 2 or
# newer"), a common name for the GPL; not the "Lisp Lesser GNU Public License" (the LLGPL) nor a "Lesser GNU ..." one.
# Also without "Public" (LASzip's heads: "under the terms of the GNU Lesser General Licence as published by the Free
# Software Foundation").
_GNU_NAME = re.compile(r"(?<!lesser )(?<!library )gnu (affero |lesser |library )?(?:general public|general|public) license")
_GNU_VERSIONS = {
    "affero ": {"3": "AGPL-3.0"},
    "lesser ": {"2": "LGPL-2.0", "2.1": "LGPL-2.1", "3": "LGPL-3.0"},
    "library ": {"2": "LGPL-2.0", "2.1": "LGPL-2.1"},
    "": {"1": "GPL-1.0", "2": "GPL-2.0", "3": "GPL-3.0"},
}
_GNU_VERSION = re.compile(r"\b(?:version |v ?)(\d)(?: (\d)(?!\d))?\b")
_GNU_BARE_VERSION = re.compile(r" (\d)(?: (\d)(?!\d))?\b")  # "the GNU General Public License 2 as published by ..."
_GNU_UNVERSIONED = {
    "affero ": "AGPL-3.0",
    "lesser ": "LGPL-2.0-or-later",
    "library ": "LGPL-2.0-or-later",
    "": "GPL-1.0-or-later",
}
# What a GNU name without its version reads as ("the GNU Lesser General Public License": any version); AGPL has one.
UNVERSIONED_GNU = frozenset({"LGPL-2.0-or-later", "GPL-1.0-or-later"})


# The words between a GNU license's name and its version in a notice ("... as published by the Free Software Foundation;
# either version 2"); a gap of other words is another sentence.
_GNU_NOTICE_TEXT = """as published by the free software foundation fsf inc either version v gpl lgpl agpl a an license
of or and at your option any later only in its is are under terms conditions you can it this program library s
http https www gnu org licenses html htm en txt"""  # and its address (QSim's title: "(https://www.gnu.org/licenses/gpl-3.0.en.html)")
_GNU_NOTICE_WORDS = frozenset(_GNU_NOTICE_TEXT.split())


def _gnu_text(words: str) -> tuple[int, str] | None:
    """Position and id of the first GNU license named in a text, with -or-later when a notice says so.

    The canonical texts end with a "How to Apply These Terms" appendix holding a sample "or (at
    your option) any later version" notice, so that appendix is cut before looking for the notice.
    """
    match = _GNU_NAME.search(words)
    if not match:
        return None
    while (again := _GNU_NAME.search(words, match.end(), match.end() + 60)) and again.group(1) == match.group(1):
        match = again  # the name repeated as a heading's title (QSim's gpl-3.0.md: "GNU General Public License {#lnk_GPL3}")
    family = match.group(1) or ""
    # The version follows the name closely, in a title or in "... as published by the FSF; either version 2".
    version = _GNU_VERSION.search(words[match.end() : match.end() + 100])
    if version and len(set(words[match.end():match.end() + version.start()].split()) - _GNU_NOTICE_WORDS) > 3:
        version = None  # a version of something else, sentences later (SLIME's swank-kawa.scm: "... General Public
        # License as distributed with Emacs (press C-h C-c for details). Installation: 1. You need Kawa (version 2.x)")
    after = match.end() + version.end() if version else 0
    if version is None and (version := _GNU_BARE_VERSION.match(words, match.end())):
        after = version.end()
    if not version:
        return match.start(), _GNU_UNVERSIONED[family]
    number = version.group(1) + (f".{version.group(2)}" if version.group(2) else "")
    base = _GNU_VERSIONS[family].get(number) or _GNU_VERSIONS[family].get(version.group(1))
    if base is None:
        return match.start(), _GNU_UNVERSIONED[family]
    body = words.split("how to apply these terms", 1)[0]
    if second := _SECOND_GNU.match(words, after):  # "either version 3 of the License, LGPL version 2.1, or ..."
        later = "-or-later" if re.match(r" or (?:at your option )?any later version of the (?:gnu )?gpl\b", words[second.end():]) else ""
        other = _license_from_name(f"{second.group(1)} {second.group(2)}{'.' + second.group(3) if second.group(3) else ''}")
        return match.start(), combine([f"{base}{later}", other], "OR") if other else f"{base}{later}"
    later = re.search(r"version \d(?: \d)?(?: of the license)? or (?:at your option )?(?:any )?(?:later|newer)\b", body)
    return match.start(), f"{base}-or-later" if later else base


# The FSF's translations of a GNU notice ("Dieses Programm ist freie Software. Sie können es unter den Bedingungen der
# GNU General Public License ... weitergeben ... gemäß Version 3 der Lizenz oder (nach Ihrer Option) jeder späteren
# Version"; "... selon les termes de la Licence Publique Générale GNU ... soit la version 2 de la licence, soit (à votre
# gré) toute version ultérieure"; Spanish, Italian, Portuguese, Russian, Chinese and Japanese alike): the license's name
# in the notice's language (or English, which German and Dutch notices keep), the version after it, and the words for
# "or later". Read on accent-free lower-case text (``_plain_letters``); CJK names as the translations spell them.
_GNU_FOREIGN_NAME = re.compile(
    r"gnu (?P<en>affero |lesser |library )?general public licen[cs]e"
    r"|licen[cs]e publique generale (?P<fr>limitee |amoindrie |affero |pour bibliotheques )?(?:de |du projet )?gnu"
    r"|licencia publica generala? (?P<es>reducida |menor |affero |de bibliotecas )?(?:de |del proyecto )?gnu"
    r"|licen[cz]a publica (?:geral|xeral) (?P<pt>menor |reduzida |affero )?(?:do |de |da )?(?:projecto |projeto )?gnu"
    r"|licenza pubblica generica? (?P<it>attenuata |minore |affero )?(?:di |del progetto )?gnu"
    r"|(?P<ru>меньш\w* |ограниченн\w* )?(?:стандартн\w* )?общественн\w* лицензи\w* (?:\w+ )?gnu"
    r"|gnu ?(?P<zh>宽松|較寬鬆|较宽松|宽|寬|lesser ?|affero ?)?通用公共(?:许可证|授權|授权|許可證|许可协议|許可)"
    r"|gnu ?(?P<ja>劣等|affero ?)?一般公衆利用許諾")
_FOREIGN_FAMILY = {"affero": "affero ", "lesser": "lesser ", "library": "library ", "limitee": "lesser ", "amoindrie": "lesser ",
                   "pour bibliotheques": "library ", "reducida": "lesser ", "menor": "lesser ", "de bibliotecas": "library ",
                   "reduzida": "lesser ", "attenuata": "lesser ", "minore": "lesser "}
_FOREIGN_VERSION = re.compile(
    r"(?:version|versione|versao|versie|wersji|wersja|verze|версии|версия|版本|バージョン|第)[ \t]*([123])(?:[.,]([01]))?(?![\d.])"
    r"|\b([123])(?:[.,]([01]))? (?:der|de la|della|da|van de|de) (?:lizenz|licen|licencia|licenza|licença|licentie)")
_FOREIGN_LATER = re.compile(r"spateren|spaeteren|neueren|ulterieure|posterior|successiva|successive|superiore|nieuwere|"
                            r"latere|pozniejsz|novejsi|senere|senare|myohemman|поздн|以后|以後|之后|之後|以降|later")
_FOREIGN_WINDOW = 300
# What a notice in another language says beside a GNU name it keeps in English (German's, Dutch's, Polish's): "free
# software", "license", "pass on"/"redistribute" in those languages (accent-free, as ``_plain_letters`` spells them).
_FOREIGN_WORDS = re.compile(r"freie software|logiciel libre|software libre|software libero|software livre|vrije software|"
                            r"wolne oprogramowanie|svobodny software|fri programvara|lizenz|licentie|licencji|licencia|"
                            r"licenza|licenca|лиценз|bedingungen|weitergeben|redistribuer|redistribuirlo|ridistribuirlo|"
                            r"redistribui|自由软件|フリーソフトウェア")


# Words one of which an ASCII-only notice in another language holds (German written without umlauts, French or Spanish
# without accents).
_ASCII_FOREIGN = ("lizenz", "freie software", "bedingungen", "weitergeben", "logiciel", "licence publique", "licencia",
                  "licenza", "licenca", "software libre", "software livre", "software libero", "vrije software",
                  "licentie", "licencji")


def _plain_letters(text: str) -> str:
    """``text`` lower-cased, its accents dropped, every run of anything but letters and digits one space (CJK kept)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not "\u0300" <= c <= "\u036f")
    folded = unicodedata.normalize("NFKC", folded)  # kana keep their voicing marks
    return re.sub(r"[\W_]+", " ", folded)


def translated_gnu_notice(text: str) -> str | None:
    """The GNU license a notice in one of the FSF's translations states (``_GNU_FOREIGN_NAME``), with its version and
    "or later" where the notice gives them; None where it names none. A name without a version is the family's any
    version (``_GNU_UNVERSIONED``: SPIP's "Ce programme est un logiciel libre distribue sous licence GNU/GPL")."""
    low = text.lower()
    if low.isascii() and not any(word in low for word in _ASCII_FOREIGN):
        return None  # an English head (most that name GNU without a notice the English readers take)
    plain = _plain_letters(text)
    named = _GNU_FOREIGN_NAME.search(plain)
    if named is None:
        plain = plain.replace("gnu gpl", "gnu general public license").replace("gnu lgpl", "gnu lesser general public license")
        if (named := _GNU_FOREIGN_NAME.search(plain)) is None:
            return None
    if named.group(0).startswith("gnu ") and named.group(0).endswith(("license", "licence")) \
            and not _FOREIGN_WORDS.search(plain, max(0, named.start() - 200), named.end() + 200):
        return None  # the English name in an English text: the English readers' (a name alone is no notice there)
    said = next((g for g in named.groups() if g), "").strip()
    family = "affero " if "affero" in said else _FOREIGN_FAMILY.get(said, "lesser " if said else "")
    window = plain[max(0, named.start() - 60):named.end() + _FOREIGN_WINDOW]
    version = _FOREIGN_VERSION.search(window)
    if version is None:
        return _GNU_UNVERSIONED[family]
    major, minor = (version.group(1), version.group(2)) if version.group(1) else (version.group(3), version.group(4))
    base = _GNU_VERSIONS[family].get(f"{major}.{minor}" if minor and minor != "0" else major) or _GNU_VERSIONS[family].get(major)
    if base is None:
        return _GNU_UNVERSIONED[family]
    return f"{base}-or-later" if _FOREIGN_LATER.search(window, version.start()) else base


# Two licenses a notice offers "under both", each named with its address, and says the user chooses between (jqPlot's
# "available for use ... under both the MIT (http://www.opensource.org/licenses/mit-license.php) and GPL version 2.0
# (http://www.gnu.org/licenses/gpl-2.0.html) licenses. This means that you can choose the license that best suits").
_UNDER_BOTH = re.compile(r"\bunder both (?:the )?(?P<a>[a-z][\w ]{0,30}?) and (?:the )?(?P<b>[a-z][\w ]{0,30}?) licenses "
                         r"(?:\w+ ){0,6}?(?:choose|select)\b")
_IN_PARENTHESES = re.compile(r"\([^()\n]*://[^()\n]*\)")


def _both_licenses(head: str) -> str | None:
    """The OR of the two licenses a head offers "under both ... you can choose" (``_UNDER_BOTH``), each read by name
    with its version, or None."""
    said = _UNDER_BOTH.search(_words(_IN_PARENTHESES.sub(" ", head)))
    if said is None:
        return None
    named = [_license_from_name(_spelled(f"{name} license")) for name in (said["a"], said["b"])]
    return combine(named, "OR") if all(named) and len(set(named)) == 2 else None


# A GNU notice's version clause naming a second GNU license with its own version, as another choice: MCAD's
# metric_fastners.scad, "the GNU General Public License ... either version 3 of the License, LGPL version 2.1, or (at
# your option) any later version of the GPL" (GPL-3.0-or-later OR LGPL-2.1).
_SECOND_GNU = re.compile(r" of the license (?:the )?(?:gnu )?([al]?gpl) (?:version |v ?)(\d)(?: (\d)(?!\d))?\b")


_SPDX_IDENTIFIER = re.compile(r"SPDX-License-Identifier:\s*(.+?)\s*(?:\*/|-->|$)", re.MULTILINE)


def _identifier_line(head: str) -> tuple[int, str] | None:
    """The first ``SPDX-License-Identifier:`` line, positioned in ``_words`` coordinates."""
    for match in _SPDX_IDENTIFIER.finditer(head):
        if expression := normalize_license(match.group(1), spdx_field=True):
            return len(_words(head[: match.start()])), expression
    return None


# A license document that states the project's license and then quotes the texts of the components it excepts
# (rapidjson's license.txt: "RapidJSON source code is licensed under the MIT License, except for the third-party
# components listed below which are subject to different license terms", then msinttypes' BSD text, json.org's...):
# the statement is the document's license, not the first text quoted below it.
_EXCEPT_COMPONENTS = re.compile(r"\b(?:is|are) licensed under (?:the )?(?P<name>[\w .+-]{2,40}?) licen[cs]e except "
                                r"(?:for )?(?:the )?(?:third party |bundled |following )?(?:components|libraries|files|"
                                r"code|software|dependencies)\b")
_EXCEPT_CHARS = 2_000


def _stated_with_exceptions(words: str) -> str | None:
    match = _EXCEPT_COMPONENTS.search(words[:_EXCEPT_CHARS])
    return named_license_of(f"{match.group('name')} license") if match else None


def _license_from_text(text: str) -> str | None:
    """The primary license of a license file's text: whichever known text or SPDX line starts first.

    Position ties (variants sharing an anchor) go to the earlier, more specific table entry; an
    SPDX identifier line beats a text at the same place.
    """
    head = text[:_MAX_TEXT_CHARS]
    words = _words(head)
    if stated := _stated_with_exceptions(words):
        return stated
    # (position, order, license, where its text ends, whether it may be a part after another text)
    found = [
        (position, order, s.spdx, _text_end(s, words, position), _quoted_text(s, words, position))
        for order, s in enumerate(_SIGNATURES)
        if s.literal in words and (position := _signature_position(s, words)) is not None
    ]
    if (gnu := _gnu_text(words)) is not None:  # a GNU text quotes notices to its end
        found.append((gnu[0], len(_SIGNATURES), gnu[1], len(words), _GNU_OWN_TEXT.match(words, gnu[0]) is not None))
    if (identifier := _identifier_line(head)) is not None:
        found.append((identifier[0], -1, identifier[1], identifier[0], True))
    # A dedication to the public domain is the text's license where nothing else is, or where the text then offers a
    # license beside it (hdr_histogram's "also provided under the following license": CC0-1.0 OR BSD-2-Clause), or a
    # part the text says so of before the first text it quotes (DejaVu's "DejaVu changes are in public domain", above
    # Bitstream Vera's text; not a folder's, which the folder's rules give: pcre2's "The data in the testdata directory").
    chosen = _choice(words[:_CHOICE_CHARS])
    public = public_domain(words, [f[2] for f in found])
    preamble = None
    if public and (not found or chosen):
        found.append((public[0], len(_SIGNATURES), public[1], public[0], False))
    elif public and public[0] < min(found)[0] and not _FOLDER_WORDS.search(words[max(0, public[0] - 120):public[0]]):
        preamble = (public[0], len(_SIGNATURES), public[1], public[0], True)
    if not found:
        primary = _license_mention(text, words)
    elif chosen or _ALTERNATIVE_PARTS.search(words[:_CHOICE_CHARS]) or _alternatively(words[:_NOTICE_CHARS]):
        # a choice between the texts: the first, with the names offered beside it (below), or each quoted alternative
        primary = _alternative_texts(found) if _ALTERNATIVE_PARTS.search(words[:_CHOICE_CHARS]) else min(found)[2]
    elif len({spdx for _, order, spdx, _, part in found if part and order >= 0}) >= _COLLECTION_TEXTS:
        primary = min(found)[2]  # a project's text, then its bundled components' (Pillow's, pyarrow's): the first
    else:
        primary = _texts_in_turn([*found, preamble] if preamble else found, words)
    named = _offered_names(words) if primary else ()
    primary = combine([primary, *named], "OR") if named else primary
    if "acm" in words and _ACM_TERMS.search(words):  # CDFLIB90's "code from ACM publications is subject to the ACM policy"
        return combine([primary, ACM_SLA]) if primary else ACM_SLA
    return primary


def _text_end(signature: _Signature, words: str, position: int) -> int:
    """Where the text found at ``position`` ends: past the last of its required clauses."""
    window = words[position:position + _WINDOW_CHARS]
    return position + max((m.end() for p in signature.required if (m := p.search(window))), default=0)


def _quoted_text(signature: _Signature, words: str, position: int) -> bool:
    """Whether the text found at ``position`` is a license's own text or a notice putting something under it, not a
    name another text mentions (MPL-2.0's "Secondary License" section names the GNU licenses; EUPL's appendix, its
    compatible licenses)."""
    return signature.spdx not in _NAMED_ONLY or _NOTICE_VERB.search(words[max(0, position - 60):position]) is not None


# A GNU license's own text, its title then "Everyone is permitted to copy and distribute verbatim copies", or a notice
# under it: a part of its own where another text comes first.
_GNU_OWN_TEXT = re.compile(r"gnu (?:affero |lesser |library )?general public license (?:\S+ ){0,12}?everyone is permitted to "
                           r"copy and distribute verbatim copies")
_FOLDER_WORDS = re.compile(r"\b(?:directory|directories|folder|folders)\b")
# stb's LICENSE: "ALTERNATIVE A - MIT License ... ALTERNATIVE B - Public Domain (www.unlicense.org)": a choice of texts.
_ALTERNATIVE_PARTS = re.compile(r"\balternative a\b")


def _texts_in_turn(found: list[tuple[int, int, str, int, bool]], words: str) -> str:
    """The license of a text holding one or more license texts one after the other (DejaVu's LICENSE: Bitstream
    Vera's, then Arev's; go-yaml's MIT text, then its Apache notice), AND: a text is a part of its own where it follows
    the one before closely, past that one's warranty disclaimer, with a copyright line of its own between them
    (``_next_part``). A dedication to the public domain before the first text is a part. Not parts: a variant found
    inside an earlier text (BSD-2's clauses in BSD-3's, zlib's in bzip2's, PHP's BSD-like clauses before its
    disclaimer), a name a text mentions (``_quoted_text``), the first text's license restated (the GFDL's sample
    notice), and a text introduced as another project's (jq's COPYING: "jq incorporates David M. Gay's dtoa.c and
    g_fmt.c, which bear the following notices"; Apache projects' appended third-party texts), which speak for those
    files, not the folder. Position ties go to the earlier, more specific table entry."""
    texts: list[str] = []
    end, text_seen = -1, False
    for position, order, spdx, text_end, part in sorted(found):
        if texts and not (position > end and part and (not text_seen or _next_part(words, end, position))):
            continue
        if not texts or not (license_ids(spdx) & license_ids(combine(texts)) or _same_family(spdx, texts)):
            texts.append(spdx)
        text_seen = text_seen or order >= 0 and spdx not in (PUBLIC_DOMAIN, "CC0-1.0")  # a text, not a dedication or tag
        end = max(end, text_end)
    return combine(texts)


def _next_part(words: str, end: int, position: int) -> bool:
    """Whether a text at ``position`` starts a part of its own after a text whose clauses end at ``end``: the
    earlier text's disclaimer lies between them, and what follows that disclaimer is a short stretch holding a
    copyright line, introducing no other project."""
    disclaimers = [m.end() for m in _DISCLAIMED.finditer(words, end, position)] if end >= 0 else []
    if not disclaimers:
        return False
    gap = words[disclaimers[-1]:position]
    return len(gap) <= _PART_GAP_CHARS and "copyright" in gap and not _INCORPORATED.search(gap)


# Three or more texts of different licenses make a collection of the texts of the components a project bundles.
_COLLECTION_TEXTS = 3
# A license text's warranty disclaimer: where the text before a second one ends.
_DISCLAIMED = re.compile(r"\bas is\b|\bwithout (?:any )?(?:express or implied )?warranty\b")
_PART_GAP_CHARS = 600
# Words that introduce another project's text below a document's own: the files it covers are that project's.
_INCORPORATED = re.compile(r"\b(?:incorporates?|incorporated|includes?|included|including (?!but not)|bundles?|bundled|contains?|"
                           r"embeds?|embedded|ships?|uses|based on|derived from|portions?|third party|following notices?|"
                           r"components?|libraries|library|modules?|dependencies|following files|these files|"
                           r"files listed|following licen[cs]es?|following copyright)\b")


def _same_family(spdx: str, texts: list[str]) -> bool:
    """Whether ``spdx`` restates a license of ``texts`` with another version or suffix (GFDL-1.3, then its sample
    notice's GFDL-1.3-or-later)."""
    base = re.sub(r"(?:-only|-or-later|\+)$", "", spdx)
    return any(re.sub(r"(?:-only|-or-later|\+)$", "", t) == base for t in texts)


def _alternative_texts(found: list[tuple[int, int, str, int, bool]]) -> str:
    """The OR of the texts a document offers as alternatives (stb's "ALTERNATIVE A", "ALTERNATIVE B")."""
    texts, end = [], -1
    for position, _, spdx, text_end, part in sorted(found):
        if not texts or position > end and part:
            texts.append(spdx)
            end = max(end, text_end)
    return combine(texts, "OR")


# The ACM's terms for the algorithms it publishes (Collected Algorithms of the ACM, TOMS): its Software License
# Agreement's text ("All software, both binary and source published by the Association for Computing Machinery ... is
# copyrighted by the Association", ScanCode's acm-sla: noncommercial use), or a sentence putting code under it.
ACM_SLA = "LicenseRef-acm-sla"
_ACM_TERMS = re.compile(r"\b(?:subject to the (?:acm software license agreement|acm (?:software |algorithms )?policy)"
                        r"|all software both binary and source published by the association for computing machinery)\b")


def _offered_names(words: str) -> tuple[str, ...]:
    """The licenses a text's opening choice names without quoting them: Ruby's COPYING, "under either the terms of
    the 2-clause BSDL (see the file BSDL), or the conditions below" (its conditions are the text; BSDL a file that
    is not named like a license file)."""
    choice = _choice(words[:_CHOICE_CHARS]) or _alternatively(words[:_NOTICE_CHARS])
    if choice is None:
        return ()
    # a list after "any of the following licenses" names each with its address and notes (CKEditor's three)
    listed = choice.group(0).endswith("following licenses")
    window = words[choice.end():choice.end() + (_LISTED_OFFER_CHARS if listed else _OFFER_CHARS)]
    window = _spelled(window) if listed else window  # "version 2 1 or later": 2.1
    return tuple(dict.fromkeys(resolve(window, match) for pattern, resolve in _NAME_FAMILIES
                               if (match := pattern.search(window)) and resolve(window, match) not in _NOT_OFFERED))


_OFFER_CHARS = 120
_LISTED_OFFER_CHARS = 400
# A text that, after quoting its license, offers another by name: libev's and liblzf's "Alternatively, the contents of
# this package may be used under the terms of the GNU General Public License ("GPL") version 2 or any later version".
# Also hostap's "Alternatively, this software may be distributed under the terms of BSD license" (jsonlite's base64.h).
_ALTERNATIVELY = re.compile(r"\balternatively (?:the contents of )?this (?:file|package|library|software|program|code|"
                            r"distribution) may be (?:used|distributed|redistributed) under (?:the terms of )?(?:either )?")
_NOT_OFFERED = frozenset({PROPRIETARY, PUBLIC_DOMAIN})


# "Licensed under the MIT License", "released under the terms of the BSD 3-Clause license".
_MENTION = re.compile(
    r"\b(?:licensed|released|distributed|available|provided) under (?:the )?(?:terms of (?:the )?)?"
    r"([a-z0-9 ]{1,40}?) license\b"
)


def _license_mention(text: str, words: str) -> str | None:
    """Fallback when no license text matched: a file that only names its license.

    Only used when nothing else matched, so a notice about bundled code never outranks a real text.
    """
    stripped = text.strip()
    if 0 < len(stripped) <= _SHORT_FILE_CHARS and (named := normalize_license(stripped)):
        return named
    if len(parts := _part_licenses(text)) > 1:
        return combine(parts)
    if cc := _CC_MENTION.search(words):  # psi-thesis-guide: "made available under the Creative Commons license CC BY-SA 4.0"
        return normalize_license(f"CC-{'-'.join(cc.group(1).split()).upper()}-{cc.group(2)}.{cc.group(3)}")
    if same := _SAME_TERMS.search(words):  # TclX's license.terms: "As with Tcl, all of Extended Tcl is freely redistributable"
        return _SAME_TERMS_AS[same.group(1) or same.group(2)]
    mention = _MENTION.search(words)
    return normalize_license(mention.group(1)) if mention else None


# A text listing a work's parts, each on its line with its own license: Font Awesome's README kept as its LICENSE.txt
# ("- The Font Awesome font is licensed under the SIL OFL 1.1:", "- Font Awesome CSS, LESS, and Sass files are licensed
# under the MIT License:", "- The Font Awesome documentation is licensed under the CC BY 3.0 License:"): all in force.
_PART_LICENSED = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?[^\n]{2,80}?\b(?:is|are) (?:licensed|released|distributed|available) "
                            r"under (?:the )?(?:terms of (?:the )?)?(?P<name>[^:\n]{2,50}?)[ \t]*(?::|\.(?!\d)|$)", re.MULTILINE)
_PART_LINES_CHARS = 5_000


def _part_licenses(text: str) -> list[str]:
    """The distinct licenses the lines of a text give its parts (``_PART_LICENSED``), where none offers a choice."""
    found = [normalize_license(said["name"]) for said in _PART_LICENSED.finditer(text, 0, _PART_LINES_CHARS)
             if not re.search(r"\b(?:or|either)\b", said["name"], re.IGNORECASE)]
    return list(dict.fromkeys(name for name in found if name))


# A Creative Commons license named by its short id after the family's name.
# Also the short id alone (esprit's src/res/LICENSE: "All files within this directory are licensed under [CC BY-NC-SA
# 4.0](https://creativecommons.org/licenses/by-nc-sa/4.0/legalcode)").
_CC_MENTION = re.compile(r"\b(?:licensed|released|distributed|available|provided) under (?:the )?(?:terms of (?:the )?)?"
                         r"(?:creative commons (?:license |licence )?(?:cc )?|cc )(by(?: (?:sa|nc|nd))*) (\d) (\d)\b")


# --------------------------------------------------------------------------------------------
# Package metadata. Every parser returns None on malformed input rather than raising.


def _license_field(value: str) -> str | None:
    """A free-text ``license`` field: a name when short, else (setuptools pastes them) a license text."""
    if "\n" in value.strip() or len(value) > 200:
        return _license_from_text(value)
    return normalize_license(value)


def _classifiers(classifiers: Iterable[str]) -> str | None:
    """``License :: OSI Approved :: MIT License`` classifiers; several mean all of them (AND)."""
    names = [c.split("::")[-1] for c in classifiers if c.strip().startswith("License ::")]
    return combine(normalize_license(name) for name in names) or None


def _from_core_metadata(text: str) -> str | None:
    """PKG-INFO / METADATA: License-Expression, else a License that names one, else classifiers."""
    headers = email.parser.HeaderParser().parsestr(text)  # stops at the blank line before the README
    expression = str(headers.get("License-Expression") or "")
    if expression and (found := normalize_license(expression, spdx_field=True)):
        return found
    license_value = str(headers.get("License") or "")
    if license_value and (found := _license_field(license_value)):
        return found
    return _classifiers(str(c) for c in headers.get_all("Classifier") or [])


def _from_setup_cfg(text: str) -> str | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if not parser.has_section("metadata"):
        return None
    metadata = parser["metadata"]
    for key in ("license_expression", "license"):
        if metadata.get(key) and (found := _license_field(metadata[key])):
            return found
    return _classifiers(metadata.get("classifiers", "").splitlines())


def _table(data: Any, *keys: str) -> dict:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _from_pyproject(text: str) -> str | None:
    """[project] license (PEP 639 string or PEP 621 {text}), classifiers, then [tool.poetry] license."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    project = _table(data, "project")
    declared = project.get("license")
    found = None
    if isinstance(declared, str):
        found = normalize_license(declared, spdx_field=True)
    elif isinstance(declared, dict) and isinstance(declared.get("text"), str):
        found = _license_field(declared["text"])  # {file = "LICENSE"} names no license: the file is evidence
    classifiers = project.get("classifiers")
    if not found and isinstance(classifiers, list):
        found = _classifiers(str(c) for c in classifiers)
    poetry = _table(data, "tool", "poetry").get("license")
    return found or (normalize_license(poetry, spdx_field=True) if isinstance(poetry, str) else None)


def _from_setup_py(text: str) -> str | None:
    for key in ("license_expression", "license"):
        match = re.search(rf"""\b{key}\s*=\s*(['"])(.+?)\1""", text)
        if match and (found := _license_field(match.group(2))):
            return found
    return _classifiers(re.findall(r"""['"](License ::[^'"]+)['"]""", text))


def _manifest_entry(value: Any) -> str | None:
    """One npm/composer license entry: "MIT", or a legacy {"type": "MIT"} object."""
    if isinstance(value, dict):
        value = value.get("type")
    if not isinstance(value, str) or value.upper().startswith("SEE LICENSE IN"):
        return None
    return normalize_license(value, spdx_field=True)


def _from_json_manifest(text: str, list_operator: str) -> str | None:
    """package.json / composer.json ``license`` (string, object or list) and npm's legacy ``licenses``."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or npm_init_default(data):
        return None
    declared = data.get("license", data.get("licenses"))
    if isinstance(declared, list):
        return combine((_manifest_entry(entry) for entry in declared), list_operator) or None
    return _manifest_entry(declared)


# What ``npm init`` writes when nobody answers: ISC, no author, and a test script that fails.
_NPM_DEFAULT_TEST = 'echo "Error: no test specified" && exit 1'


def npm_init_default(data: dict) -> bool:
    """Whether a package.json's license is ``npm init``'s default left as written ("ISC" beside an empty author and
    npm's failing test script): no one chose it (hugo's ``internal/warpc/js/package.json``), so it states nothing."""
    scripts = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
    return data.get("license") == "ISC" and not data.get("author") and (
        scripts.get("test") == _NPM_DEFAULT_TEST or data.get("description") == "")


def _from_cargo(text: str) -> str | None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    for table in (_table(data, "package"), _table(data, "workspace", "package")):
        if isinstance(table.get("license"), str):  # {workspace = true} defers to the workspace table
            return normalize_license(table["license"], spdx_field=True)
    return None


def _from_gemspec(text: str) -> str | None:
    """``spec.license = "MIT"`` or ``spec.licenses = ["MIT", "Ruby"]`` / ``%w[MIT Ruby]`` (AND)."""
    match = re.search(r"\.licenses?\s*=\s*(.+)", text)
    if not match:
        return None
    value = match.group(1)
    names = re.findall(r"""['"]([^'"]+)['"]""", value)
    if not names and (words := re.search(r"%w[\[(]([^\])]*)", value)):
        names = words.group(1).split()
    return combine(normalize_license(name, spdx_field=True) for name in names) or None


def _from_pom(text: str) -> str | None:
    """Maven ``<licenses><license><name>``; several entries are a choice (the POM reference says so)."""
    block = re.search(r"<licenses>(.*?)</licenses>", text, re.DOTALL)
    if not block:
        return None
    names = re.findall(r"<license>.*?<name>\s*(.*?)\s*</name>.*?</license>", block.group(1), re.DOTALL)
    return combine((normalize_license(name) for name in names), "OR") or None


def _field_names(value: str, table: dict[str, str | None] | None = None, operator: str = "AND") -> str | None:
    """The licenses a manifest's field lists as quoted strings (or one bare value), each read by name; ``table``
    spells an ecosystem's own names (Cabal's ``PublicDomain``, CPAN's ``perl_5``) first."""
    names = re.findall(r"""["']([^"']+)["']""", value) or [value.strip().strip(",;")]
    read = [table[n.lower()] if table and n.lower() in table else normalize_license(n, spdx_field=True) for n in names]
    return combine(read, operator) or None


# Cabal's legacy names that no family reading spells (``license: BSD3`` and ``GPL-3`` read by name).
_CABAL_NAMES: dict[str, str | None] = {"publicdomain": PUBLIC_DOMAIN, "allrightsreserved": PROPRIETARY,
                                       "otherlicense": None, "unspecifiedlicense": None}


def _from_cabal(text: str) -> str | None:
    """A ``*.cabal`` file's (or hpack's ``package.yaml``'s) top-level ``license:`` field."""
    field = re.search(r"^license\s*:[ \t]*(\S[^\n]*)$", text, re.IGNORECASE | re.MULTILINE)
    return _field_names(field.group(1), _CABAL_NAMES) if field else None


def _from_hpack(text: str) -> str | None:
    """hpack's ``package.yaml``: a Haskell package (``name:`` and ``license:`` at the top level)."""
    return _from_cabal(text) if re.search(r"^name\s*:", text, re.MULTILINE) else None


# ``ansible-galaxy role init``'s placeholder, "license (GPL-2.0-or-later, MIT, etc)", left in a role's meta: no choice.
_GALAXY_PLACEHOLDER = re.compile(r"^\s*license\s*\(", re.IGNORECASE)


def _from_galaxy_role(text: str) -> str | None:
    """An Ansible role's ``meta/main.yml``: ``galaxy_info: license:`` (dokku-ansible's copy of ansible_dokku, "MIT
    License"), the license of the role, the folder above ``meta/`` (``reuse.folder_licenses``); any other
    ``main.yml`` (a role's tasks, handlers...) states none."""
    if "galaxy_info" not in text:
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    info = data.get("galaxy_info") if isinstance(data, dict) else None
    declared = info.get("license") if isinstance(info, dict) else None
    if not isinstance(declared, str) or _GALAXY_PLACEHOLDER.match(declared):
        return None
    return normalize_license(declared)


def _from_galaxy(text: str) -> str | None:
    """Ansible Galaxy's collection manifest ``galaxy.yml``: ``license:`` one SPDX id or a list of them, the licenses of
    the collection's content (community.docker's GPL-3.0-or-later and Apache-2.0, each for its own files: AND);
    ``license_file`` names a text, which answers for itself."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    declared = data.get("license") if isinstance(data, dict) and "namespace" in data else None
    entries = declared if isinstance(declared, list) else [declared]
    return combine(normalize_license(entry, spdx_field=True) for entry in entries if isinstance(entry, str)) or None


def _from_mix(text: str) -> str | None:
    """Elixir's ``mix.exs``: the Hex package's ``licenses: ["Apache-2.0"]``."""
    field = re.search(r"\blicenses:\s*\[([^\]]*)\]", text)
    return _field_names(field.group(1)) if field else None


def _from_xml_field(*tags: str) -> Callable[[str], str | None]:
    """NuGet's ``<license type="expression">MIT</license>`` (a ``.nuspec``) or MSBuild's
    ``<PackageLicenseExpression>`` (a ``.csproj``); a ``type="file"`` license names a file, which answers itself."""
    def read(text: str) -> str | None:
        for tag in tags:
            field = re.search(rf"<{tag}(?:\s+type=\"expression\")?>\s*([^<]+?)\s*</{tag}>", text)
            if field:
                return normalize_license(field.group(1), spdx_field=True)
        return None
    return read


# R's DESCRIPTION: "MIT + file LICENSE", "GPL (>= 2)", "GPL-2 | GPL-3" (a choice).
def _from_description(text: str) -> str | None:
    """An R package's ``DESCRIPTION`` (``Package:`` and ``License:`` fields)."""
    field = re.search(r"^License:[ \t]*(.+(?:\n[ \t]+.+)*)", text, re.MULTILINE)
    if not field or not re.search(r"^Package:", text, re.MULTILINE):
        return None
    choices = [re.sub(r"\+?\s*file\s+LICEN[CS]E\b", "", part).strip() for part in field.group(1).split("|")]
    return combine((normalize_license(part) for part in choices if part), "OR") or None


# CPAN::Meta's license names (META.json, META.yml; Makefile.PL's LICENSE): Perl's own terms are a choice.
_CPAN_NAMES: dict[str, str | None] = {
    "perl": "Artistic-1.0-Perl OR GPL-1.0-or-later", "perl_5": "Artistic-1.0-Perl OR GPL-1.0-or-later",
    "artistic": "Artistic-1.0", "artistic_1": "Artistic-1.0", "artistic_2": "Artistic-2.0",
    "apache": "Apache-2.0", "apache_2_0": "Apache-2.0", "apache_1_1": "Apache-1.1", "mozilla_1_1": "MPL-1.1",
    "gpl": "GPL-1.0-or-later", "gpl_1": "GPL-1.0", "gpl_2": "GPL-2.0", "gpl_3": "GPL-3.0", "lgpl": "LGPL-2.0-or-later",
    "lgpl_2_1": "LGPL-2.1", "lgpl_3_0": "LGPL-3.0", "open_source": None, "unrestricted": None, "restricted": None,
    "unknown": None}


def _from_cpan_meta(text: str) -> str | None:
    """``META.json`` (``"license": ["perl_5"]``), ``META.yml`` (``license: perl``) or ``Makefile.PL``'s
    ``LICENSE => 'perl'``; several names in the list are all in force, as CPAN::Meta's spec says. PGXN's
    ``META.json`` (a PostgreSQL extension's) also names them as an object's keys, each with its address
    (pgTAP's ``"license": {"PostgreSQL": "https://www.postgresql.org/about/licence"}``)."""
    field = (re.search(r'"license"\s*:\s*(\[[^\]]*\]|"[^"]*"|\{[^}]*\})', text)
             or re.search(r"^license:[ \t]*(.+(?:\n[ \t]+- .+)*)$", text, re.MULTILINE)
             or re.search(r"""\bLICENSE\s*=>\s*(['"][^'"]+['"])""", text))
    if not field:
        return None
    names = (re.findall(r'"([^"]+)"\s*:', field.group(1)) if field.group(1).startswith("{")
             else re.findall(r"""["']([^"']+)["']""", field.group(1)) or re.findall(r"[\w.-]+", field.group(1)))
    return combine(_CPAN_NAMES[n.lower()] if n.lower() in _CPAN_NAMES else normalize_license(n) for n in names) or None


def _from_rockspec(text: str) -> str | None:
    """A LuaRocks ``*.rockspec``'s ``description = { license = "MIT" }``."""
    field = re.search(r"""\blicense\s*=\s*(["'][^"']+["'])""", text)
    return _field_names(field.group(1).replace("MIT/X11", "MIT")) if field else None  # LuaRocks' name for MIT


def _from_podspec(text: str) -> str | None:
    """A CocoaPods ``*.podspec``: ``s.license = 'MIT'`` or ``{ :type => 'MIT', :file => 'LICENSE' }``."""
    field = re.search(r"""\.license\s*=\s*(?:\{[^}]*?(?::type\s*=>|type:)\s*)?(["'][^"']+["'])""", text)
    return _field_names(field.group(1)) if field else None


def _from_opam(text: str) -> str | None:
    """An OCaml ``opam`` file's ``license: "MIT"`` or ``license: ["MIT" "ISC"]``."""
    field = re.search(r"^license:\s*(\[[^\]]*\]|\"[^\"]*\")", text, re.MULTILINE)
    return _field_names(field.group(1)) if field else None


# A Conan recipe that fetches its sources (``get(self, **self.conan_data["sources"]...)``, ``tools.get(``,
# ``download(``, a ``Git(self).clone``) packages another project: its ``license`` is that project's, not its folder's.
_CONAN_FETCHES = re.compile(r"(?:(?<![\w.])|\btools\.)(?:get|download)\(|conan_data\[|\.clone\(")


def _from_conanfile(text: str) -> str | None:
    """A Conan ``conanfile.py``'s class attribute ``license = "MIT"`` (or a tuple of names, each licensing part of
    the package: ANDed), where the recipe builds the folder it sits in; a recipe fetching another project's sources
    states that project's license."""
    if "ConanFile" not in text or _CONAN_FETCHES.search(text):
        return None
    field = re.search(r"^[ \t]+license\s*=\s*(\([^)]*\)|\[[^\]]*\]|\"[^\"\n]+\"|'[^'\n]+')", text, re.MULTILINE)
    return _field_names(field.group(1)) if field else None


_GRADLE_LICENSE = re.compile(r"^[ \t]*license\s*\{([^{}]*)\}", re.MULTILINE)
_GRADLE_NAME = re.compile(r"""^[ \t]*name(?:\.set\(|\s*=?\s*)\s*["']([^"'\n]+)["']""", re.MULTILINE)


def _from_gradle(text: str) -> str | None:
    """A Gradle build's Maven publication, ``licenses { license { name = "The Apache License, Version 2.0" } }`` (Groovy
    or Kotlin DSL; the POM's names, so several are a choice), or ``gradle.properties``' ``POM_LICENSE_NAME`` (the
    publishing plugins' property; also spelled ``POM_LICENCE_NAME``)."""
    block = re.search(r"\blicenses\s*\{", text)
    entries = _GRADLE_LICENSE.findall(text, block.end(), block.end() + 1_000) if block else []
    names = [name for entry in entries for name in _GRADLE_NAME.findall(entry)]
    names += re.findall(r"^POM_LICEN[CS]E_NAME\s*=\s*(\S[^\n]*?)\s*$", text, re.MULTILINE)
    return combine((normalize_license(name) for name in names), "OR") or None


def _from_sbt(text: str) -> str | None:
    """sbt's ``licenses := Seq("Apache-2.0" -> url(...))``, ``licenses += ("MIT", url(...))`` or
    ``licenses := Seq(License.Apache2)``; several are the published choice, as a POM's ``<licenses>``."""
    field = re.search(r"\blicenses\s*(?::=|\+\+?=)\s*(.+?)(?:\n\S|\Z)", text, re.DOTALL)
    value = field.group(1) if field else ""
    names = re.findall(r"""["']([^"']+)["']\s*(?:->|,)\s*url""", value)  # sbt's own constants: License.Apache2
    names += [name.replace("_", " ") for name in re.findall(r"\bLicense\.(\w+)", value)]
    return combine((normalize_license(n, spdx_field=True) for n in names), "OR") or None


def _from_dspec(text: str) -> str | None:
    """A Delphi package's ``*.dspec`` (DPM / Delphinus): ``"metadata": {"license": "MPL-1.1, LGPL-2.0+"}``; names a
    comma separates are the package's published choice, as a POM's ``<licenses>`` (Virtual TreeView's "double
    license: MPL 1.1 and LGPL 2.1"). Read by pattern: DPM's files are JSON with comments and trailing commas."""
    field = re.search(r'"metadata"\s*:\s*\{[^{}]*?"license"\s*:\s*"([^"]+)"', text)
    if field is None:
        return None
    return combine((_spelled_expression(name) for name in field.group(1).split(",") if name.strip()), "OR") or None


def _from_delphinus_info(text: str) -> str | None:
    """Delphinus' ``Delphinus.Info.json``: ``"license_type": "MPL-1.1"``."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    declared = data.get("license_type") if isinstance(data, dict) else None
    return normalize_license(declared, spdx_field=True) if isinstance(declared, str) else None


# "GPL v2 or later", "GNU GPL version 2 or (at your option) any later version": a version's range, not a second name.
_LATER_PART = re.compile(r"(?:\(at your option\) )?(?:any |a )?(?:later|newer|above|greater)\b", re.IGNORECASE)


def _spelled_expression(value: str) -> str | None:
    """A license field's value where the words "or"/"and" join names ("Apache License 2.0 or MIT", Nim's; dub's
    "GPL-2.0 or LGPL-3.0"): each name read on its own, joined by its operator; else the whole read as one name."""
    parts = re.split(r"\s+(or|and)\s+", value.strip(), flags=re.IGNORECASE)
    if len(parts) < 3 or len({op.lower() for op in parts[1::2]}) > 1 or any(_LATER_PART.match(p) for p in parts[2::2]):
        return normalize_license(value, spdx_field=True)
    names = [normalize_license(part, spdx_field=True) for part in parts[::2]]
    return None if None in names else combine(names, parts[1].upper())


def _line_field(pattern: str, operator: str = "AND") -> Callable[[str], str | None]:
    """A manifest's license field found by ``pattern`` (group 1: a quoted string, a list of them, or a bare
    value): one string read as an expression (``_spelled_expression``), a list's names joined by ``operator``."""
    field_pattern = re.compile(pattern, re.MULTILINE)

    def read(text: str) -> str | None:
        field = field_pattern.search(text)
        if field is None:
            return None
        names = re.findall(r"""["']([^"']+)["']""", field.group(1)) or [field.group(1).strip().strip(",;")]
        return combine((_spelled_expression(name) for name in names), operator) or None
    return read


def _from_leiningen(text: str) -> str | None:
    """Leiningen's ``project.clj``: ``:license {:name "Eclipse Public License" :url ".../epl-v10.html"}`` (or a
    ``:licenses`` vector of such maps); the name with the version its address carries (``epl-v10``: 1.0)."""
    field = re.search(r":licenses?\s+[\[{](.*?)(?:}\s*]|}|\])", text, re.DOTALL)
    if field is None:
        return None
    found = []
    for name in re.findall(r':name\s+"([^"]+)"', field.group(1)):
        url = re.search(r':url\s+"[^"]*?v(\d)(\d)\b', field.group(1))
        versioned = f"{name} {url.group(1)}.{url.group(2)}" if url and not re.search(r"\d", name) else name
        found.append(_spelled_expression(versioned))
    return combine(found, "OR") or None


def _from_toml_field(*tables: tuple[str, ...]) -> Callable[[str], str | None]:
    """A TOML manifest's ``license`` (or ``licenses``) string or list of strings, in the first of ``tables`` (key paths;
    ``()`` the top level) that has one: fpm's ``fpm.toml``, Alire's ``alire.toml``, Typst's and Scarb's
    ``[package]``, pixi's ``[workspace]``; a list's names ANDed, as Cargo's and npm's lists are."""
    def read(text: str) -> str | None:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        for keys in tables:
            declared = next((v for k in ("license", "licenses") if (v := _table(data, *keys).get(k)) is not None), None)
            names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
            if found := combine(_spelled_expression(n) for n in names if isinstance(n, str)):
                return found
        return None
    return read


def _from_json_addresses(text: str) -> str | None:
    """CodeMeta's ``codemeta.json``: ``"license"`` as SPDX's address ("https://spdx.org/licenses/MIT") or a name,
    one or a list (ANDed)."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    declared = data.get("license") if isinstance(data, dict) else None
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    return combine(address_license(n) or normalize_license(n, spdx_field=True) for n in names if isinstance(n, str)) or None


def _from_s_expression(text: str) -> str | None:
    """A Lisp-family manifest's license: dune's ``dune-project`` "(license MIT)" (SPDX ids, ANDed), ASDF's
    ``*.asd`` ``:license "MIT"``, Racket's ``info.rkt`` "(define license 'MIT)" (an SPDX expression, quoted)."""
    field = re.search(r"^\s*\(license\s+([^()\n]+)\)|:licen[cs]e\s+\"([^\"]+)\"|\(define\s+license\s+'(\([^()]*\)|[\w.+-]+)\)",
                      text, re.MULTILINE)
    if field is None:
        return None
    if field[1]:
        return combine(normalize_license(n.strip('"'), spdx_field=True) for n in field[1].split()) or None
    value = field[2] or field[3].strip("()")
    return _spelled_expression(value)


def _from_meson(text: str) -> str | None:
    """Meson's ``meson.build``: ``project(..., license : 'MIT')`` or a list, ``license: ['MIT', 'BSD-3-Clause']``
    (each file's licenses, ANDed); only in the ``project()`` call, which a subproject's file opens with too."""
    call = re.search(r"^project\s*\((.*?)^\)", text, re.MULTILINE | re.DOTALL) or re.search(r"^project\s*\(([^\n]*)\)", text, re.MULTILINE)
    field = re.search(r"\blicense\s*:\s*(\[[^\]]*\]|'[^']*')", call.group(1)) if call else None
    return _field_names(field.group(1)) if field else None


def _from_dist_ini(text: str) -> str | None:
    """Dist::Zilla's ``dist.ini``: ``license = Perl_5`` (Software::License's class names, CPAN's ``perl_5``;
    ``Apache_2_0`` is Apache 2.0)."""
    field = re.search(r"^license\s*=\s*([\w:]+)\s*$", text, re.MULTILINE)
    if field is None:
        return None
    name = field.group(1).rsplit("::", 1)[-1]
    return _CPAN_NAMES.get(name.lower()) or normalize_license(re.sub(r"(?<=\d)_(?=\d)", ".", name).replace("_", " "))


_METADATA_PARSERS: dict[str, Callable[[str], str | None]] = {
    "PKG-INFO": _from_core_metadata,
    "METADATA": _from_core_metadata,
    "setup.cfg": _from_setup_cfg,
    "setup.py": _from_setup_py,
    "pyproject.toml": _from_pyproject,
    "package.json": lambda text: _from_json_manifest(text, "AND"),
    "bower.json": lambda text: _from_json_manifest(text, "AND"),  # Bower's, also in each package it installs
    "composer.json": lambda text: _from_json_manifest(text, "OR"),  # composer documents arrays as a choice
    "Cargo.toml": _from_cargo,
    "pom.xml": _from_pom,
    "package.yaml": _from_hpack,
    "mix.exs": _from_mix,
    "DESCRIPTION": _from_description,
    "META.json": _from_cpan_meta,
    "META.yml": _from_cpan_meta,
    "Makefile.PL": _from_cpan_meta,
    "opam": _from_opam,
    "build.sbt": _from_sbt,
    "Directory.Build.props": _from_xml_field("PackageLicenseExpression"),
    "elm.json": lambda text: _from_json_manifest(text, "AND"),
    "vcpkg.json": lambda text: _from_json_manifest(text, "AND"),
    "haxelib.json": lambda text: _from_json_manifest(text, "AND"),
    "dub.json": lambda text: _from_json_manifest(text, "AND"),
    "dub.sdl": _line_field(r"^license\s+(\"[^\"]+\")"),
    "shard.yml": _line_field(r"^license:[ \t]*(\S[^\n#]*)$"),  # Crystal
    "gleam.toml": _line_field(r"^licen[cs]es\s*=\s*(\[[^\]]*\])"),  # Gleam spells it "licences"
    "v.mod": _line_field(r"^\s*license:\s*('[^']+'|\"[^\"]+\")"),
    "project.clj": _from_leiningen,
    "galaxy.yml": _from_galaxy,
    "main.yml": _from_galaxy_role,
    "main.yaml": _from_galaxy_role,
    "Delphinus.Info.json": _from_delphinus_info,
    "META6.json": lambda text: _from_json_manifest(text, "AND"),  # Raku
    "jsr.json": lambda text: _from_json_manifest(text, "AND"),
    "deno.json": lambda text: _from_json_manifest(text, "AND"),
    "library.json": lambda text: _from_json_manifest(text, "AND"),  # PlatformIO
    "elm-package.json": lambda text: _from_json_manifest(text, "AND"),  # Elm 0.18
    "codemeta.json": _from_json_addresses,
    "fpm.toml": _from_toml_field(()),  # Fortran
    "alire.toml": _from_toml_field(()),  # Ada
    "typst.toml": _from_toml_field(("package",)),
    "Scarb.toml": _from_toml_field(("package",)),  # Cairo
    "Move.toml": _from_toml_field(("package",)),
    "wally.toml": _from_toml_field(("package",)),  # Luau
    "pixi.toml": _from_toml_field(("workspace",), ("project",)),
    "dune-project": _from_s_expression,
    "info.rkt": _from_s_expression,
    "meson.build": _from_meson,
    "dist.ini": _from_dist_ini,
    "package.xml": _from_xml_field("license"),  # ROS
    "idf_component.yml": _line_field(r"^license:[ \t]*(\S[^\n#]*)$"),  # ESP-IDF's component manager
    "conanfile.py": _from_conanfile,
    "build.gradle": _from_gradle,
    "build.gradle.kts": _from_gradle,
    "gradle.properties": _from_gradle,
}
# Manifests named after their package: ``foo.gemspec``, ``foo.cabal``...
_METADATA_SUFFIXES: dict[str, Callable[[str], str | None]] = {
    ".gemspec": _from_gemspec,
    ".cabal": _from_cabal,
    ".nuspec": _from_xml_field("license"),
    ".csproj": _from_xml_field("PackageLicenseExpression"),
    ".rockspec": _from_rockspec,
    ".podspec": _from_podspec,
    ".opam": _from_opam,
    ".nimble": _line_field(r"^license\s*=\s*(\"[^\"]+\")"),
    ".dspec": _from_dspec,
    ".asd": _from_s_expression,  # ASDF
    ".fsproj": _from_xml_field("PackageLicenseExpression"),
    ".vbproj": _from_xml_field("PackageLicenseExpression"),
    ".podspec.json": lambda text: _from_json_manifest(text, "AND"),
}


_APPSTREAM = _from_xml_field("metadata_license")


def manifest_license(path: str, text: str) -> str | None:
    """The license field of the package manifest at ``path`` (``_metadata_parser``), or None for any other file: a
    manifest's own license is the one it declares, not a license its description mentions (RcppArmadillo's
    DESCRIPTION: "'Armadillo' is licensed under Apache License 2" in its prose, "License: GPL (>= 2)" its own)."""
    parts = _parts(path)
    if parts and parts[-1].endswith((".appdata.xml", ".metainfo.xml")):
        return _APPSTREAM(text)  # AppStream: the license of the metadata file itself (project_license is the project's)
    parser = _metadata_parser(parts[-1]) if parts and _describes_its_folder(parts) else None
    return parser(text) if parser else None


def _describes_its_folder(parts: tuple[str, ...]) -> bool:
    """Whether a manifest at ``parts`` describes the folder it is in. A ``meson.build``'s ``project()`` describes the
    project it builds: the root's, or a subproject's in Meson's ``subprojects/<name>/``; one in a build folder below
    the root (lz4's ``build/meson/``, "license: 'BSD-2-Clause-Patent AND GPL-2.0-or-later'") describes the repository,
    whose own texts answer for it."""
    return parts[-1] != "meson.build" or len(parts) == 1 or len(parts) == 3 and parts[0] == "subprojects"


def is_named_manifest(path: str) -> bool:
    """Whether ``path`` is a manifest named after its package (``foo.rockspec``, ``foo.gemspec``, ``foo.cabal``...)."""
    name = _parts(path)[-1] if _parts(path) else ""
    return any(name.endswith(suffix) and name != suffix for suffix in _METADATA_SUFFIXES)


def _metadata_parser(name: str) -> Callable[[str], str | None] | None:
    """The reader of a package manifest named ``name``, or None for any other file."""
    if name in _METADATA_PARSERS:
        return _METADATA_PARSERS[name]
    suffix = next((s for s in _METADATA_SUFFIXES if name.endswith(s) and name != s), None)
    return _METADATA_SUFFIXES[suffix] if suffix else None


# --------------------------------------------------------------------------------------------
# Public API.

# LICENSE, COPYING.md, LICENSE-MIT, mit-license.txt, OPEN-SANS-LICENSE.txt, a bundled project's ``fmt.license.rst``
# (a name, ``.license``, then an extension: a REUSE sidecar ``x.c.license`` ends in ``.license``) and the `vendoring`
# tool's ``python_dotenv.LICENSE`` (upper case: a sidecar's suffix is lower case). ``third_party_license.txt`` lists
# other projects' licenses: it is none of the repository's.
# The names the GNU project gives its texts (gnu.org/licenses/lgpl-2.1.txt: MCAD's root text), and gpl.txt.
_GNU_TEXT_NAME = re.compile(r"(?:[al]?gpl|fdl)(?:[-_]?v?\d(?:\.\d)?)?\.(?:txt|md)", re.IGNORECASE)
_LICENSE_FILE = re.compile(
    r"(?:licen[cs]e|copying|copyright|unlicense|eula)(?:[-._ ].*)?|legal(?:ities|ity)?(?:\.(?:txt|md))?"
    r"|(?!(?:third|3rd)[-_]?part)[a-z0-9][a-z0-9_-]*[-_]licen[cs]e(?:\.[a-z]+)?"
    r"|[a-z0-9][a-z0-9_-]*\.licen[cs]e\.(?:txt|md|rst|terms)|[A-Za-z0-9][\w-]*\.(?:LICENSE|LICENCE)"
    r"|" + _GNU_TEXT_NAME.pattern, re.IGNORECASE
)
_UPPER_SUFFIX = re.compile(r".*\.(?:LICENSE|LICENCE)")
# LICENSE.py, license.go... are code that happens to be named like a license file.
_CODE_EXTENSION_LIST = """
py pyc pyi js mjs cjs ts tsx jsx go rs java kt kts scala c h cc cpp hpp cs rb php swift m mm sh bash ps1 pl pm
lua r jl dart ex exs erl hs ml clj vue svelte json yaml yml toml xml ini cfg lock csv sql proto css scss
png jpg jpeg gif svg ico pdf
"""
_CODE_EXTENSIONS = frozenset(_CODE_EXTENSION_LIST.split())


# Each file's path is split by several of the readers ``reuse.own_license`` asks in turn.
@functools.lru_cache(maxsize=64)
def _parts(path: str) -> tuple[str, ...]:
    return tuple(part for part in path.replace("\\", "/").split("/") if part not in ("", "."))


# A folder's "licenses.txt" (plural) states the licenses of the folder's contents (JJA-input-playground's
# ``datafiles/licenses.txt``: SDL's zlib text for one data file, Chromium's BSD text for another); at the root the
# plural name usually lists dependencies, so it counts below the root only.
_PLURAL_LICENSE_FILE = re.compile(r"licen[cs]es(?:\.(?:txt|md))?", re.IGNORECASE)


def _is_license_file(parts: tuple[str, ...]) -> bool:
    name = parts[-1]
    if "." in name and name.rsplit(".", 1)[1].lower() in _CODE_EXTENSIONS:
        return False
    if len(parts) >= 2 and parts[-2] != "LICENSES" and _PLURAL_LICENSE_FILE.fullmatch(name):
        return True
    in_reuse_dir = len(parts) >= 2 and parts[-2] == "LICENSES"  # REUSE keeps LICENSES/<spdx-id>.txt
    if name.lower().endswith((".license", ".licence")) and not _UPPER_SUFFIX.fullmatch(name):
        return in_reuse_dir  # ``x.c.license``: a REUSE sidecar, not a license text
    return in_reuse_dir or bool(_LICENSE_FILE.fullmatch(name))


def _is_metadata_file(parts: tuple[str, ...]) -> bool:
    name = parts[-1]
    if name == "pom.xml":
        return len(parts) == 1  # nested poms are modules, often with licenses of their own
    return _metadata_parser(name) is not None and _describes_its_folder(parts)


# REUSE's per-path declarations (``filters.reuse`` reads them): rules, not one expression.
REUSE_RULE_FILES = (".reuse/dep5", "REUSE.toml")


def is_license_evidence(path: str) -> bool:
    """Whether a repository file can say what the repository's license is (root or one level down)."""
    parts = _parts(path)
    if parts and parts[-1].endswith(".license") and parts[-1] != ".license":
        return True  # a REUSE sidecar, ``<file>.license``, at any depth: that file's header
    if not parts or len(parts) > 2:
        return False
    return ("/".join(parts) in REUSE_RULE_FILES or _is_license_file(parts) or _is_metadata_file(parts)
            or len(parts) == 1 and _states_for_root(parts[0]))


def _states_for_root(name: str) -> bool:
    """Whether a root file of this name is a README or NOTICE: where no license text or manifest at the root states
    one, the license its license section (a README's) or its notice (a NOTICE's) states is the repository's."""
    return bool(_README_FILE.fullmatch(name) or _NOTICE_FILE.fullmatch(name))


_NOTICE_FILE = re.compile(r"NOTICE(?:[-._ ].*)?", re.IGNORECASE)


def is_notice_file(path: str) -> bool:
    """``NOTICE``, ``NOTICE.txt``...: attributions that name a folder's license when nothing else does."""
    name = _parts(path)[-1] if _parts(path) else ""
    return bool(_NOTICE_FILE.fullmatch(name)) and not ("." in name and name.rsplit(".", 1)[1].lower() in _CODE_EXTENSIONS)


# A document listing the licenses of the projects a repository copied (tcp_hw's ``THIRDPARTYLICENSES.md``,
# ``third_party_notices.txt``, ``3rd-party-licenses.md``): none of its own folder's, but the paths it names.
_THIRD_PARTY_NOTICES = re.compile(r"(?:third|3rd)[-_ ]?party[-_ ]?(?:licen[cs]es?|notices?)(?:\.(?:md|txt|rst|markdown))?",
                                  re.IGNORECASE)


def is_third_party_notices(path: str) -> bool:
    """Whether ``path`` names a document of other projects' licenses (``_THIRD_PARTY_NOTICES``)."""
    name = _parts(path)[-1] if _parts(path) else ""
    return bool(_THIRD_PARTY_NOTICES.fullmatch(name))


# What a license file named after something is named after: ``python_dotenv.LICENSE``, ``OPEN-SANS-LICENSE.txt``,
# ``LICENSE_FOXIT``. A license's name (LICENSE-MIT, LICENSE.APACHE), an extension (LICENSE.txt) or a word for the
# repository's own parts (LICENSE-CODE, LICENSE-docs) names no package.
_NAMED_AFTER = re.compile(r"(?P<before>[a-z0-9][\w-]*?)[-_.]licen[cs]e(?:\.(?:txt|md|rst|adoc|terms))?"
                          r"|licen[cs]e[-_.](?P<after>[a-z0-9][\w-]*?)(?:\.(?:txt|md|rst|adoc))?", re.IGNORECASE)
# ccache's root ``LICENSE.adoc`` is its license in AsciiDoc, not a package's named "adoc".
_NOT_A_SUBJECT = frozenset(["txt", "md", "rst", "adoc", "terms", "asciidoc", "org", "html", "markdown", "text", "rtf", "code", "docs", "doc", "documentation", "content", "data", "assets", "art", "header", "headers", "full", "short", "third", "thirdparty", "third_party", "3rdparty", "notice", "terms", "spdx"])


_LICENSE_WORDS = frozenset(["clause", "v", "only", "or", "later", "new", "simplified", "style", "license"])


def license_subject(path: str) -> str:
    """What a license file is named after, lower case alphanumerics (``python_dotenv.LICENSE`` -> "pythondotenv"), or
    "" for a plain name (``LICENSE``, ``LICENSE.txt``) or one naming a license (``LICENSE-MIT``, ``MIT-LICENSE``)."""
    name = _parts(path)[-1] if _parts(path) else ""
    match = _NAMED_AFTER.fullmatch(name)
    subject = (match.group("before") or match.group("after")) if match else ""
    words = re.findall(r"[a-z]+", subject.lower())
    if not words or subject.lower() in _NOT_A_SUBJECT or all(_license_from_name(w) or w in _LICENSE_WORDS for w in words):
        return ""
    return re.sub(r"[^a-z0-9]", "", subject.lower())


def license_name_word(path: str) -> str:
    """The word a license file's name adds to "LICENSE" (``LICENSE-openssl``, ``LICENSE.zlib``, ``MIT-LICENSE``), lower
    case alphanumerics, where ``license_subject`` finds none because the word names a license; "" for a plain name."""
    name = _parts(path)[-1] if _parts(path) else ""
    match = _NAMED_AFTER.fullmatch(name)
    word = (match.group("before") or match.group("after")) if match else ""
    return "" if not word or word.lower() in _NOT_A_SUBJECT or license_subject(path) else re.sub(r"[^a-z0-9]", "",
                                                                                               word.lower())


# Licenses whose own text defines their subject as fonts: the SIL Open Font License's "'Font Software' refers to the
# set of files released by the Copyright Holder(s) under this license", the font files it names by its Reserved Font
# Names. A folder's copy of such a text licenses the fonts in it, not the code beside them (nanovg-zig's
# examples/LICENSE_OFL.txt, "This Font Software is licensed under the SIL Open Font License", beside its Roboto fonts
# and its own example programs).
FONT_LICENSES = frozenset({"OFL-1.0", "OFL-1.0-RFN", "OFL-1.0-no-RFN", "OFL-1.1", "OFL-1.1-RFN", "OFL-1.1-no-RFN"})
# Font files and their sources (OpenType/TrueType, web fonts, PostScript Type 1 and metrics, bitmap fonts, FontForge's
# and Glyphs' sources).
FONT_EXTENSIONS = frozenset({"ttf", "otf", "ttc", "woff", "woff2", "eot", "pfa", "pfb", "pfm", "afm", "bdf", "pcf",
                             "fon", "fnt", "sfd", "glyphs", "ufo"})


def font_license(expression: str) -> bool:
    """Whether ``expression`` licenses only fonts (every id a ``FONT_LICENSES`` one)."""
    ids = license_ids(expression) if expression else frozenset()
    return bool(ids) and ids <= {name.lower() for name in FONT_LICENSES}


def is_font_file(path: str) -> bool:
    """Whether ``path`` is a font file or a font's source (``FONT_EXTENSIONS``), or lies in a ``*.ufo`` font folder."""
    parts = _parts(path)
    return any(part.rsplit(".", 1)[-1].lower() in FONT_EXTENSIONS for part in parts if "." in part)


def is_license_file(path: str) -> bool:
    """Whether ``path`` names a license text (``LICENSE``, ``COPYING.md``, ``LICENSE-MIT``, ``LICENSES/X.txt``...)."""
    parts = _parts(path)
    return bool(parts) and _is_license_file(parts)


def is_folder_license_evidence(path: str) -> bool:
    """Whether a file at any depth can say what license governs its folder: a license text, a NOTICE,
    or a package manifest (a nested ``pom.xml`` too: a module's own ``<licenses>``)."""
    parts = _parts(path)
    if len(parts) < 2 or parts[-1].endswith(".license") or parts[0] == "LICENSES" and len(parts) == 2:
        return False
    name = parts[-1]
    manifest = _metadata_parser(name) is not None and _describes_its_folder(parts)
    return _is_license_file(parts) or is_notice_file(path) or manifest or name == "REUSE.toml" or is_readme(path)


# A README's license section: a heading "License", "Licence", "Licensing", "Copyright" or "Copyright and License"
# (Markdown's ``#``, an underlined line, or the word alone on its line), its body to the next heading.
_README_FILE = re.compile(r"readme(?:\.(?:md|markdown|mkd|mdown|rst|txt|adoc|org))?", re.IGNORECASE)
_README_HEADING = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?(?:licen[cs](?:e|es|ing)|copyright(?: (?:and|&) licen[cs]e)?)"
                             r"[ \t:#]*\n(?:[ \t]*[-=~^*]{3,}[ \t]*\n)?", re.IGNORECASE | re.MULTILINE)
# Or a sentence introducing the license's text below it (pigz's README: "The license from pigz.c is copied here:",
# then zlib's text indented): a line naming the license and ending in a colon, read as the section's heading.
_README_INTRO = re.compile(r"^[^\n#]{0,80}\blicen[cs]e\b[^\n]{0,80}:[ \t]*\n", re.IGNORECASE | re.MULTILINE)
_NEXT_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]*\S|^[^\n]+\n[ \t]*(?:-{3,}|={3,})[ \t]*$", re.MULTILINE)
_README_SECTION_CHARS = 3_000


# A Markdown link's target inside a sentence ("the [LaTeX Project Public License](https://.../lppl.txt) (LPPL), version
# 1.3c or later", minted's README) splits the name from its version: the sentence is read with the link's text alone.
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")


# A Markdown license document's exceptions: a bullet linking paths of the repository under the license its heading names
# (termux-shared's LICENSE.md: "#### [GPLv2 only with "Classpath" exception](https://...)", then "- [`src/.../filesystem/*`]
# (src/main/java/com/termux/shared/file/filesystem) files that use code from libcore/ojluni"), or that the bullet itself
# names (termux-app's LICENSE.md, below "### Exceptions": "- [Terminal Emulator for Android](https://...) code is used
# which is released under [Apache 2.0](https://...) license. Check [`terminal-view`](terminal-view) and
# [`terminal-emulator`](terminal-emulator) libraries.").
_MD_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
_MD_BULLET = re.compile(r"^[ \t]{0,3}[-*+][ \t]+(.*)$")
_PATH_LINK = re.compile(r"\[[^\]\n]*\]\((?![a-z][\w+.-]*:|#|/)([^)\s]+)\)", re.IGNORECASE)
_UNDER_NAME = re.compile(r"\bunder (?:the )?(?:terms of (?:the )?)?[`*_]*([^`*_\n]{1,40}?)[`*_]* licen[cs]e\b", re.IGNORECASE)


def path_exceptions(path: str, text: str) -> list[tuple[str, str]]:
    """``[(path below the document's folder, license)]`` for each path a Markdown license document's bullets link under
    a heading (``_MD_BULLET``, ``_PATH_LINK``): the license the heading names, else the one the bullet names after
    "under"; a link to a license file points to another document, no path it governs."""
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    found, heading, seen_heading = [], None, False
    for line in text.splitlines():
        if title := _MD_HEADING.match(line):
            seen_heading = True
            name = _MARKDOWN_LINK.sub(r"\1", title.group(1)).strip(" `*_")
            heading = named_license_of(name) or named_license_of(f"{name} license") or normalize_license(name)
            continue
        bullet = _MD_BULLET.match(line) if seen_heading else None
        targets = [t for t in _PATH_LINK.findall(bullet.group(1))] if bullet else []
        targets = [t.strip("./") for t in targets if not is_license_file(t) and not t.startswith("..")]
        if not targets:
            continue
        said = _UNDER_NAME.search(_MARKDOWN_LINK.sub(r"\1", bullet.group(1)))
        expression = heading or (said and (named_license_of(f"{said.group(1)} license") or normalize_license(said.group(1))))
        found.extend((folder + target, expression) for target in targets if expression)
    return found


def _exceptions_preamble(text: str) -> str:
    """A Markdown document's text before its first heading."""
    first = next((m for line in text.splitlines(keepends=True) if (m := _MD_HEADING.match(line))), None)
    return text[:text.find(first.group(0))] if first else text


def is_readme(path: str) -> bool:
    """Whether ``path`` is a folder's README (``README``, ``README.md``, ``readme.markdown``...)."""
    parts = _parts(path)
    return bool(parts) and bool(_README_FILE.fullmatch(parts[-1]))


def readme_license(text: str) -> str | None:
    """The license a README's license section states (``_README_HEADING``): a notice or license text there
    (vim-surround's "## License ... Distributed under the same terms as Vim itself"; vim-markdown's "## License" then
    the MIT text), else a license the section's first line names alone (gruvbox's "[MIT/X11][]"); a pointer ("see
    LICENSE") or a sentence about another project states none. Without such a section, a ``License:`` field line
    (a WordPress plugin's readme.txt), else a sentence putting the work itself under a license (``_OWN_TERMS``), else
    None. Links are read by their text (Markdown's and HTML's)."""
    if "](" in text or "</a>" in text:
        text = _HTML_LINK.sub(r"\1", _MARKDOWN_LINK.sub(r"\1", text))
    heading = _README_HEADING.search(text)
    if heading is None:
        intro = _README_INTRO.search(text)
        quoted = text[intro.end():intro.end() + _README_SECTION_CHARS] if intro else ""
        following = _NEXT_HEADING.search(quoted)
        field = _README_FIELD.search(text, 0, _README_SECTION_CHARS * 2)
        return (notice_license(quoted[:following.start()] if following else quoted)
                or (named_license_of(field["name"]) if field else None) or _own_terms_sentence(text))
    body = text[heading.end():heading.end() + _README_SECTION_CHARS]
    following = _NEXT_HEADING.search(body)
    body = _MARKDOWN_LINK.sub(r"\1", body[:following.start()] if following else body)
    if found := notice_license(body):
        return found
    paragraph = body.strip().split("\n\n", 1)[0]
    if (mention := _MENTION.search(_words(paragraph))) and (named := named_license_of(f"{mention.group(1)} license")):
        return named  # ctrlp.vim's "CtrlP is distributed under Vim's [license][4]."
    first = next((line for line in body.splitlines() if line.strip()), "")
    name = re.sub(r"\]\s*(?:\[[^\]]*\]|\([^)]*\))|[\[\]*_`:]", " ", first).strip()
    if 0 < len(name) <= 40 and not re.search(r"https?://|www\.", name):
        return named_license_of(name)
    return _own_terms_sentence(paragraph)  # FreshRSS's Dark-pink theme: "## License\nThis theme is licensed under GPLv3"


# A README's sentence, in any section, putting the folder's own work under a license: one with no subject of its own
# (ohmyzsh's zbell, under "## Author": "Adapted from an original version by Jean-Philippe Ouellet. Made available under
# the ISC license.") or whose subject is the work itself ("This plugin is released under ..."); not a sentence about
# another project ("libuv is licensed under the MIT license"), which its own folder answers for.
_OWN_TERMS = re.compile(r"(?:^|[.!?:]\s+|\n\s*)(?:(?:this|the) (?:plugin|script|theme|module|package|library|extension|"
                        r"code|software|work)s? (?:is|are) )?(?:made available|released|licensed|distributed) under "
                        r"(?:the )?(?:terms of (?:the )?)?(?:([\w.+-]+(?: [\w.+-]+){0,3}?) licen[cs]e\b(?! (?:found|see|in the|file))"
                        r"|([A-Za-z][\w.+-]*\d[\w.+]*|[A-Z]{2,}[A-Z0-9.+]*)[ \t]*(?:[.;,)]|$))", re.IGNORECASE | re.MULTILINE)


# A README's line that is a field naming the license ("License: Apache License 2.0", "**License:** MIT").
_README_FIELD = re.compile(r"^[ \t]*[*_]{0,2}licen[cs]e[*_]{0,2}[ \t]*:[*_]{0,2}[ \t]*(?P<name>[^\n:]{2,40}?)[ \t.]*$",
                           re.IGNORECASE | re.MULTILINE)
_HTML_LINK = re.compile(r"<a\s[^>]*>([^<]*)</a>", re.IGNORECASE)
def _own_terms_sentence(text: str) -> str | None:
    said = _OWN_TERMS.search(text[:_MAX_TEXT_CHARS])
    if said is None or _choice(_words(said.group(0))):
        return None
    return named_license_of(f"{said.group(1)} license" if said.group(1) else said.group(2))


def detect_license(path: str, text: str) -> str | None:
    """SPDX id or expression that one license or metadata file states; None if it states none.

    The file's name picks the reader: package metadata by its format, anything else as license
    text (see the module docstring). Malformed metadata gives None, never an exception.
    """
    parts = _parts(path)
    name = parts[-1] if parts else ""
    if "/".join(parts) in REUSE_RULE_FILES or name == "REUSE.toml" or name.endswith(".license") and name != ".license":
        return None  # per-path declarations (filters.reuse), not the repository's license
    parser = _metadata_parser(name)
    if parser is not None:
        return parser(text) if _describes_its_folder(parts) else None
    if is_readme(path):
        return readme_license(text)
    if len(parts) >= 2 and parts[-2] == "LICENSES":
        node = parse_expression(name.rsplit(".", 1)[0], strict=True)
        if node is not None and node[0] == "ID":
            return _render(node)
    if is_license_file(path) and "](" in text:
        # links read by their text ("released under [GPLv3 only](https://...) license"; also in a LICENSE without an
        # extension, esprit's src/res/LICENSE: "licensed under [CC BY-NC-SA 4.0](https://...)"); a document listing
        # exceptions by path (``path_exceptions``) states its own license before them
        text = _MARKDOWN_LINK.sub(r"\1", _exceptions_preamble(text) if path_exceptions(path, text) else text)
    if is_license_file(path) and (address := _ADDRESS_ONLY.fullmatch(text.strip())):
        # a license text that is an address alone (GreenSock's LICENSE.txt, "http://greensock.com/licensing"): the
        # license there, or terms the repository does not hold, never the folder above's
        return address_license(address.group(0)) or terms_reference(address.group(0))
    found = _license_from_text(text)
    if found and (parts := _separated_parts(text)):
        return combine([*parts, found])
    return found or titled_agreement(text) or titled_license(text)


# A license document in parts set apart by rules, each with its own copyright line: lektor-icon's LICENSE.txt (pyglet's
# website theme), "Original standalone HTML5 theme: Copyright (c) 2016 Free HTML5 Template ... Released under the
# Creative Commons Attribution 3.0 license", a rule, then the additions' copyright lines and MIT's text: both in force.
_PART_RULE = re.compile(r"^[ \t]*[-=_*~#]{5,}[ \t]*$", re.MULTILINE)
_PART_COPYRIGHT = re.compile(r"^[ \t]*(?:copyright|\(c\)|©)", re.IGNORECASE | re.MULTILINE)


def _separated_parts(text: str) -> list[str]:
    """The licenses that parts of a text set apart by rules name without quoting a text (the texts are read whole
    anyway: a project's text beside its components' stays as ``_license_from_text`` reads it), where two or more
    parts have copyright lines of their own; [] otherwise."""
    head = text[:_MAX_TEXT_CHARS]
    if not _PART_RULE.search(head):
        return []
    parts = [part for part in _PART_RULE.split(head) if _PART_COPYRIGHT.search(part)]
    if len(parts) < 2:
        return []
    named = []
    for part in parts:
        words = _words(part)
        quoted = _gnu_text(words) is not None or any(
            s.literal in words and _signature_position(s, words) is not None for s in _SIGNATURES)
        # the part's own sentence, with no subject: "Released under the Creative Commons Attribution 3.0 license"
        # (not a list of components, musl's "... is Copyright © 2001-2008 Ville Laurikari and licensed under a 2-clause
        # BSD license")
        said = _PART_STATEMENT.search(part) if not quoted else None
        sentence = re.split(r"[.;](?:\s|$)", part[said.start():], maxsplit=1)[0] if said else ""
        if sentence and (found := _license_mention(sentence, _words(sentence))):
            named.append(found)
    return named


_PART_STATEMENT = re.compile(r"^[ \t]*(?:released|licensed|distributed|made available) under\b", re.IGNORECASE | re.MULTILINE)


# A license document titled as an agreement ("END-USER LICENSE AGREEMENT FOR / MICROSOFT SOFTWARE", a font folder's
# LICENSE.md; "End User License Agreement (EULA)") that grants or restricts in its own words: terms named only by that
# title, as an agreement named in a head is (``agreement_terms``). The title is the document's first line, its markup
# and parenthesised abbreviation aside, with the next where it ends in "for" or "of". A contributor license agreement
# licenses contributions to the project, not the project to its users.
_AGREEMENT_TITLE = re.compile(r"(?:[\w.&+'-]+ ){0,8}?(?:licen[cs]e agreement|eula)(?: (?:for|of) (?:[\w.&+'-]+ ?){1,6})?",
                              re.IGNORECASE)
_AGREEMENT_WORDS = re.compile(r"\b(?:you (?:may|shall|must) not|non[- ]?exclusive|grants? (?:to )?you|licensee)\b",
                              re.IGNORECASE)
_AGREEMENT_CHARS = 4_000


def titled_agreement(text: str) -> str | None:
    """``LicenseRef-`` with a license agreement's title (``_AGREEMENT_TITLE``), where the text then grants or restricts
    (``_AGREEMENT_WORDS``) and its title names no license we know; None otherwise."""
    lines = [line for line in text.lstrip()[:400].splitlines() if line.strip()][:2]
    if not lines or "agreement" not in lines[0].lower() and "eula" not in lines[0].lower():
        return None
    title = lines[0] + (f" {lines[1]}" if re.search(r"\b(?:for|of)\W*$", lines[0], re.IGNORECASE) else "")
    title = " ".join(re.sub(r"\([^)]*\)|[#*_=`\[\]]", " ", title).split())
    if not _AGREEMENT_TITLE.fullmatch(title) or _license_from_name(title) is not None or "contributor" in title.lower() \
            or not _AGREEMENT_WORDS.search(text, 0, _AGREEMENT_CHARS):
        return None
    return named_reference(title)


# A license text whose first line is its title ("The Happy Bunny License", "Anti-Capitalist Software License (v 1.4)",
# "The Prosperity Public License 3.0.0") and which grants or restricts in words no known text has: terms named by that
# title, as an agreement's are (``titled_agreement``), never the folder above's license. The title is a line of at most
# twelve words naming a license, with its version on the next line where it stands alone there.
_LICENSE_TITLE = re.compile(r"(?:the )?(?:[\w.&+'*/-]+ ){0,8}?licen[cs]e(?:[ ,]+(?:version|ver|v)?\.? ?\d[\w.]*)?"
                            r"(?:[ ,]+\d{1,2} \w+ \d{4}|[ ,]+\w+ \d{1,2},? \d{4})?", re.IGNORECASE)
_VERSION_LINE = re.compile(r"(?:version|ver|v)\.? ?\d[\w.]*(?:,? [\w ,]{0,30})?", re.IGNORECASE)
_GRANT_WORDS = re.compile(r"\b(?:permission is (?:hereby )?granted|hereby grants?|you (?:may|can|are (?:free|allowed|permitted)"
                          r")\b|(?:is|are) (?:hereby )?permitted|free of charge|without restriction|you (?:may|shall|must) not|"
                          r"non[- ]?exclusive|grants? (?:to )?you|licensee)\b", re.IGNORECASE)


def titled_license(text: str) -> str | None:
    """``LicenseRef-`` with a license text's own title (``_LICENSE_TITLE``) where the text grants or restricts
    (``_GRANT_WORDS``) and the title names no license we know; None otherwise (a text we know is read before this)."""
    lines = [line for line in text.lstrip()[:400].splitlines() if line.strip()][:2]
    if not lines or "licen" not in lines[0].lower():
        return None
    plain = [" ".join(re.sub(r"[()#*_=`\[\]:]", " ", line).split()) for line in lines]
    title = plain[0] + (f" {plain[1]}" if len(plain) > 1 and _VERSION_LINE.fullmatch(plain[1]) else "")
    if not _LICENSE_TITLE.fullmatch(title) or len(title.split()) > 12 or re.fullmatch(r"(?i)(?:the )?licen[cs]e", plain[0]) \
            or _license_from_name(title) is not None or not _GRANT_WORDS.search(text, 0, _AGREEMENT_CHARS):
        return None
    return named_reference(title)


def _evidence_rank(path: str) -> int:
    """Smaller is more authoritative: root license files, root metadata, REUSE's ``LICENSES/`` texts,
    then license files one level down, ...

    ``LICENSES/`` holds every license some file of the repository uses, so its texts are the
    repository's license only when nothing at the root says more.
    """
    parts = _parts(path)
    if len(parts) == 2 and parts[0] == "LICENSES":
        return 2
    if len(parts) == 1 and _states_for_root(parts[0]):
        return 3  # a root README's license section or NOTICE: the repository's where no license file or manifest says
    if parts and _GNU_TEXT_NAME.fullmatch(parts[-1]):
        # the GNU project's name for a text: often the full text a LICENSE points to, or a component's (ccache's
        # GPL-3.0.txt and LGPL-3.0.txt beside its LICENSE.adoc); its folder's license only where nothing else there says
        return 4 * max(len(parts) - 1, 0) + 2
    return 4 * max(len(parts) - 1, 0) + (0 if parts and _is_license_file(parts) else 1)


# A file's own license notice, in its head: a license's grant as its text words it (MIT's, BSD's, ISC's...: the
# _SIGNATURES whose anchor is a grant, not a name), a license named after a notice's verb ("Licensed under the
# Apache License, Version 2.0", "subject to the terms of the Mozilla Public License, v. 2.0"), or a GNU notice.
# A pointer ("see the LICENSE file"), a bare name or a choice ("dual licensed under ...") is no notice: the
# folder's license answers for those.
_NOTICE_CHARS = 3_000
_NAMED_ONLY = frozenset({"SHL-0.51", "SHL-0.5", "SHL-2.1", "SHL-2.0", "GFDL-1.3", "GFDL-1.2", "GFDL-1.1", "GFDL-1.3-or-later", "GFDL-1.2-or-later", "GFDL-1.1-or-later",
                         "Apache-2.0", "Apache-2.0 WITH LLVM-exception", "Apache-1.1", "MPL-2.0", "MPL-1.1",
                         "MPL-1.0", "EPL-2.0", "EPL-1.0", "PSF-2.0", "CC0-1.0",
                         "BSL-1.0", "WTFPL", "UPL-1.0", "BlueOak-1.0.0", "NCSA", "Artistic-2.0", "CC-BY-4.0",
                         "CC-BY-SA-4.0", "CC-BY-NC-4.0", "CC-BY-NC-SA-4.0", "SSPL-1.0", "BUSL-1.1", "Unicode-3.0",
                         "OFL-1.1", "Python-2.0", "APSL-2.0", "APSL-1.2", "APSL-1.1", "APSL-1.0", "LPPL-1.0", "LPPL-1.1", "LPPL-1.2", "LPPL-1.3a", "LPPL-1.3c"})
_NOTICE_VERB = re.compile(r"(?:licensed|released|distributed(?: and or modified)?|made available|subject to(?: the terms of)?|under the terms of"
                          r"|governed by) (?:under )?(?:the )?(?:(?:terms|conditions) of )?(?:the )?$")
# Also the Linux kernel's wordings, "under the terms of version 2 of the GNU General Public License as published by the
# Free Software Foundation" (the version before the name) and "under the terms and conditions of the GNU General Public
# License, version 2".
# The Scheme NLTK's "under the terms of the Creative Commons GNU Lesser General Public License as published by the Free
# Software Foundation": the GNU license, which the Creative Commons once wrapped as its CC-GNU LGPL.
_GNU_NOTICE = re.compile(r"under the terms (?:and conditions )?of (?:the )?(?:version (\d(?: \d)?) of (?:the )?)?"
                         r"(?:creative commons )?(?<!lesser )gnu ((?:affero |lesser |library )?(?:general public|general|public) license)")


def notice_license(text: str, *, dedications: bool = True, bare: bool = True) -> str | None:
    """The license a file's own notice states in its first few thousand characters (all of them, AND, when
    it states several), else None: ``filters.reuse``'s per-file reading after SPDX tags. A notice offering a
    choice is read only when it quotes a grant's own text beside another notice (liblzf's BSD-2-Clause text, then
    "Alternatively ... the GNU General Public License ... under either the BSD or the GPL": an OR); a choice
    between names alone ("dual licensed under ... the BSD License") leaves the folder's license files to answer.
    ``dedications=False`` reads no dedication to the public domain: a license document's sections describe other
    files (ccache's LICENSE.adoc, "This work is released into the public domain with CC0 1.0" for BLAKE3); ``bare=False``
    reads no dedication that is a sentence alone ("Public domain."), as below a file's head. Last, a choice a sentence
    offers "under either A or B" by versioned names alone (``either_choice``)."""
    if offered := option_choice(text[:_NOTICE_CHARS]):
        return offered
    return _stated_notices(text, dedications, bare) or either_choice(text[:_NOTICE_CHARS])


def _stated_notices(text: str, dedications: bool, bare: bool) -> str | None:
    words = _words(text[:_NOTICE_CHARS])
    found: dict[int, str] = {}  # by position: variants sharing an anchor (BSD-3 and BSD-2...) are one text
    granted = False  # a grant's own words, not a name after a verb
    covered: list[tuple[int, int]] = []  # found texts, to the end of the clauses they required
    # most specific first, as _license_from_text reads them; the literal screen inline, as most heads hold no text
    # a text the head cuts short is read to its clauses' end (jq's ax_compare_version.m4: FSFAP's last sentence, "This
    # file is offered as-is, without any warranty", past the head's 3,000 characters)
    runover = _words(text[:_NOTICE_CHARS + _NOTICE_RUNOVER]) if len(text) > _NOTICE_CHARS else words
    for signature in _possible_signatures(runover):
        position = _signature_position(signature, runover)
        if position is not None and position >= len(words):
            position = None  # a text beginning past the head is none of its notices
        elif position is not None and signature.forbidden and len(runover) - position < _ABSENCE_CHARS \
                and len(text) > _NOTICE_CHARS + _NOTICE_RUNOVER:
            position = None  # a clause's absence (MIT-0's notice) is unknown where the text read is cut near its grant
        if position is None or any(start < position < end for start, end in covered):
            continue  # none, or a clause of a text already found (zlib's clauses inside bzip2's license)
        grant = signature.spdx not in _NAMED_ONLY or signature.anchor is _BSL_TEXT.anchor \
            or any(signature.anchor is title.anchor for title in _GFDL_TITLES)
        if grant or _NOTICE_VERB.search(words[max(0, position - 60):position]):
            found.setdefault(position, signature.spdx)
            granted = granted or grant
            window = words[position:position + _WINDOW_CHARS]
            covered.append((position, position + max((m.end() for p in signature.required if (m := p.search(window))),
                                                     default=0)))
    for notice in _GNU_NOTICE.finditer(words):
        if _ELSEWHERE.search(words[max(0, notice.start() - 80):notice.start()]):
            continue  # valgrind.h: "The rest of Valgrind is licensed under the terms of the GNU General Public License"
        further = _words(text[:_NOTICE_CHARS + _NOTICE_RUNOVER])  # a notice the head cuts short reads to its version
        if notice.group(1):  # "version 2 of the GNU General Public License": the name, then its version, as usual
            further = f"gnu {notice.group(2)} version {notice.group(1)}{further[notice.end():]}"
        else:
            further = further[notice.start():]
        if gnu := _gnu_text(further):
            found.setdefault(notice.start(), gnu[1])
        break
    else:
        if "gnu" in words and (short := _GNU_NAMED.search(text[:_NOTICE_CHARS])) is not None \
                and (spdx := _license_from_name(short.group(1))) is not None:
            found.setdefault(words.find("gnu"), spdx)
    if "gnu" in words and not any("GPL" in spdx for spdx in found.values()) \
            and (foreign := translated_gnu_notice(text[:_NOTICE_CHARS])) is not None:
        found.setdefault(words.find("gnu"), foreign)
    if (dedication := _CC0_DEDICATION.search(words)) is not None:
        found.setdefault(dedication.start(), "CC0-1.0")
    if "unicode org" in words and (terms := _UNICODE_TERMS.search(words)) is not None:
        found.setdefault(terms.start(), "Unicode-TOU")
    if "licenses this file" in words and (licenses := _LICENSES_THIS_FILE.search(words)) is not None \
            and (named := named_license_of(f"{licenses.group(1)} license")) is not None:
        found.setdefault(licenses.start(), named)  # .NET's "The .NET Foundation licenses this file to you under the MIT license"
    if "under both" in words and (both := _both_licenses(text[:_NOTICE_CHARS])):
        found.setdefault(words.find("under both"), both)
    if ("same" in words or "as with" in words) and (same := _SAME_TERMS.search(words)) is not None:
        found.setdefault(same.start(), _SAME_TERMS_AS[same.group(1) or same.group(2)])
    if "compliance" in words and (lost := _NAMELESS_NOTICE.search(words)) is not None \
            and "license" not in words[max(0, lost.start() - 30):lost.start()]:  # the name line is there: read above
        found.setdefault(lost.start(), f"{_NAMELESS_FAMILY[lost.group(3)]}-{lost.group(1)}.{lost.group(2)}")
    if dedications and "acm" in words and (acm := _ACM_TERMS.search(words)) is not None:  # a document's: its text
        found.setdefault(acm.start(), ACM_SLA)
    if dedications and (public := public_domain(words, found.values())) is not None:
        found.setdefault(public[0], public[1])
        granted = True
    elif bare and dedications and not found and "public domain" in words and _bare_dedication(text[:_NOTICE_CHARS]):
        found[words.find("public domain")] = PUBLIC_DOMAIN  # "Public domain by Andrew M." (ed25519-donna's headers)
        granted = True
    for position, spdx in found.items():  # Eclipse's "EPL v1.0 and Eclipse Distribution License v1.0": a choice
        if spdx.startswith("EPL-") and _EDL.match(words, position):
            found[position] = f"{spdx} OR BSD-3-Clause"
    # stb's "choose whichever you prefer" at the top too; Ryu's "The contents of this file may be used under the terms of
    # the Apache License, Version 2.0 ... Alternatively, the contents of this file may be used under the terms of the
    # Boost Software License, Version 1.0"
    if _choice(words) or _footer_choice(words) or _alternatively(words):
        if granted and len(set(found.values())) > 1:
            return combine(found.values(), "OR")
        offered = _versioned_choice(words, found.values())
        # a dedication offering unnamed alternatives only where it does not hold (tree-sitter's endian.h: "place this
        # file hereby into the public domain ... you can also consider it to be 'dual licensed' under the BSD, MIT and
        # Apache licenses") is the dedication
        return offered or (PUBLIC_DOMAIN if set(found.values()) == {PUBLIC_DOMAIN} else None)
    return combine(found.values()) or None


_NOTICE_RUNOVER = 400
_ABSENCE_CHARS = 1_000  # a grant read as lacking a clause needs this much of its text after it (MIT's is ~600)
# Mozilla's or Apache's notice whose first line, naming the license, was lost (SynEdit's SynEditStrConst.pas opens at
# "Version 1.1 (the "License"); you may not use this file except in compliance with the License. You may obtain a copy
# of the License at http://www.mozilla.org/MPL/"): the version it states, of the license at the address it gives.
_NAMELESS_NOTICE = re.compile(r"\bversion (\d) (\d) the license you may not use this file except in compliance with the "
                              r"license you may obtain a copy of the license at (?:https? )?(?:www )?(mozilla org mpl|"
                              r"apache org licenses)\b")
_NAMELESS_FAMILY = {"mozilla org mpl": "MPL", "apache org licenses": "Apache"}
# A GNU license named in short with its version, after a licensing verb ("licensed under the GNU GPL v3 or later") or
# alone on a comment line (Ansible's header, "GNU General Public License v3.0+ (see COPYING or
# https://www.gnu.org/licenses/gpl-3.0.txt)"); read on the raw text, where "+" says "or later".
_GNU_NAMED = re.compile(
    r"(?:\b(?:licensed|released|distributed|available) under (?:the )?(?:terms of (?:the )?)?|^[^\w\n]*)"
    r"(GNU (?:Affero |Lesser |Library )?(?:General Public License|A?L?GPL),? (?:v|version )?\d(?:\.\d)?"
    r"(?:\+| or (?:any )?later(?: version)?)?)(?!\w|\.\d)", re.IGNORECASE | re.MULTILINE)
# A grant by another work's terms: "you can redistribute it and/or modify it under the same terms as Perl itself" (the
# CPAN convention; "as the Perl 5 programming language system itself", Dist::Zilla's): Perl's own terms are a choice
# between the Artistic License and the GPL, version 1 or later (perlartistic, perlgpl; CPAN::Meta's ``perl_5``).
# Python's terms are its license. Ruby's changed from the GPL to the BSDL as its alternative (Ruby 1.9.3): the
# folder answers for those, as for Perl 6's (Raku's Artistic 2.0).
# Tcl's are its license.terms (TCL); TclX's license.terms: "As with Tcl, all of Extended Tcl is freely redistributable".
_SAME_TERMS = re.compile(r"\bunder the same (?:terms|license|licensing terms|license terms) as (?:the )?(perl|python|vim|tcl)"
                         r"\b(?! 6)|\bas with (perl|python|tcl) (?:\w+ ){0,6}?is freely redistributable\b")
_LICENSES_THIS_FILE = re.compile(r"\blicenses this file to you under (?:the )?([\w.+-]+(?: [\w.+-]+){0,3}?) licen[cs]e\b")
_SAME_TERMS_AS = {"perl": "Artistic-1.0-Perl OR GPL-1.0-or-later", "python": "Python-2.0", "vim": "Vim", "tcl": "TCL"}
# A notice about the rest of a project, not this file ("applies to this one file (valgrind.h) only. The rest of Valgrind
# is licensed under ...").
_ELSEWHERE = re.compile(r"\bthe (?:entire )?rest of (?:\S+ ){1,3}(?:is|are) (?:licensed|released|distributed) $")
# The Eclipse Distribution License is the BSD-3-Clause text (SPDX lists no id of its own); Eclipse projects offer it
# beside the EPL.
_EDL = re.compile(r"eclipse public license (?:v ?|version )?\d 0 (?:and|or) (?:the )?eclipse distribution license")


def _versioned_choice(words: str, named: Iterable[str]) -> str | None:
    """A choice between licenses that a notice names with their versions (Mozilla's tri-license: "subject to the
    Mozilla Public License Version 1.1 ... Alternatively ... under the terms of either the GNU General Public License
    Version 2 or later ... or the GNU Lesser General Public License Version 2.1 or later"): the OR of them. A choice
    naming a family without its version ("dual licensed under ... the BSD License") says too little; None there. A
    GNU license named without its version beside a versioned one is any version of it, as the GNU texts' own section
    on versions says (JEDI's and SynEdit's "subject to the Mozilla Public License Version 1.1 ... Alternatively ...
    the GNU Lesser General Public License ... under either the MPL or the LGPL License": MPL-1.1 OR LGPL-2.0+)."""
    gnu, unversioned = [], []
    for match in _GNU_NAME.finditer(words):
        if not _GNU_VERSION.search(words[match.end():match.end() + 100]):
            if not named:
                return None
            unversioned.append(_GNU_UNVERSIONED[match.group(1) or ""])
        else:
            gnu.append(_gnu_text(words[match.start():])[1])
    # a family named with its version elsewhere in the notice is that version ("as a special exception to the GNU
    # General Public License" after "... either version 2"): only a family never versioned is any version
    versioned = {spdx.split("-")[0] for spdx in [*named, *gnu]}
    gnu += [spdx for spdx in unversioned if spdx.split("-")[0] not in versioned]
    said = []  # Metalua's "made available under the terms of the Eclipse Public License v1.0 ... also made available
    for match in _NAMED_AFTER_VERB.finditer(words):  # under the terms of the MIT public license": EPL-1.0 OR MIT
        name = f"{match.group(1)} license{' ' + match.group(2).replace(' ', '.') if match.group(2) else ''}"
        if _GNU_NAME.search(name) or (spdx := _license_from_name(name)) in (None, *_NOT_OFFERED):
            continue
        if _unversioned_family(name, spdx):
            return None
        said.append(spdx)
    names = dict.fromkeys([*named, *gnu, *said])
    return combine(names, "OR") if len(names) > 1 else None


# Families a name without its version or clause count leaves open ("the BSD License": two, three or four clauses).
_VERSIONED_FAMILIES = ("BSD-", "MPL-", "EPL-", "LPPL-", "GPL-", "LGPL-", "AGPL-", "CC-BY-")


def named_license_of(name: str) -> str | None:
    """The license a name alone says ("2-Clause BSD license", "MPL 2.0", "SIL Open Font License 1.1"), or None where
    it names none or a family without saying which of its versions or variants ("Various BSD style licenses")."""
    spdx = _license_from_name(name)
    return None if spdx in (None, *_NOT_OFFERED) or _unversioned_family(name.lower(), spdx) else spdx


def _unversioned_family(name: str, spdx: str) -> bool:
    return spdx.startswith(_VERSIONED_FAMILIES) and not re.search(r"\d|\b(?:two|three|four|new|simplified|revised)\b",
                                                                     name)


# A choice a notice offers between licenses it names, the recipient's to make: argon2's "You may use this work under
# the terms of a Creative Commons CC0 1.0 License/Waiver or the Apache Public License 2.0, at your option", BLAKE2's
# "under the terms of the CC0, the OpenSSL Licence, or the Apache Public License 2.0, at your option". A GNU notice's
# "either version 2 of the License, or (at your option) any later version" chooses a version, not a license.
_AT_OPTION = re.compile(r"\bat (?:your|the (?:user|licensee|recipient)'?s?) (?:option|choice|discretion)\b", re.IGNORECASE)
# One of the words ``_AT_OPTION`` ends with, as it matches them (case-insensitively, by re's own case folding): a head
# without one offers no choice. An ASCII head is checked by ``in`` on its lower case (same answer, ~10x cheaper).
_OPTION_WORDS = ("option", "choice", "discretion")
_OPTION_WORD = re.compile("|".join(_OPTION_WORDS), re.IGNORECASE)


def _may_offer(head: str) -> bool:
    if head.isascii():
        lowered = head.lower()
        return any(word in lowered for word in _OPTION_WORDS)
    return _OPTION_WORD.search(head) is not None
_LATER_VERSION = re.compile(r"\W*(?:any|a) later\b", re.IGNORECASE)
_OFFERED_UNDER = re.compile(r"\bunder (?:the )?(?:(?:terms|conditions) of )?(?:either )?(?:of )?", re.IGNORECASE)
_NAME_LIST = re.compile(r"\s*(?:,|\band/or\b|\bor\b)\s*", re.IGNORECASE)
_COMMENT_MARKS = re.compile(r"^[ \t]*(?:[*#/;%!]+|--+|dnl\b|REM\b)?", re.MULTILINE)


def _offered_pieces(names: str) -> list[str]:
    """The names a list of offered licenses holds, without their addresses ("<LICENSE-MIT or http://...>", "(see
    LICENSE)"), articles, or a version split from its name ("Apache License, Version 2.0": one name)."""
    names = re.sub(r"\[[^\]]*\]\([^)]*\)", " ", names)  # a Markdown link first: it may sit inside parentheses
    names = re.sub(r"<[^>]*>|\([^)]*\)|\S+://\S+", " ", names)
    pieces: list[str] = []
    for piece in _NAME_LIST.split(names):
        piece = re.sub(r"^(?:the|a|an|either)\s+", "", piece.strip(" ,.*-:"), flags=re.IGNORECASE)
        if pieces and re.fullmatch(r"(?:version\s*|v\.?\s*)?\d[\d.]*[a-z]?", piece, re.IGNORECASE):
            pieces[-1] += f" {piece}"
        elif piece:
            pieces.append(piece)
    return pieces


# "You may select, at your option, one of the above-listed licenses": the choice is the sentence before.
_ABOVE_LISTED = re.compile(r"\W*(?:one|any) of the (?:above|aforementioned)(?:[- ]listed| mentioned)? licen[cs]es",
                           re.IGNORECASE)
# A BSD license a file names without its clauses but with the text it is "found in": that text says which.
POINTED_BSD = "LicenseRef-BSD-pointed"


def _flat_head(head: str) -> str:
    """A head's comment lines as one line of prose, a list's items set apart by commas."""
    lines = [line.strip() for line in _COMMENT_MARKS.sub("", head).splitlines()]
    # a list's items end in their address (Rust's README: "* MIT license ([LICENSE-MIT](LICENSE-MIT) or http://...)")
    # or start with a bullet inside a comment (Status's "#   * MIT license: http://...")
    return " ".join(" ".join(f"{', ' if line.startswith(('* ', '- ')) else ''}{line} {',' if line.endswith((')', '>')) else ''}"
                             for line in lines if line).split())


def _choice_of(pieces: list[str]) -> str | None:
    """The OR of offered licenses' names, or None where fewer than two, or any is unknown or leaves its version open."""
    names = [_license_from_name(piece) for piece in pieces]
    if len(set(names)) < 2 or any(n in (None, *_NOT_OFFERED) or _unversioned_family(p.lower(), n)
                                  for p, n in zip(pieces, names, strict=True)):
        return None
    return combine(dict.fromkeys(names), "OR")


# A choice offered without "at your option": "This library may be used under either the MIT license or the Apache
# License, Version 2.0"; fast_float's "Licensed under either of Apache License, Version 2.0 or MIT license or BOOST
# license" (Crystal's port quotes it). The names run to the sentence's end.
_UNDER_EITHER = re.compile(r"\bunder (?:the )?(?:(?:terms|conditions) (?:and conditions )?of )?either (?:of )?"
                           r"(?P<names>(?:[^.;:!?]|[.:](?!\s|$)){3,200}?)(?:[.;:!?](?:\s|$)|$)", re.IGNORECASE)


def either_choice(head: str) -> str | None:
    """The OR of the licenses a sentence of ``head`` offers "under either A or B", each named by family and, where the
    family has several, version (``_choice_of``); None otherwise. A GNU notice's "either version 2 of the License"
    names versions, not licenses: its pieces are no license's names."""
    if "either" not in head.lower():
        return None
    for match in _UNDER_EITHER.finditer(_flat_head(head)):
        if re.search(r"\bor\b", match.group("names"), re.IGNORECASE) and \
                (offered := _choice_of(_offered_pieces(match.group("names")))):
            return offered
    return None


def option_choice(head: str) -> str | None:
    """The OR of the licenses a sentence of ``head`` offers "at your option" (``_AT_OPTION``), each named by family
    and, where the family has several, version; None where any name is unknown or leaves its version open."""
    if not _may_offer(head):
        return None  # no sentence of it can hold ``_AT_OPTION``: its words survive the flattening below unchanged
    flat = _flat_head(head)
    for option in _AT_OPTION.finditer(flat):
        if _LATER_VERSION.match(flat, option.end()):
            continue
        sentences = re.split(r"[.;:!?]\s+(?=[A-Z])", flat[:option.start()])
        sentence, listed = sentences[-1], False
        if not _OFFERED_UNDER.search(sentence) and len(sentences) > 1 and _ABOVE_LISTED.match(flat, option.end()):
            sentence, listed = sentences[-2], True  # zstd's "licensed under both A and B. You may select, at your
            # option, one of the above-listed licenses."
        under = list(_OFFERED_UNDER.finditer(sentence))
        if not under:
            continue
        offered = sentence[under[-1].end():]
        pieces = _offered_pieces(re.sub(r"^both\s+|\s+and\s+", lambda m: "" if m.group(0).startswith("both") else
                                        " or ", offered) if listed else offered)
        names = [_license_from_name(piece) for piece in pieces]
        if listed:  # a family named with a pointer to the text that says which ("the BSD-style license (found in
            # the LICENSE file in the root directory ...)"): that text answers (``reuse.refined``)
            names = [POINTED_BSD if n and n.startswith("BSD-") and _unversioned_family(p.lower(), n) else n
                     for p, n in zip(pieces, names, strict=True)]
        if len(set(names)) < 2 or any(n in (None, *_NOT_OFFERED) or _unversioned_family(p.lower(), n)
                                      for p, n in zip(pieces, names, strict=True)):
            continue
        return combine(dict.fromkeys(names), "OR")
    return None


# A file's own statement that it is in the public domain: "100% Public Domain" (SHA-1 in C), "This file is Public
# Domain", SLIME's README "All files, unless explicitly stated otherwise, are public domain", "released by the author into the public domain", "place this file hereby into the public domain"; with
# CC0's address beside it ("released to the public domain, as explained at
# http://creativecommons.org/publicdomain/zero/1.0/", JSR-166's; Mozilla's "Any copyright is dedicated to the Public
# Domain. http://creativecommons.org/publicdomain/zero/1.0/") it is CC0-1.0. A text already read as the Unlicense or
# CC0 says so in its own words.
_PUBLIC_DOMAIN = re.compile(
    r"\b(?:(?:is|are|it s) (?:hereby )?(?:(?:released|placed|put|dedicated) )?(?:in|into|to) (?:the )?public domain"
    r"|(?:release[sd]?|place[sd]?|put|dedicated?|contributed) (?:\S+ ){0,8}?(?:in|into|to) the public domain"
    r"|100 public domain|(?:files?|code|software|works?|sources?)(?: \S+){0,5}? (?:is|are) public domain"
    r"|(?:is|are) under (?:the )?public domain"
    r"|(?:published|released|distributed|provided|made available) (?:\S+ ){0,2}?as public domain)\b")  # Bash-it's knife
    # completion: "Published originally as public domain code at https://github.com/wk8/knife-bash-autocomplete"
# A comment's sentence that is the dedication alone, at a line's or sentence's start: ed25519-donna's "Public domain by
# Andrew M. <liquidsun@gmail.com>", OpenBSD's "* Public domain." (tmux's compat/explicit_bzero.c), "By Nicholas
# Marriott. Public domain.", FreeDOS's "; Public Domain 2024 by E. C. Masloch"; not prose about the public domain
# ("Public domain software is ...").
# also a header's copyright field naming the public domain for its holder (SWI-Prolog's "Copyright (C): Public domain")
_BARE_DEDICATION = re.compile(r"(?:^[ \t]*(?:[*#;%]+|//|--|/\*+)?[ \t]*(?:copyright(?:[ \t]*\(c\))?[ \t]*:[ \t]*)?"
                              r"|[a-z\x3e)][.!][ \t]+)public domain"
                              r"(?:[ \t]*[.;]|(?:[ \t]+\d{4}(?:[ \t]*[-,][ \t]*\d{2,4})*)?[ \t]+by[ \t]+[A-Z]|[ \t]*$)",
                              re.IGNORECASE | re.MULTILINE)
_LEADERS = " \t*#;%/-"


def _bare_dedication(head: str) -> bool:
    """Whether a comment's sentence is the public-domain dedication alone (``_BARE_DEDICATION``); a line that goes on
    from a line above left unfinished is no sentence of its own (curl's sha256.c: "... that was released into" / "public
    domain by Tom St Denis", a dedication of the code it is based on)."""
    for match in _BARE_DEDICATION.finditer(head):
        above = head[:match.start()].rstrip(_LEADERS + "\n")
        if not _UNFINISHED.search(above):
            return True
    return False


# A line ending in a word that needs one after it: its sentence goes on below.
_UNFINISHED = re.compile(r"\b(?:in|into|to|the|a|an|and|or|of|under|is|are|was|were|been|be|released|placed|put|"
                         r"dedicated|contributed|hereby)$", re.IGNORECASE)


_CC0_ADDRESS = re.compile(r"creativecommons org publicdomain zero")
# A dedication of the work a file is based on, not of the file.
_BASED_ON = re.compile(r"\bbased on \S+(?: \S+){0,3}\s*$")


def public_domain(words: str, found: Iterable[str] = ()) -> tuple[int, str] | None:
    """(position, CC0-1.0 or ``PUBLIC_DOMAIN``) where a file's words dedicate it to the public domain, else None."""
    if "public domain" not in words or {"Unlicense", "Unlicense-libwhirlpool", "CC0-1.0", "NIST-PD"} & set(found) \
            or (match := _PUBLIC_DOMAIN.search(words)) is None:
        return None
    if _BASED_ON.search(words[max(0, match.start() - 80):match.start()]):
        return None  # jemalloc's hash.h: "based on MurmurHash3, placed into the public domain by Austin Appleby"
    after = words[match.start():match.end() + 120]
    return match.start(), "CC0-1.0" if _CC0_ADDRESS.search(after) else PUBLIC_DOMAIN


# MIT by name where a bundled or minified file has no room for its text: "MIT Licensed" (elasticlunr), "Released
# under the MIT license" (jQuery's banner), "@license MIT"; not a pointer ("licensed under the MIT license found in the
# LICENSE file", "see LICENSE-MIT"), where the folder's license files answer.
_MIT_BY_NAME = re.compile(r"\b(?:mit licensed|(?:licensed|released|distributed|available) under (?:the )?(?:terms of "
                          r"(?:the )?)?mit(?: license)?(?! license| 0\b)(?! (?:found|see|in the|as found|that can be)))\b")
_MIT_TAG = re.compile(r"@license\s+MIT\b")
# A doc comment's license tag (phpDoc, JSDoc, Doxygen): "@license GPL" (POMO), "@license Apache-2.0", "@license
# http://opensource.org/licenses/MIT MIT" (an address, then the name).
# A header's "License:" field does the same (ccache's win32 getopt.c: "Version: 1.0", "License: LGPL").
# A field's value is a name to read, where a tag may hold an SPDX id of its own; an unknown word is neither
# (asyncio's "license: PSFL.").
# A field may close a comment box ("* License: LGPL 2.1 or later     *"), give the license's address after its name
# ("License: 2-clause BSD License (http://opensource.org/licenses/BSD-2-Clause)": MCAD's boxes.scad) or end a copyright
# line ("; (C)2019 Emmanuel Marty, Peter Ferrie, M. Steil; License: 3-clause BSD", "; additions: (C)2020 Michael
# Steil, License: 2-clause BSD": x16-rom's assembly files), or lack its colon before a single name ("License CC0"), or
# be a tag with one (tlib's Vim scripts: '" @License: GPL (see http://www.gnu.org/licenses/gpl.txt)').
_LICENSE_TAG = re.compile(r"^[\s*#/;%({<!-]*(?:[^\n]{0,40}?(?:\(c\)|©|copyright)[^\n]*?[,;][ \t]*)?"
                          r"(?:(?P<tag>@license[ \t]+)|@?licen[cs]e(?:[ \t]+URI)?[ \t]*:[ \t]*|licen[cs]e[ \t]+(?=[\w.+-]+[ \t]*$)"
                          r"|(?:lizenz|licencia|licenza|licen[cç]a|лицензия|许可证?|許可證?|授权协议|授權協議|开源协议|開源協議|协议|"
                          r"ライセンス)[ \t]*[:：][ \t]*)"
                          r"(?:\S*://\S+[ \t]+)?"
                          r"(?:(?P<name>[^\n*:<]+?)[ \t]*(?:[(<](?:see )?\S*://[^\s)>]*[)>][ \t]*)?|<?(?P<address>\S*://[^\s>]+)>?[ \t]*)"
                          r"(?:\*/|\*\)|-\}|-->|\*)?$", re.MULTILINE | re.IGNORECASE)
# The comment a file opens with (after a PHP open tag or a shebang): a tag further down belongs to one function.
# TeX's, BibTeX's and MATLAB's ``%`` lines too (JSS's jss.bst: "%% License: GPL-2").
# Also the block comments of Haskell ("{- ... -}"), OCaml and Pascal ("(* ... *)"), markup ("<!-- ... -->", after an
# XML declaration) and a Python module's docstring.
_OPENING_COMMENT = re.compile(r"(?:\s*(?:<\?php|<\?xml[^\n]*?\?>|#!.*)\n)?(?:\s*(?:/\*.*?\*/|/\+.*?\+/|\{-.*?-\}|\(\*.*?\*\)|<!--.*?-->"
                              r"|\"\"\".*?\"\"\"|'\'\'.*?'\'\'|(?://|#|--|;|%)[^\n]*))+", re.DOTALL)


# A code file's head naming its license in Chinese or Japanese prose: "本项目采用 MIT 许可证" ("this project adopts the MIT
# license"), "遵循 Apache-2.0 协议", "MIT ライセンスで公開" ("published under the MIT license").
_CJK_NAMED = re.compile(r"(?:采用|採用|遵循|遵守|基于|基於|使用|依据|依據|根据|根據|按照|依照|以)[ \t]*(?P<zh>[A-Za-z][\w .+-]{0,30}?)[ \t]*"
                        r"(?:开源|開源)?(?:许可证|許可證|许可协议|許可協議|授权协议|授權協議|开源协议|開源協議|协议|協議|授权|授權)"
                        r"|(?P<ja>[A-Za-z][\w.+-]{0,20}(?: [A-Za-z][\w.+-]{0,20}){0,2})[ \t]*ライセンス(?:で|の下|に基づ|に従|を適用|が適用)")


def cjk_banner(text: str, path: str = "") -> str | None:
    """The license a code file's head names in Chinese or Japanese prose (``_CJK_NAMED``), or None."""
    head = text[:_NOTICE_CHARS]
    if head.isascii() or not _code_path(path) or not any(word in head for word in ("许可", "許可", "协议", "協議", "授权", "授權", "ライセンス")):
        return None
    said = _CJK_NAMED.search(head)
    return normalize_license(said["zh"] or said["ja"]) if said else None


def named_in_banner(text: str, path: str = "") -> str | None:
    """The license a code file's head names without quoting it: MIT by ``_MIT_BY_NAME`` ("MIT Licensed"), or any
    license named after a licensing verb (``_BANNER_NAME``: Project Everest's "Licensed under the Apache 2.0
    License."), else None. Only a code file's banner counts: a document or a NOTICE saying so (a README's "libuv is
    licensed under the MIT license", Docker's NOTICE "software developed by Keith Rarick, licensed under the MIT
    License") describes a project, whose folder's license files answer; a choice between names says too little."""
    if not _code_path(path):
        return None
    head = text[:_NOTICE_CHARS]
    words = _words(head)
    if " under " not in words and "mit licensed" not in words and "@license" not in head \
            and "protected by" not in words and "covered by" not in words:
        return None  # every reading below needs one of these (its verb's "under" or "by", "MIT Licensed", the tag)
    if "dual licen" in words and (offered := dual_versioned(head)):
        return offered
    if "dual licensed" in words and (dual := _DUAL_NAMES.search(words)):  # jQuery plugins' "Dual licensed under the MIT or GPL Version 2 licenses."
        named = [_license_from_name(_spelled(f"{name} license{dual.group(3) or ''}")) for name in dual.group(1, 2)]
        return combine(named, "OR") if all(named) and len(set(named)) == 2 else None
    if _MIT_BY_NAME.search(words) or _MIT_TAG.search(head):
        return _with_parts("MIT", words)
    if "gpl" in words and (short := None if _choice(words) else _SHORT_GNU.search(words)):  # "... the GPL v2"
        version = short.group(2).replace(" ", ".")
        # "GPLv2+": the words lost its "+"
        later = short.group(3) or re.search(rf"{short.group(1)} ?v?(?:ersion)? ?{re.escape(version)}\+", head,
                                            re.IGNORECASE)
        return _license_from_name(f"{short.group(1)} {version}{' or later' if later else ''}")
    said = None if _choice(words) else _BANNER_NAME.search(words)
    if said:  # a version after the name, unless the name has its own ("the GNU GPLv2 license, LGPLv2.1 for ...")
        version = "" if re.search(r"\d", said.group(1)) else said.group(2) or ""
        return _with_parts(_license_from_name(_spelled(f"{said.group(1)} license{version}")), words)
    named = None if _choice(words) else _BANNER_ID.search(head)
    return named_license_of(named.group(1)) if named else None


# A banner giving its parts their licenses in turn: lektor-icon's style.css, "Original standalone HTML5 theme
# distributed under the terms of the Creative Commons Attribution 3.0 license ... Additions, modifications and porting
# released under the terms of the MIT (Expat) License": each named license holds (no choice is offered).
_PART_NAMED = re.compile(r"\b(?:original|additions?|modifications?|portions?|parts?)\b[^.]{0,80}?\b(?:licensed|released|"
                         r"distributed|made available) under (?:the )?(?:terms of (?:the )?)?([\w.+-]+(?: [\w.+-]+){0,4}?) "
                         r"licen[cs]e\b")


def _with_parts(found: str | None, words: str) -> str | None:
    """``found`` AND the licenses the banner's sentences about its parts name (``_PART_NAMED``), where they are other
    licenses than ``found``."""
    if not found or not ("original" in words or "addition" in words or "portion" in words or "part" in words):
        return found
    named = [n for m in _PART_NAMED.finditer(words) if (n := named_license_of(f"{m.group(1)} license"))]
    extra = [n for n in dict.fromkeys(named) if not license_ids(n) & license_ids(found)]
    return combine([found, *extra]) if extra else found


UNKNOWN_REFERENCE = "LicenseRef-unknown-license-reference"  # ScanCode's key for a reference to terms not at hand
_ADDRESS_ONLY = re.compile(r"<?https?://\S+?>?")


# A license given by its address, as ScanCode's references of each license name it: Creative Commons' deeds, the OSI's,
# SPDX's and choosealicense's pages, the GNU project's, Apache's, Mozilla's, Eclipse's and Boost's texts. Read where a
# license is said (``addressed_license``); a bare link in a document's prose is a link.
_ADDRESS = re.compile(r"(?:https?://)?(?:www\.)?(?P<host>(?:[\w-]+\.)*[\w-]+\.(?:org|com|net))/?(?P<path>[^\s)>\]\"'`,;*]*)",
                      re.IGNORECASE)
_CC_DEED = re.compile(r"licenses/(?P<kind>by(?:-nc)?(?:-sa|-nd)?|l?gpl)/(?P<version>\d\.\d)\b", re.IGNORECASE)
_SLUG = re.compile(r"licen[cs]es?/(?P<slug>[\w.+-]+?)(?:\.(?:php|html?|txt|json|md))?/?$", re.IGNORECASE)
_GNU_PAGE = re.compile(r"(?:licenses|copyleft)/(?:old-licenses/)?(?P<name>[al]?gpl)(?:-(?P<version>\d\.\d))?"
                       r"(?:[-.](?:html|txt|en\.html|standalone\.html))?$", re.IGNORECASE)
_ADDRESS_HOSTS: dict[str, Callable[[str], str | None]] = {
    "creativecommons.org": lambda path: (
        "CC0-1.0" if path.lower().startswith("publicdomain/zero/1.0")
        else PUBLIC_DOMAIN if path.lower().startswith("publicdomain/mark/")
        else _cc_deed(m) if (m := _CC_DEED.match(path)) else None),
    "opensource.org": lambda path: _slug_license(path),
    "spdx.org": lambda path: _slug_license(path),
    "choosealicense.com": lambda path: _slug_license(path),
    "gnu.org": lambda path: (normalize_license(f"{m['name']} {m['version'] or ''}") if (m := _GNU_PAGE.match(path))
                             else None),
    "apache.org": lambda path: normalize_license(f"Apache-{m[1]}") if (m := re.match(r"licenses/LICENSE-(\d\.\d)", path)) else None,
    "mozilla.org": lambda path: normalize_license(f"MPL-{m[1]}") if (m := re.match(r"MPL/(\d\.\d)", path)) else None,
    "eclipse.org": lambda path: (f"EPL-{m[1]}.{m[2] or 0}" if (m := re.match(r"legal/epl-v?(\d)\.?(\d)?", path)) else None),
    "boost.org": lambda path: "BSL-1.0" if path.upper().startswith("LICENSE_1_0") else None,
    "unlicense.org": lambda path: "Unlicense",
    "wtfpl.net": lambda path: "WTFPL",
}


def _cc_deed(match: re.Match) -> str | None:
    kind, version = match["kind"].lower(), match["version"]
    if kind.endswith("gpl"):  # Creative Commons' wrapper of the GNU licenses ("creativecommons.org/licenses/LGPL/2.1/")
        return normalize_license(f"{kind} {version}")
    return f"CC-{kind.upper()}-{version}" if version in ("1.0", "2.0", "2.5", "3.0", "4.0") else None  # SPDX's ids


def _slug_license(path: str) -> str | None:
    slug = _SLUG.match(path)
    return normalize_license(slug["slug"]) if slug else None


def address_license(address: str) -> str | None:
    """The license a web address names (``_ADDRESS_HOSTS``: "http://creativecommons.org/licenses/by/3.0/" is
    CC-BY-3.0, "https://opensource.org/licenses/mit-license.php" MIT, "https://spdx.org/licenses/Apache-2.0.html"
    Apache-2.0), or None for any other address."""
    match = _ADDRESS.fullmatch(address.strip().rstrip("."))
    if match is None:
        return None
    host = next((h for h in _ADDRESS_HOSTS if match["host"].lower() in (h, f"www.{h}")), None)
    return _ADDRESS_HOSTS[host](match["path"]) if host else None


# An address's host and path, whatever its domain: the name of terms kept there.
_ANY_ADDRESS = re.compile(r"<?(?:https?://)?(?:www\.)?(?P<host>[\w-]+(?:\.[\w-]+)+)(?P<path>/[^\s<>)\]\"'`,;*?#]*)?[^\s<>]*>?")


def terms_reference(address: str) -> str:
    """Terms named by their address alone, neither a license we know nor a text at hand: a ``LicenseRef-`` of the
    address's host and path (GreenSock's "http://www.greensock.com/terms_of_use.html" is
    ``LicenseRef-greensock.com-terms-of-use``), so that the owner's terms stay named, never unknown."""
    match = _ANY_ADDRESS.fullmatch(address.strip().rstrip("."))
    if match is None:
        return UNKNOWN_REFERENCE
    page = re.sub(r"\.(?:html?|php|aspx?|txt|md)$", "", (match["path"] or "").strip("/"), flags=re.IGNORECASE)
    return named_reference(f"{match['host']}-{page}")


def named_reference(name: str) -> str:
    """A ``LicenseRef-`` for terms known only by ``name`` (an address's host and path, a text's file name): lower case,
    SPDX's id characters."""
    return f"LicenseRef-{re.sub(r'[^a-z0-9.]+', '-', name.lower()[:80]).strip('-.') or 'unnamed'}"


# A license named with its address after "at" or in parentheses (Markdeep's "under the terms of the BSD license at
# https://opensource.org/licenses/BSD-2-Clause"): the address says which of the family's variants; and a project the
# file contains, with its license named in parentheses ("Contains highlight.js (https://...) by Ivan Sagalaev, which is
# used for code highlighting. (BSD 3-clause license)"), whose license holds beside the file's.
_NAMED_AT_ADDRESS = re.compile(r"\bunder (?:the )?(?:terms of (?:the )?)?(?P<name>[\w.+-]+(?: [\w.+-]+){0,3}?) licen[cs]e,? "
                               r"(?:at |found at |available at )?\(?<?(?P<address>https?://[^\s)>]+?)[)>]?[.,;]?(?= |$)",
                               re.IGNORECASE)
_CONTAINS_PROJECT = re.compile(r"\b(?:contains|includes|bundles) .{0,200}?\((?P<name>[\w .+-]{1,30}?) licen[cs]e\)",
                               re.IGNORECASE)


def named_at_address(text: str, path: str = "") -> str | None:
    """The license a code file's head names with its address (``_NAMED_AT_ADDRESS``; the name's family, the address's
    variant), AND the licenses of the projects it says it contains (``_CONTAINS_PROJECT``), or None."""
    head = text[:_NOTICE_CHARS]
    if "://" not in head or " under " not in head or not _code_path(path):
        return None
    flat = " ".join(_COMMENT_MARKS.sub(" ", head).split())
    said = _NAMED_AT_ADDRESS.search(flat)
    if said is None or (found := address_license(said["address"])) is None:
        return None
    named = _license_from_name(f"{said['name']} license")
    if named and not license_families(named) & license_families(found):
        return None  # a name and an address that disagree: the other readings answer
    contained = [n for m in _CONTAINS_PROJECT.finditer(flat[said.end():]) if (n := named_license_of(f"{m['name']} license"))]
    return combine([found, *contained])


def license_families(expression: str) -> set[str]:
    """The license families of an expression, without versions and variants (GPL-2.0-or-later: gpl; BSD-3-Clause:
    bsd): a second reading naming the same family restates the first."""
    return {re.split(r"[-.]?\d", i, maxsplit=1)[0].split("-")[0] for i in license_ids(expression)}


# "This work is subject to the terms in http://www.greensock.com/terms_of_use.html" (GreenSock's sources, below their
# documentation, past the head): the terms at that address are the file's.
_TERMS_AT = re.compile(r"subject to the terms(?: and conditions)?(?: of use)? (?:in|at|of|found at|set out at|described at)"
                       r"[ \t]+(?:<a href=[\"']?)?(?P<address>(?:https?://)?[\w-]+(?:\.[\w-]+)+/[^\s<>\"')]*)",
                       re.IGNORECASE)
_TERMS_AT_LITERALS = ("subject to the terms", "Subject to the terms", "SUBJECT TO THE TERMS")


def terms_at_address(text: str, path: str = "") -> str | None:
    """The terms a code file's comment puts it under by their address ("subject to the terms in <address>"): the
    license the address names, else the terms named by it (``terms_reference``); None where no comment says so."""
    if not _code_path(path):
        return None
    for literal in _TERMS_AT_LITERALS:
        at = text.find(literal, 0, _LATER_CHARS)
        if at >= 0 and (said := _TERMS_AT.match(text, at)):
            address = said["address"].rstrip(".")
            return address_license(address) or terms_reference(address)
    return None


# Terms named only by their owner's name for them: Altera's header on its tools' output files (Quartus project files),
# "expressly subject to the terms and conditions of the Altera Program License Subscription Agreement, Altera MegaCore
# Function License Agreement, or other applicable license agreement": an agreement, not a license we know.
_AGREEMENT = re.compile(r"\bsubject to the terms (?:and conditions )?of (?:the |this )?(?P<name>(?:[A-Z][\w.&+-]*[ ]){1,8}"
                        r"Agreement)\b")


def agreement_terms(text: str, path: str = "") -> str | None:
    """The terms a code file's head puts it under by an agreement's name (``_AGREEMENT``): ``LicenseRef-`` with that
    name (``named_reference``: ``LicenseRef-altera-program-license-subscription-agreement``), never unnamed; None
    where no head says so, or where the name is a license we know."""
    head = text[:_NOTICE_CHARS]
    if "Agreement" not in head or not _code_path(path):
        return None
    said = _AGREEMENT.search(" ".join(_COMMENT_MARKS.sub(" ", head).split()))
    if said is None or _license_from_name(said["name"]) is not None:
        return None
    return named_reference(said["name"])


# A banner's bare license ids after "Licensed" (jQuery UI's "Copyright 2013 jQuery Foundation and other contributors
# Licensed MIT", "Copyright (c) 2012 AUTHORS.txt; Licensed MIT, GPL": a choice, as jQuery's "Dual licensed under the
# MIT or GPL"), or a banner line naming its license alone beside a copyright line (XRegExp's "// (c) 2007-2012 Steven
# Levithan", "// MIT License").
_LICENSED_IDS = re.compile(r"\b[Ll]icensed[ \t]+(?P<names>(?:MIT|GPL|LGPL|BSD|Apache|MPL|ISC|WTFPL|CC0|Zlib)[\w.+-]*"
                           r"(?:[ \t]*(?:,|\bor\b|\band\b)[ \t]*(?:MIT|GPL|LGPL|BSD|Apache|MPL|ISC|WTFPL|CC0|Zlib)[\w.+-]*)"
                           r"{0,3})(?=[ \t]*(?:\*/|$|[.;)]))", re.MULTILINE)
_NAME_LINE = re.compile(r"^[ \t]*(?:[*#;%!/]+|--+)?[ \t]*(?P<name>[A-Z][\w.+-]*(?:[ \t]+[\w.+-]+){0,2}?)[ \t]+"
                        r"Licen[cs]e[ \t]*(?:\*/)?[ \t]*$", re.MULTILINE)
_BANNER_COPYRIGHT = re.compile(r"(?:\(c\)|©|\bcopyright\b)", re.IGNORECASE)


# A minified library's one-line banner, its fields set apart by bars: "/*! normalize.css v8.0.1 | MIT License |
# github.com/necolas/normalize.css */", "/*! highlight.js v11.9.0 | BSD3 License | git.io/hljslicense */".
_PIPE_SEGMENT = re.compile(r"\|[ \t]*(?P<name>[\w.+-]+(?: [\w.+-]+){0,2}?)[ \t]+licen[cs]e[ \t]*(?=\||\*/|$)",
                           re.IGNORECASE | re.MULTILINE)
_PIPE_CHARS = 300


def banner_ids(text: str, path: str = "") -> str | None:
    """The license a code file's opening comment gives as bare ids after "Licensed" (several: a choice), or as a
    line naming it alone beside a copyright line (``_LICENSED_IDS``, ``_NAME_LINE``), or None."""
    head = text[:_NOTICE_CHARS]
    if "icense" not in head or not _code_path(path):
        return None
    opening = _OPENING_COMMENT.match(head)
    comment = opening.group(0) if opening else ""
    if segment := _PIPE_SEGMENT.search(comment, 0, _PIPE_CHARS):
        return named_license_of(f"{segment['name']} license")  # "/*! normalize.css v8.0.1 | MIT License | github..."
    if not _BANNER_COPYRIGHT.search(comment):
        return None
    if said := _LICENSED_IDS.search(comment):
        names = [n for n in re.split(r"[ \t]*(?:,|\bor\b|\band\b)[ \t]*", said["names"]) if n]
        found = [normalize_license(name) for name in names]
        return combine(found, "OR") if found and all(found) else None
    line = _NAME_LINE.search(comment)
    return named_license_of(f"{line['name']} license") if line else None


# A Python module's ``__license__`` (termpdf.py in fishconfig: ``__license__ = "MIT"``), as packaging tools read it.
_DUNDER_LICENSE = re.compile(r"^__license__[ \t]*(?::[ \t]*str[ \t]*)?=[ \t]*[rbu]?(['\"])(?P<name>[^'\"\n]{1,80})\1",
                             re.MULTILINE)
_DUNDER_CHARS = 10_000


def dunder_license(text: str, path: str = "") -> str | None:
    """The license a Python module's ``__license__`` names, or None."""
    if not path.endswith((".py", ".pyw", ".pyi")) or "__license__" not in text[:_DUNDER_CHARS]:
        return None
    said = _DUNDER_LICENSE.search(text, 0, _DUNDER_CHARS)
    # "BSD or Apache License, Version 2.0" (packaging's, in setuptools' copies): each name, a choice
    found = _spelled_expression(said["name"]) if said else None
    return combine(_operands(found, "OR"), "OR") if found else None  # a choice in combine's order, as elsewhere


# A Lisp form's keyword property naming its file's license: SLIME's contribs, "(define-slime-contrib slime-asdf ...
# (:authors ...) (:license "GPL") ...)"; a system's ":license" outside a manifest. In Lisp-family files only, where a
# keyword is that syntax's own (elsewhere ":license" is a dictionary key or an option's name).
_LISP_EXTENSIONS = (".el", ".lisp", ".lsp", ".cl", ".scm", ".ss", ".sls", ".sld", ".rkt", ".clj", ".cljs", ".cljc", ".fnl",
                    ".lfe", ".hy")
_KEYWORD_LICENSE = re.compile(r"(?<![\w:-]):licen[cs]e[ \t]+\"(?P<name>[^\"\n]{1,80})\"")


def lisp_keyword_license(text: str, path: str = "") -> str | None:
    """The license a Lisp-family file's ``:license "NAME"`` property names in its first ten thousand characters, or
    None."""
    if not path.endswith(_LISP_EXTENSIONS) or ":licen" not in text[:_DUNDER_CHARS]:
        return None
    said = _KEYWORD_LICENSE.search(text, 0, _DUNDER_CHARS)
    return normalize_license(said["name"]) if said else None


# A line of a code file's opening comment holding a license's address and nothing else (MCAD's bitmap.scad: the
# author, a homepage, then "http://creativecommons.org/licenses/by/3.0/"), or a licensing sentence ending in one
# ("Licensed under http://www.apache.org/licenses/LICENSE-2.0", "released under <https://...>").
_ADDRESS_LINE = re.compile(r"^[ \t]*(?:[*#;%!/]+|--+|\(\*|\{-|<!--)?[ \t]*(?:(?:licen[cs]ed|released|distributed|"
                           r"made available|available) under(?: the)?[ \t]+)?<?(?P<address>(?:https?://)?[\w.-]+\.(?:org|com|net)/\S*?)>?"
                           r"[ \t]*\.?[ \t]*(?:\*/|-->|\*\)|-\})?[ \t]*$", re.IGNORECASE | re.MULTILINE)


def addressed_license(text: str, path: str = "") -> str | None:
    """The licenses a code file's opening comment gives by address alone (``_ADDRESS_LINE``; AND), or None."""
    if not _code_path(path) or "/" not in text[:_NOTICE_CHARS]:
        return None
    opening = _OPENING_COMMENT.match(text[:_NOTICE_CHARS])
    head = opening.group(0) if opening else ""
    return combine(address_license(line["address"]) for line in _ADDRESS_LINE.finditer(head)) or None


# An RCS-style keyword naming the file's license, below a help text (Jan Simon's MATLAB files: "% $License: BSD
# (use/copy/change/redistribute on own risk, mention the author) $"). A family named with terms in the author's own
# words states none of its variants' clauses: BSD_UNSTATED, not the BSD-3-Clause a bare "BSD" field is read as.
_KEYWORD = re.compile(r"\$licen[cs]e:[ \t]*(?P<name>[^$\n(]*?)[ \t]*(?P<terms>\([^)\n]*\))?[ \t]*\$", re.IGNORECASE)
_KEYWORD_CHARS = 8_000


_MARKUP_LANGUAGES = {"md": "markdown", "markdown": "markdown", "mkd": "markdown", "adoc": "asciidoc",
                     "asciidoc": "asciidoc", "rst": "restructuredtext"}


def document_prose(text: str, path: str) -> str:
    """A markup document's text without its code and literal blocks, whose quoted programs' banners are not the
    document's terms (neorv32's guide shows OpenOCD's "Licensed under GNU GPL v2" in a listing); any other file's text."""
    language = _MARKUP_LANGUAGES.get(path.rsplit(".", 1)[-1].lower()) if "." in path else None
    return markup_prose(text, language) if language else text


def keyword_license(text: str, path: str = "") -> str | None:
    """The license a code file's ``$License: ... $`` keyword names (``_KEYWORD``), or None."""
    head = text[:_KEYWORD_CHARS]
    said = _KEYWORD.search(head) if "$" in head and _code_path(path) else None
    if said is None:
        return None
    if said["terms"] and re.fullmatch(r"(?i)bsd(?: licen[cs]e)?", said["name"]):
        return BSD_UNSTATED
    return normalize_license(said["name"])


# An RFC's own terms sit in its "Full Copyright Statement" near its end (before 2009) or in its head (since): the
# document is read whole where its head says it is one ("Request for Comments: 4627").
_RFC_HEAD = re.compile(r"^Request for Comments:[ \t]*\d+", re.MULTILINE)
_RFC_CHARS = 2_000


def rfc_license(text: str, path: str = "") -> str | None:
    """The IETF's terms an RFC states (``IETF_TRUST``, ``IETF``), or None for any other file: lua-cjson's copy of
    RFC 4627, "This document is subject to the rights, licenses and restrictions contained in BCP 78", 500 lines down."""
    if "Request for Comments" not in text[:_RFC_CHARS] or not _RFC_HEAD.search(text[:_RFC_CHARS]):
        return None
    words = _words(text[-_NOTICE_CHARS * 3:]) + " " + _words(text[:_NOTICE_CHARS])
    found = [s.spdx for s in _SIGNATURES if s.spdx in (IETF_TRUST, IETF) and _signature_position(s, words) is not None]
    return found[0] if found else None


# A license's short name or id alone after the verb, ending the sentence: Pixelorama's shader "// Licensed under CC0".
_BANNER_ID = re.compile(r"\b(?:[Ll]icen[sc]ed|[Rr]eleased|[Dd]istributed) under (?:the )?([A-Za-z][\w.+-]*\d[\w.+-]*|[A-Z]{2,}"
                        r"[A-Z0-9.+-]*)[ \t]*(?:[.;,)]|$)", re.MULTILINE)


# A sentence whose subject is the file itself: noVNC's stylesheets and pages, "noVNC is licensed under the MPL 2.0 (see
# LICENSE.txt)" then "This file is licensed under the 2-Clause BSD license (see LICENSE.txt)": the project's license
# is the folder's, the file's own is the second.
_THIS_FILE = re.compile(r"\bthis (?:file|source file|source code|header|header file|stylesheet|script|page|document)"
                        r" is (?:licensed|released|distributed|made available|available) under (?:the )?(?:terms of "
                        r"(?:the )?)?([\w.+-]+(?: [\w.+-]+){0,3}?) licen[cs]e\b( (?:v ?|version )\d+(?: \d)?\b)?")


def file_statement(text: str, path: str = "") -> str | None:
    """The license a file's head says the file itself is under ("This file is licensed under the 2-Clause BSD
    license"), in any file but a license text or NOTICE, or None; a choice, or a family without its version, is
    left to the other readings."""
    if is_license_file(path) or is_notice_file(path):
        return None
    words = _words(text[:_NOTICE_CHARS])
    said = _THIS_FILE.search(words) if " under " in words else None  # every wording _THIS_FILE reads has it
    if said is None or _choice(words):
        return None
    version = re.sub(r"(\d) (\d)$", r"\1.\2", said.group(2) or "")  # the words' "2 1" is version 2.1
    name = f"{said.group(1)} license{version}"
    spdx = _license_from_name(name)
    return None if spdx is None or _unversioned_family(name, spdx) else spdx


# "Licensed under the Apache 2.0 License.", OpenWrt's "licensed under the GNU General Public License v2", "distributed
# under the GNU General Public License (GPLv2)". Not a pointer ("... license found in the LICENSE file", "see LICENSE").
# decNumber's "This software is made available under the terms of the ICU License -- ICU 1.8.1 and later."
# "licensed under the Creative Commons - GNU LGPL 2.1 license" (MCAD's involute_gears.scad): the GNU license.
_BANNER_NAME = re.compile(r"\b(?:licensed|released|distributed|made available) under (?:the )?(?:terms of (?:the )?)?"
                          r"(?:creative commons (?=(?:gnu|[al]?gpl)\b))?([\w.+-]+(?: [\w.+-]+){0,3}?) licen[cs]e\b( (?:[al]?gpl )?(?:v ?|version )\d+(?: \d)?\b| [al]?gpl ?v ?\d+(?: \d)?\b)?"
                          r"(?! (?:found|see|in the|as found|that can be|file|text|at|agreement|which(?! is an? )|is|v ?\d|version))")


# Two licenses a banner names as a choice, perhaps with their version ("Dual licensed under the MIT or GPL Version 2
# licenses.", "dual licensed under the MIT and GPL licenses", "the GPL or LGPL version 2 licenses"): their OR.
_DUAL_NAMES = re.compile(r"\bdual licensed under (?:the )?(?:terms of (?:the )?)?([a-z]\w*) (?:license )?(?:and|or) "
                         r"(?:the )?([a-z]\w*)( (?:v ?|version )\d+(?: \d)?)? licenses\b")


# Two licenses, each named with its version, a head offers as a dual license (MCAD's "Dual licenced under Creative
# Commons Attribution-Share Alike 3.0 and LGPL2 or later"; "dual licensed under the GPL 3.0 and the GNU Lesser General
# Public License as per http://creativecommons.org/licenses/LGPL/2.1/", the version in the address): their OR.
_DUAL_VERSIONED = re.compile(r"\bdual[ -]licen[cs]ed under (?:the )?(?P<a>[^,;\n]+?) and (?:the )?(?P<b>[^,;\n]+?)"
                             r"(?:[ \t]+as per[ \t]+(?P<url>\S+))?[ \t]*(?:\.(?:[ \t]|$)|$)", re.IGNORECASE | re.MULTILINE)


def dual_versioned(head: str) -> str | None:
    """The OR of the two licenses ``_DUAL_VERSIONED`` finds, each read with a version of its own; else None."""
    match = _DUAL_VERSIONED.search(head)
    if match is None:
        return None
    version = re.search(r"/(\d(?:\.\d)?)/?$", match.group("url") or "")
    second = match.group("b") + (f" {version.group(1)}" if version and not re.search(r"\d", match.group("b")) else "")
    names = (match.group("a"), second)
    named = [normalize_license(name.strip()) for name in names]
    if not all(named) or len(set(named)) != 2 or not all(re.search(r"\d", name) for name in names):
        return None
    return combine(named, "OR")


# A GNU license named in short with its version after a licensing verb, "GNU" left out (r7rs-libs' autodiff, "It is
# licensed under the GPL v2 or later, see the enclosed file COPYING").
# Also "protected by" or "covered by" it (SLIME's slime-autoloads.el: "This file is protected by the GNU GPLv2 (or
# later), as distributed with GNU Emacs").
_SHORT_GNU = re.compile(r"\b(?:(?:licensed|released|distributed|available) under|(?:protected|covered) by) (?:the )?"
                        r"(?:terms of (?:the )?)?(?:gnu )?([al]?gpl) ?(?:v ?|version )?(\d(?: \d)?)\b"
                        r"( or (?:any )?(?:later|newer)| or higher)?")


def _spelled(name: str) -> str:
    """A license's name read from ``_words``, its version's dot and MIT-0's dash restored ("lgpl 2 1" -> "lgpl 2.1")."""
    return re.sub(r"\bmit 0\b", "mit-0", re.sub(r"(?<=\d) (?=\d+\b)", ".", name))


def _code_path(path: str) -> bool:
    """Whether ``path`` may be a code file: no document (``_PROSE_EXTENSIONS``, a README, a changelog), license text
    or NOTICE, whose sentences speak of a project; an unknown path ("") counts."""
    name = _parts(path)[-1] if _parts(path) else ""
    # a script named like a document is code (ohmyzsh's ``tools/changelog.sh``)
    document = name.upper().startswith(_DOCUMENT_NAMES) and name.rsplit(".", 1)[-1].lower() not in _CODE_EXTENSIONS
    prose = name.lower().endswith(_PROSE_EXTENSIONS) and name.lower() != "cmakelists.txt"  # CMake's code in a .txt
    return not path or not (prose or is_license_file(path) or is_notice_file(path) or document)


_DOCUMENT_NAMES = ("README", "CHANGELOG", "CHANGES", "NEWS", "HISTORY", "AUTHORS", "CONTRIBUTORS", "THANKS")


_FIELD_WORDS = ("lizenz", "лиценз", "许可", "許可", "协议", "協議", "ライセンス")


def _field_word(low: str) -> bool:
    """Whether a lower-cased head names "license" in English or another language (a cheap screen)."""
    return "licen" in low or "lizenz" in low or not low.isascii() and any(w in low for w in _FIELD_WORDS)


def _known_expression(name: str) -> bool:
    """Whether ``name`` is an SPDX expression of ids we know (not a word that only looks like one)."""
    node = parse_expression(name.strip(), strict=True)
    return node is not None


def tagged_license(text: str, path: str = "") -> str | None:
    """The licenses a code file's opening comment names in doc comments' ``@license`` tags or ``License:`` fields
    (``_LICENSE_TAG``; AND), else the licenses the addresses such tags give alone name (``address_license``), or None."""
    if path.lower().endswith(_PROSE_EXTENSIONS) or not _field_word(text[:_NOTICE_CHARS].lower()):
        return None  # every tag and field below names "license" (any case), or says it in another language
    opening = _OPENING_COMMENT.match(text[:_NOTICE_CHARS])
    # a TeX file's header comments are broken by its \def lines (jss.cls: "%% License: GPL-2" after three of them): its
    # "%" lines naming a license in the head count
    head = opening.group(0) if opening else ""
    if text.startswith("%") or path.lower().endswith(_TEX_EXTENSIONS):
        head += "\n" + "\n".join(_TEX_HEADER.findall(text[:_NOTICE_CHARS]))
    if path.lower().endswith(_BASIC_EXTENSIONS):  # Visual Basic's ' comments, below a module's Attribute lines
        head += "\n" + "\n".join(_BASIC_COMMENT.findall(text[:_NOTICE_CHARS]))
    if path.lower().endswith(_VIM_PATHS):
        head += "\n" + "\n".join(_VIM_COMMENT.findall(text[:_NOTICE_CHARS]))
    if "$(" in head:  # D's documentation macros: "License: $(LINK2 http://www.boost.org/LICENSE_1_0.txt, Boost License 1.0)."
        head = _DDOC_LINK.sub(r"\1", head)
    tags = list(_LICENSE_TAG.finditer(head))  # several: all in force (CyberChef's own and an adapted file's)
    # an ``@license`` tag's name is read as an SPDX field only where it is one of known ids: React's builds open with
    # "@license React", a package's name marking the comment to keep, no license
    named = combine(normalize_license(tag["name"], spdx_field=bool(tag["tag"]) and _known_expression(tag["name"]))
                    for tag in tags if tag["name"])
    # an address beside a name restates it (WordPress' "License: GPLv2 or later", "License URI: .../gpl-2.0.html")
    return named or combine(address_license(tag["address"]) for tag in tags if tag["address"]) or None


# A DDoc macro linking an address with its text, ``$(LINK2 address, text)`` (also ``$(HTTP ...)``, ``$(WEB ...)``): its text.
_DDOC_LINK = re.compile(r"\$\((?:LINK2|HTTPS?|WEB)[ \t]+[^,()\s]+,[ \t]*([^()\n]+)\)")
_TEX_EXTENSIONS = (".tex", ".sty", ".cls", ".dtx", ".ins", ".bst")
# Visual Basic and VBA modules (VBA-JSON's JsonConverter.bas: "' @license MIT (http://...)" after "Attribute VB_Name"):
# a comment is a ' to the line's end; a class module (.cls) opens with VERSION/BEGIN/Attribute lines, not a comment.
_BASIC_EXTENSIONS = (".bas", ".frm", ".vb", ".vbs", ".vba")
_BASIC_COMMENT = re.compile(r"^[ \t]*'+[ \t]*([^\n]*)$", re.MULTILINE)
_TEX_HEADER = re.compile(r"^%[^\n]*licen[cs]e[ \t]*:[^\n]*$", re.MULTILINE | re.IGNORECASE)
# Vim script's comments open with a double quote (vital.vim's Hash/SHA1.vim: '" License CC0'; plugins' '" License: MIT
# license  {{{'); a line of it is a comment where nothing but blanks precedes the quote.
_VIM_PATHS = (".vim", "vimrc")
_VIM_COMMENT = re.compile(r'^[ \t]*"[ \t]*([^\n]*)$', re.MULTILINE)


# A license a sentence names after its verb, also where it then points elsewhere for the text: Meta's "This source code
# is licensed under the MIT license found in the LICENSE file in the root directory of this source tree". Not the
# file's license (the pointed-at folder answers for that), but a statement that the file comes under terms of its own.
_NAMED_AFTER_VERB = re.compile(r"\b(?:licensed|released|distributed|made available) under (?:the )?(?:terms of (?:the )?)?"
                               r"([\w.+-]+(?: [\w.+-]+){0,3}?) licen[cs]e\b(?: (?:v ?|version )?(\d{1,2}(?: \d)?)\b)?")


def named_license(text: str) -> str | None:
    """The license a licensing sentence in a file's head names ("licensed under the MIT license found in..."), or
    None; ``filters.vendored.foreign_notice`` reads it as the file's own terms where no notice quotes them."""
    said = _NAMED_AFTER_VERB.search(_words(text[:_NOTICE_CHARS]))
    if said is None:
        return None
    version = f" {said.group(2).replace(' ', '.')}" if said.group(2) else ""  # the Eclipse Public License v1.0
    return _license_from_name(f"{said.group(1)} license{version}") or _license_from_name(f"{said.group(1)} license")


# A license a file's head names while pointing to a file in its folder for the text: Go's "Use of this source code is
# governed by a BSD-style license that can be found in the LICENSE file", Meta's "licensed under the MIT license found
# in the LICENSE file in the root directory of this source tree".
_POINTER = re.compile(r"\b(?:governed by|licensed under|released under|distributed under) (?:the |a |an )?"
                      r"([\w.+-]+(?: [\w.+-]+){0,2}?) licen[cs]e (?:that )?(?:can be |is )?(?:found|located|available)"
                      r" in the ([\w.-]+) file")


# A licensing sentence naming the license, then pointing to a file for its text: OpenMV's drivers in esp32-camera, "This
# work is licensed under the MIT license, see the file LICENSE for details", in a repository whose LICENSE is Apache's.
_NAMED_THEN_POINTER = re.compile(r"^(?:,? )?(?:see|found in|that can be found in|which can be found in|as found in|"
                                 r"available in|contained in|included in|in the)\b")


_POINTER_AFTER_NAME = re.compile(r"licen[cs]e,?\s+(?:\W+\s*)?(?:see|found|that can|which can|as found|available in|"
                                 r"contained in|included in|in the)\b", re.IGNORECASE)


def named_before_pointer(text: str, path: str = "") -> str | None:
    """The license a code file's head names in a sentence that then points to a file for its text (``_NAMED_AFTER_VERB``
    followed by ``_NAMED_THEN_POINTER``): the file's own terms, whatever the pointed file holds (a copy keeps its
    project's pointer); None for a choice or a family without its variant."""
    head = text[:_NOTICE_CHARS]
    if " under " not in head or not _POINTER_AFTER_NAME.search(head) or not _code_path(path):
        return None  # a literal screen: most heads point nowhere after a name
    words = _words(head)
    said = _NAMED_AFTER_VERB.search(words) if not _choice(words) else None
    if said is None or not _NAMED_THEN_POINTER.match(words[said.end():said.end() + 40].lstrip()):
        return None
    version = f" {said.group(2).replace(' ', '.')}" if said.group(2) else ""
    return named_license_of(f"{said.group(1)} license{version}")


def pointed_license(text: str) -> str | None:
    """The license a file's head names in a sentence that points to a license file for its text ("a BSD-style
    license that can be found in the LICENSE file": BSD-3-Clause), or None."""
    said = _POINTER.search(_words(text[:_NOTICE_CHARS]))
    return _license_from_name(f"{said.group(1)} license") if said else None


# A single-file library's license block at its end (stb's, dr_libs', msf_gif's): read there when the head states
# none. stb's "This software is available under 2 licenses -- choose whichever you prefer", then "ALTERNATIVE A - MIT
# License" and "ALTERNATIVE B - Public Domain (www.unlicense.org)", is a choice between the texts it quotes.
_FOOTER_CHARS = _NOTICE_CHARS  # notice_license reads this many
_FOOTER_CHOICE = re.compile(r"\bavailable (?:under|as a choice of) (?:2|two|the following) licenses\b"
                            r"|\bchoose whichever you prefer\b")


_PROSE_EXTENSIONS = (".md", ".markdown", ".rst", ".txt", ".adoc", ".html", ".htm", ".org", ".tex")
# A comment's last line: its closer, or a line comment (a Markdown heading is no comment).
_COMMENT_END = re.compile(r"(?:\*/|-->|\"\"\"|\'\'\'|\*\))\s*$|^\s*(?://|--|;|#(?!#)|%)")


def footer_license(text: str, path: str = "") -> str | None:
    """The license a long file's closing license block states (``notice_license`` on its last characters; a
    "choose whichever you prefer" block offers its texts as alternatives), or None. Only a file that ends inside
    a comment has one: a document's closing section about licenses (imgui's fonts guide, ``FONTS.md``) is prose."""
    if len(text) <= _NOTICE_CHARS or path.lower().endswith(_PROSE_EXTENSIONS):
        return None  # the head already covered it; a document's last section is no license block
    last = next((line for line in reversed(text.rstrip().splitlines()[-3:]) if line.strip()), "")
    if not _COMMENT_END.search(last):
        return None
    return _block_license(text[-_FOOTER_CHARS:]) or _closing_section(text) or _closing_field(text)


def _closing_field(text: str) -> str | None:
    """The licenses the ``License:`` fields of a file's closing ``/* */`` (or D's ``/+ +/``) comment name: arsd's
    ``mysql.d`` closes with "Copyright: Adam D. Ruppe, 2009 - 2024 / License: GPL (erroneously started to be Boost in
    2011)", the repository's Boost answering for its other modules."""
    tail = text[-_FOOTER_CHARS:]
    opened = max(tail.rfind("/*"), tail.rfind("/+"))
    tags = [tag for tag in _LICENSE_TAG.finditer(tail[opened:])] if opened >= 0 else []
    return combine(normalize_license(tag["name"], spdx_field=bool(tag["tag"])) for tag in tags if tag["name"]) or None


def _closing_section(text: str) -> str | None:
    """The license section of a file's closing ``/* ... */`` comment, where credits follow it past the last
    characters ``footer_license`` reads (nuklear.h's "## License ... available under 2 licenses", then its
    changelog and credits, 28 kB from the end of a 990 kB file)."""
    opened = text.rfind("/*", max(0, len(text) - _OPENING_CHARS))
    if opened < 0 or "*/" in text[opened:].rstrip()[:-2]:
        return None
    block = text[opened:]
    heading = next(_LICENSE_HEADING.finditer(block), None)
    return _block_license(block[heading.start():]) if heading else None


def _block_license(block: str) -> str | None:
    found = notice_license(block)
    return _alternatives([found]) if found and _footer_choice(_words(block)) else found


# A single-file library's opening comment runs to hundreds of lines, its license section far below the first
# 3,000 characters: rlsw.h's "LICENSE: MIT" at line 64, sinfl.h's "## License ... available under 2 licenses" at line
# 69, raygui.h's "LICENSE: zlib/libpng" at line 331.
_OPENING_BLOCK = re.compile(r"\s*/\*.*?\*/", re.DOTALL)
_OPENING_CHARS = 40_000
_LICENSE_HEADING = re.compile(r"^[\s*#/-]*(?:licen[cs]e|copyright)\b", re.IGNORECASE | re.MULTILINE)


def opening_license(text: str, path: str = "") -> str | None:
    """The license the section of a code file's opening ``/* ... */`` comment that starts with a "License"
    (or "Copyright") line states, when that section lies past the head ``notice_license`` reads; else None."""
    if path.lower().endswith(_PROSE_EXTENSIONS):
        return None
    block = _OPENING_BLOCK.match(text[:_OPENING_CHARS])
    if block is None or block.end() <= _NOTICE_CHARS:
        return None  # the head already covered it
    heading = next((m for m in _LICENSE_HEADING.finditer(block.group(0)) if m.start() >= _NOTICE_CHARS // 2), None)
    return _block_license(block.group(0)[heading.start():]) if heading else None


# A notice lower in a code file than its head: a second project's grant in its opening comment (raylib's reasings.h,
# Robert Penner's BSD text, then raylib's zlib notice at character 3,256), or a function's own notice in a comment
# further down (rprand.h's xoshiro128**, "To the extent possible under law, the author has dedicated all copyright
# ... See <http://creativecommons.org/publicdomain/zero/1.0/>" at line 258). The file is under each of them.
# The same words without their first letter (either case), and in capitals.
_GRANT_LITERALS = ("ermission", "edistribution", "ublic domain", "icensed under", "icenced under", "erms of the",
                   "PERMISSION", "REDISTRIBUTION", "PUBLIC DOMAIN", "LICENSED UNDER", "ame terms as", "icenses this file")
_LATER_CHARS = 200_000


_GRANT_LEAD = 600  # a license's title and copyright lines above its grant's word
_GRANT_SPAN = 2_000  # and its clauses below it (BSD's ~1.5k characters, more with a comment's column marks)


def later_notices(text: str, path: str, first: str | None) -> str | None:
    """``first`` (the file's head's license) AND the licenses that notices in comments below the head state, where they
    name licenses ``first`` does not (a repeated or restated notice adds nothing); code files only (``_code_path``).
    Where the head states none, those notices are the file's own (glad's loaders, whose generated head names no
    license, quote Khronos's grant at line 1,485); None where there are none.
    Only the comments holding a grant's word are read (found by substring, then the comment around it)."""
    if len(text) <= _NOTICE_CHARS or not _code_path(path):
        return first
    found, known, read_to = [first] if first else [], set(license_ids(first or "")), -1
    pod = path.endswith(_POD_EXTENSIONS)
    for position in sorted(_grant_positions(text)):
        if position < read_to or (run := _comment_around(text, position, path) or (
                _pod_around(text, position) if pod else None)) is None:
            continue
        start, read_to = run
        start = start if start >= _NOTICE_CHARS else _paragraph_start(text, _NOTICE_CHARS)
        if position + _GRANT_SPAN > start + _NOTICE_CHARS:  # a long comment's license past what one reading sees
            start = text.rfind("\n", 0, position - _GRANT_LEAD) + 1  # (neorv32's neoTRNG: its description, then BSD's)
        # a bare "Public domain." below the head is one function's (socket.py's socketpair: "by Geert Jansen.
        # Public domain."), not the file's
        said = notice_license(text[start:read_to], bare=False) or _titled_gnu_text(text[start:read_to])
        for part in _operands(said or "", "AND"):
            if part and not (ids := license_ids(part)) & known:
                found.append(part)
                known |= ids
    return combine(found) or first


# A GNU license's own text appended in a comment, opening with its title (John Burkardt's MATLAB codes close with
# "GNU LESSER GENERAL PUBLIC LICENSE Version 3, 29 June 2007" and the whole text).
_GNU_TITLE = re.compile(r"^\W*gnu (?:affero |lesser |library )?general public license version \d")


def _titled_gnu_text(block: str) -> str | None:
    """The GNU license a comment quotes whole, title first, else None."""
    words = _words(_COMMENT_MARKS.sub(" ", block))
    return found[1] if _GNU_TITLE.match(words) and (found := _gnu_text(words)) else None


def _grant_positions(text: str, most: int = 64):
    """Where a grant's word (``_GRANT_LITERALS``) occurs below the head, at most ``most`` times each: substring
    searches, far cheaper than a case-blind regex over the file."""
    for word in _GRANT_LITERALS:
        at, seen = text.find(word, _NOTICE_CHARS, _LATER_CHARS), 0
        while at >= 0 and seen < most:
            yield at
            at, seen = text.find(word, at + len(word), _LATER_CHARS), seen + 1


_LINE_COMMENT = re.compile(r"[ \t]*(?://|#|--|;|%)")
# Perl's documentation, where a module states its license ("=head1 COPYRIGHT AND LICENSE ... under the same terms as
# Perl itself"), often after ``__END__``: a POD block opens with a ``=command`` line and closes with ``=cut``.
_POD_EXTENSIONS = (".pm", ".pl", ".pod", ".t", ".PL")
_POD_COMMAND = re.compile(r"^=[a-zA-Z]\w*", re.MULTILINE)


def _pod_around(text: str, position: int) -> tuple[int, int] | None:
    """(start, end) of the POD section holding ``position``, from its ``=command`` line to the next; None outside
    POD."""
    line = text.rfind("\n", 0, position) + 1
    commands = [m for m in _POD_COMMAND.finditer(text, 0, line + 1) if m.start() <= line]
    if not commands or commands[-1].group(0) == "=cut":
        return None
    following = _POD_COMMAND.search(text, position)
    return commands[-1].start(), (following.start() if following else len(text))


# Block comments other than C's, by the language a file's extension names (mlib.lua's "--[[ ... ]]" holding Vector2's
# MIT text at line 1,081): only there, as "(*" or "]]" are code elsewhere ("(*fn)(x)" in C).
_BLOCK_COMMENTS = {".lua": ("--[[", "]]"), ".hs": ("{-", "-}"), ".lhs": ("{-", "-}"), ".ml": ("(*", "*)"),
                   ".mli": ("(*", "*)"), ".pas": ("(*", "*)"), ".pp": ("(*", "*)"), ".sml": ("(*", "*)")}


def _comment_around(text: str, position: int, path: str = "") -> tuple[int, int] | None:
    """(start, end) of the ``/* ... */`` block (or the block comment of ``path``'s language, ``_BLOCK_COMMENTS``) or the
    run of line comments holding ``position``; None in code."""
    for opening, closing in ("/*", "*/"), _BLOCK_COMMENTS.get(path[path.rfind("."):].lower(), ("/*", "*/")):
        opened, closed = text.rfind(opening, 0, position), text.rfind(closing, 0, position)
        if opened > closed:
            end = text.find(closing, position)
            return opened, (end + len(closing) if end >= 0 else len(text))
    line = text.rfind("\n", 0, position) + 1
    if not _LINE_COMMENT.match(text, line):
        return None
    start = end = line
    while start > 0 and _LINE_COMMENT.match(text, previous := text.rfind("\n", 0, start - 1) + 1):
        start = previous
    while (following := text.find("\n", end) + 1) and _LINE_COMMENT.match(text, following):
        end = following
    line_end = text.find("\n", end)
    return start, (line_end if line_end >= 0 else len(text))


# Where a file says what it was made from and that source's license: difftastic's highlights, "Based on the
# nvim-treesitter highlighting, which is under the Apache license."; cryptonite's poly1305, "contains some code copied
# from and inspired by poly1305-donna ... which is licensed under MIT or PUBLIC DOMAIN". The source's license holds for
# the file too (ScanCode reads the same sentences so).
_DERIVED = re.compile(r"\b(?:based on|derived from|copied from|adapted from|ported from|taken from)\b[^.;]{0,160}?\b"
                      r"(?:which|that) (?:is|are|was|were) (?:also )?(?:(?:licensed|released|distributed|available|made "
                      r"available) )?under (?:the )?(?:terms of (?:the )?)?(?P<name>[\w .+/-]{2,60}?)"
                      r"(?P<word> licen[cs]e\b)?(?=\.(?:\s|$)|[;,)]| see\b|$)", re.IGNORECASE)


def derived_license(text: str, path: str = "") -> str | None:
    """The license a code file's head says the code it was based on, derived or copied from is under (``_DERIVED``),
    each name read on its own ("MIT or PUBLIC DOMAIN": an OR); None where it says none or a name is unknown."""
    head = text[:_NOTICE_CHARS]
    lowered = head.lower()
    if not ("based on" in lowered or " from " in lowered) or "under" not in lowered or not _code_path(path):
        return None
    match = _DERIVED.search(" ".join(_COMMENT_MARKS.sub("", head).split()))
    if match is None:
        return None
    pieces = re.split(r"\s+(or|and)\s+", match.group("name").strip(), flags=re.IGNORECASE)
    names = [PUBLIC_DOMAIN if re.fullmatch(r"(?:the )?public domain", piece.strip(), re.IGNORECASE)
             else named_license_of(piece + (match.group("word") or "")) for piece in pieces[::2]]
    if None in names or len({op.lower() for op in pieces[1::2]}) > 1:
        return None
    return combine(names, pieces[1].upper() if len(pieces) > 1 else "AND")


_BLANK_COMMENT_LINE = re.compile(r"\n[ \t]*[*#/;%-]*[ \t]*(?=\n)")


def _paragraph_start(text: str, position: int) -> int:
    """Where the comment paragraph holding ``position`` starts (after its blank comment line), at most 600 back: a
    notice the head cuts is read whole."""
    breaks = [m.end() for m in _BLANK_COMMENT_LINE.finditer(text, max(0, position - 600), position)]
    return breaks[-1] if breaks else position


# The Unicode Character Database's data files put themselves under Unicode's Terms of Use: "© 2021 Unicode®, Inc. ...
# For terms of use, see http://www.unicode.org/terms_of_use.html" (pcre2's CaseFolding.txt; SPDX Unicode-TOU).
_UNICODE_TERMS = re.compile(r"\bfor terms of use(?: and license)? see https? (?:www )?unicode org "
                            r"(?:terms of use|copyright) html?")
# CC0's own dedication, as files under it word it: "To the extent possible under law, the author(s) have dedicated all
# copyright and related and neighboring rights to this software to the public domain worldwide" (SipHash).
_CC0_DEDICATION = re.compile(r"to the extent possible under law the (?:author|person|authors)(?: s)? (?:who \w+ \w+ )?"
                             r"(?:has|have) (?:dedicated|waived) all copyright")


# A license text that lets the recipient pick: "made available under the terms of *either* of the licenses found in
# LICENSE.APACHE or LICENSE.BSD" (packaging), "under either the terms of the MIT license (see the file MIT.txt), or the
# conditions below" (RubyGems), "dual licensed under ...". A GNU notice's "either version 2 of the License, or (at your
# option) any later version" chooses a version, not a license, and does not match.
# Mbed TLS: "provided under a dual Apache-2.0 OR GPL-2.0-or-later license"; hdr_histogram: "the code ... is *also*
# provided under the following license" beside its dedication to the public domain.
# CKEditor's LICENSE.html: "Licensed under the terms of any of the following licenses at your choice:", a list.
_CHOICE = re.compile(r"\b(?:under (?:the terms of )?either|(?:either|any) of the (?:following )?licenses|dual licensed"
                     r"|under a dual|(?:is|are) also (?:made )?(?:provided|available|licensed|distributed) under)\b")
# A choice is stated where a text opens, before any license text it then quotes.
_CHOICE_CHARS = 1_000


# Each of these runs on every head that names terms: a word every match holds screens it first (b49's profile, round 15:
# three regexes over every head were a fifth of ``notice_license``).
def _choice(words: str) -> re.Match | None:
    """``_CHOICE``'s match in ``words``, or None."""
    if "either" not in words and "dual" not in words and "also" not in words and "any of" not in words:
        return None
    return _CHOICE.search(words)


def _footer_choice(words: str) -> re.Match | None:
    """``_FOOTER_CHOICE``'s match in ``words``, or None."""
    return _FOOTER_CHOICE.search(words) if "available" in words or "whichever" in words else None


def _alternatively(words: str) -> re.Match | None:
    """``_ALTERNATIVELY``'s or ``_ADDITIONALLY``'s match in ``words``, or None."""
    if "alternatively" in words and (match := _ALTERNATIVELY.search(words)):
        return match
    return _ADDITIONALLY.search(words) if "additionally" in words else None


# minted's LaTeX package heads: the LPPL's notice, then "Additionally, the project may be distributed under the terms of
# the new BSD license": a second license offered, as "alternatively" offers one.
_ADDITIONALLY = re.compile(r"\badditionally (?:the contents of )?(?:this|the) (?:file|package|library|software|program|"
                           r"code|distribution|project|work) may (?:also )?be (?:used|distributed|redistributed) under "
                           r"(?:the terms of )?(?:either )?")


# A port's header quoting the license of the code it was ported from: Crystal's "Source port of Ryu Printf's reference
# implementation in C. The following is their license:", its PCG port's "Original file notice:".
_ORIGINS_LICENSE = re.compile(r"\b(?:(?:the following|below|here) is their licen[cs]e|their licen[cs]e (?:follows|is as "
                              r"follows)|original file(?:'s)? (?:notice|licen[cs]e))\b", re.IGNORECASE)


def quotes_origins_license(text: str, path: str = "") -> bool:
    """Whether a code file's head says the license it quotes is that of the code it was ported from (the port is
    under that license and its repository's: ``pipelines.filter.document_license``)."""
    return _code_path(path) and _ORIGINS_LICENSE.search(text[:_NOTICE_CHARS]) is not None


# A license text saying it covers only part of the code beside it: editorconfig-vim's LICENSE.PSF, "Some code in
# editorconfig-vim is derived from code licensed under the PSF license. The following is the text of that license".
_PART_OF_THE_CODE = re.compile(r"^(?:some|parts?|portions?) (?:of )?(?:the )?(?:code|files|source(?: code)?) (?:in|of) "
                               r"(?:\S+ ){1,4}(?:is|are) (?:derived|based|taken|copied|adapted) (?:from|on)\b")


def covers_part(text: str) -> bool:
    """Whether a license text opens by saying it covers only some of the code beside it (``_PART_OF_THE_CODE``): no
    license for its folder, whose other texts answer."""
    return _PART_OF_THE_CODE.match(_words(text[:_CHOICE_CHARS]).strip()) is not None


def offers_choice(path: str, text: str) -> bool:
    """Whether a license file's text says the licenses beside it are alternatives (``repository_license``)."""
    return is_license_file(path) and bool(_choice(_words(text[:_CHOICE_CHARS])))


def _alternatives(expressions: Iterable[str]) -> str:
    """Every license the expressions name, as one choice: "MIT AND Ruby" and "MIT" -> "MIT OR Ruby"."""
    return combine((part for e in expressions for conjunct in _operands(e, "AND") for part in _operands(conjunct, "OR")),
                   "OR")


def license_ids(expression: str) -> frozenset[str]:
    """The license ids an expression names, lower case, without ``+``/``-only``/``-or-later``."""
    node = parse_expression(expression)
    if node is None:
        return frozenset()
    if node[0] == "ID":
        return frozenset({re.sub(r"(?:\+|-only|-or-later)$", "", node[1].lower())})
    return frozenset().union(*(license_ids(_render(child)) for child in node[1]))


def repository_license(evidence: Iterable[tuple[str, str | None]], choices: Collection[str] = ()) -> str:
    """One SPDX expression for a repository from its files' ``(path, detected)`` pairs; "" if none.

    Only the most authoritative level that detected anything counts (root files beat files one
    level down), so a vendored subfolder cannot override the root LICENSE. At that level, a license
    text among ``choices`` (paths whose text offers a choice, ``offers_choice``) makes every license
    the level's texts and manifest name an alternative: RubyGems' LICENSE.txt offers MIT or its own
    conditions, so its gemspec's ``["Ruby", "MIT"]`` (a list, no operator) is "MIT OR Ruby". Otherwise,
    package metadata that names every license the license files name is the declared combination
    (``MIT OR Apache-2.0`` beside ``LICENSE-MIT`` and ``LICENSE-APACHE``); else the license
    files win (a stale classifier never overrides a LICENSE) and several distinct ones are all in
    force: "A AND B", sorted, so the answer does not depend on file order.
    """
    found = [(_evidence_rank(path), detected) for path, detected in evidence if detected]
    if not found:
        return ""
    best = min(rank for rank, _ in found)
    alone = best % 4 in (2, 3)  # REUSE's and GNU-named texts, a root README: where nothing else says
    level = best if alone else best - best % 4
    files = combine(detected for rank, detected in found if rank == level)
    manifests = {detected for rank, detected in found if rank == level + 1 and not alone}
    metadata = combine(manifests)
    if any(_evidence_rank(path) == level for path in choices):
        alternatives = _alternatives(e for e in (files, metadata) if e)
        declared = metadata and " AND " not in metadata and license_ids(metadata) == license_ids(alternatives)
        return metadata if declared else alternatives  # a manifest's own OR, in its own order
    # Manifests that disagree (rstudio/leaflet's R DESCRIPTION "MIT" beside its JavaScript tooling's package.json
    # "GPL-3") declare no combination: the license texts answer.
    if files and len(manifests) == 1 and license_ids(files) <= license_ids(metadata):
        return metadata
    return files or metadata


@dataclass(slots=True, kw_only=True)
class LicenseConfig:
    """Which repository licenses are kept, and which repositories asked to be left out."""

    # SPDX ids (any case) a repository's license expression must satisfy; default permissive only.
    allowed: list[str] = field(default_factory=lambda: sorted(PERMISSIVE_LICENSES))
    # No license found: False drops it as "no_license" (unlicensed code is all rights reserved).
    allow_unknown: bool = False
    # Repository names ("octo/repo") or fnmatch globs ("octo/*", "*/private-*"), matched case-insensitively.
    opt_out: list[str] = field(default_factory=list)

    def validate(self, path: str) -> None:
        require(
            bool(self.allowed),
            join(path, "allowed"),
            "is empty, so every licensed repository would be dropped",
            "list SPDX ids such as MIT, or leave the field out for the permissive default",
        )
        for i, name in enumerate(self.allowed):
            require(
                bool(_ID_SYNTAX.fullmatch(name)) and name.upper() not in _OPERATORS,
                join(join(path, "allowed"), i),
                f"{name!r} is not an SPDX license id",
                "write one id per entry, e.g. Apache-2.0",
            )
        for i, pattern in enumerate(self.opt_out):
            require(
                bool(pattern.strip()),
                join(join(path, "opt_out"), i),
                "is empty",
                "write a repository name such as octo/repo or a glob such as octo/*",
            )


def license_drop_reason(license: str, config: LicenseConfig) -> str | None:
    """None to keep a repository with this license expression, else "no_license" / "license_not_allowed"."""
    expression = license.strip()
    if expression.lower() in _NO_LICENSE:
        return None if config.allow_unknown else "no_license"
    allowed = frozenset(name.lower() for name in config.allowed)
    return None if _expression_allowed(expression, allowed) else "license_not_allowed"


def opted_out(repo: str, config: LicenseConfig) -> bool:
    """Whether the repository's owners asked to be excluded (a name or glob in ``opt_out``)."""
    name = repo.strip().lower()
    return any(fnmatch.fnmatchcase(name, pattern.strip().lower()) for pattern in config.opt_out)
