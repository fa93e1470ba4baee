"""Amalgamated files: a real single header found, its parts, copies and siblings kept."""

from __future__ import annotations

import json
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from codemix.document import Document, Dropped
from codemix.filters.amalgamation import amalgamated, line_hashes
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import DecontaminationConfig
from codemix.filters.natural_language import NaturalLanguageConfig
from codemix.pipelines.filter import FindAmalgamations, filter_outcomes

FILES = json.loads((Path(__file__).parent / "data" / "amalgamation" / "nlohmann-json.json").read_text())
SINGLE = "single_include/nlohmann/json_fwd.hpp"


def test_nlohmanns_single_header_is_found_and_nothing_else() -> None:
    # guard: the parts really are inside the single header (the amalgamation tool copies them whole)
    for part in ("include/nlohmann/json_fwd.hpp", "include/nlohmann/detail/abi_macros.hpp"):
        assert len(line_hashes(FILES[part]) & line_hashes(FILES[SINGLE])) > 0.8 * len(line_hashes(FILES[part]))
    assert amalgamated({path: line_hashes(text) for path, text in FILES.items()}) == {SINGLE}


def test_copies_and_one_part_are_not_amalgamations() -> None:
    hashes = {path: line_hashes(text) for path, text in FILES.items()}
    copies = {"a/LICENSE": hashes[SINGLE], "b/LICENSE": hashes[SINGLE], "c/LICENSE": hashes[SINGLE]}
    assert amalgamated(copies) == set()
    one_part = {k: v for k, v in hashes.items() if k != "include/nlohmann/detail/abi_macros.hpp"}
    assert amalgamated(one_part) == set()


def doc(path: str, repo: str = "nlohmann/json") -> Document:
    return Document(id=path, text=FILES[path], source="s", kind="file", repo=repo, path=path, language="cpp",
                    license="MIT", metadata={"location": f"{repo}:{path}"})


@pytest.mark.parametrize("on_disk", [False, True], ids=["runner_shuffle", "spilled"])
def test_filter_stage_drops_the_amalgamation_per_repository(on_disk: bool, tmp_path) -> None:
    docs = [doc(path) for path in FILES] + [doc(SINGLE, repo="someone/else")]  # alone there: no parts
    spill_dir = str(tmp_path / "groups") if on_disk else None
    with TestPipeline() as pipeline:
        found = pipeline | beam.Create(docs) | FindAmalgamations(FiltersConfig(), spill_dir)
        # only repositories that have an amalgamation: the side input does not grow with every repository
        assert_that(found | beam.MapTuple(lambda key, paths: (key, sorted(paths))),
                    equal_to([("s\x00nlohmann/json", [SINGLE])]))
    if on_disk:  # the line hashes went through run files there, not the runner's shuffle
        assert list((tmp_path / "groups" / "amalgamation_lines").glob("*.run"))
    judge = DocumentFilter(FiltersConfig(decontamination=DecontaminationConfig(enabled=False)))
    dropped, held = filter_outcomes(doc(SINGLE), judge, {}, {"s\x00nlohmann/json": frozenset({SINGLE})})
    assert isinstance(dropped, Dropped) and dropped.reason == "amalgamated"
    # held for the long stage: a kept file that includes it gets it back there
    assert held.tag == "held" and held.value.metadata["filter_reason"] == "amalgamated"


def test_whole_filter_stage_drops_it_with_licenses_resolved_beside() -> None:
    from codemix.pipelines.filter import Filter

    config = FiltersConfig(decontamination=DecontaminationConfig(enabled=False),
                           natural_language=NaturalLanguageConfig(enabled=False))
    docs = [doc(path) for path in FILES]
    with TestPipeline() as pipeline:
        outcomes = pipeline | beam.Create(docs) | Filter(config)
        assert_that(outcomes["dropped"] | beam.Map(lambda d: (d.location, d.reason)),
                    equal_to([(f"nlohmann/json:{SINGLE}", "amalgamated")]), label="Dropped")
        assert_that(outcomes["docs"] | beam.Map(lambda d: d.path), equal_to(sorted(set(FILES) - {SINGLE})), label="Kept")


def test_packed_hashes_are_the_sets_as_little_endian_uint64s() -> None:
    import struct

    from codemix.filters.amalgamation import packed_line_hashes, unpack_line_hashes

    for text in FILES.values():
        hashes = line_hashes(text)
        packed = packed_line_hashes(text)
        assert hashes and len(packed) == 8 * len(hashes)  # every real file here has significant lines
        assert packed == b"".join(struct.pack("<Q", value) for value in sorted(hashes))
        assert unpack_line_hashes(packed) == hashes
    assert unpack_line_hashes(packed_line_hashes("}\n")) == frozenset()


@pytest.mark.parametrize("pair_chunk", [1 << 22, 7], ids=["one_chunk", "many_chunks"])
def test_packed_arrays_and_counted_chunks_find_what_the_sets_find(pair_chunk: int, monkeypatch) -> None:
    """The filter stage hands ``amalgamated`` each file's packed hashes as arrays; the holder pairs are counted
    in chunks when there are many. Both find the sets' answer, including the planted single header's copies."""
    from codemix.filters import amalgamation
    from codemix.filters.amalgamation import line_hash_array, packed_line_hashes

    monkeypatch.setattr(amalgamation, "PAIR_CHUNK", pair_chunk)
    texts = {**FILES, "copy/json_fwd.hpp": FILES["include/nlohmann/json_fwd.hpp"]}  # a part's copy counts once
    sets = {path: line_hashes(text) for path, text in texts.items()}
    arrays = {path: line_hash_array(packed_line_hashes(text)) for path, text in texts.items()}
    assert amalgamated(sets) == amalgamated(arrays) == {SINGLE}
    # one part and its copy are still one part: not enough for an amalgamation
    only = {path: arrays[path] for path in (SINGLE, "include/nlohmann/json_fwd.hpp", "copy/json_fwd.hpp")}
    assert amalgamated(only) == set()


def test_a_part_and_its_copy_are_one_part() -> None:
    """A file holding one part and lines of its own is no amalgamation, however many copies of the part the
    repository holds: parts are told apart by their lines."""
    part, own = line_hashes(FILES["include/nlohmann/detail/abi_macros.hpp"]), line_hashes(FILES["include/nlohmann/detail/hash.hpp"])
    assert len(part) <= 0.75 * len(part | own) and len(part) >= 0.5 * len(part | own)  # guard: sizes that would qualify
    files = {"big.hpp": part | own, "a/abi_macros.hpp": part, "b/abi_macros.hpp": part}
    assert amalgamated(files) == set()
    assert amalgamated({**files, "c/hash.hpp": own}) == {"big.hpp"}  # guard: with a second part it is one


def test_lines_common_to_many_files_tie_nothing() -> None:
    """A line held by more than COMMON_LINE_FILES files (a license header) says nothing: a part whose lines are all
    such is no part, so the file holding it and one other part is no amalgamation."""
    from codemix.filters.amalgamation import COMMON_LINE_FILES

    common, part = line_hashes(FILES["include/nlohmann/json_fwd.hpp"]), line_hashes(FILES["include/nlohmann/detail/abi_macros.hpp"])
    files = {"big.hpp": common | part, "part.hpp": part, **{f"copies/{i}.hpp": common for i in range(COMMON_LINE_FILES)}}
    assert amalgamated(files) == set()
    fewer = {path: lines for path, lines in files.items() if path != "copies/0.hpp"}  # now COMMON_LINE_FILES holders
    assert amalgamated(fewer) == {"big.hpp"}
