"""License detection reads real license texts and metadata right, and the policy keeps or drops a
repository under its own stable reason while staying silent on a near miss.

Real texts come from this interpreter's standard library (Python's own LICENSE) and from the
installed packages' ``*.dist-info`` folders; the GNU texts are their canonical opening lines.
"""

from __future__ import annotations

import importlib.metadata
import json
import sysconfig
from pathlib import Path

import pytest
import yaml

from codemix.config import ConfigError, load_config
from codemix.dedup import keeper
from codemix.filters.licenses import (
    PERMISSIVE_LICENSES,
    LicenseConfig,
    detect_license,
    is_license_evidence,
    is_permissive,
    license_drop_reason,
    normalize_license,
    opted_out,
    repository_license,
)

STDLIB_LICENSE = Path(sysconfig.get_path("stdlib")) / "LICENSE.txt"


def dist_file(dist: str, name: str) -> str:
    """A file from an installed package's dist-info (PEP 639 puts license files under licenses/)."""
    try:
        found = importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{dist} is not installed")
    text = found.read_text(f"licenses/{name}") or found.read_text(name)
    assert text, f"{dist} has no {name} in its dist-info"
    return text


# --- Real license texts -------------------------------------------------------------------------


def test_python_own_license_is_python_2_0_although_it_later_mentions_the_gpl():
    """Python's LICENSE is the PSF agreement followed by BeOpen's, CNRI's and CWI's: SPDX Python-2.0, as ScanCode
    32.5.0 reads it (its key ``python``); the PSF agreement alone is PSF-2.0."""
    text = STDLIB_LICENSE.read_text()
    assert "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in text and "GNU General Public License" in text
    assert detect_license("LICENSE", text) == "Python-2.0"
    psf = text[text.index("PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2"):text.index("BEOPEN.COM LICENSE AGREEMENT")]
    assert detect_license("LICENSE", psf) == "PSF-2.0"


def test_python_documentation_section_is_zero_clause_bsd():
    text = STDLIB_LICENSE.read_text()
    section = text[text.index("ZERO-CLAUSE BSD LICENSE") :]
    assert "Permission to use, copy, modify, and/or distribute" in section
    assert detect_license("LICENSE", section) == "0BSD"


@pytest.mark.parametrize(
    ("dist", "name", "expected"),
    [
        ("numpy", "LICENSE.txt", "BSD-3-Clause"),  # bundles GPL'd runtime notices after its own license
        ("torch", "LICENSE", "BSD-3-Clause"),  # long copyright preamble before the grant
        ("pyarrow", "LICENSE.txt", "Apache-2.0"),  # 112 kB with bundled notices and SPDX lines far down
        ("requests", "LICENSE", "Apache-2.0"),
        ("fire", "LICENSE", "Apache-2.0"),  # only the "Licensed under the Apache License" header
        ("click", "LICENSE.txt", "BSD-3-Clause"),
        ("pygments", "LICENSE", "BSD-2-Clause"),
        ("pytest", "LICENSE", "MIT"),
        ("humanize", "LICENCE", "MIT"),
        ("cffi", "LICENSE", "MIT-0"),
        ("dnspython", "LICENSE", "ISC"),
        ("hypothesis", "LICENSE.txt", "MPL-2.0"),
        ("typing_extensions", "LICENSE", "Python-2.0"),  # Python's own license text, copied whole
        ("multiprocess", "COPYING", "BSD-3-Clause"),
        ("pillow", "LICENSE", "HPND"),
    ],
)
def test_installed_license_files(dist, name, expected):
    assert detect_license(name, dist_file(dist, name)) == expected


def test_bundled_notices_really_follow_numpys_own_license():
    """Guards the numpy case above: the file does hold a GPL text, after the BSD grant."""
    text = dist_file("numpy", "LICENSE.txt")
    assert text.index("Redistribution and use") < text.index("GNU GENERAL PUBLIC LICENSE")


