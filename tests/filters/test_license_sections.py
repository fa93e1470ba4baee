"""Which text governs which path: a font license beside code, a NOTICE's sections naming the paths they govern, a
second notice lower in a file, a file's statement of what it was based on (spent issue 46 holdouts, development
material). Fixtures are excerpts of public repositories at the commits ``data/notices/README.md`` names; the expected
readings are ScanCode 32.5.0's (the file's own matches, or its matches for the lines of a section), never ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemix.filters.licenses import (
    footer_license,
    is_folder_license_evidence,
    is_font_file,
    is_license_evidence,
    is_permissive,
    license_ids,
)
from codemix.filters.reuse import (
    copied_texts,
    held_evidence,
    license_evidence_of,
    own_license,
    resolve_licenses,
    section_rules,
)

DATA = Path(__file__).parent / "data" / "notices"


def _files(name: str) -> dict[str, str]:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def _licenses(files: dict[str, str]):
    return resolve_licenses(license_evidence_of(path, text) for path, text in files.items())


def test_a_font_license_governs_the_fonts_beside_it_not_the_code() -> None:
    """nanovg-zig's ``examples/LICENSE_OFL.txt``, "This Font Software is licensed under the SIL Open Font License",
    beside its Roboto fonts and its own example programs: ScanCode reads the text as ofl-1.1 and the root LICENSE.txt
    as zlib; the OFL defines its subject as the "Font Software", so the programs take the root's license."""
    files = _files("nanovg-zig")
    assert "Font Software" in files["examples/LICENSE_OFL.txt"]  # guard: the text names its subject
    licenses = _licenses({path: files[path] for path in ("examples/LICENSE_OFL.txt", "LICENSE.txt")})
    assert licenses.for_path("examples/Roboto-Regular.ttf") == "OFL-1.1"
    assert licenses.for_path("examples/LICENSE_OFL.txt") == "OFL-1.1"
    assert licenses.for_path("examples/demo.zig", own_license(files["examples/demo.zig"], "examples/demo.zig")) == "Zlib"
    assert licenses.for_path("examples/web/webgl.zig") == "Zlib"
    assert is_font_file("fonts/Noto.ufo/glyphs/a.glif") and not is_font_file("examples/images/baboon.jpg")


def test_a_notices_sections_govern_the_paths_they_name() -> None:
    """gevent's NOTICE: a section listing ``greentest/2.7`` ... ``greentest/3.5``, then the PSF agreement (ScanCode's
    match for lines 18-64: psf-2.0), and one listing ``gevent/libuv/_corecffi_source.c``, then MIT's text (lines
    76-92: mit). The tree has since moved into ``src/`` and its copies of CPython's tests are now 3.10 to 3.15."""
    files = _files("gevent")
    notice = files["NOTICE"]
    assert "greentest/3.5" in notice and "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in notice
    rules = section_rules("NOTICE", notice)
    assert [rule.expression for rule in rules] == ["PSF-2.0", "MIT"]
    licenses = _licenses({"NOTICE": notice, "LICENSE": files["LICENSE"]})
    assert licenses.default == "MIT"  # a root NOTICE names paths; the root's license is its LICENSE's
    assert licenses.for_path("src/greentest/3.10/test_socket.py") == "PSF-2.0"
    assert licenses.for_path("src/greentest/3.5/test_ssl.py") == "PSF-2.0"
    assert licenses.for_path("src/gevent/libuv/_corecffi_source.c") == "MIT"
    assert licenses.for_path("src/gevent/socket.py") == "MIT"
    assert licenses.for_path("src/greentest/README.rst") == "MIT"  # the folder itself, not a versioned copy


@pytest.mark.parametrize(("name", "path", "expected"), [
    # Robert Penner's BSD text, then raylib's zlib notice at character 3,256 of the opening comment (ScanCode:
    # bsd-new AND zlib)
    ("raylib", "examples/shapes/reasings.h", "BSD-3-Clause AND Zlib"),
    # raylib's zlib notice, then xoshiro128**'s CC0 dedication in a comment at line 258 (ScanCode: zlib AND cc0-1.0)
    ("raylib", "src/external/rprand.h", "Zlib AND CC0-1.0"),
])
def test_a_second_notice_lower_in_the_file(name: str, path: str, expected: str) -> None:
    text = _files(name)[path]
    assert len(text) > 3_000 and text.count("Copyright") >= 1  # guard: the second notice lies past the head
    found = own_license(text, path)
    assert found is not None and license_ids(found) == license_ids(expected) and " OR " not in found


