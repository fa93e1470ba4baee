"""Shared reader helpers, language detection, and ``read_location``'s never-raise contract."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemix.document import Document, Dropped, Quarantined
from codemix.pipelines.readers import READERS, read_location
from codemix.pipelines.readers import common as common_module
from codemix.pipelines.readers.common import iter_bounded_lines, path_selected, read_bounded
from codemix.pipelines.readers.language import detect_language
from codemix.sources import SourceConfig
from tests.pipelines.readers_fixtures import source


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=60).map(lambda b: b.replace(b"\x00", b"\n")), limit=st.integers(1, 12),
       chunk=st.integers(1, 7))
def test_bounded_lines_match_split_with_long_lines_replaced(data: bytes, limit: int, chunk: int) -> None:
    """Across any chunking: same lines as ``split(b"\\n")``, over-long ones as None, numbering kept."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(common_module, "READ_CHUNK_BYTES", chunk)
        got = list(iter_bounded_lines(io.BytesIO(data), limit))
    lines = data.split(b"\n")
    lines = lines[:-1] if lines[-1] == b"" else lines
    assert got == [(n, line if len(line) <= limit else None) for n, line in enumerate(lines, 1)]


class CountingStream(io.RawIOBase):
    """An endless stream that counts what was asked of it, standing in for a lying member."""

    def __init__(self) -> None:
        self.served = 0

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            raise AssertionError("unbounded read")
        self.served += size
        return b"a" * size


def test_read_bounded_stops_one_byte_past_the_limit() -> None:
    stream = CountingStream()
    assert read_bounded(stream, 100) is None and stream.served == 101


@pytest.mark.parametrize(("include", "exclude", "path", "selected"), [
    ([], [], "any/file.py", True),
    (["*.py"], [], "deep/dir/a.py", True),
    (["*.py"], [], "README.md", False),
    ([], ["tests/*"], "tests/test_a.py", False),
    (["src/*"], ["*_pb2.py"], "src/api_pb2.py", False),
    (["*.PY"], [], "a.py", False),  # case-sensitive on every OS, so crawls agree
])
def test_path_selected(include: list[str], exclude: list[str], path: str, selected: bool) -> None:
    assert path_selected(source("git", include=include, exclude=exclude), path) is selected


@pytest.mark.parametrize(("path", "text", "language"), [
    ("src/main.py", "", "python"), ("a/b/types.pyi", "", "python"), ("web/app.tsx", "", "tsx"),
    ("lib.rs", "", "rust"), ("x.go", "", "go"), ("k.hpp", "", "cpp"), ("m.c", "", "c"),
    ("README.md", "", "markdown"), ("conf.yml", "", "yaml"), ("pyproject.toml", "", "toml"),
    ("docs/index.rst", "", "restructuredtext"), ("notes.txt", "", "text"), ("q.sql", "", "sql"),
    ("Makefile", "", "makefile"), ("docker/Dockerfile", "", "dockerfile"), ("CMakeLists.txt", "", "cmake"),
    ("Main.JAVA", "", "java"),
    ("bin/tool", "#!/usr/bin/env python3\nprint()", "python"),
    ("bin/run", "#!/bin/bash -e\n", "shell"), ("bin/s", "#!/bin/sh\n", "shell"),
    ("bin/cli", "#!/usr/bin/env -S node --no-warnings\n", "javascript"),
    ("bin/py", "#!/usr/bin/python3.11\n", "python"),
    ("bin/x", "#!/opt/weird/interp\n", ""), ("data/blob", "no shebang", ""),
    ("script.py", "#!/bin/bash\n", "python"),  # the extension outranks the shebang
    # license and notice files are prose whatever their suffix, as LICENSE itself (issue 35)
    ("LICENSE-MIT", "", "text"), ("UNLICENSE", "", "text"), ("LICENSE.APACHE", "", "text"),
    ("COPYING.LESSER", "", "text"), ("LICENSE-THIRD", "", "text"), ("licenser", "", ""), ("license.py", "", "python"),
    # .h by GitHub linguist's heuristics: Objective-C, else C++, else C
    ("json.h", "namespace nlohmann {\n}\n", "cpp"), ("v.h", "#include <vector>\n", "cpp"),
    ("t.h", "template <typename T> T id(T);\n", "cpp"), ("u.h", "int f(std::string s);\n", "cpp"),
    ("m.h", "#import <Foundation/Foundation.h>\n@interface A\n@end\n", "objective-c"),
    ("c.h", "#include <stdio.h>\nstruct point { int x; };\nint f(void);\n", "c"),
])
def test_detect_language(path: str, text: str, language: str) -> None:
    assert detect_language(path, text) == language


