"""Copies a repository declares in its own files, read by their structure (``filters.declared``), on real files of
the spent fourth issue 46 holdout (tests/filters/data/vendored/README.md names each repository and commit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemix.filters.declared import declared_copies, may_declare

DATA = Path(__file__).parent / "data" / "vendored"


def text_of(repository: str, path: str) -> str:
    files = json.loads((DATA / f"{repository}.json").read_text(encoding="utf-8"))
    assert path in files  # the fixture holds the file the case is about
    return files[path]


def targets(repository: str, path: str) -> dict[str, str]:
    assert may_declare(path)
    return dict(declared_copies(path, text_of(repository, path)))


def test_sections_headed_by_paths_name_the_copies_and_their_globs():
    """ccache's LICENSE.adoc, "Files derived from other sources": one section per path, each saying where it came from."""
    found = targets("ccache", "LICENSE.adoc")
    assert set(found) == {
        "src/third_party/blake3/blake3/*", "src/third_party/cpp-httplib/httplib.h", "src/third_party/cxxurl/cxxurl/url.*",
        "src/third_party/fmt/fmt/*.h", "src/third_party/fmt/fmt/format.cc", "src/third_party/tl-expected/tl/expected.hpp",
        "src/third_party/win32-compat/win32/getopt.*", "src/third_party/win32-compat/win32/mktemp.*",
        "src/third_party/win32-compat/win32/winerror_to_errno.h"}
    assert "Copied from" in found["src/third_party/cpp-httplib/httplib.h"]
    # Its "== Overall license" and "== Copyright and authors" sections name no path: ccache's own.
    assert not any(target.startswith(("src/ccache", "doc")) for target in found)


def test_a_list_of_names_and_versions_names_the_folders_beside_it():
    assert targets("premake", "contrib/VERSIONS.txt") == {
        f"contrib/{name}": f"contrib/VERSIONS.txt lists {name} {version}" for name, version in (
            ("curl", "8.11"), ("libzip", "0.11.2"), ("lua", "5.3.5"), ("luasocket", "3.0"), ("mbedtls", "3.6.2"),
            ("zlib", "1.3.2"))}


def test_composer_installs_into_its_vendor_dir():
    """FreshRSS's lib/composer.json: ``"vendor-dir": "./"`` puts each required package beside the project's lib/Minz."""
    found = targets("freshrss", "lib/composer.json")
    assert set(found) == {"lib/marienfressinaud/lib_opml", "lib/phpgt/cssxpath", "lib/phpmailer/phpmailer",
                          "lib/simplepie/simplepie"}
    assert "lib" not in found  # the vendor-dir is the project's own folder


@pytest.mark.parametrize(("repository", "path"), [
    ("freshrss", "lib/README.md"),  # prose about the folder's libraries, no list, no path headings
    ("freshrss", "p/themes/Nord/README.md"),
    ("premake", "contrib/mbedtls/LICENSE"),  # a license text's sections name no paths
    ("freshrss", "LICENSE.txt"),
])
def test_prose_and_license_texts_declare_nothing(repository, path):
    assert targets(repository, path) == {}


def test_cargo_vendored_sources_and_composer_defaults():
    """``cargo vendor``'s record and composer's default ``vendor/`` (real tools' documented formats)."""
    cargo = '[source.crates-io]\nreplace-with = "vendored-sources"\n\n[source.vendored-sources]\ndirectory = "vendor"\n'
    assert dict(declared_copies("tools/.cargo/config.toml", cargo)) == {
        "tools/vendor": ".cargo config's [source.vendored-sources] directory"}
    composer = json.dumps({"require": {"php": ">=8.1", "monolog/monolog": "^3.0"}})
    assert set(dict(declared_copies("composer.json", composer))) == {"vendor/monolog/monolog", "vendor"}


@pytest.mark.parametrize(("repository", "path"), [
    ("jekyll", "docs/_docs/themes.md"),  # "# ./Gemfile" opens a fenced Ruby block
    ("nlohmann-json", "README.md"),  # "# thirdparty/CMakeLists.txt" opens a fenced CMake block
])
def test_a_comment_in_a_code_fence_is_no_heading(repository, path):
    text = text_of(repository, path)
    assert "```" in text and ("# ./Gemfile" in text or "# thirdparty/CMakeLists.txt" in text)  # guard
    assert targets(repository, path) == {}


@pytest.mark.parametrize(("repository", "path", "expected"), [
    # RcppArmadillo's R-package record: "Files: *" is Dirk Eddelbuettel's, Romain Francois's and Doug Bates's; the
    # Armadillo headers are Conrad Sanderson's and NICTA's (a loose stanza: paths ending in ":", "Copyright" bare).
    ("rcpparmadillo", "inst/COPYRIGHTS", {"inst/include/armadillo", "inst/include/armadillo_bits/*"}),
    # libzmq's Debian record below packaging/: Unity's stanza, read from the root and from the package above debian/;
    # the packagers' own "debian/*" stanza is not a copy.
    ("libzmq", "packaging/debian/copyright", {"external/unity/*", "packaging/external/unity/*"}),
])
def test_a_debian_copyright_record_names_other_holders_paths(repository, path, expected):
    """A DEP-5 record's stanzas whose holders share no name with its ``Files: *`` stanza are other projects' paths."""
    found = targets(repository, path)
    assert set(found) == expected
    assert all("stanza on" in detail for detail in found.values())


def test_sections_headed_by_project_names_beside_the_repositorys_own():
    """ZeroBrane's root LICENSE (8142e63): its first section is ZeroBrane's own MIT (Paul Kulchenko); the sections after
    it are headed by the projects it bundles ("--[[ Copas License ]]---"), each naming its holders. The author's own
    MobDebug and Serpent sections name him, the Estrela section names its holders on the line below its years: none is
    another project's by this reading. Files that are not license or notice texts are not read so."""
    from codemix.filters.declared import named_sections

    text = text_of("zerobrane", "LICENSE")
    found = dict(named_sections("LICENSE", text))
    assert {"copas", "metalua", "luacheck", "luainspect", "lua", "lpeg", "luasec", "scintillua"} <= set(found)
    assert "zerobranestudio" not in found and "mobdebug" not in found and "serpent" not in found
    assert "--[[ MobDebug License ]]" in text and "--[[ Serpent License ]]" in text  # guard: the sections are there
    assert "'Copyright © 2005-2010 Kepler Project.'" in found["copas"]
    assert not list(named_sections("README.md", text))