def test_a_restated_notice_adds_nothing() -> None:
    """stb-style footers restate a file's license: a second MIT text in a file already MIT is no second license."""
    text = _files("raylib")["src/external/rprand.h"]
    again = text + "\n/*\n" + text[text.index("This software is provided"):text.index("3. This notice")] + "*/\n"
    assert own_license(again, "src/external/rprand.h") == own_license(text, "src/external/rprand.h")


@pytest.mark.parametrize(("name", "path", "expected"), [
    # "Based on the nvim-treesitter highlighting, which is under the Apache license." (ScanCode: apache-2.0)
    ("difftastic", "vendored_parsers/highlights/cmake.scm", "Apache-2.0"),
    # BSD-3-Clause's text, then "some code copied from and inspired by poly1305-donna ... which is licensed under MIT or
    # PUBLIC DOMAIN" (ScanCode: bsd-new AND mit; it has no rule for the bare "PUBLIC DOMAIN")
    ("cryptonite", "cbits/cryptonite_poly1305.c", "BSD-3-Clause AND (MIT OR LicenseRef-public-domain)"),
])
def test_what_a_file_was_based_on_and_that_sources_license(name: str, path: str, expected: str) -> None:
    text = _files(name)[path]
    found = own_license(text, path)
    assert found is not None and license_ids(found) == license_ids(expected)
    assert found.count(" OR ") == expected.count(" OR ")


def test_a_license_documents_sentences_about_its_folders() -> None:
    """lz4's root LICENSE: "all files in the `lib` directory use a BSD 2-Clause license", "all other files use a
    GPL-2.0-or-later license, unless explicitly stated otherwise" (ScanCode's matches: line 2 bsd-simplified, line 3
    gpl-2.0-plus); it reads lib/LICENSE as bsd-simplified and programs/COPYING as gpl-2.0. A file's own notice answers
    first (lib/lz4.c's BSD 2-Clause text)."""
    files = _files("lz4")
    assert "all files in the `lib` directory" in files["LICENSE"]  # guard: the sentences are the fixture's
    licenses = _licenses({path: files[path] for path in ("LICENSE", "lib/LICENSE", "programs/COPYING")})
    assert licenses.default == "GPL-2.0-or-later"
    assert licenses.for_path("lib/xxhash.h") == "BSD-2-Clause"
    assert licenses.for_path("lib/dll/example/Makefile") == "BSD-2-Clause"
    assert licenses.for_path("contrib/gen_manual/gen_manual.cpp") == licenses.default
    assert licenses.for_path("programs/lz4io.c") == "GPL-2.0"  # its folder's COPYING
    own = own_license(files["lib/lz4.c"], "lib/lz4.c")
    assert licenses.for_path("lib/lz4.c", own) == "BSD-2-Clause"
    assert licenses.for_path("programs/lz4cli.c", own_license(files["programs/lz4cli.c"], "programs/lz4cli.c")) \
        == "GPL-2.0-or-later"


def test_the_icu_license_by_its_text_and_by_its_name() -> None:
    """decNumber in jq's vendor/: ICU-license.html grants in MIT's words but asks that the notice "appear in supporting
    documentation" (ICU 1.8.1 and later; not MIT-0, whose text lacks a notice clause), and each file says "This software
    is made available under the terms of the ICU License -- ICU 1.8.1 and later." (ScanCode: icu for both)."""
    files = _files("jq")
    text, code = files["vendor/decNumber/ICU-license.html"], files["vendor/decNumber/decNumber.c"]
    assert "supporting documentation" in text and "ICU License" in code
    assert license_evidence_of("vendor/decNumber/ICU-license.html", text)[1] == "ICU"
    assert own_license(code, "vendor/decNumber/decNumber.c") == "ICU"
    assert is_permissive("ICU")


