"""Licenses per path: REUSE's ``.reuse/dep5`` and ``REUSE.toml`` rules and files' own SPDX headers.

Design notes: docs/design/filters.md, "filters/reuse.py".
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import tomllib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from codemix.filters.licenses import (
    POINTED_BSD,
    PROPRIETARY,
    PUBLIC_DOMAIN,
    UNVERSIONED_GNU,
    addressed_license,
    agreement_terms,
    alternatives,
    banner_ids,
    canonical_id,
    cjk_banner,
    combine,
    covers_part,
    derived_license,
    detect_license,
    document_prose,
    dunder_license,
    file_statement,
    font_license,
    footer_license,
    is_folder_license_evidence,
    is_font_file,
    is_license_evidence,
    is_license_file,
    is_named_manifest,
    is_notice_file,
    is_readme,
    is_third_party_notices,
    keyword_license,
    later_notices,
    license_families,
    license_ids,
    license_name_word,
    license_subject,
    lisp_keyword_license,
    manifest_license,
    named_at_address,
    named_before_pointer,
    named_in_banner,
    named_license_of,
    named_reference,
    normalize_license,
    notice_license,
    offers_choice,
    opening_license,
    path_exceptions,
    repository_license,
    rfc_license,
    tagged_license,
    terms_at_address,
)
from codemix.filters.vendored import copyright_holders, first_copyright

DEP5 = ".reuse/dep5"
REUSE_TOML = "REUSE.toml"
PRECEDENCES = ("closest", "aggregate", "override")
HEADER_CHARS = 8192  # REUSE reads the whole file; a header comment sits at the top


@dataclass(slots=True, frozen=True)
class PathRule:
    """``expression`` for the in-repo paths ``pattern`` (a regex, fully matched) covers. ``origin`` is the folder of
    the license text or NOTICE whose sentences or sections state the rule (None for REUSE's files and Debian's): a
    folder below it with a license of its own answers for its files before such a rule."""

    pattern: str
    expression: str
    precedence: str = "aggregate"
    origin: str | None = None

    def covers(self, path: str) -> bool:
        return re.fullmatch(self.pattern, path) is not None


@dataclass(slots=True, frozen=True)
class RepositoryLicenses:
    """One repository's license decision: a default, the per-path rules it declared, the
    ``.license`` sidecars (``{path of the file it describes: expression}``), the folders that
    carry a license of their own (``{folder: expression}``, from the folder's license texts,
    package manifest or NOTICE), the license texts named after a package beside them
    (``{folder: ((subject, expression), ...)}``, ``licenses.license_subject``) and the folders whose license
    texts license only the fonts in them (``{folder: expression}``, ``licenses.font_license``)."""

    default: str = ""
    rules: tuple[PathRule, ...] = ()
    sidecars: dict[str, str] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)
    packages: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    fonts: dict[str, str] = field(default_factory=dict)
    # the folders one level down whose files gave ``default`` where the root states none (frog's ``frog/``), else ()
    default_folders: tuple[str, ...] = ()

    def of_repository(self, repo: str) -> RepositoryLicenses:
        """These licenses for the repository ``repo`` ("owner/name"): a default that files one level down gave holds
        only where one of their folders is named after the repository (frog's ``frog/LICENSE``, cpanminus'
        ``App-cpanminus/``); a text in any other folder is that folder's (the fourteenth holdout's university:
        PHPMailer's LGPL in ``mail/`` said nothing of the school system's own files; pigz's copy of zopfli)."""
        name = re.sub(r"[^a-z0-9]", "", repo.rsplit("/", 1)[-1].lower())
        stems = [re.sub(r"[^a-z0-9]", "", folder.lower()) for folder in self.default_folders]
        if not stems or any(len(stem) >= 3 and (name in stem or stem in name) for stem in stems):
            return self
        return dataclasses.replace(self, default="", default_folders=())

    def for_path(self, path: str, header: str | None = None) -> str:
        """The expression for the file at ``path`` whose own header declares ``header`` (or None), in
        this order (docs/repositories.md): its ``.license`` sidecar, a REUSE rule (``closest`` defers to
        the header, ``aggregate`` adds it), its own SPDX header, the nearest folder up the tree with a
        license of its own, the repository's default."""
        header = self.sidecars.get(path, header)
        rule = next((rule for rule in reversed(self.rules) if rule.covers(path)), None)
        if rule is not None and rule.origin is not None and self._answering_depth(path) > _depth(rule.origin):
            rule = None  # a nearer folder's own license texts speak for it, not a sentence further up
        if rule is None:
            folder = self.folder_license(path) or self.default
            return refined(header, folder, self.default) if header else folder
        if rule.precedence == "override" or header is None:
            return rule.expression
        return header if rule.precedence == "closest" else combine([rule.expression, header])

    def folder_license(self, path: str) -> str:
        """The license of the nearest folder above ``path`` that has one of its own, where a license text named
        after a package in that folder (``python_dotenv.LICENSE``) answers for that package's folder or files
        (``dotenv/``) before the folder's own; "" if none."""
        return self._folder_answer(path)[1]

    def _answering_depth(self, path: str) -> int:
        """How many folders deep the folder answering ``folder_license`` is; -1 where none does."""
        return self._folder_answer(path)[0]

    def _folder_answer(self, path: str) -> tuple[int, str]:
        parts = path.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:depth])
            found = next((expression for subject, expression in self.packages.get(folder, ())
                          if names_package(subject, parts[depth])), None)
            if found:
                return depth, found
            if depth and folder in self.fonts and (is_font_file(path) or depth == len(parts) - 1
                                                   and is_license_file(path)):
                return depth, self.fonts[folder]  # a font license: the fonts, and its own text
            if depth and folder in self.folders:
                return depth, self.folders[folder]
        return -1, ""


def _depth(folder: str) -> int:
    return folder.count("/") + 1 if folder else 0


def refined(header: str, folder: str, root: str = "") -> str:
    """A file's own statement naming a GNU family without its version (PHPMailer's "@license ... GNU Lesser General
    Public License": LGPL-2.0-or-later, any version) under a folder whose license is of that family: the folder's
    license text says which version (LGPL-2.1); under another family the statement stands (POMO's "@license GPL"
    under YOURLS's MIT). A statement ANDing exactly the licenses its folder offers as a choice is the choice. A choice
    naming "the BSD-style license (found in the LICENSE file ...)" (``licenses.POINTED_BSD``) takes the BSD license of
    the folder's texts, else the root's; where neither has one, that alternative is not offered."""
    if header in UNVERSIONED_GNU and folder and {i.split("-")[0] for i in license_ids(folder)} == {
            header.split("-")[0].lower()}:
        return folder
    # an unversioned GNU license ANDed with another's text (LASzip's arithmeticdecoder.cpp: its "GNU Lesser General
    # Licence" head and Amir Said's BSD-2-Clause text): that part takes the folder's version all the same
    if " AND " in header and " OR " not in header and set(parts := header.split(" AND ")) & UNVERSIONED_GNU:
        return combine(refined(part, folder, root) if part in UNVERSIONED_GNU else part for part in parts)
    if POINTED_BSD.lower() in license_ids(header):  # zstd's "the BSD-style license (found in the LICENSE file ...)"
        bsd = [i for text in (folder, root) for i in sorted(license_ids(text or "")) if i.startswith("bsd-")]
        if bsd:
            return header.replace(POINTED_BSD, canonical_id(bsd[0]))
        return combine((part for part in alternatives(header) if part != POINTED_BSD), "OR") or header
    # A manifest's list joins its names without saying how (rubygems-update.gemspec's ``["Ruby", "MIT"]``, read as
    # AND); where the folder offers the very same licenses as a choice (its COPYING: "MIT OR Ruby"), the choice stands.
    if " AND " in header and " OR " in folder and " AND " not in folder and license_ids(header) == license_ids(folder):
        return folder
    return header


