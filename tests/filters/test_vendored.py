"""Vendored paths by GitHub linguist's vendor.yml (the list The Stack v2 used through go-enry)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from codemix.document import Document
from codemix.filters.apply import drop_reason
from codemix.filters.config import FiltersConfig
from codemix.filters.vendored import VENDOR_LIST, is_vendored

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


@pytest.mark.parametrize("path", ["src/app.py", "include/nlohmann/json.hpp", "pkg/vendoring.py", "thirdpartyish.py"])
def test_not_vendored(path: str) -> None:
    assert not is_vendored(path) and drop_reason(doc(path), FiltersConfig()) is None


def test_linguist_list_can_be_switched_off() -> None:
    assert drop_reason(doc("tests/thirdparty/imapdl/filterbr.py"), FiltersConfig(linguist_vendored=False)) is None


def test_nlohmann_fixture_paths() -> None:
    """The real excerpt: exactly its thirdparty files are vendored."""
    files = json.loads((Path(__file__).parent / "data" / "licenses" / "nlohmann-json.json").read_text())
    assert {p for p in files if is_vendored(p)} == {
        "tests/thirdparty/Fuzzer/FuzzerMain.cpp", "tests/thirdparty/imapdl/filterbr.py"}