def test_a_choice_between_the_texts_a_file_points_to() -> None:
    """zstd's headers: "licensed under both the BSD-style license (found in the LICENSE file in the root directory of
    this source tree) and the GPLv2 (found in the COPYING file ...). You may select, at your option, one of the
    above-listed licenses." The choice is the previous sentence's list; the BSD license is the one its root LICENSE
    holds (ScanCode reads LICENSE as bsd-new and COPYING as gpl-2.0)."""
    files = _files("zstd")
    header = files["lib/zstd.h"]
    assert "one of the above-listed licenses" in header and "BSD-style license" in header
    licenses = _licenses({path: files[path] for path in ("LICENSE", "COPYING")})
    assert licenses.default == "BSD-3-Clause AND GPL-2.0"  # two texts, neither offering the choice itself
    found = licenses.for_path("lib/zstd.h", own_license(header, "lib/zstd.h"))
    assert license_ids(found) == {"bsd-3-clause", "gpl-2.0"} and " OR " in found and " AND " not in found
    assert own_license(header.replace("above-listed", "following"), "lib/zstd.h") is None  # no list, no choice


def test_a_documents_own_permission_notice() -> None:
    """lz4's frame format specification: "Permission is granted to copy and distribute this document for any purpose
    and without charge ..." (ScanCode's match, lines 8-15: LPD-document), the document's own license, not the
    repository's GPL for its other files."""
    text = _files("lz4")["doc/lz4_Frame_format.md"]
    assert "copy and distribute this document" in text
    assert own_license(text, "doc/lz4_Frame_format.md") == "LPD-document"


def test_a_license_documents_sentence_about_everything_under_a_folder() -> None:
    """jq's COPYING: jq's MIT text, then "jq's documentation (everything found under the docs/ subdirectory in the source
    tree) is licensed under the Creative Commons CC BY 3.0 license" (ScanCode's matches: lines 3-20 mit, 24-28
    cc-by-3.0); the root stays jq's MIT."""
    text = _files("jq")["COPYING"]
    assert "everything found under the docs/ subdirectory" in " ".join(text.split())
    licenses = _licenses({"COPYING": text})
    assert licenses.default == "MIT"
    assert licenses.for_path("docs/content/manual/manual.yml") == "CC-BY-3.0"
    assert licenses.for_path("src/jv.c") == "MIT"


def test_lucents_notice_on_dtoa_and_plan_9() -> None:
    """re2's rune.cc (Plan 9's libutf): "Permission to use, copy, modify, and distribute this software for any purpose
    without fee is hereby granted, provided that this entire notice is included in all copies of any software which is
    or includes a copy or modification of this software" (ScanCode: dtoa), a permissive notice."""
    text = _files("re2")["src/re2_c/libre2/util/rune.cc"]
    assert "entire notice" in text
    assert own_license(text, "src/re2_c/libre2/util/rune.cc") == "dtoa"
    assert is_permissive("dtoa")


def test_a_license_document_stating_its_license_before_the_components_it_excepts() -> None:
    """rapidjson's license.txt (the eighth holdout, spent; fit after its run): "RapidJSON source code is licensed under
    the MIT License, except for the third-party components listed below", then msinttypes' BSD text (ScanCode's
    matches: lines 5-7 mit AND json AND other-permissive, 18-24 bsd-new, 53-57 mit). The document's license is the
    statement's, not the first text it quotes."""
    text = _files("rapidjson")["license.txt"]
    assert "except for the third-party components" in text and "Redistribution and use" in text
    assert license_evidence_of("license.txt", text)[1] == "MIT"


def test_minpacks_license_by_its_text() -> None:
    """numfort's bundled MINPACK (the eighth holdout, spent; fit after its run): "Minpack Copyright Notice (1999)
    University of Chicago", BSD's grant with an acknowledgment clause (ScanCode: minpack), not BSD-2-Clause."""
    text = _files("numfort")["src/external/minpack/LICENSE.txt"]
    assert "Redistribution and use" in text
    assert license_evidence_of("src/external/minpack/LICENSE.txt", text)[1] == "Minpack"


