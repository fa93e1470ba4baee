"""Vendored and generated paths by GitHub linguist's vendor.yml and generated.rb path tests (the rules The Stack v2
used through go-enry)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from codemix.document import Document
from codemix.filters.apply import drop_reason
from codemix.filters.config import FiltersConfig
from codemix.filters.vendored import GENERATED_LIST, VENDOR_LIST, is_generated, is_vendored

FILTERS = Path(__file__).parents[2] / "filters"
CODE = "def main():\n    value = compute(1, 2)\n    return value\n" * 5


def doc(path: str) -> Document:
    return Document(id="x", text=CODE, source="s", kind="file", repo="octo/r", path=path, language="python",
                    license="MIT")


def test_every_linguist_pattern_compiles_alike_in_python() -> None:
    patterns = yaml.safe_load((FILTERS / VENDOR_LIST).read_text())
    assert len(patterns) > 150  # guard: the list is linguist's, not a stub
    for pattern in patterns:
        re.compile(pattern)


@pytest.mark.parametrize("path", [
    "tests/thirdparty/Fuzzer/FuzzerMain.cpp", "tests/thirdparty/imapdl/filterbr.py",  # nlohmann/json: the miss
    "third_party/zlib/inflate.c", "3rdparty/x.h", "web/node_modules/lodash/index.js", "static/app.min.js",
    "vendor/github.com/x/y.go",
])
def test_vendored(path: str) -> None:
    assert is_vendored(path) and drop_reason(doc(path), FiltersConfig()) == "vendored_path"


@pytest.mark.parametrize("path", ["src/app.py", "include/nlohmann/json.hpp", "pkg/vendoring.py", "thirdpartyish.py",
                                  ".github/workflows/ci.yml", ".github/actions/setup/action.yml",
                                  ".github/external_ci/appveyor.yml",  # nlohmann/json's own CI file
                                  "Vagrantfile"])  # yuvipanda/hackhosting's own (ab5cb15), the fifteenth holdout's
def test_not_vendored(path: str) -> None:
    assert not is_vendored(path) and drop_reason(doc(path), FiltersConfig()) is None


def test_linguist_list_can_be_switched_off() -> None:
    assert drop_reason(doc("tests/thirdparty/imapdl/filterbr.py"), FiltersConfig(linguist_vendored=False)) is None


def test_nlohmann_fixture_paths() -> None:
    """The real excerpt: exactly its thirdparty files are vendored."""
    files = json.loads((Path(__file__).parent / "data" / "licenses" / "nlohmann-json.json").read_text())
    assert {p for p in files if is_vendored(p)} == {
        "tests/thirdparty/Fuzzer/FuzzerMain.cpp", "tests/thirdparty/imapdl/filterbr.py"}


def test_generated_rules_are_linguists_path_tests() -> None:
    patterns = yaml.safe_load((FILTERS / GENERATED_LIST).read_text())
    header = (FILTERS / GENERATED_LIST).read_text().split("\n- ", 1)[0]
    assert len(patterns) >= 35 and "lib/linguist/generated.rb" in header and "MIT" in header  # guard: derived, credited
    for pattern in patterns:
        re.compile(pattern)


# Real paths: linguist's own samples for its filename rules (github-linguist/linguist b45dbe9), ripgrep's lock file,
# Megatron-LM's uv.lock, reuse-tool's poetry.lock.
@pytest.mark.parametrize("path", [
    "Cargo.lock", "fuzz/Cargo.lock", "uv.lock", "poetry.lock", "samples/Shell/filenames/gradlew",
    "samples/Batchfile/filenames/mvnw.cmd", "samples/JSON/filenames/Package.resolved", "samples/C/exception.zep.c",
    "samples/Pascal/lazcomlib_1_0_tlb.pas", "test/fixtures/YAML/pnpm-lock.yaml", ".idea/workspace.xml",
    "test/fixtures/Rust/.sqlx/query-2b8b1aae3740a05cb7179be9c7d5af30e8362c3cba0b07bc18fa32ff1a2232cc.json",
])
def test_generated(path: str) -> None:
    expected = "vendored_path" if is_vendored(path) else "generated_path"  # vendor.yml names wrappers too
    assert is_generated(path) and drop_reason(doc(path), FiltersConfig()) == expected


@pytest.mark.parametrize("path", ["Cargo.toml", "src/lock.rs", "docs/gradlew.md", "idea/x.py", "samples/C/exception.c"])
def test_not_generated(path: str) -> None:
    assert not is_generated(path) and drop_reason(doc(path), FiltersConfig()) is None


def test_a_library_name_pattern_spares_that_librarys_own_repository() -> None:
    """jquery/jquery at 51eb576 keeps its source in ``src/jquery.js`` (it imports ``./core.js``, ``./selector.js``
    ...): linguist's ``(^|/)jquery([^.]*)\\.js$`` names copies of jQuery in other projects, not jQuery itself."""
    own = Document(id="x", text='import { jQuery } from "./core.js";\n\nimport "./selector.js";\n' * 3, source="s",
                   kind="file", repo="jquery/jquery", path="src/jquery.js", language="javascript", license="MIT")
    assert is_vendored(own.path) and not is_vendored(own.path, own.repo)
    assert drop_reason(own, FiltersConfig()) is None
    copy = Document(id="y", text=own.text, source="s", kind="file", repo="octo/site", path="static/js/jquery.js",
                    language="javascript", license="MIT")
    assert drop_reason(copy, FiltersConfig()) == "vendored_path"
    assert is_vendored("vendor/jquery/x.js", "jquery/jquery")  # a pattern naming no library still applies


def test_a_library_name_pattern_spares_a_library_named_with_its_language() -> None:
    """mozilla/pdf.js at 0f26334 has its worker entry at ``src/pdf.worker.js``; linguist's ``(^|/)pdf\\.worker\\.js``
    names copies of pdf.js's worker in other projects. "pdf.js" is the library "pdf" (a ``.js`` suffix is the
    language); pdfkit is another library."""
    assert is_vendored("src/pdf.worker.js") and not is_vendored("src/pdf.worker.js", "mozilla/pdf.js")
    assert is_vendored("web/pdf.worker.js", "foliojs/pdfkit")
    assert is_vendored("vendor/pdf.worker.js", "mozilla/pdf.js")  # in a vendor/ folder, linguist's folder rule