def names_package(subject: str, name: str) -> bool:
    """Whether a license text named after ``subject`` (``license_subject``) is the license of the file or folder
    ``name`` beside it: ``dotenv`` for "pythondotenv" (the distribution's name ends with its module's), the font
    files ``open-sans-v17-regular.woff2`` for "opensans"."""
    stem = re.sub(r"[^a-z0-9]", "", name.split(".")[0].lower())
    if license_subject(name) == subject:
        return True  # the license text itself (``LICENSE_LIBERATION`` beside ``LiberationSans-Regular.ttf``)
    return len(stem) >= 3 and (stem.startswith(subject) or subject.endswith(stem))


def package_text(path: str) -> str:
    """The subject of a license text named after a package (``licenses.license_subject``), unless the subject names
    the folder it is in or one above (spdlog's ``fmt/bundled/fmt.license.rst`` is that folder's license); else ""."""
    subject = license_subject(path) if is_license_file(path) else ""
    folders = path.split("/")[:-1]
    return "" if any(re.sub(r"[^a-z0-9]", "", f.lower()) == subject for f in folders) else subject


SIDECAR_SUFFIX = ".license"


def sidecar_target(path: str) -> str | None:
    """``docs/logo.svg`` for the sidecar ``docs/logo.svg.license``; None for any other path."""
    target = path.removesuffix(SIDECAR_SUFFIX)
    return target if target != path and target.rsplit("/", 1)[-1] else None


# One evidence file's reading: (path, the expression it states for the whole repository or None,
# the path rules it declares, the expression it declares as a ``.license`` sidecar or None, whether
# its text makes the licenses beside it alternatives, ``licenses.offers_choice``).
Evidence = tuple[str, str | None, tuple[PathRule, ...], str | None, bool]


def license_evidence_of(path: str, text: str) -> Evidence:
    """What one license file, package manifest or REUSE file (``licenses.is_license_evidence``) says. A
    machine-readable Debian ``copyright`` file states licenses per path (``debian_rules``), not its folder's."""
    # a Debian copyright file states licenses per path; a text for "some code" of the folder states none for it
    part = is_license_file(path) and covers_part(text)
    if debian_copyright(path, text) or part or is_third_party_notices(path):
        detected = None  # per-path statements, or other projects' licenses: none for the folder
    elif is_license_file(path) and states_sections_only(path, text):
        detected = sections_default(path, text)  # r7rs-libs' LICENSE.md: each collection its section's license
    elif is_license_file(path) and table_rules(path, text):
        detected = outside_listed(text)  # x16-rom's LICENSE.md: its tables' paths, and "all code outside" them
    else:
        detected = detect_license(path, text)
    if detected is None and is_license_file(path):
        detected = folder_statements(path, text)[1]  # lz4's "all other files use a GPL-2.0-or-later license"
    return (path, detected, path_rules(path, text), file_license(text) if sidecar_target(path) else None,
            offers_choice(path, text))


def debian_copyright(path: str, text: str) -> bool:
    """Whether ``path`` is a Debian packaging folder's machine-readable ``copyright`` file (DEP-5: ``Format:``)."""
    return (path == "debian/copyright" or path.endswith("/debian/copyright")) and (
        text.lstrip().lower().startswith("format:"))


def debian_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """The rules of a Debian ``copyright`` file for the Debian folder's own files (its ``Files: debian/*``
    paragraphs, rebased to where the folder is). Its other paragraphs describe the upstream source as Debian
    packages it, which may not be laid out as this repository is: the repository's own license files answer there."""
    folder = path.rsplit("/", 1)[0]
    return tuple(PathRule(f"{re.escape(folder)}/{rule.pattern.removeprefix('debian/')}", rule.expression, "aggregate")
                 for rule in dep5_rules(text) if rule.pattern.startswith("debian/"))


@dataclass(slots=True, frozen=True)
class Held:
    """Who holds the copyright of the file at ``path`` (lower case, ``vendored.copyright_holders``): a license text's
    copyright lines, else the first holder a file's head names; and the license texts its head names by file name
    (``pointed``, lower case: "PSF License (see PSF-license.txt or ...)"). Evidence for ``copied_texts`` and
    ``pointed_texts``."""

    path: str
    holders: frozenset[str]
    pointed: frozenset[str] = frozenset()


_HELD_HEAD_CHARS = 3_000  # the head ``vendored.holder_fact`` reads, so the answer is shared
_TITLED_COPYRIGHT = re.compile(r"^[^\n]{0,60}?\blicen[cs]e\b[^\n]{0,20}?\b(copyright\b[^\n]*)$",
                               re.IGNORECASE | re.MULTILINE)


def held_evidence(path: str, text: str) -> Held | None:
    """The ``Held`` of a file whose license text or head names a copyright holder; None for one naming none."""
    if is_license_file(path):
        # a title may run into the copyright line ("The MIT License (MIT) Copyright (c) 2013 Erik Johansson Andersson")
        titled = _TITLED_COPYRIGHT.search(text[:_HELD_HEAD_CHARS])
        holders = copyright_holders(text) or (copyright_holders(titled.group(1)) if titled else frozenset())
    else:
        holder = first_copyright(text[:_HELD_HEAD_CHARS])[0]
        holders = frozenset((holder,)) if holder else frozenset()
    pointed = frozenset() if is_license_file(path) else _pointed_names(text[:_HELD_HEAD_CHARS])
    return Held(path, holders, pointed) if holders or pointed else None


# A license text's file name in a head: "(see COPYING or https://...)", "see PSF-license.txt", Tcl's "See the file
# "license.terms" for information on usage and redistribution", Ruff!'s "See the file WOOF_LICENSE in the Woof! root".
_TEXT_NAME = re.compile(r"\b(?:see (?:the file )?|(?i:see the file )|in (?:the )?(?:file )?)[`'\"(]?"
                        r"([\w.+-]*(?:LICEN[CS]E|licen[cs]e|COPYING)[\w.+-]*)")


def _pointed_names(head: str) -> frozenset[str]:
    if "icen" not in head and "COPYING" not in head:
        return frozenset()
    return frozenset(name.lower().rstrip(".") for name in _TEXT_NAME.findall(head) if is_license_file(name.rstrip(".")))


def resolve_licenses(evidence: Iterable[Evidence | Held]) -> RepositoryLicenses:
    """A repository's default (``licenses.repository_license``), its path rules (``.reuse/dep5``'s, then
    ``REUSE.toml``'s) and its sidecars, from every evidence file's reading, in any order; a license text beside
    another that names a copied project's holders governs that project's folder (``copied_texts``)."""
    evidence = list(evidence)
    held = [item for item in evidence if isinstance(item, Held)]
    texts = frozenset(item[0].rsplit("/", 1)[-1].lower() for item in evidence if not isinstance(item, Held))
    # a deeper file's rules come later and so answer first (REUSE 3.3: the nearest REUSE.toml)
    evidence = sorted((item for item in evidence if not isinstance(item, Held)),
                      key=lambda item: (item[0] != DEP5, item[0].endswith(REUSE_TOML) and item[0].count("/"), item[0],
                                        item[1] or ""))
    evidence, sent_to = pointed_text_rules(evidence)
    evidence = [(path, None if path.lower() in sent_to else found, *rest) for path, found, *rest in evidence]
    copied = copied_texts(evidence, held)
    copied_folders = {folder: detected for path, detected, *_ in evidence if (folder := copied.get(path))}
    aside, pointing = pointed_texts(evidence, held)
    evidence = [item for item in evidence if item[0] not in copied and item[0] not in aside]
    choices = frozenset(path for path, *_, choice in evidence if choice)
    projects = project_texts(evidence, held)
    packages: dict[str, tuple[tuple[str, str], ...]] = {}
    for path, detected, *_ in evidence:
        if detected and (subject := package_text(path) or projects.get(path)):
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            packages[folder] = (*packages.get(folder, ()), (subject, detected))
    recipes = recipe_manifests(evidence)
    evidence = [item for item in evidence if not package_text(item[0]) and item[0] not in projects
                and item[0] not in recipes]
    folders = folder_licenses(((path, detected) for path, detected, *_ in evidence if is_folder_license_evidence(path)),
                              choices)
    for folder in sorted(folders):
        # PEP 639 keeps a distribution's license texts in its ``.dist-info/licenses/``; its METADATA answers first
        info = folder.removesuffix("/licenses") if folder.endswith(".dist-info/licenses") else folder
        if (subject := distribution_subject(info)) and (info == folder or info not in folders):
            parent = info.rsplit("/", 1)[0] if "/" in info else ""
            packages[parent] = (*packages.get(parent, ()), (subject, folders[folder]))
    for folder, expression in copied_folders.items():
        folders.setdefault(folder, expression)  # the copy's own license texts, where it kept them, answer first
    fonts = {folder: expression for folder, expression in folders.items() if font_license(expression)}
    stating = [(path, detected) for path, detected, *_ in evidence if is_license_evidence(path) and detected]
    nearest = min((_depth(path.rsplit("/", 1)[0]) if "/" in path else 0 for path, _ in stating), default=0)
    below = tuple(sorted({path.split("/")[0] for path, _ in stating if "/" in path})) if nearest else ()
    licenses = RepositoryLicenses(
        repository_license(((path, detected) for path, detected, *_ in evidence if is_license_evidence(path)), choices),
        (*pointing, *(rule for _, _, rules, *_ in evidence for rule in rules)),
        {target: found for path, _, _, found, _ in evidence if found and (target := sidecar_target(path))},
        {folder: expression for folder, expression in folders.items() if folder not in fonts}, packages, fonts, below)
    missing = missing_texts(licenses, texts, held)
    return dataclasses.replace(licenses, rules=(*missing, *licenses.rules)) if missing else licenses


