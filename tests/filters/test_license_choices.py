"""A file's own license where it offers a choice, names itself, or blesses instead of licensing; a manifest's own
field (the sixth issue 46 holdout, spent, development material). Each fixture is an excerpt of a public repository at
the commit ``data/notices/README.md`` names; the expected readings are ScanCode 32.5.0's or, where ScanCode gives the
folder's license instead of the file's, Debian's licensecheck 3.3's (``--check '.*' --lines 40``), never ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemix.filters.licenses import license_ids, manifest_license, notice_license, option_choice
from codemix.filters.reuse import own_license, resolve_licenses

DATA = Path(__file__).parent / "data" / "notices"


def _files(name: str) -> dict[str, str]:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("name", "path", "expected"), [
    # "You may use this work under the terms of a Creative Commons CC0 1.0 License/Waiver or the Apache Public License
    # 2.0, at your option." (argon2; ScanCode: cc0-1.0 OR apache-2.0)
    ("cryptonite", "cbits/argon2/argon2.c", "CC0-1.0 OR Apache-2.0"),
    # "You may use this under the terms of the CC0, the OpenSSL Licence, or the Apache Public License 2.0, at your
    # option." (BLAKE2; ScanCode: cc0-1.0 OR openssl OR apache-2.0)
    ("cryptonite", "cbits/blake2/sse/blake2-config.h", "CC0-1.0 OR OpenSSL OR Apache-2.0"),
    # Rust's "licensed under either of * Apache License, Version 2.0, ([LICENSE-APACHE](LICENSE-APACHE) or http://...)
    # * MIT license (...) at your option": a list whose items end in their addresses (ScanCode: apache-2.0 OR mit)
    ("bzip2-rs", "README.md", "Apache-2.0 OR MIT"),
    # Status's Nim headers, a bulleted list in line comments, each item's address after a colon or in a Markdown link
    # (ScanCode reads both licenses in each, apache-2.0 and mit)
    ("nim-stew", "stew/base10.nim", "Apache-2.0 OR MIT"),
    ("nim-stew", "tests/test_assign2.nim", "MIT OR Apache-2.0"),
])
def test_a_choice_offered_at_the_recipients_option(name: str, path: str, expected: str) -> None:
    text = _files(name)[path]
    assert "at your option" in " ".join(text.split())  # guard: the choice is the fixture's
    found = own_license(text, path)
    assert found is not None and license_ids(found) == license_ids(expected)
    assert found.count(" OR ") == expected.count(" OR ") and " AND " not in found


def test_a_gnu_notices_later_version_is_no_choice_between_licenses() -> None:
    """elsarticle's "either version 1.2 of this license or (at your option) any later version" chooses a version:
    ScanCode reads one license, lppl-1.2."""
    text = _files("rcpparmadillo")["vignettes/rmd/elsarticle.cls"]
    assert "(at your option) any" in text
    assert option_choice(text) is None
    assert own_license(text, "vignettes/rmd/elsarticle.cls") == "LPPL-1.2"


def test_a_bibliography_style_under_the_latex_license() -> None:
    """elsarticle-harv.bst, "distributed under the conditions of the LaTeX Project Public License, either version 1.3":
    ScanCode matches it to its lppl-1.2 rule (the family; the version it states is 1.3)."""
    found = own_license(_files("rcpparmadillo")["vignettes/rmd/elsarticle-harv.bst"], "vignettes/rmd/elsarticle-harv.bst")
    assert found is not None and {i.split("-")[0] for i in license_ids(found)} == {"lppl"}


def test_a_license_also_made_available() -> None:
    """Metalua (ZeroBrane Studio's ``lualibs/metalua``): "made available under the terms of the Eclipse Public License
    v1.0 ... also made available under the terms of the MIT public license". licensecheck: "EPL-1.0 and/or MIT"
    (ScanCode's rule guesses epl-2.0 OR apache-2.0 here); a choice, not the first license alone nor MIT alone."""
    found = own_license(_files("zerobrane")["lualibs/metalua/compiler/parser.lua"], "lualibs/metalua/compiler/parser.lua")
    assert found == "EPL-1.0 OR MIT"


@pytest.mark.parametrize("path", ["app/styles/base.css", "vnc.html"])
def test_a_files_statement_about_itself_beats_the_projects(path: str) -> None:
    """noVNC: "noVNC is licensed under the MPL 2.0 (see LICENSE.txt)", then "This file is licensed under the 2-Clause
    BSD license (see LICENSE.txt)". licensecheck names BSD-2-Clause for both files (beside the project's MPL-2.0);
    ScanCode gives the root's. The file's own license is the sentence about the file, in a stylesheet or a page."""
    text = _files("novnc")[path]
    assert "noVNC is licensed under the MPL 2.0" in text  # guard: the project's sentence comes first
    assert own_license(text, path) == "BSD-2-Clause"
    licenses = resolve_licenses([("LICENSE.txt", "MPL-2.0", (), None, False)])
    assert licenses.for_path(path, own_license(text, path)) == "BSD-2-Clause"


@pytest.mark.parametrize("path", ["c_src/sqlite3.h", "c_src/sqlite3ext.h"])
def test_sqlites_blessing(path: str) -> None:
    """"The author disclaims copyright to this source code. In place of a legal notice, here is a blessing" (exqlite's
    copied SQLite headers under its MIT root): ScanCode's ``blessing``, SPDX's id for it; permissive."""
    from codemix.filters.licenses import is_permissive

    text = _files("exqlite")[path]
    assert notice_license(text) == "blessing"
    assert is_permissive("blessing")


def test_a_manifests_own_license_is_its_field() -> None:
    """RcppArmadillo's DESCRIPTION: its prose says "'Armadillo' is licensed under Apache License 2", its field
    "License: GPL (>= 2)". ScanCode reads the field's gpl-2.0-plus in the file; the file's own license is its field."""
    text = _files("rcpparmadillo")["DESCRIPTION"]
    assert "licensed under Apache License 2" in " ".join(text.split())  # guard: the prose names another license
    assert manifest_license("DESCRIPTION", text) == "GPL-2.0-or-later"
    assert own_license(text, "DESCRIPTION") == "GPL-2.0-or-later"


def test_a_license_texts_list_of_paths() -> None:
    """noVNC's LICENSE.txt lists paths with their licenses ("*.html : 2-Clause BSD license", "app/styles/Orbitron* :
    SIL Open Font License 1.1", "app/images/ : Creative Commons Attribution-ShareAlike" and its by-sa/3.0 address,
    "vendor/pako/ : MIT"); "core/des.js : Various BSD style licenses" names no version. licensecheck reads the
    stylesheets' own headers as BSD-2-Clause, as the list says; each listed path takes its listed license, a file's own
    header answering first, the rest the default MPL-2.0 ("The default noVNC license is MPL-2.0")."""
    from codemix.filters.reuse import license_evidence_of

    text = _files("novnc")["LICENSE.txt"]
    licenses = resolve_licenses([license_evidence_of("LICENSE.txt", text)])
    assert licenses.default == "MPL-2.0"
    expected = {"vnc.html": "BSD-2-Clause", "app/styles/input.css": "BSD-2-Clause",
                "app/styles/Orbitron700.woff": "OFL-1.1", "app/images/alt.svg": "CC-BY-SA-3.0",
                "vendor/pako/lib/zlib/deflate.js": "MIT", "core/base64.js": "MPL-2.0",
                "core/crypto/des.js": "MPL-2.0", "core/rfb.js": "MPL-2.0", "tests/test.rfb.js": "MPL-2.0"}
    assert {path: licenses.for_path(path) for path in expected} == expected
    header = own_license(_files("novnc")["app/styles/base.css"], "app/styles/base.css")
    assert licenses.for_path("app/styles/base.css", header) == "BSD-2-Clause"


def test_iscs_older_wording() -> None:
    """dnspython's header in gevent's ``resolver/_addresses.py``: "Permission to use, copy, modify, and distribute this
    software and its documentation for any purpose with or without fee is hereby granted, provided that the above
    copyright notice and this permission notice appear in all copies" (ScanCode: isc)."""
    text = _files("gevent")["src/gevent/resolver/_addresses.py"]
    assert "this software and its\n# documentation for any purpose with or without fee" in text  # guard: the wording
    assert notice_license(text) == "ISC"


def test_a_headers_license_field() -> None:
    """ccache's ``win32/getopt.c`` opens with "Date: ...", "Version: 1.0", "License: LGPL" (ScanCode: lgpl-2.0-plus,
    the family without its version)."""
    text = _files("ccache")["src/third_party/win32-compat/win32/getopt.c"]
    assert notice_license(text) is None  # guard: no notice in words, only the field
    assert own_license(text, "src/third_party/win32-compat/win32/getopt.c") == "LGPL-2.0-or-later"


def test_a_dedication_with_alternatives_where_it_does_not_hold() -> None:
    """tree-sitter's ``lib/src/portable/endian.h``: "place this file hereby into the public domain ... In case there are
    jurisdictions that don't support putting things in the public domain you can also consider it to be 'dual
    licensed' under the BSD, MIT and Apache licenses". licensecheck: public-domain; the alternatives name no versions."""
    text = _files("tree-sitter")["lib/src/portable/endian.h"]
    assert "dual licensed" in text  # guard: the choice wording is there
    assert notice_license(text) == "LicenseRef-public-domain"


def test_autoconfs_install_notice() -> None:
    """libzmq's INSTALL: "This file is free documentation; the Free Software Foundation gives unlimited permission to
    copy, distribute and modify it" (ScanCode's rule ``fsf-free2``, license ``fsf-free``, whose SPDX key is FSFUL)."""
    assert notice_license(_files("libzmq")["INSTALL"]) == "FSFUL"


def test_a_nimble_files_license_field() -> None:
    """nim-stew's ``stew.nimble``: ``license = "MIT or Apache License 2.0"`` beside LICENSE-MIT and LICENSE-APACHEv2.
    ScanCode 32.5.0 reads the same two licenses in the field (it joins them with AND, where the field says "or");
    the field is the declared choice, which the two license texts agree with."""
    from codemix.filters.licenses import detect_license

    text = json.loads((DATA / "manifests.json").read_text(encoding="utf-8"))["status-im/nim-stew"]["stew.nimble"]
    assert 'license       = "MIT or Apache License 2.0"' in text  # guard: the field's own words
    found = detect_license("stew.nimble", text)
    assert found is not None and license_ids(found) == {"mit", "apache-2.0"} and " OR " in found
    licenses = resolve_licenses([("stew.nimble", found, (), None, False), ("LICENSE-MIT", "MIT", (), None, False),
                                 ("LICENSE-APACHEv2", "Apache-2.0", (), None, False)])
    assert licenses.default == found


def test_a_notice_about_the_rest_of_the_project_is_not_the_files() -> None:
    """valgrind.h (re2's ``util/``): its BSD-style license with bzip2's clauses "applies to this one file (valgrind.h)
    only. The rest of Valgrind is licensed under the terms of the GNU General Public License, version 2" (ScanCode:
    bzip2-1.0.6 alone)."""
    text = _files("re2")["src/re2_c/libre2/util/valgrind.h"]
    assert "The rest of Valgrind is licensed under the\n   terms of the GNU General Public License" in text  # guard
    assert notice_license(text) == "bzip2-1.0.6"


def test_its_in_the_public_domain() -> None:
    """lookup3.c in re2's ``util/hash.cc``: "You can use this free for any purpose. It's in the public domain. It has
    no warranty." (licensecheck: public-domain; ScanCode: public-domain-disclaimer)."""
    assert notice_license(_files("re2")["src/re2_c/libre2/util/hash.cc"]) == "LicenseRef-public-domain"


def test_appstream_metadata_states_its_own_license() -> None:
    """sqlitebrowser's AppStream file: ``<metadata_license>CC0-1.0</metadata_license>`` is the license of the metadata
    file itself (the AppStream specification's field; ``<project_license>`` is the project's). ScanCode matches the
    CC0-1.0 tag in it (beside the project's licenses)."""
    path = "distri/sqlitebrowser.desktop.appdata.xml"
    text = _files("sqlitebrowser")[path]
    assert "<project_license>MPL-2.0 and GPL-3.0+</project_license>" in text  # guard: the project's differs
    assert own_license(text, path) == "CC0-1.0"