def test_a_legal_notice_file_named_legalities() -> None:
    """numfort's bundled CDFLIB90 (the eighth holdout, spent; fit after its run): ``LEGALITIES.txt``, "We place our
    efforts in writing this package in the public domain" (ScanCode's match, line 4: public-domain; its classifier
    calls a "legal..." name a legal file), the folder's license text. Its next sentence, "However, code from ACM
    publications is subject to the ACM policy (below)", puts part of the package under the ACM's terms for its
    published algorithms (noncommercial copying; ScanCode's acm-sla, which it matches only by the Software License
    Agreement's own text, so its reading here is public-domain alone): both hold for the folder, and the permissive
    policy keeps none of it."""
    path = "src/external/CDFLIB90/LEGALITIES.txt"
    text = _files("numfort")[path]
    assert "public domain" in text and "subject to the ACM policy" in text
    assert license_evidence_of(path, text)[1] == "LicenseRef-acm-sla AND LicenseRef-public-domain"
    folder = _licenses({path: text}).for_path("src/external/CDFLIB90/cdf_beta_mod.f90")
    assert folder == "LicenseRef-acm-sla AND LicenseRef-public-domain" and not is_permissive(folder)


def _with_holders(files: dict[str, str]):
    """A repository's licenses from its license evidence and every file's holders, as the filter stage gathers them."""
    evidence = [license_evidence_of(path, text) for path, text in files.items() if is_license_evidence(path)
                or is_folder_license_evidence(path)]
    return resolve_licenses([*evidence, *(held for path, text in files.items() if (held := held_evidence(path, text)))])


def test_a_copied_projects_license_text_at_the_root_governs_its_folder() -> None:
    """nim-glfw (the eighth holdout, spent): the wrapper's MIT ``LICENSE`` (Erik Johansson Andersson; ScanCode: mit)
    beside GLFW's zlib ``LICENSE.md`` (Marcus Geelnard, Camilla Löwy; ScanCode: zlib), whose holders the heads of
    GLFW's copied sources under ``glfw/src`` name. GLFW's text governs that folder (its ``CMakeLists.txt`` has no
    notice), the wrapper's the rest (its examples, ``glfw.nim``); not both ANDed everywhere."""
    files = _files("nim-glfw")
    named = [path for path, text in files.items() if (held := held_evidence(path, text))
             and "marcus geelnard" in held.holders]
    assert len(named) >= 30 and not any(path.startswith("examples/") for path in named)  # guard: the copies' heads
    licenses = _with_holders(files)
    assert licenses.default == "MIT"
    assert licenses.for_path("glfw/src/CMakeLists.txt") == "Zlib"
    assert licenses.for_path("glfw.nim") == "MIT" and licenses.for_path("examples/boing.nim") == "MIT"
    assert licenses.for_path("glfw/src/init.c", own_license(files["glfw/src/init.c"], "glfw/src/init.c")) == "Zlib"
    # without the files' holders, the two texts are both the root's
    assert _licenses({p: files[p] for p in ("LICENSE", "LICENSE.md", "glfw.nimble")}).default == "MIT AND Zlib"


def test_a_license_text_naming_no_holder_stays_its_folders() -> None:
    """zstd's BSD ``LICENSE`` (Meta Platforms) and GPL-2.0 ``COPYING`` (the GNU text names only the FSF, its own
    author): no text is a copy's, whatever the files' holders, so both stay the root's."""
    files = _files("zstd")
    held = [held_evidence(path, text) for path, text in files.items()]
    assert any(item and item.path == "lib/zstd.h" for item in held)  # guard: a file naming Meta
    evidence = [license_evidence_of(path, files[path]) for path in ("LICENSE", "COPYING")]
    assert copied_texts(evidence, [item for item in held if item]) == {}