def recipe_manifests(evidence: Iterable[Evidence]) -> frozenset[str]:
    """Manifests named after their packages that share a folder and state different licenses: recipes for other
    packages (luarocks' ``binary/``: the rockspecs of lua-bz2, ISC, and luasocket, luasec..., MIT, which it builds into
    its Windows binary), none of which describes the folder; a folder's one manifest, or several agreeing, still do."""
    by_folder: dict[str, dict[str, str]] = {}
    for path, detected, *_ in evidence:
        if detected and is_named_manifest(path):
            by_folder.setdefault(path.rsplit("/", 1)[0] if "/" in path else "", {})[path] = detected
    return frozenset(path for named in by_folder.values() if len(set(named.values())) > 1 for path in named)


# A file whose head points to a license text by a name of its own ("See the file WOOF_LICENSE in the Woof! root
# directory", Tcl's "See the file "license.terms""), where the repository holds no text of that name: its terms are
# in a text the repository does not have. It carries those terms named by the text's name (Tcl's terms for Tcl's own
# name, ``_TCL_TERMS``), not the repository's license, unless a folder above it has a license of its own other than
# the repository's (a copy keeping its text under another name:
# gorilla's tcllib, "license.terms" saved as tcllib.licence.terms). A plain name ("see LICENSE", "COPYING") may be the
# repository's own text under another spelling: the folders answer for those, as before.
_PLAIN_TEXT_NAME = re.compile(r"(?:licen[cs]e|copying|copyright|unlicense)(?:\.(?:txt|md|rst|markdown|adoc|html?))?",
                              re.IGNORECASE)


def missing_texts(licenses: RepositoryLicenses, texts: Collection[str], held: Iterable[Held]) -> tuple[PathRule, ...]:
    """A ``closest`` rule (the file's own notice answers first) giving the terms named by the pointer
    (``named_reference``) to each file whose head points to a license text by a name of its own that none of the
    repository's ``texts`` (lower-case file names) has, where the license it would otherwise get is the repository's."""
    rules = []
    for item in held:
        names = {name for name in item.pointed if not _PLAIN_TEXT_NAME.fullmatch(name)}
        if not names or names & texts or licenses.folder_license(item.path) not in ("", licenses.default):
            continue
        # terms known by their text's name alone are named by it (Ruff!'s "WOOF_LICENSE": LicenseRef-woof-license)
        terms = "TCL" if names == {_TCL_TERMS} else named_reference(min(names))
        rules.append(PathRule(re.escape(item.path), terms, "closest"))
    return tuple(rules)


# Tcl's name for its terms, kept under that name by Tcl and the packages released on its terms ([incr Tcl], tcllib,
# TclX): a pointer to it where the repository has none is to Tcl's (ScanCode's rule for the sentence says the same).
_TCL_TERMS = "license.terms"


# A copied project's license text kept beside the repository's own (nim-glfw's root ``LICENSE.md``, GLFW's zlib text
# in Marcus Geelnard's and Camilla Löwy's names, beside the wrapper's MIT ``LICENSE``): it governs the folder holding
# the files whose heads name its holders (``glfw/``), not the repository's own files.
COPY_SHARE = 0.9  # of the files naming the text's holders, the share its folder must hold
COPY_MIN_FILES = 3


def copied_texts(evidence: Iterable[Evidence], held: Iterable[Held]) -> dict[str, str]:
    """``{license text: the folder below its own that it governs}``. Where a folder holds two or more license texts
    stating different licenses, each in other holders' names, a text whose holders' files lie in one folder below
    (``COPY_SHARE`` of them, at least ``COPY_MIN_FILES``), where they outnumber the files naming the other texts'
    holders, is that folder's license. At least one text stays its own folder's; a text naming no holder (a GNU text)
    leaves the folder's texts as they are."""
    texts = {path: detected for path, detected, *_ in evidence
             if detected and is_license_file(path) and not package_text(path)}
    held = list(held)
    holders = {item.path: item.holders for item in held if item.path in texts}
    by_folder: dict[str, list[str]] = {}
    for path in texts:
        by_folder.setdefault(path.rsplit("/", 1)[0] if "/" in path else "", []).append(path)
    moved: dict[str, str] = {}
    for folder, paths in by_folder.items():
        if len(paths) < 2 or len({texts[p] for p in paths}) < 2 or not all(holders.get(p) for p in paths):
            continue
        found = {}
        for path in paths:
            others = frozenset().union(*(holders[p] for p in paths if p != path))
            if not holders[path] & others and (target := _copy_folder(folder, holders[path], others, held)):
                found[path] = target
        if len(found) < len(paths):
            moved.update(found)
    return moved


def project_texts(evidence: Iterable[Evidence], held: Iterable[Held]) -> dict[str, str]:
    """``{license text: the project it is named after}``: a text named after a license that is also a project's name
    (``LICENSE-openssl``, the OpenSSL License), kept beside a plainly named text (``license.txt``) of another license
    in other holders' names, is that project's license: it answers for the files named after the project (as
    ``license_subject``'s package texts do), not for the folder (HeidiSQL's ``out/``: its own installer data under its
    GPL, beside OpenSSL's text for the OpenSSL DLLs). A text in its plain text's holders' names (a dual license's
    ``LICENSE`` and ``LICENSE-MIT``) stays the folder's."""
    texts = {path: detected for path, detected, *_ in evidence if detected and is_license_file(path)
             and not package_text(path)}
    holders = {item.path: item.holders for item in held if item.path in texts}
    named = {}
    for path, detected in texts.items():
        word, folder = license_name_word(path), path.rsplit("/", 1)[0] if "/" in path else ""
        if not word or normalize_license(word) != detected or not holders.get(path):
            continue
        plain = [p for p in texts if p != path and (p.rsplit("/", 1)[0] if "/" in p else "") == folder
                 and not license_name_word(p) and texts[p] != detected and holders.get(p)]
        if plain and not any(holders[p] & holders[path] for p in plain):
            named[path] = word
    return named


