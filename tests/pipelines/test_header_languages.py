"""A ``.h`` file's language from its repository's other sources and its own code, on real headers.

Fixtures are real files (tests/fixtures/headers/README.md says from where); the censuses are the real
repositories' own counts of ``.c`` and C++ sources at the fixtures' commits.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from codemix.document import Document
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.language import SourceCensus, header_code, header_language
from codemix.sources import ReadLimits
from tests.pipelines.readers_fixtures import git, source

FIXTURES = Path(__file__).parent.parent / "fixtures" / "headers"

FMT = SourceCensus(c=1, cpp=46)  # fmtlib/fmt: 46 .cc, test/c-test.c
LEVELDB = SourceCensus(c=1, cpp=76)
GOOGLETEST = SourceCensus(c=0, cpp=108)
REDIS = SourceCensus(c=424, cpp=9)
ZLIB = SourceCensus(c=41, cpp=5)
CJSON = SourceCensus(c=76, cpp=0)


def fixture(path: str) -> str:
    return (FIXTURES / path).read_text()


@pytest.mark.parametrize(("path", "census", "language"), [
    # No C++ of its own (it includes base.h): the repository decides.
    ("fmtlib+fmt/include/fmt/core.h", FMT, "cpp"),
    ("google+leveldb/port/port.h", LEVELDB, "cpp"),
    ("google+googletest/googletest/samples/sample1.h", GOOGLETEST, "cpp"),
    # The C API of a C++ library: extern "C" and no C++ outside its __cplusplus guards.
    ("fmtlib+fmt/include/fmt/fmt-c.h", FMT, "c"),
    ("google+leveldb/include/leveldb/c.h", LEVELDB, "c"),
    # C++ in a mostly C repository: its own code says so.
    ("madler+zlib/contrib/iostream3/zfstream.h", ZLIB, "cpp"),
    # `using namespace std` and <cstring> only inside #ifdef __cplusplus.
    ("redis+redis/src/lzfP.h", REDIS, "c"),
    ("DaveGamble+cJSON/tests/unity/test/testdata/CException.h", CJSON, "c"),
])
def test_header_language_on_real_headers(path: str, census: SourceCensus, language: str) -> None:
    assert header_language(fixture(path), census) == language


@pytest.mark.parametrize(("path", "census"), [
    ("fmtlib+fmt/include/fmt/core.h", FMT), ("google+leveldb/port/port.h", LEVELDB),
    ("google+googletest/googletest/samples/sample1.h", GOOGLETEST),
])
def test_the_repository_is_what_decides_a_header_without_cues(path: str, census: SourceCensus) -> None:
    """Guard: these headers alone read as C (linguist's rule); only their repository makes them C++."""
    assert header_language(fixture(path)) == "c"
    assert header_language(fixture(path), census) == "cpp"


def test_cues_in_comments_and_cplusplus_branches_are_not_code() -> None:
    obstack = fixture("git+git/compat/obstack.h")  # glibc's: "namespace with <stddef.h>'s symbols" in a comment
    lzf = fixture("redis+redis/src/lzfP.h")
    assert "   namespace with" in obstack and "using namespace std;" in lzf  # guard: the cues are there
    assert "namespace" not in header_code(obstack) and "namespace" not in header_code(lzf)
    assert "<cstring>" not in header_code(lzf) and "<string.h>" not in header_code(lzf)  # either branch
    assert '# include "lzf.h"' in header_code(lzf)  # other conditional groups stay
    assert header_language(obstack, SourceCensus(c=3, cpp=3)) == "c"


def test_a_mixed_repository_without_cues_or_linkage_takes_its_majority() -> None:
    core = fixture("fmtlib+fmt/include/fmt/core.h")
    assert header_language(core, SourceCensus(c=2, cpp=1)) == "c"
    assert header_language(core, SourceCensus(c=1, cpp=2)) == "cpp"
    assert header_language(core, SourceCensus(c=1, cpp=1)) == "c"


# Two small repositories from the fixtures, each as a git repository, a directory and a tarball.
REPOSITORIES = {
    "fmt": {"include/fmt/core.h": "cpp", "include/fmt/fmt-c.h": "c", "src/format.cc": "cpp", "test/c-test.c": "c",
            "test/header-only-test.cc": "cpp", "test/noexception-test.cc": "cpp"},  # C++ sources outnumber C
    "cjson": {"src/ProductionCode2.h": "c", "src/ProductionCode2.c": "c", "test/CException.h": "c"},
}
ORIGIN = {"fmt": "fmtlib+fmt/", "cjson": "DaveGamble+cJSON/tests/unity/examples/example_1/"}


def origin(name: str, path: str) -> Path:
    if path == "test/CException.h":
        return FIXTURES / "DaveGamble+cJSON/tests/unity/test/testdata/CException.h"
    return FIXTURES / (ORIGIN[name] + path)


def write_repository(root: Path, name: str) -> Path:
    for path in REPOSITORIES[name]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(origin(name, path).read_bytes())
    return root


def as_git(tmp_path: Path, name: str) -> tuple[str, str]:
    root = write_repository(tmp_path / name, name)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")
    return "git", str(root)


def as_directory(tmp_path: Path, name: str) -> tuple[str, str]:
    return "directory", str(write_repository(tmp_path / name, name))


def as_archive(tmp_path: Path, name: str) -> tuple[str, str]:
    root = write_repository(tmp_path / name, name)
    archive = tmp_path / f"{name}-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(root, arcname=f"{name}-1.0")
    return "archive", str(archive)


@pytest.mark.parametrize("build", [as_git, as_directory, as_archive])
@pytest.mark.parametrize("name", sorted(REPOSITORIES))
def test_readers_label_headers_by_their_repository(tmp_path: Path, build, name: str) -> None:
    kind, location = build(tmp_path, name)
    docs = [o for o in read_location(source(kind, paths=[location], limits=ReadLimits()), location)
            if isinstance(o, Document)]
    assert {doc.path: doc.language for doc in docs} == REPOSITORIES[name]