# Canonical opening lines of the GNU licenses (verbatim title blocks).
GPL3 = """                    GNU GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007

 Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>
 Everyone is permitted to copy and distribute verbatim copies
 of this license document, but changing it is not allowed.

                            Preamble

  The GNU General Public License is a free, copyleft license for
software and other kinds of works.
"""
GPL3_APPENDIX = """
                     END OF TERMS AND CONDITIONS

            How to Apply These Terms to Your New Programs

    This program is free software: you can redistribute it and/or modify
    it under the terms of the GNU General Public License as published by
    the Free Software Foundation, either version 3 of the License, or
    (at your option) any later version.
"""
GPL2 = """                    GNU GENERAL PUBLIC LICENSE
                       Version 2, June 1991

 Copyright (C) 1989, 1991 Free Software Foundation, Inc.,
 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
"""
LGPL3 = """                   GNU LESSER GENERAL PUBLIC LICENSE
                       Version 3, 29 June 2007

  This version of the GNU Lesser General Public License incorporates
the terms and conditions of version 3 of the GNU General Public
License, supplemented by the additional permissions listed below.
"""
LGPL21 = """                  GNU LESSER GENERAL PUBLIC LICENSE
                       Version 2.1, February 1999

 Copyright (C) 1991, 1999 Free Software Foundation, Inc.
"""
AGPL3 = """                    GNU AFFERO GENERAL PUBLIC LICENSE
                       Version 3, 19 November 2007

 Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>
"""
LGPL_NOTICE = """This library is free software; you can redistribute it and/or
modify it under the terms of the GNU Lesser General Public
License as published by the Free Software Foundation; either
version 2.1 of the License, or (at your option) any later version.
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GPL3, "GPL-3.0"),
        (GPL3 + GPL3_APPENDIX, "GPL-3.0"),  # the appendix's sample notice is not this project's choice
        (GPL3_APPENDIX.split("How to Apply")[1] + GPL3, "GPL-3.0-or-later"),  # the project's own notice
        (GPL2, "GPL-2.0"),
        (LGPL3, "LGPL-3.0"),  # names the GPL too, but after its own title
        (LGPL21, "LGPL-2.1"),
        (LGPL_NOTICE, "LGPL-2.1-or-later"),
        (AGPL3, "AGPL-3.0"),
        ("SPDX-License-Identifier: GPL-3.0-only\n\n" + GPL3, "GPL-3.0-only"),
    ],
)
def test_gnu_license_texts(text, expected):
    assert detect_license("COPYING", text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("MIT\n", "MIT"),  # a license file that only names the license
        ("Apache-2.0", "Apache-2.0"),
        ("Copyright 2021 Example Corp. All rights reserved.\n", "LicenseRef-proprietary"),
        ("Copyright 2021 Example Corp.\n", None),
        (
            "Copyright (c) 2021 Example Corp.\n\nThis project is licensed under the terms of the MIT license.\n",
            "MIT",
        ),
        (
            "Copyright (c) 2021 Example Corp.\n\nReleased under the BSD 2-Clause License, see the docs.\n",
            "BSD-2-Clause",
        ),
        ("Copyright (c) 2021 Example Corp.\n\nThe license is still being decided; ask before reusing this code.", None),
        ("This is free and unencumbered software released into the public domain.\n", "Unlicense"),
        ("", None),
    ],
)
def test_files_that_only_name_their_license(text, expected):
    assert detect_license("LICENSE", text) == expected


def test_reuse_folder_names_the_license():
    assert detect_license("LICENSES/Apache-2.0.txt", "(the text, however it is formatted)") == "Apache-2.0"


# --- Package metadata ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dist", "header", "expected"),
    [
        ("pyarrow", "License-Expression: Apache-2.0", "Apache-2.0"),
        ("numpy", "License-Expression: BSD-3-Clause AND", "BSD-3-Clause AND 0BSD AND MIT AND Zlib AND CC0-1.0"),
        ("cryptography", "License-Expression: Apache-2.0 OR BSD-3-Clause", "Apache-2.0 OR BSD-3-Clause"),
        ("apache-beam", "License: Apache License, Version 2.0", "Apache-2.0"),
        ("megatron-core", "License: Apache 2.0", "Apache-2.0"),  # the License field beats a BSD classifier
        ("detect-secrets", "License: UNKNOWN", "Apache-2.0"),  # falls through to the classifier
        ("scipy", "License: Copyright", "BSD-3-Clause"),  # a copyright line is no name: "BSD License" classifier
        ("python-dateutil", "License: Dual License", "Apache-2.0 AND BSD-3-Clause"),  # two classifiers, both hold
        ("loguru", "Classifier: License :: OSI Approved :: MIT License", "MIT"),
    ],
)
def test_installed_package_metadata(dist, header, expected):
    text = dist_file(dist, "METADATA")
    assert header in text
    assert detect_license("pkg.dist-info/METADATA", text) == expected


def test_torch_metadata_expression_with_an_exception_is_permissive():
    found = detect_license("METADATA", dist_file("torch", "METADATA"))
    assert "Apache-2.0 WITH LLVM-exception" in found and "BSD-3-Clause" in found
    assert is_permissive(found)


FOLDED_LICENSE_TEXT = """Metadata-Version: 2.1
Name: x
License: Permission is hereby granted, free of charge, to any person obtaining a copy
        of this software. The above copyright notice and this permission notice shall be
        included in all copies.