def pointed_texts(evidence: Iterable[Evidence], held: Iterable[Held]) -> tuple[frozenset[str], tuple[PathRule, ...]]:
    """(license texts that govern only the files whose heads name them, a ``closest`` rule for each such file). Where a
    folder holds two or more license texts of different licenses and files below it name them in their heads, a text
    fewer files name than another is theirs, not the folder's: ansible.posix's ``PSF-license.txt`` ("PSF License (see
    PSF-license.txt or ...)", 1 file) beside ``COPYING`` ("GNU General Public License v3.0+ (see COPYING or ...)", 39)."""
    texts = {path: detected for path, detected, *_ in evidence
             if detected and is_license_file(path) and not package_text(path)}
    held = [item for item in held if item.pointed]
    by_folder: dict[str, list[str]] = {}
    for path in texts:
        by_folder.setdefault(path.rsplit("/", 1)[0] if "/" in path else "", []).append(path)
    aside, rules = set(), []
    for folder, paths in by_folder.items():
        if len(paths) < 2 or len({texts[p] for p in paths}) < 2:
            continue
        prefix = f"{folder}/" if folder else ""
        naming = {p: [item.path for item in held if item.path.startswith(prefix)
                      and p.rsplit("/", 1)[-1].lower() in item.pointed] for p in paths}
        most = max(len(files) for files in naming.values())
        for path in paths:
            if 0 < len(naming[path]) < most:
                aside.add(path)
                rules += [PathRule(re.escape(file), texts[path], "closest", origin=folder) for file in naming[path]]
    return frozenset(aside), tuple(rules)


def _copy_folder(folder: str, own: frozenset[str], others: frozenset[str], held: list[Held]) -> str | None:
    """The deepest folder below ``folder`` holding ``COPY_SHARE`` of the files (not license texts) naming ``own``,
    where they outnumber those naming ``others``; None if there is none."""
    prefix = f"{folder}/" if folder else ""
    files = [item.path for item in held if item.path.startswith(prefix) and item.holders & own
             and not is_license_file(item.path)]
    if len(files) < COPY_MIN_FILES:
        return None
    counts: dict[str, int] = {}
    for path in files:
        parts = path.split("/")
        for depth in range(len(prefix.split("/")) if prefix else 1, len(parts)):
            below = "/".join(parts[:depth])
            counts[below] = counts.get(below, 0) + 1
    for below in sorted(counts, key=lambda f: -f.count("/")):
        if counts[below] >= COPY_SHARE * len(files):
            rivals = sum(1 for item in held if item.path.startswith(f"{below}/") and item.holders & others)
            return below if counts[below] > rivals else None
    return None


# An installed distribution's metadata folder: ``packaging-20.9.dist-info``, ``six.egg-info``.
_DISTRIBUTION_INFO = re.compile(r"(?P<name>[A-Za-z0-9][\w.]*?)(?:-\d[^/-]*)?\.(?:dist|egg)-info")


def distribution_subject(folder: str) -> str:
    """The distribution a ``.dist-info``/``.egg-info`` folder describes, as ``license_subject`` spells a package
    ("packaging" for ``packaging-20.9.dist-info``), or "": its license texts and METADATA are that distribution's,
    so they answer for the package folders beside it named after it (pex's ``_vendored/packaging_20_9/packaging/``
    beside ``packaging-20.9.dist-info/``), as a license text named after a package does."""
    match = _DISTRIBUTION_INFO.fullmatch(folder.rsplit("/", 1)[-1])
    return re.sub(r"[^a-z0-9]", "", match.group("name").lower()) if match else ""


def folder_licenses(evidence: Iterable[tuple[str, str | None]], choices: Collection[str] = ()) -> dict[str, str]:
    """``{folder: expression}`` for each folder below the root whose own files state a license: its
    license texts and manifest read as ``licenses.repository_license`` reads a root (a manifest that
    names every license the texts name is the declared combination; a text offering a choice makes
    them alternatives), a NOTICE only when neither states one, a README's license section only when none of them
    does (``licenses.readme_license``: a copied Vim plugin's "## License ... Distributed under the same terms as Vim
    itself", in a folder with no license text)."""
    by_folder: dict[str, list[tuple[str, str]]] = {}
    notices: dict[str, list[str]] = {}
    readmes: dict[str, list[str]] = {}
    for path, detected in evidence:
        folder, name = path.rsplit("/", 1)
        if name in ("main.yml", "main.yaml") and (folder == "meta" or folder.endswith("/meta")):
            folder = folder.removesuffix("meta").rstrip("/")  # an Ansible role's meta speaks for the role
        if detected and is_readme(path):
            readmes.setdefault(folder, []).append(detected)
        elif detected and is_notice_file(path):
            notices.setdefault(folder, []).append(detected)
        elif detected:
            by_folder.setdefault(folder, []).append((name, detected))
    offered = [tuple(path.rsplit("/", 1)) for path in choices if "/" in path]
    found = {folder: repository_license(files, {name for at, name in offered if at == folder})
             for folder, files in by_folder.items()}
    for folder, detected in [*notices.items(), *readmes.items()]:
        found[folder] = found.get(folder) or combine(detected)
    return {folder: expression for folder, expression in found.items() if expression}


def path_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """The rules a REUSE file declares, in file order; none for other files or malformed input."""
    if path == DEP5:
        return dep5_rules(text)
    if path == REUSE_TOML:
        return reuse_toml_rules(text)
    if path.endswith(f"/{REUSE_TOML}"):  # REUSE 3.3: a REUSE.toml in a folder, its paths relative to that folder
        folder = re.escape(path[:-len(REUSE_TOML)])
        return tuple(dataclasses.replace(rule, pattern=f"{folder}(?:{rule.pattern})") for rule in reuse_toml_rules(text))
    if debian_copyright(path, text):
        return debian_rules(path, text)
    origin = path.rsplit("/", 1)[0] if "/" in path else ""
    if is_third_party_notices(path):
        return tuple(dataclasses.replace(rule, origin=origin) for rule in project_list_rules(path, text))
    if is_license_file(path) or is_notice_file(path):
        return tuple(dataclasses.replace(rule, origin=origin) for rule in (
            *listed_rules(path, text), *section_rules(path, text), *introduced_rules(path, text),
            *heading_rules(path, text), *table_rules(path, text), *folder_statements(path, text)[0],
            *project_list_rules(path, text), *exception_rules(path, text), *text_pointer_rules(path, text),
            *file_paragraph_rules(path, text)))
    return ()


# A document numbering the projects a repository copied, "N. Name: License", each with the paths it covers as bullets
# below ("- All files in `basejump_files`", "- `include/bsg_defines.v`", "- `ram/axis_fifo.v` (MIT)"), and each
# project's text in a section headed by its number after the list ("## 1. Basejump"): tcp_hw's THIRDPARTYLICENSES.md.
_PROJECT_ITEM = re.compile(r"^[ \t]{0,3}(\d+)[.)][ \t]+[^:\n]+?[ \t]*:[ \t]*([^\n]*)$")
_PROJECT_PATH = re.compile(r"^[ \t]+[-*+][ \t]+(?:all (?:the )?files (?:in|under|below)[ \t]+)?`([^`\s]+?)/?`"
                           r"(?:[ \t]*\(([^)\n]+)\))?[ \t]*$", re.IGNORECASE)
_NUMBERED_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(\d+)[.)][ \t]*\S[^\n]*$", re.MULTILINE)


def _numbered_sections(text: str) -> dict[str, str]:
    """``{number: body}`` of a document's Markdown sections headed by a number ("## 2. OpenPiton")."""
    heads = list(_NUMBERED_HEADING.finditer(text))
    ends = [head.start() for head in heads[1:]] + [len(text)] if heads else []
    return {head.group(1): text[head.end():end] for head, end in zip(heads, ends, strict=True)}