def test_the_khronos_grant_for_the_materials_lower_in_a_generated_header() -> None:
    """nim-glfw's ``glfw/deps/glad/gles2.h``: glad's generated head names no license; Khronos' grant "to any person
    obtaining a copy of this software and/or associated documentation files (the "Materials")" follows at line 477
    (ScanCode: khronos; with the paragraph on modified files it would be SPDX's MIT-Khronos-old), not MIT's."""
    path = "glfw/deps/glad/gles2.h"
    text = _files("nim-glfw")[path]
    assert text.find('(the\n** "Materials")') > 3_000  # guard: below the head
    assert own_license(text, path) == "LicenseRef-khronos" and is_permissive("LicenseRef-khronos")


def test_a_choice_of_licenses_closing_a_long_file_before_its_credits() -> None:
    """nim-glfw's ``glfw/deps/nuklear.h``: its closing comment holds "## License ... This software is available under 2
    licenses -- choose whichever you prefer. ALTERNATIVE A - MIT License ... ALTERNATIVE B - Public Domain
    (www.unlicense.org)", then its changelog and credits (28 kB from the end of the 990 kB file; the fixture keeps its
    first 100 lines and that comment): MIT or the Unlicense, as stb's footer."""
    path = "glfw/deps/nuklear.h"
    text = _files("nim-glfw")[path]
    assert text.find("choose whichever you prefer") > 3_000 and len(text) - text.find("ALTERNATIVE B") > 3_000
    assert own_license(text, path) == "MIT OR Unlicense"
    assert footer_license(text, path) == "MIT OR Unlicense"  # the closing comment's section, whatever the file's length


@pytest.mark.parametrize(("path", "expected"), [
    # "=head1 LICENSE ... This module is licensed under the same terms as Perl itself." (ScanCode:
    # artistic-perl-1.0 OR gpl-1.0-plus), at the end of the module's POD
    ("App-cpanminus/fatlib/HTTP/Tinyish.pm", "Artistic-1.0-Perl OR GPL-1.0-or-later"),
    # "=head1 COPYRIGHT AND LICENSE ... This is free software, licensed under: The Apache License, Version 2.0"
    ("App-cpanminus/fatlib/CPAN/Common/Index/LocalPackage.pm", "Apache-2.0"),
])
def test_a_perl_modules_license_in_its_pod(path: str, expected: str) -> None:
    """cpanminus's fat-packed modules (development set) state their license in POD after the code, past the head."""
    text = _files("cpanminus")[path]
    assert text.find("=head1", 3_000) > 0  # guard: the POD section lies below the head
    assert own_license(text, path) == expected


def test_a_folders_own_license_text_answers_before_a_sentence_further_up() -> None:
    """lz4's root LICENSE says "all files in the `lib` directory use a BSD 2-Clause license" (a rule for ``lib/``). A
    folder below ``lib/`` with a license text of its own speaks for its files first, as any nearer folder does; no
    development repository has one, so lz4's own GPL-2.0 ``programs/COPYING`` stands here at ``lib/dll/COPYING``."""
    files = _files("lz4")
    licenses = _licenses({"LICENSE": files["LICENSE"], "lib/LICENSE": files["lib/LICENSE"],
                          "lib/dll/COPYING": files["programs/COPYING"]})
    assert [rule.origin for rule in licenses.rules] == [""]  # guard: the root's sentence is a rule
    assert licenses.for_path("lib/lz4.c") == "BSD-2-Clause"
    assert licenses.for_path("lib/dll/example.c") == "GPL-2.0"


@pytest.mark.parametrize(("repository", "path", "expected"), [
    # Ansible's header line, "GNU General Public License v3.0+ (see COPYING or
    # https://www.gnu.org/licenses/gpl-3.0.txt)" (ScanCode: gpl-3.0-plus)
    ("ansible-collections/ansible.posix", "plugins/modules/mount.py", "GPL-3.0-or-later"),
])
def test_a_gnu_license_named_in_short(repository: str, path: str, expected: str) -> None:
    """A GNU license named with its version in short, not in the GNU notice's words."""
    text = _files("named_notices")[repository][path]
    assert own_license(text, path) == expected