"""
TWO_MAVEN_LICENSES = """<project><licenses>
  <license><name>The Apache Software License, Version 2.0</name></license>
  <license><name>MIT License</name></license>
</licenses></project>"""


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        (
            "PKG-INFO",
            "Metadata-Version: 2.1\nName: x\nLicense: GPLv3+\n\nLicense: MIT is in the README body\n",
            "GPL-3.0-or-later",
        ),
        (
            "PKG-INFO",
            FOLDED_LICENSE_TEXT,  # older setuptools pasted the whole license into the field
            "MIT",
        ),
        ("setup.cfg", "[metadata]\nname = x\nlicense = BSD 2-Clause License\n", "BSD-2-Clause"),
        ("setup.cfg", "[metadata]\nclassifiers =\n    License :: OSI Approved :: ISC License (ISCL)\n", "ISC"),
        ("setup.py", "setup(name='x', license='Apache License 2.0')", "Apache-2.0"),
        (
            "setup.py",
            'setup(classifiers=["License :: OSI Approved :: GNU Affero General Public License v3"])',
            "AGPL-3.0",
        ),
        ("pyproject.toml", '[project]\nname = "x"\nlicense = "MIT OR Apache-2.0"\n', "MIT OR Apache-2.0"),
        ("pyproject.toml", '[project]\nlicense = {text = "Apache 2.0"}\n', "Apache-2.0"),
        ("pyproject.toml", '[project]\nlicense = {file = "LICENSE"}\nlicense-files = ["LICENSE"]\n', None),
        ("pyproject.toml", '[project]\nclassifiers = ["License :: OSI Approved :: MIT License"]\n', "MIT"),
        ("pyproject.toml", '[tool.poetry]\nlicense = "BSD-3-Clause"\n', "BSD-3-Clause"),
        ("package.json", json.dumps({"name": "x", "license": "MIT"}), "MIT"),
        ("package.json", json.dumps({"license": {"type": "ISC"}}), "ISC"),
        ("package.json", json.dumps({"license": "UNLICENSED"}), "LicenseRef-proprietary"),  # not the Unlicense
        ("package.json", json.dumps({"license": "SEE LICENSE IN LICENSE.md"}), None),
        ("package.json", json.dumps({"licenses": [{"type": "MIT"}, {"type": "GPL-2.0"}]}), "GPL-2.0 AND MIT"),
        ("composer.json", json.dumps({"license": ["MIT", "GPL-3.0-or-later"]}), "GPL-3.0-or-later OR MIT"),
        ("Cargo.toml", '[package]\nname = "x"\nlicense = "MIT/Apache-2.0"\n', "MIT OR Apache-2.0"),
        ("Cargo.toml", '[package]\nlicense.workspace = true\n[workspace.package]\nlicense = "MIT"\n', "MIT"),
        ("x.gemspec", 'Gem::Specification.new do |spec|\n  spec.license = "MIT"\nend\n', "MIT"),
        ("x.gemspec", "s.licenses = %w[MIT Ruby]\n", "MIT AND Ruby"),
        (
            "pom.xml",
            TWO_MAVEN_LICENSES,
            "Apache-2.0 OR MIT",
        ),
    ],
)
def test_metadata_formats(path, text, expected):
    assert detect_license(path, text) == expected


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("pyproject.toml", "[project\nlicense = "),
        ("Cargo.toml", "license = = 'MIT'"),
        ("package.json", "{'license': 'MIT'"),
        ("package.json", "[1, 2]"),
        ("composer.json", "null"),
        ("setup.cfg", "license = MIT\n[metadata"),
        ("PKG-INFO", "\x00\x01 not a header"),
        ("pom.xml", "<project><licenses>"),
    ],
)
def test_malformed_metadata_gives_none(path, text):
    assert detect_license(path, text) is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Apache License 2.0", "Apache-2.0"),
        ("Apache 2.0", "Apache-2.0"),
        ("Apache Software License", "Apache-2.0"),
        ("MIT License", "MIT"),
        ("BSD License", "BSD-3-Clause"),  # the documented conservative reading of a bare "BSD"
        ("Simplified BSD", "BSD-2-Clause"),
        ("GPLv3", "GPL-3.0"),
        ("GNU General Public License v2 or later (GPLv2+)", "GPL-2.0-or-later"),
        ("GNU Library or Lesser General Public License (LGPL)", "LGPL-2.0-or-later"),
        ("Mozilla Public License 2.0 (MPL 2.0)", "MPL-2.0"),
        ("mit or apache-2.0", "MIT OR Apache-2.0"),
        ("The Unlicense (Unlicense)", "Unlicense"),
        ("UNLICENSED", "LicenseRef-proprietary"),
        ("Public Domain", "LicenseRef-public-domain"),
        ("UNKNOWN", None),
        ("Copyright 2003 SciPy Developers", None),
    ],
)
def test_license_names_normalise_to_spdx(name, expected):
    assert normalize_license(name) == expected


def test_unknown_spdx_ids_survive_only_in_spdx_fields():
    assert normalize_license("CECILL-B") is None
    assert normalize_license("CECILL-B", spdx_field=True) == "CECILL-B"


# --- Which files are evidence, and how a repository's files combine -----------------------------


@pytest.mark.parametrize(
    "path",
    [
        "LICENSE",
        "LICENSE.md",
        "licence.txt",
        "COPYING",
        "COPYING.LESSER",
        "COPYRIGHT",
        "UNLICENSE",
        "MIT-LICENSE",
        "LICENSE-APACHE",
        "pkg/LICENSE",
        "LICENSES/MIT.txt",
        "./LICENSE",
        "PKG-INFO",
        "pkg.dist-info/METADATA",
        "setup.cfg",
        "setup.py",
        "pyproject.toml",
        "package.json",
        "Cargo.toml",
        "crates/Cargo.toml",
        "composer.json",
        "x.gemspec",
        "pom.xml",
        "README.md",  # its license section, where nothing else at the root states one
        "NOTICE.txt",  # its notice, likewise
    ],
)
def test_license_evidence(path):
    assert is_license_evidence(path)


@pytest.mark.parametrize(
    "path",
    [
        "src/pkg/LICENSE",
        "license.py",
        "src/license.go",
        "docs/README.md",
        "module/pom.xml",
        "a/b/package.json",
        "third_party_license.txt",
        "LICENSES",
        "",
    ],
)
def test_not_license_evidence(path):
    assert not is_license_evidence(path)


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        ([("package.json", "ISC"), ("LICENSE", "MIT")], "MIT"),  # root license file beats metadata
        ([("LICENSE", None), ("setup.py", "BSD-3-Clause")], "BSD-3-Clause"),  # undetected files do not count
        ([("vendor/LICENSE", "GPL-3.0"), ("pyproject.toml", "MIT")], "MIT"),  # root metadata beats a subfolder
        ([("LICENSE.BSD", "BSD-3-Clause"), ("LICENSE.APACHE", "Apache-2.0")], "Apache-2.0 AND BSD-3-Clause"),
        ([("LICENSE", "MIT"), ("COPYING", "MIT")], "MIT"),
        # REUSE's LICENSES/ lists what some file may use: the root's own declaration comes first
        ([("LICENSE", "MIT OR Apache-2.0"), ("LICENSES/CC0-1.0.txt", "CC0-1.0")], "MIT OR Apache-2.0"),
        ([("LICENSES/MIT.txt", "MIT"), ("LICENSES/GPL-3.0-only.txt", "GPL-3.0-only")], "GPL-3.0-only AND MIT"),
        ([("LICENSES/MIT.txt", "MIT"), ("package.json", "ISC")], "ISC"),
        # metadata that names every license the files name is the declared combination (a dual license)
        ([("LICENSE-MIT", "MIT"), ("LICENSE-GPL", "GPL-2.0"), ("Cargo.toml", "MIT OR GPL-2.0-only")],
         "MIT OR GPL-2.0-only"),
        ([("LICENSE", "Apache-2.0"), ("setup.py", "MIT")], "Apache-2.0"),  # metadata naming another license: stale
        ([("LICENSE", "MIT"), ("crates/x/Cargo.toml", "MIT OR GPL-2.0-only")], "MIT"),  # only at the same level
        ([("README.md", None)], ""),
        ([], ""),
    ],
)
def test_repository_license(evidence, expected):
    assert repository_license(evidence) == expected
    assert repository_license(reversed(evidence)) == expected  # file order never matters


# --- Policy -------------------------------------------------------------------------------------

DEFAULT = LicenseConfig()


# (reason, license that triggers it, near miss that must be kept), under the default policy.
DROP_CASES = [
    ("no_license", "", "MIT"),
    ("no_license", "NOASSERTION", "0BSD"),
    ("license_not_allowed", "GPL-3.0-only", "BSD-3-Clause"),
    ("license_not_allowed", "MIT AND GPL-3.0-only", "MIT OR GPL-3.0-only"),
    ("license_not_allowed", "(GPL-3.0-only OR MIT) AND AGPL-3.0", "GPL-3.0-only OR MIT AND ISC"),  # AND binds tighter
    ("license_not_allowed", "GPL-2.0-only WITH Classpath-exception-2.0", "Apache-2.0 WITH LLVM-exception"),
    ("license_not_allowed", "LicenseRef-proprietary", "apache-2.0"),  # ids compare case-insensitively
    ("license_not_allowed", "MIT License", "MIT"),  # not an expression: never silently allowed
]


@pytest.mark.parametrize(("reason", "triggering", "near_miss"), DROP_CASES)
def test_each_reason_triggers_and_stays_silent_on_a_near_miss(reason, triggering, near_miss):
    assert license_drop_reason(triggering, DEFAULT) == reason
    assert license_drop_reason(near_miss, DEFAULT) is None


def test_allow_unknown_keeps_unlicensed_but_not_proprietary():
    config = LicenseConfig(allow_unknown=True)
    assert license_drop_reason("", config) is None
    assert license_drop_reason("LicenseRef-proprietary", config) == "license_not_allowed"


def test_a_custom_policy_replaces_the_default():
    config = LicenseConfig(allowed=["GPL-3.0-only", "mit"])
    assert license_drop_reason("GPL-3.0-only", config) is None
    assert license_drop_reason("MIT", config) is None
    assert license_drop_reason("Apache-2.0", config) == "license_not_allowed"


@pytest.mark.parametrize(
    ("repo", "patterns", "out"),
    [
        ("octo/secret", ["octo/secret"], True),
        ("Octo/Secret", ["octo/secret"], True),  # GitHub names are case-insensitive
        ("octo/secrets", ["octo/secret"], False),
        ("octo/anything", ["octo/*"], True),
        ("octopus/repo", ["octo/*"], False),
        ("someone/private-tools", ["*/private-*"], True),
        ("someone/public-tools", ["*/private-*"], False),
        ("octo/repo", [], False),
    ],
)
def test_opted_out(repo, patterns, out):
    assert opted_out(repo, LicenseConfig(opt_out=patterns)) is out


def test_default_policy_is_the_permissive_list_and_shared_with_dedup():
    assert sorted(DEFAULT.allowed) == sorted(PERMISSIVE_LICENSES)
    assert {"MIT", "Apache-2.0", "BSD-3-Clause"} <= PERMISSIVE_LICENSES and "GPL-3.0-only" not in PERMISSIVE_LICENSES
    assert keeper.is_permissive is is_permissive


def test_config_loads_from_yaml():
    data = yaml.safe_load("allowed: [MIT, Apache-2.0]\nallow_unknown: true\nopt_out: ['octo/*']\n")
    config = load_config(LicenseConfig, data, "licenses")
    assert config.allowed == ["MIT", "Apache-2.0"] and config.allow_unknown and config.opt_out == ["octo/*"]


@pytest.mark.parametrize(
    ("data", "field_path"),
    [
        ({"allowed": ["MIT OR Apache-2.0"]}, "licenses.allowed[0]"),
        ({"allowed": []}, "licenses.allowed"),
        ({"opt_out": ["octo/*", " "]}, "licenses.opt_out[1]"),
        ({"allow_unknwon": True}, "licenses.allow_unknwon"),
    ],
)
def test_config_errors_name_the_field(data, field_path):
    with pytest.raises(ConfigError) as error:
        load_config(LicenseConfig, data, "licenses")
    assert error.value.field_path == field_path