def project_list_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """A ``closest`` rule for each path a numbered list of copied projects names (``_PROJECT_ITEM``, ``_PROJECT_PATH``):
    a folder and what is below it, or a file; its license is the one the bullet names in parentheses (the variant its
    project's text states, "(BSD)" for a BSD-2-Clause-Views text), else its project's section's text, else the names
    after the item's colon."""
    if "`" not in text:
        return ()
    folder, sections, rules, item = (path.rsplit("/", 1)[0] + "/" if "/" in path else ""), None, [], None
    for line in text.splitlines():
        if found := _PROJECT_ITEM.match(line):
            item = found
        elif item and (listed := _PROJECT_PATH.match(line)):
            sections = _numbered_sections(text) if sections is None else sections
            stated = notice_license(sections.get(item.group(1), "")) or detect_license("LICENSE", sections.get(item.group(1), ""))
            expression = _project_license(listed.group(2), stated) or stated or normalize_license(item.group(2))
            if expression:
                target = re.escape(folder + listed.group(1))
                rules.append(PathRule(f"{target}(?:/.*)?", expression, "closest"))
        elif line.strip() and not line[:1].isspace():
            item = None  # the list ended
    return tuple(rules)


# A license document sending paths to another text of its folder: luarocks' win32/COPYING, "Files under win32/lua5.1,
# except for Microsoft.VC80.CRT.manifest and msv*.*, are covered by another license, please see COPYING_lua for
# details", "For 7z.exe and 7z.dll, please see COPYING_7z for details". The paths are under that text; the text is not
# the folder's (``resolve_licenses`` reads the pointed text's license into the rule).
_SENT_TO_TEXT = re.compile(r"(?:\bfiles (?:under|in|below) [`'\"]?(?P<folder>[\w.+-]+(?:/[\w.+-]+)*)/?[`'\"]?"
                           r"|\bfor (?P<files>[\w+-]+\.\w+(?:(?:,| and|,? or) [\w+-]+\.\w+)*))"
                           r"(?:[^.]|\.(?=[\w*])){0,200}?\bsee (?:the file )?[`'\"]?(?P<text>[\w.+-]+?)[`'\"]? for\b",
                           re.IGNORECASE)
TEXT_POINTER = "@text:"


def text_pointer_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """A ``closest`` rule for each path a license document sends to another license text of its folder
    (``_SENT_TO_TEXT``), its expression ``TEXT_POINTER`` and that text's path until ``resolve_licenses`` reads it."""
    if " see " not in text.lower():
        return ()
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    rules = []
    for said in _SENT_TO_TEXT.finditer(" ".join(text.split())):
        if not is_license_file(said["text"]) or said["text"] == path.rsplit("/", 1)[-1]:
            continue
        pointed = f"{folder}/{said['text']}" if folder else said["text"]
        for target in [said["folder"]] if said["folder"] else re.split(r",\s*|\s+and\s+|\s+or\s+", said["files"]):
            # a folder named from the root ("win32/lua5.1" in win32/COPYING) or from the document's own
            target = target if not folder or target == folder or target.startswith(f"{folder}/") else f"{folder}/{target}"
            rules.append(PathRule(_listed_glob(target), TEXT_POINTER + pointed, "closest"))
    return tuple(rules)


def pointed_text_rules(evidence: list[Evidence]) -> tuple[list[Evidence], frozenset[str]]:
    """``evidence`` with each ``TEXT_POINTER`` rule given its pointed text's license (dropped where the text states
    none), and the texts so pointed to: they govern the paths sent to them, not their folder."""
    detected = {path.lower(): found for path, found, *_ in evidence if found}
    pointed = frozenset(rule.expression[len(TEXT_POINTER):].lower() for _, _, rules, *_ in evidence for rule in rules
                        if rule.expression.startswith(TEXT_POINTER))
    if not pointed:
        return evidence, pointed
    resolved = []
    for path, found, rules, *rest in evidence:
        rules = tuple(dataclasses.replace(rule, expression=detected[key]) if rule.expression.startswith(TEXT_POINTER)
                      else rule for rule in rules
                      if not rule.expression.startswith(TEXT_POINTER)
                      or (key := rule.expression[len(TEXT_POINTER):].lower()) in detected)
        resolved.append((path, found, rules, *rest))
    return resolved, pointed


def exception_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """A ``closest`` rule for each path a Markdown license document's exceptions link (``licenses.path_exceptions``):
    the folder and what is below it, or the file."""
    if not path.lower().endswith((".md", ".markdown")) or "](" not in text:
        return ()
    return tuple(PathRule(f"{_listed_glob(target)}", expression, "closest")
                 for target, expression in path_exceptions(path, text))


def _project_license(named: str | None, stated: str | None) -> str | None:
    """The license a bullet names in parentheses, as its project's text states that license (a family's variant)."""
    if not named or (spdx := normalize_license(named)) is None:
        return None
    family = spdx.split("-")[0].lower()
    variants = [i for i in license_ids(stated or "") if i.split("-")[0] == family]
    return canonical_id(variants[0]) if len(variants) == 1 else spdx


# A license document's sentences about its folders: lz4's LICENSE, "all files in the `lib` directory use a BSD 2-Clause
# license" and "all other files use a GPL-2.0-or-later license, unless explicitly stated otherwise".
_FOLDER_STATEMENT = re.compile(
    r"\b(?:all )?(?:the )?(?:source )?files (?:in|under|within|inside) (?:the )?[`'\"]?(?P<folder>[\w.-]+(?:/[\w.-]+)*)/?[`'\"]?"
    r" (?:directory|folder|subdirectory|tree) (?:use|are (?:licensed |released |distributed )?under|are covered by)"
    r" (?:a |an |the )?(?:terms of (?:the )?)?(?P<name>(?:[^,.;\n]|\.(?=\d)){2,60}?licen[cs]e)", re.IGNORECASE)
# jq's COPYING: "jq's documentation (everything found under the docs/ subdirectory in the source tree) is licensed
# under the Creative Commons CC BY 3.0 license".
_EVERYTHING_UNDER = re.compile(
    r"\beverything (?:found |that is )?(?:in|under|within|inside) (?:the )?[`'\"]?(?P<folder>[\w.-]+(?:/[\w.-]+)*)/?[`'\"]?"
    r" (?:sub)?(?:directory|folder)(?: (?:in|of) the source tree)?\)? (?:is|are) (?:licensed |released |distributed )?"
    r"under (?:the )?(?:terms of (?:the )?)?(?P<name>(?:[^,.;\n]|\.(?=\d)){2,60}?licen[cs]e)", re.IGNORECASE)
# pcre2's LICENCE: "The data in the testdata directory is not copyrighted and is in the public domain."
_PUBLIC_UNDER = re.compile(
    r"\b(?:the )?(?:data|files|contents) (?:in|under) (?:the )?[`'\"]?(?P<folder>[\w.-]+(?:/[\w.-]+)*)/?[`'\"]?"
    r" (?:sub)?(?:directory|folder) (?:is|are) (?:not copyrighted and (?:is |are )?)?(?:placed )?in the public domain",
    re.IGNORECASE)
_OTHER_FILES = re.compile(
    r"\ball (?:the )?other (?:source )?files (?:use|are (?:licensed |released |distributed )?under|are covered by)"
    r" (?:a |an |the )?(?:terms of (?:the )?)?(?P<name>(?:[^,.;\n]|\.(?=\d)){2,60}?licen[cs]e)", re.IGNORECASE)


def folder_statements(path: str, text: str) -> tuple[tuple[PathRule, ...], str | None]:
    """The ``closest`` rules a license document's sentences about its folders state (``_FOLDER_STATEMENT``), and the
    license it gives "all other files" (None where it says none): that sentence is the document's own license."""
    base = re.escape(path.rsplit("/", 1)[0] + "/") if "/" in path else ""
    flat = " ".join(text.split())
    rules = tuple(PathRule(f"{base}{re.escape(match.group('folder'))}/.*", expression, "closest")
                  for pattern in (_FOLDER_STATEMENT, _EVERYTHING_UNDER, _PUBLIC_UNDER) for match in pattern.finditer(flat)
                  if (expression := PUBLIC_DOMAIN if pattern is _PUBLIC_UNDER else _stated(match.group("name"))))
    other = _OTHER_FILES.search(flat)
    return rules, (_stated(other.group("name")) if other and rules else None)