def test_a_root_text_that_few_files_point_to_is_theirs() -> None:
    """ansible.posix: the root's COPYING (GPL-3.0; ScanCode: gpl-3.0) beside ``PSF-license.txt`` (the PSF agreement;
    ScanCode: python), which its changelog says it includes "for plugins/module_utils/_version.py", whose head says "PSF
    License (see PSF-license.txt or ...)", while 39 files say "GNU General Public License v3.0+ (see COPYING or ...)".
    The PSF text is that file's, not every path's (both were ANDed on every path)."""
    files = _files("named_notices")["ansible-collections/ansible.posix"]
    licenses = _with_holders(files)
    assert "see PSF-license.txt" in files["plugins/module_utils/_version.py"]  # guard: the pointer
    assert licenses.default == "GPL-3.0"
    assert licenses.for_path("plugins/module_utils/_version.py") == "PSF-2.0"
    assert licenses.for_path("tests/integration/targets/acl/aliases") == "GPL-3.0"
    path = "plugins/modules/acl.py"
    assert licenses.for_path(path, own_license(files[path], path)) == "GPL-3.0-or-later"


def test_a_script_named_like_a_changelog_is_code() -> None:
    """ohmyzsh's ``tools/changelog.sh`` (the ninth holdout, spent; fit after its run): a function "made by Kat Marchán
    ... and licensed under the Apache License 2.0" with its notice, past the head (ScanCode: apache-2.0). A script
    named like a document is code: its notices below the head are read."""
    path = "tools/changelog.sh"
    text = _files("holdout9")["ohmyzsh/ohmyzsh"][path]
    assert text.find("Licensed under the Apache License") > 3_000  # guard: below the head
    assert own_license(text, path) == "Apache-2.0"
    assert own_license(text, "CHANGELOG.md") is None  # a changelog document's sentences stay unread


def test_a_reuse_toml_in_a_folder_governs_the_paths_below_it() -> None:
    """crystal's ``src/compiler/crystal/tools/playground/public/vendor/REUSE.toml`` (the ninth holdout, spent; fit after
    its run): REUSE 3.3 lets a REUSE.toml sit in a folder, its paths relative to it ("materialize-*/**": MIT,
    override; ScanCode reads materialize's own MIT header). The root's REUSE.toml and LICENSE answer elsewhere."""
    files = _files("holdout9")["crystal-lang/crystal"]
    licenses = _licenses(files)
    vendor = "src/compiler/crystal/tools/playground/public/vendor"
    assert licenses.for_path(f"{vendor}/materialize-v0.97.5/css/materialize.min.css") == "MIT"
    assert licenses.for_path(f"{vendor}/jquery-3.7.1.min.js") == "MIT"
    assert licenses.for_path("src/array.cr") == "Apache-2.0 WITH Swift-exception"
    assert licenses.for_path("materialize-v0.97.5/x.css") != "MIT"  # the nested file's globs are its folder's


def test_a_notice_that_licenses_this_file_to_you() -> None:
    """crystal's ``bin/crystal.ps1`` (the ninth holdout, spent; fit after its run): a function ported from .NET below
    the head, "The .NET Foundation licenses this file to you under the MIT license" (ScanCode: mit)."""
    path = "bin/crystal.ps1"
    text = _files("holdout9")["crystal-lang/crystal"][path]
    assert text.find("licenses this file to you under the MIT license") > 3_000  # guard: below the head
    assert own_license(text, path) == "MIT"


def test_a_bsd_text_of_one_condition() -> None:
    """hxcpp's LICENSE.txt (the ninth holdout, spent; fit after its run): BSD's grant "provided that the following
    condition is met", the source's notice kept, nothing on binaries or endorsement: BSD-1-Clause (ScanCode matches
    nothing there). haxelib.json's bare "BSD" names the family only; the text answers."""
    files = _files("holdout9")["HaxeFoundation/hxcpp"]
    assert "Redistributions in binary form" not in files["LICENSE.txt"]  # guard: one condition
    assert license_evidence_of("LICENSE.txt", files["LICENSE.txt"])[1] == "BSD-1-Clause"
    assert _licenses(files).default == "BSD-1-Clause" and is_permissive("BSD-1-Clause")