@pytest.mark.parametrize("source_type", sorted(READERS))
@pytest.mark.parametrize("garbage", ["missing", "random_bytes", "empty_dir"])
def test_read_location_never_raises_on_garbage(tmp_path: Path, source_type: str, garbage: str) -> None:
    """Every outcome is a crawl record of this source; a non-empty read must include a quarantine
    or a drop, since none of these inputs holds a readable document."""
    (tmp_path / "random_bytes").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "empty_dir").mkdir()
    outcomes = list(read_location(source(source_type), str(tmp_path / garbage)))
    assert all(isinstance(o, (Dropped, Quarantined)) for o in outcomes)
    assert all((o.stage, o.source) == ("crawl", f"test_{source_type}") for o in outcomes)
    assert outcomes or (source_type, garbage) == ("directory", "empty_dir")


def test_unknown_source_type_is_quarantined() -> None:
    config = SourceConfig(name="odd", type="ftp", paths=["x"])  # type: ignore[arg-type]
    outcomes = list(read_location(config, "x"))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Quarantined) and "ftp" in outcomes[0].error


def test_documents_carry_their_location_and_id(tmp_path: Path) -> None:
    from codemix.document import make_doc_id

    (tmp_path / "a.py").write_text("x = 1\n")
    (doc,) = read_location(source("directory"), str(tmp_path))
    assert isinstance(doc, Document)
    assert doc.id == make_doc_id("test_directory", doc.metadata["location"]) and doc.source == "test_directory"


def test_compressed_data_without_a_nul_is_binary_not_a_decode_error(tmp_path: Path) -> None:
    """ripgrep's tests/data/sherlock.br: Brotli, no NUL in its 186 bytes (issue 35: it was quarantined)."""
    data = (Path(__file__).parents[1] / "fixtures" / "binary" / "sherlock.br").read_bytes()
    assert b"\x00" not in data and len(data) == 186
    (tmp_path / "sherlock.br").write_bytes(data)
    (tmp_path / "latin1.txt").write_bytes("café crème, naïve déjà vu\n".encode("latin-1"))
    kinds = {o.location.rsplit("/", 1)[-1]: type(o).__name__ + ":" + getattr(o, "reason", "")
             for o in read_location(source("directory"), str(tmp_path))}
    assert kinds == {"sherlock.br": "Dropped:binary", "latin1.txt": "Dropped:not_utf8"}


def test_a_pdf_is_binary_though_it_opens_as_text(tmp_path: Path) -> None:
    """requests' ext/requests-logo.ai (a PDF inside): no NUL and few control bytes in its first 8 KiB, so
    neither check saw it, and it was quarantined as a decode error (issue 35 sample of drops)."""
    data = (Path(__file__).parents[1] / "fixtures" / "binary" / "requests-logo.ai.head").read_bytes()
    assert b"\x00" not in data and data.startswith(b"%PDF-1.5")  # guard: what the real file starts with
    (tmp_path / "requests-logo.ai").write_bytes(data)
    (outcome,) = read_location(SourceConfig(name="s", type="directory", paths=["unused"]), str(tmp_path))
    assert (type(outcome).__name__, outcome.reason) == ("Dropped", "binary")