def _stated(name: str) -> str | None:
    """A license named in a sentence: an SPDX id as written ("GPL-2.0-or-later license"), else by its name."""
    bare = re.sub(r"\s+licen[cs]e$", "", name.strip(), flags=re.IGNORECASE)
    spdx = normalize_license(bare, spdx_field=True) if re.fullmatch(r"[\w.+-]+", bare) else None
    return spdx if spdx and license_ids(spdx) else named_license_of(name)


# A legal document made of sections between rule lines, a section opening with the paths it speaks of, one a line,
# then the license text that governs them (gevent's NOTICE: "greentest/2.7", "greentest/3.5" ... a rule line, the PSF
# agreement; "gevent/libuv/_corecffi_source.c" ... then the MIT text).
_SECTION_RULE = re.compile(r"^[ \t]*(?:={8,}|-{8,}|\*{8,}|~{8,})[ \t]*$", re.MULTILINE)
_PATH_ONLY = re.compile(r"[\w.+-]+(?:/[\w.+-]+)+/?|[\w+-]+\.[A-Za-z]\w*")
# A folder named by a version ("2.7", "3.5", "2.7pypy"): a copy of another project's release.
_VERSION_NAME = r"\d+(?:\.\d+)*[A-Za-z]*"


def section_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """The rules of a license or NOTICE file's sections that open with the paths they govern (``_SECTION_RULE``),
    each path ``closest`` wherever it lies below the file's folder (a NOTICE written before the tree moved into
    ``src/`` still names ``gevent/libuv/``). Where a section lists two or more versions of one folder
    (``greentest/2.7`` ... ``greentest/3.5``), it speaks of that folder's versioned copies, the later ones too."""
    folder = re.escape(path.rsplit("/", 1)[0] + "/") if "/" in path else ""
    chunks, rules = _SECTION_RULE.split(text), []
    for i, chunk in enumerate(chunks):
        head, _, body = chunk.strip().partition("\n\n")
        listed = [line.strip() for line in head.splitlines()]
        if not listed or not all(_PATH_ONLY.fullmatch(line) for line in listed):
            continue
        body = body if body.strip() else (chunks[i + 1] if i + 1 < len(chunks) else "")
        expression = detect_license(path, body) if body.strip() else None
        if not expression:
            continue
        globs = [re.escape(line.rstrip("/")) for line in listed]
        parents = {line.rstrip("/").rpartition("/")[0] for line in listed}
        if len(listed) >= 2 and len(parents) == 1 and all(
                re.fullmatch(_VERSION_NAME, line.rstrip("/").rpartition("/")[2]) for line in listed):
            globs.append(re.escape(parents.pop() + "/") + _VERSION_NAME)
        rules.append(PathRule(f"{folder}(?:.*/)?(?:{'|'.join(globs)})(?:/.*)?", expression, "closest"))
    return tuple(rules)


# A license document of Markdown sections headed by the names of the collections they speak of, each stating its
# collection's license (r7rs-libs' LICENSE.md: "## AutoDiff" "Released under the GNU GPL Version 2.0.", "## PFDS"
# "The license is the BSD 3-clause License:" and its text). A heading naming a license, a holder's notice or the
# document itself ("# LICENSE information", "## MIT License", "## Copyright") names no collection.
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_COLLECTION_NAME = re.compile(r"(?:\d+[.)][ \t]*)?(?P<name>[A-Za-z][\w+-]*(?:[ \t.][\w+-]+){0,2})[ \t]*:?")
_NO_COLLECTION = re.compile(r"licen[cs]|copyright|notice|terms|third|party|credit|acknowledg", re.IGNORECASE)
# The preamble says the collections' licenses differ: the document states none for what no section names.
_LICENSES_DIFFER = re.compile(r"\b(?:different|various|varying|separate|several|distinct|their own) licen[cs]es\b"
                              r"|\blicen[cs]ed separately\b|\bhas its own licen[cs]e\b", re.IGNORECASE)


def heading_sections(path: str, text: str) -> tuple[tuple[str, str], ...]:
    """The (collection name, license) of each Markdown section of a license document whose heading names a
    collection and whose body states a license (``detect_license``), in document order; () unless two or more do."""
    parts = _HEADING.split(text) if "#" in text else [text]
    found = []
    for heading, body in zip(parts[1::2], parts[2::2]):
        match = _COLLECTION_NAME.fullmatch(heading.strip())
        if not match or _NO_COLLECTION.search(heading) or not body.strip():
            continue
        if expression := detect_license(path, body):
            found.append((match.group("name"), expression))
    return tuple(found) if len(found) >= 2 else ()


def sections_preamble(text: str) -> str:
    """What a license document says before its first Markdown heading naming a collection."""
    for match in _HEADING.finditer(text):
        if _COLLECTION_NAME.fullmatch(match.group(1).strip()) and not _NO_COLLECTION.search(match.group(1)):
            return text[:match.start()]
    return text


def heading_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """A ``closest`` rule for the folder below the document's own that each section's heading names (the name's
    words, any case, joined by nothing or one of ``-_. ``: "AutoDiff" names ``autodiff/``). Where the preamble says
    the collections' licenses differ, a folder named after a collection and more (``autodiff-tests/``,
    ``slib-examples/``) is that collection's too."""
    sections = heading_sections(path, text)
    if not sections:
        return ()
    folder = re.escape(path.rsplit("/", 1)[0] + "/") if "/" in path else ""
    more = r"(?:[-_][^/]*)?" if _LICENSES_DIFFER.search(sections_preamble(text)) else ""
    rules = []
    for name, expression in sections:
        words = r"[-_. ]?".join(re.escape(word) for word in re.findall(r"[A-Za-z0-9]+", name))
        rules.append(PathRule(f"{folder}(?i:{words}){more}/.*", expression, "closest"))
    return tuple(rules)


def sections_default(path: str, text: str) -> str | None:
    """The license a document of collections' sections (``heading_sections``) whose preamble says their licenses
    differ states for paths no section names: its preamble's own, else none."""
    preamble = sections_preamble(text)
    return detect_license(path, preamble) if preamble.strip() else None


def states_sections_only(path: str, text: str) -> bool:
    """Whether ``text`` is a license document of collections' sections whose preamble says their licenses differ."""
    return bool(heading_sections(path, text)) and bool(_LICENSES_DIFFER.search(sections_preamble(text)))


# A license document's Markdown tables naming a folder or file per row, in a column headed "Subdirectory", "Folder",
# "Path" or "File", and its license, in a column headed "License" or else by the section's heading (x16-rom's
# LICENSE.md: "| MEGA65 KERNAL Reimplementation | `kernal/open-roms` | GPLv3 |", "| LZSA2 Decompression |
# `kernal/lzsa.s` | 3-clause BSD |"); a row whose license is no license's name ("## Commercial Licenses", a
# "Copyright" column) states none.
_TABLE_ROW = re.compile(r"^[ \t]*\|(.*)\|[ \t]*$")
_PATH_COLUMN = re.compile(r"(?:sub)?(?:director(?:y|ies)|folders?|paths?|files?|locations?)", re.IGNORECASE)
_LICENSE_COLUMN = re.compile(r"licen[cs]es?", re.IGNORECASE)
_CELL_PATH = re.compile(r"`([^`\s]+)`")
# "## Commercial Licenses": code under its owners' commercial terms (x16-rom's Commodore KERNAL and Microsoft BASIC).
_COMMERCIAL = re.compile(r"\bcommercial licen[cs]es?\b", re.IGNORECASE)
# "All code outside of the subdirectories above as well as *additions* to legacy code are under the 2-clause BSD
# license": the document's own license, for the paths its tables do not name.
_OUTSIDE_LISTED = re.compile(
    r"\ball (?:the )?(?:other )?(?:source )?(?:code|files) (?:outside (?:of )?the (?:sub)?(?:director(?:y|ies)|folders) "
    r"(?:listed )?above|not listed above)(?:,? as well as [^.]{0,80}?,?)? (?:is|are) (?:licensed |released |distributed )?"
    r"under (?:the )?(?:terms of (?:the )?)?(?P<name>(?:[^,.;\n]|\.(?=\d)){2,60}?licen[cs]e)", re.IGNORECASE)


def table_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """A ``closest`` rule for each path a license document's table rows name (``_TABLE_ROW``) under the license their
    row or section names, relative to the document's folder; () unless two or more."""
    if "|" not in text:
        return ()
    base = re.escape(path.rsplit("/", 1)[0] + "/") if "/" in path else ""
    named_paths: dict[str, list[str]] = {}
    heading, header = "", None
    for line in text.splitlines():
        if (title := _HEADING.match(line)) is not None:
            heading, header = title.group(1), None
            continue
        row = _TABLE_ROW.match(line)
        if row is None:
            header = None
            continue
        cells = [cell.strip() for cell in row.group(1).split("|")]
        if header is None:
            header = cells
            continue
        where = next((i for i, cell in enumerate(header) if _PATH_COLUMN.fullmatch(cell)), None)
        named = next((i for i, cell in enumerate(header) if _LICENSE_COLUMN.fullmatch(cell)), None)
        if where is None or where >= len(cells) or not _CELL_PATH.search(cells[where]):
            continue  # no path column, or the separator row
        name = re.sub(r"[*_`]", "", cells[named] if named is not None and named < len(cells) else heading).strip()
        expression = PROPRIETARY if _COMMERCIAL.search(name) else normalize_license(name) if name else None
        if expression and license_ids(expression):
            for glob in _CELL_PATH.findall(cells[where]):
                named_paths.setdefault(glob.rstrip("/"), []).append(expression)
    # a path two rows name is under both (x16-rom's `basic`: Microsoft's code, and the additions' BSD-2-Clause); the
    # more specific path answers first (`kernal/open-roms` before `kernal`)
    rules = [PathRule(base + _listed_glob(glob), combine(dict.fromkeys(found)), "closest")
             for glob, found in sorted(named_paths.items(), key=lambda item: (item[0].count("/"), len(item[0])))]
    return tuple(rules) if len(rules) >= 2 else ()


def outside_listed(text: str) -> str | None:
    """The license a document gives the code outside the paths it lists (``_OUTSIDE_LISTED``), or None."""
    match = _OUTSIDE_LISTED.search(" ".join(text.split()).replace("*", ""))
    return _stated(match.group("name")) if match else None


# A license document of paragraphs each naming a file of its folder, then quoting that file's license text:
# JJA-input-playground's datafiles/licenses.txt, "Datafile controllertypes.csv includes data sourced from SDL2
# typelist." then SDL's zlib text, "Datafile controllerblacklist.csv includes data sourced from Chromium blocklist
# (vid+pid)." then Chromium's BSD text.
_FILE_PARAGRAPH = re.compile(r"^[ \t]*(?:[A-Z][\w-]*[ \t]+)?(?P<file>[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,4})[ \t]+"
                             r"(?:includes|contains|uses|is|was|comes)\b[^\n]*$", re.MULTILINE)


def file_paragraph_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """A ``closest`` rule for each file of the document's folder that two or more of its paragraphs name, then quote a
    license text for (``_FILE_PARAGRAPH``): the text between one such line and the next is that file's."""
    heads = list(_FILE_PARAGRAPH.finditer(text))
    if len(heads) < 2:
        return ()
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    rules = []
    for head, end in zip(heads, [*(h.start() for h in heads[1:]), len(text)], strict=True):
        if expression := detect_license(path, text[head.end():end]):
            rules.append(PathRule(re.escape(folder + head["file"]), expression, "closest"))
    return tuple(rules) if len(rules) >= 2 else ()


# A license text introducing the files the text after them governs: vim-coffee-script's Copying.md, "These files issed
# under this license:", its litcoffee files one a line, then the MIT text (its "All files except:" list, then the WTFPL,
# leaves the WTFPL the folder's, as the text read first).
_INTRODUCED_FILES = re.compile(r"^[ \t]*(?:these|the following) files (?:are |were )?(?:is+u?ed|licensed|released|"
                               r"distributed|published|covered) (?:under|by) (?:this|the following) licen[cs]e[ \t]*:[ \t]*$",
                               re.IGNORECASE | re.MULTILINE)


def introduced_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """``closest`` rules for the paths a license text lists after a sentence introducing them
    (``_INTRODUCED_FILES``), each under the license the text after the list states."""
    folder = re.escape(path.rsplit("/", 1)[0] + "/") if "/" in path else ""
    rules = []
    for intro in _INTRODUCED_FILES.finditer(text):
        listing, _, body = text[intro.end():].strip("\n").partition("\n\n")
        listed = [line.strip() for line in listing.splitlines() if line.strip()]
        if not listed or not all(_PATH_ONLY.fullmatch(line) for line in listed):
            continue
        following = _INTRODUCED_FILES.search(body)
        if expression := detect_license(path, body[:following.start()] if following else body):
            globs = "|".join(re.escape(line.rstrip("/")) for line in listed)
            rules.append(PathRule(f"{folder}(?:{globs})(?:/.*)?", expression, "closest"))
    return tuple(rules)


# A license text's list of paths and their licenses, one per line: noVNC's LICENSE.txt, "    *.html    : 2-Clause BSD
# license", "    app/styles/Orbitron*    : SIL Open Font License 1.1", "    vendor/pako/    : MIT", a name running onto
# the next, further indented line ("app/images/ : Creative Commons Attribution-ShareAlike" then its address).
_LISTED_PATH = re.compile(r"^(?P<indent>[ \t]+)(?P<glob>[\w.*?-]*(?:/[\w.*?-]*)*)[ \t]*:[ \t]+(?P<name>\S.*)$")


def listed_rules(path: str, text: str) -> tuple[PathRule, ...]:
    """The rules a license text's path list states (``_LISTED_PATH``), for paths below the text's folder, each
    ``closest`` (a file's own header answers first); a line whose left side is no path (a word with neither ``/``,
    ``*`` nor an extension) or whose right side names no license with its version is no rule."""
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    lines, rules = text.splitlines(), []
    for i, line in enumerate(lines):
        match = _LISTED_PATH.match(line)
        glob = match.group("glob") if match else ""
        if not match or not re.search(r"[/*]|\.\w+$", glob) or glob.startswith(("http", "//")):
            continue
        name = match.group("name")
        for following in lines[i + 1:i + 3]:  # a name continued on further indented lines
            if len(following) - len(following.lstrip()) <= len(match.group("indent")) or _LISTED_PATH.match(following):
                break
            name += " " + following.strip()
        if expression := named_license_of(name):
            rules.append(PathRule(re.escape(folder) + _listed_glob(glob), expression, "closest"))
    return tuple(rules)


def _listed_glob(glob: str) -> str:
    """A listed path as a regex: ``*`` within one path segment, ``**`` across them; a folder (``app/images/``, or a
    name without a wildcard) covers what is below it."""
    body = "".join(".*" if token == "**" else "[^/]*" if token == "*" else "[^/]" if token == "?" else re.escape(token)
                   for token in re.findall(r"\*\*|\*|\?|[^*?]+", glob.rstrip("/")))
    return body + "/.*" if glob.endswith("/") else body + "(?:/.*)?"


def dep5_rules(text: str) -> tuple[PathRule, ...]:
    """``Files:``/``License:`` paragraphs; the License field's first line is the expression."""
    rules = []
    for paragraph in _paragraphs(text):
        globs, license_field = paragraph.get("files", "").split(), paragraph.get("license", "")
        expression = normalize_license(license_field.split("\n", 1)[0], spdx_field=True)
        if globs and expression:
            rules.append(PathRule("|".join(_dep5_glob(glob) for glob in globs), expression, "aggregate"))
    return tuple(rules)


def _paragraphs(text: str) -> Iterable[dict[str, str]]:
    """Deb822 paragraphs as ``{lower-cased field: value}``, continuation lines joined with newlines."""
    for block in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        name = None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and name is not None:
                fields[name] += "\n" + line.strip()
            elif ":" in line and not line.startswith("#"):
                name, value = line.split(":", 1)
                name = name.strip().lower()
                fields[name] = value.strip()
        yield fields


def _dep5_glob(glob: str) -> str:
    """Debian's glob: ``*`` any characters (``/`` too), ``?`` one, backslash escapes them."""
    parts, i = [], 0
    while i < len(glob):
        char = glob[i]
        if char == "\\" and i + 1 < len(glob):
            parts.append(re.escape(glob[i + 1]))
            i += 2
            continue
        parts.append(".*" if char == "*" else "." if char == "?" else re.escape(char))
        i += 1
    return "".join(parts)


def reuse_toml_rules(text: str) -> tuple[PathRule, ...]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return ()
    annotations = data.get("annotations") if isinstance(data, dict) else None
    return tuple(rule for item in annotations if isinstance(item, dict) and (rule := _annotation_rule(item))) \
        if isinstance(annotations, list) else ()


def _annotation_rule(item: dict) -> PathRule | None:
    paths, declared = _strings(item.get("path")), _strings(item.get("SPDX-License-Identifier"))
    expression = combine(normalize_license(value, spdx_field=True) for value in declared)
    precedence = item.get("precedence", "closest")
    if not paths or not expression or precedence not in PRECEDENCES:
        return None
    return PathRule("|".join(_toml_glob(path) for path in paths), expression, precedence)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _toml_glob(glob: str) -> str:
    """REUSE.toml's glob: ``**`` any characters, ``*`` any but ``/``, backslash escapes."""
    return "".join(
        re.escape(token[1]) if token.startswith("\\") else ".*" if token == "**" else "[^/]*" if token == "*"
        else re.escape(token)
        for token in re.findall(r"\\.|\*\*|\*|[^\\*]+", glob))


_IGNORED = re.compile(r"REUSE-IgnoreStart.*?(?:REUSE-IgnoreEnd|\Z)", re.DOTALL)
# A comment line that declares the file's license: only a comment marker before the tag, punctuation
# (//, #, --, ;, /*, <!--) or a marker that is a word: Batch's REM (gradlew.bat: "@rem SPDX-License-Identifier:
# Apache-2.0"), m4's dnl (c-ares' configure.ac: "dnl SPDX-License-Identifier: MIT"), Texinfo's @c, troff's .\", fixed-form
# Fortran's C. Also in a comment box: a Tcl line "# -- SPDX-License-Identifier: BSD-3-Clause --" (neorv32's), its
# column's closing mark.
_HEADER_TAG = re.compile(r"^[ \t]*(?:(?:[^\w\s\"'`]{1,4}[ \t]*){0,2}|@?(?i:rem)\b|dnl\b|@c(?:omment)?\b|[.']\\\"|[Cc](?=[ \t]))"
                         r"[ \t]*SPDX-License-Identifier:[ \t]*(.+?)"
                         r"[ \t]*(?:\*/|-->|[ \t](?:--|\*|#|\||;)+)?[ \t]*$", re.MULTILINE)


def file_license(text: str) -> str | None:
    """The expression a file's own ``SPDX-License-Identifier:`` comment lines declare (AND of them)."""
    if "SPDX-License-Identifier:" not in text[:HEADER_CHARS]:
        return None  # most files: the tag's literal is absent (_HEADER_TAG matches it case-sensitively)
    head = _IGNORED.sub("", text[:HEADER_CHARS])
    found = [normalize_license(match.group(1), spdx_field=True) for match in _HEADER_TAG.finditer(head)]
    return combine(found) or None


# The filter asks this of each document twice in a row (its license, then whether its notice is another
# holder's: ``pipelines.filter``); a pure function of its arguments, so the last few answers are kept
# (~2.5 CPU s per 50 MB of code; bench/RESULTS.md, issue 49, ninth session).
# Words one of which every reading of ``own_license`` needs in the text (a notice's "licensed", a grant's "permission"
# or "granted", a dedication's "domain" or "dedicated", a tag's "SPDX", RFC's and NIST's "copyright", Unicode's
# "terms of use"...): a text holding none states nothing of itself. A literal screen (0.07 CPU s on 31.9 MB, where
# reading those files cost 0.55).
_TERMS_WORDS = ("licen", "copyright", "domain", "permission", "gpl", "spdx", "granted", "warrant", "rights",
                "terms", "redistribut", "copyleft", "dedicat",
                "lizenz", "лиценз", "许可", "許可", "授权", "授權", "協議", "协议", "ライセンス", "許諾")  # notices in other languages  # "domain": "the public\n * domain" across a line break


def _names_terms(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in _TERMS_WORDS)


def _footer_and_field(text: str, path: str) -> str | None:
    """A file's closing license block, with the ``License:`` field its head states beside it where that names
    another license (x16-rom's ``kernal/lzsa.s``: "; License: 3-clause BSD" in its head, LZSA's zlib text at its
    end: both in force)."""
    footer = footer_license(text, path)
    if footer is None:
        return None
    field = tagged_license(text, path)
    return combine([field, footer]) if field and license_ids(field) - license_ids(footer) else footer


# A source map (``bootstrap.min.css.map``) carries the sources it maps in ``sourcesContent``, each with its own banner
# ("Bootstrap ... Licensed under MIT"), far past any head: their licenses are the map's.
_MAPPED_CHARS = 3_000


def _mapped_sources(text: str) -> list[str]:
    """The sources a JSON source map holds (``sourcesContent``), or [] for any other text."""
    if not text.lstrip().startswith("{") or '"sourcesContent"' not in text:
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    sources = data.get("sourcesContent") if isinstance(data, dict) else None
    return [source for source in sources if isinstance(source, str)] if isinstance(sources, list) else []


# A tag or a field naming a license ("@license", "License:"): a screen before reading tags beside a notice already found.
_TAG_SCREEN = re.compile(r"@licen|[Ll]icen[cs]e(?:[ \t]+URI)?[ \t]*:|LICEN[CS]E[ \t]*:")
_TAG_SCREEN_CHARS = 3_000


@functools.lru_cache(maxsize=4)
def own_license(text: str, path: str = "") -> str | None:
    """The license a file states of itself: SPDX tags, else a notice in its head, else the license section of its
    long opening comment, else its closing license block, else a doc comment's ``@license`` tag, else MIT named in a
    code file's banner ("MIT Licensed"); with the notices in a code file's comments below its head that name other
    licenses (``licenses.later_notices``)."""
    if not _names_terms(text):
        return None  # half of a repository's files name no terms at all: their folder's answer is theirs
    if path.endswith(".map") and (sources := _mapped_sources(text)):
        return combine(found for source in sources if (found := own_license(source[:_MAPPED_CHARS], "x.css"))) or None
    legal = is_license_file(path) or is_notice_file(path)  # a license document's sections speak of other files
    prose = document_prose(text, path)  # a document's code blocks quote other programs' banners
    found = (file_license(text) or manifest_license(path, text) or file_statement(prose, path)
             or notice_license(prose, dedications=not legal) or opening_license(text, path)
             or _footer_and_field(text, path)
             or tagged_license(text, path) or named_in_banner(text, path) or named_before_pointer(text, path)
             or cjk_banner(text, path)
             or banner_ids(text, path)
             or keyword_license(text, path)
             or rfc_license(text, path) or addressed_license(text, path) or named_at_address(text, path)
             or terms_at_address(text, path) or dunder_license(text, path) or agreement_terms(text, path)
             or lisp_keyword_license(text, path))
    # a license a tag or a pointing sentence names beside a notice of another family holds too: VBA-JSON's "@license
    # MIT" above the BSD text of the code it is based on, OpenMV's "licensed under the MIT license, see the file
    # LICENSE" above Espressif's Apache notice (esp32-camera's bf3005.c)
    tagged = found and _TAG_SCREEN.search(text, 0, _TAG_SCREEN_CHARS) and tagged_license(text, path)
    for named in (tagged, named_before_pointer(text, path)) if found else ():
        if named and not license_families(named) & license_families(found):
            found = combine([found, named])
    derived = derived_license(text, path)
    return later_notices(text, path, combine([found, derived]) if found or derived else None)

