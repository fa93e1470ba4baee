"""The shards stage's external merge sort: sorted runs per worker, merged by id into each shard.

Real stdlib modules, a tokenizer trained on them, real Beam (FnApiRunner). The shard must not
depend on how the documents were cut into runs: a buffer so small that nearly every document is
its own run, and one so large that each bundle is one run, give byte-identical files, and both
equal the documents tokenized one by one in (position, id) order with EOD after each.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import apache_beam as beam
import numpy as np
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from megatron.core.datasets.indexed_dataset import IndexedDataset
from tokenizers import Tokenizer

from codemix.document import make_doc_id
from codemix.mixtures.tokenizer import load_tokenizer, save_tokenizer, token_id, train_bpe
from codemix.pipelines import shards as shards_module
from codemix.pipelines.shards import (
    WriteShards,
    position_of,
    position_range,
    read_run,
    read_slice,
    shard_count,
    shard_of_position,
    slices_of_run,
    stats_to_json,
    write_run,
)

STDLIB = Path(sysconfig.get_path("stdlib"))
MODULES = ["json/decoder.py", "json/encoder.py", "textwrap.py", "shlex.py", "fnmatch.py", "queue.py", "bisect.py",
           "colorsys.py", "heapq.py", "tty.py", "glob.py", "keyword.py", "reprlib.py", "sched.py", "stat.py"]
EOD = "<|endoftext|>"


@pytest.fixture(scope="module")
def documents() -> list[tuple[str, str]]:
    return [(make_doc_id("code", name), (STDLIB / name).read_text(encoding="utf-8")) for name in MODULES]


@pytest.fixture(scope="module")
def tokenizer_path(documents, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("tokenizer") / "tokenizer.json"
    save_tokenizer(train_bpe([text for _, text in documents], 600), str(path))
    return str(path)


def write_shards(documents, tokenizer_path: str, out: Path, run_text_bytes: int, workers: int,
                 docs: bool = False, vocab_size: int | None = None) -> list[dict]:
    options = ["--runner=FnApiRunner"] + (
        [f"--direct_num_workers={workers}", "--direct_running_mode=multi_processing"] if workers > 1 else [])
    with beam.Pipeline(options=PipelineOptions(options)) as pipeline:
        _ = (
            pipeline
            | beam.Create([(("short", "code"), (doc_id, text, "file", provenance(doc_id))) for doc_id, text in documents])
            | WriteShards(out_dir=str(out), runs_dir=str(out / "runs"), tokenizer_path=tokenizer_path, eod_token=EOD,
                          shard_size_bytes=40_000, workers=workers, run_text_bytes=run_text_bytes, docs=docs,
                          vocab_size=vocab_size)
            | beam.Map(stats_to_json)
            | beam.io.WriteToText(str(out / "stats"), file_name_suffix=".jsonl")
        )
    return [json.loads(line) for path in out.glob("stats*.jsonl") for line in path.read_text().splitlines()]


def provenance(doc_id: str) -> dict:
    """What ``stage_entries`` attaches to a document of one of MODULES (found back by its id)."""
    name = next(name for name in MODULES if make_doc_id("code", name) == doc_id)
    return {"doc_id": doc_id, "source": "code", "kind": "file", "location": str(STDLIB / name), "path": name,
            "paths": [name], "license": "PSF-2.0", "language": "python"}


def shard_files(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((out / "short").glob("*")) if path.suffix in (".bin", ".idx")}


@pytest.fixture(scope="module")
def written(documents, tokenizer_path, tmp_path_factory) -> dict[str, tuple[Path, list[dict]]]:
    """The same documents sharded twice (each Beam run costs seconds, so the tests below share them):
    ``small``, a 1-byte run buffer (nearly every document its own run), two worker processes, the
    documents published too (``docs``) and the vocabulary size given, as a build gives it; ``large``,
    one run per bundle, one worker, no documents, the vocabulary size read from the tokenizer."""
    root = tmp_path_factory.mktemp("written")
    vocab_size = load_tokenizer(tokenizer_path).get_vocab_size(with_added_tokens=True)
    return {"small": (root / "small", write_shards(documents, tokenizer_path, root / "small", run_text_bytes=1,
                                                   workers=2, docs=True, vocab_size=vocab_size)),
            "large": (root / "large", write_shards(documents, tokenizer_path, root / "large", run_text_bytes=10**9,
                                                   workers=1))}


def test_shards_do_not_depend_on_how_documents_were_cut_into_runs(documents, written):
    """Nor on the number of workers, nor on whether the documents are published beside the shards."""
    (small, one_per_document), (large, whole_bundles) = written["small"], written["large"]
    assert len(one_per_document) > 1, "guard: the corpus spans several shards"
    assert shard_files(small) == shard_files(large)
    assert sorted(map(stats_to_json, one_per_document)) == sorted(
        stats_to_json({**s, "prefix": s["prefix"].replace("/large/", "/small/")}) for s in whole_bundles)
    runs = {case: len(list((written[case][0] / "runs").rglob("*.json"))) for case in ("small", "large")}
    assert runs == {"small": len(documents), "large": 1}, "guard: one run per document against one in all"


def test_each_shard_holds_its_documents_in_position_order_each_followed_by_eod(documents, tokenizer_path, written):
    _, stats = written["large"]
    tokenizer = load_tokenizer(tokenizer_path)
    tokenizer.encode_special_tokens = True
    eod = token_id(tokenizer, EOD)
    by_id = dict(documents)
    seen = []
    for shard in stats:
        dataset = IndexedDataset(shard["prefix"])  # megatron-core reads the shard as written
        ids = sorted((doc_id for doc_id in by_id if _in_shard(doc_id, shard)), key=lambda i: (position_of(i), i))
        assert len(dataset) == shard["documents"] == len(ids)
        for i, doc_id in enumerate(ids):
            expected = tokenizer.encode(by_id[doc_id]).ids + [eod]
            assert np.array_equal(dataset[i], np.array(expected)), doc_id
        assert shard["text_bytes"] == sum(len(by_id[doc_id].encode()) for doc_id in ids)
        seen += ids
    assert sorted(seen) == sorted(by_id), "every document in exactly one shard"


def test_a_vocabulary_size_of_another_dtype_than_the_tokenizers_is_refused(documents, tokenizer_path, tmp_path):
    """The merge reads the runs in the dtype the stage was given; a tokenizer whose vocabulary gives
    another (uint16 for this one, int32 above 65,500 ids) would have its runs misread, so it fails."""
    assert load_tokenizer(tokenizer_path).get_vocab_size(with_added_tokens=True) < 65_500, "guard: a uint16 tokenizer"
    with pytest.raises(Exception, match="has ids of uint16, but the shards stage was set up for int32"):
        write_shards(documents[:2], tokenizer_path, tmp_path / "out", run_text_bytes=10**9, workers=1,
                     vocab_size=100_000)


def _in_shard(doc_id: str, shard: dict) -> bool:
    return shard_of_position(position_of(doc_id), shard["shards"]) == shard["shard"]


@pytest.mark.parametrize("shards", [1, 2, 3, 7, 1000])
def test_a_shards_position_range_is_exactly_the_positions_it_is_assigned(shards):
    edges = [0, 1, 2**63, 2**64 - 1] + [position_range(k, shards)[0] + d for k in range(min(shards, 9)) for d in (-1, 0)]
    for position in (p for p in edges if 0 <= p < 2**64):
        index = shard_of_position(position, shards)
        low, high = position_range(index, shards)
        assert 0 <= index < shards and low <= position < high
    assert position_range(0, shards)[0] == 0 and position_range(shards - 1, shards)[1] == 2**64


def test_a_run_reads_back_each_shards_slice_in_pieces_as_written(tmp_path):
    ids = sorted((f"doc-{i}" for i in range(40)), key=lambda i: (position_of(i), i))
    lengths = [1 + i % 5 for i in range(40)]
    texts = [f"text {i} " + "é" * (i % 3) for i in range(40)]  # multi-byte characters: offsets are in bytes
    tokens = np.arange(sum(lengths), dtype=np.uint16)
    write_run(str(tmp_path / "run"), ids, [len(t.encode()) for t in texts], tokens, lengths,
              [{"doc_id": i} for i in ids], texts)
    whole = list(read_run(str(tmp_path / "run"), np.uint16, (0, 1), read_tokens=3))  # a document longer than a read
    assert [key[1] for key, *_ in whole] == ids and [d[4] for d in whole] == texts
    assert [d[3]["doc_id"] for d in whole] == ids and [d[2] for d in whole] == [len(t.encode()) for t in texts]
    assert np.array_equal(np.concatenate([d[1] for d in whole]), tokens)
    slices = [list(read_run(str(tmp_path / "run"), np.uint16, (k, 3), read_tokens=7)) for k in range(3)]
    assert [d[0] for part in slices for d in part] == [d[0] for d in whole]
    assert [d[4] for part in slices for d in part] == texts
    assert all(shard_of_position(d[0][0], 3) == k for k, part in enumerate(slices) for d in part)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip([d for part in slices for d in part], whole, strict=True))


def test_a_range_no_document_hashed_into_writes_no_shard(documents, tokenizer_path, tmp_path):
    """One document over twice ``shard_size_bytes`` plans several shards; only the one holding it is
    written, since megatron-core cannot open an empty .bin, and the stats list only that one."""
    doc_id, text = max(documents, key=lambda document: len(document[1]))
    out = tmp_path / "out"
    options = PipelineOptions(["--runner=FnApiRunner"])
    with beam.Pipeline(options=options) as pipeline:
        _ = (
            pipeline
            | beam.Create([(("short", "code"), (doc_id, text, "file", provenance(doc_id)))])
            | WriteShards(out_dir=str(out), runs_dir=str(out / "runs"), tokenizer_path=tokenizer_path, eod_token=EOD,
                          shard_size_bytes=len(text) // 3)
            | beam.Map(stats_to_json)
            | beam.io.WriteToText(str(out / "stats"), file_name_suffix=".jsonl")
        )
    [stats] = [json.loads(line) for path in out.glob("stats*.jsonl") for line in path.read_text().splitlines()]
    assert stats["shards"] >= 3 and stats["shard"] == shard_of_position(position_of(doc_id), stats["shards"])
    assert sorted(p.name for p in (out / "short").iterdir()) == [
        Path(stats["prefix"]).name + suffix for suffix in (".bin", ".idx", ".provenance.parquet")]
    assert len(IndexedDataset(stats["prefix"])) == 1


def test_each_sidecar_row_names_the_file_its_token_span_decodes_to(documents, tokenizer_path, written):
    """Read independently: megatron-core's IndexedDataset for the shard, pyarrow for the sidecar, the
    ``tokenizers`` library to decode, and the stdlib file the row names read from disk."""
    out, stats = written["small"]
    tokenizer = Tokenizer.from_file(tokenizer_path)
    named = set()
    for shard in stats:
        dataset = IndexedDataset(shard["prefix"])
        table = pq.read_table(shard["prefix"] + ".provenance.parquet")
        assert table.num_rows == len(dataset) == shard["documents"]
        flat = np.concatenate([dataset[i] for i in range(len(dataset))])
        for row in table.to_pylist():
            assert row["shard"] == Path(shard["prefix"]).name and row["ends_with_eod"]
            ids = flat[row["token_start"]:row["token_start"] + row["token_count"]]
            assert np.array_equal(ids, dataset[row["document"]])
            text = tokenizer.decode(ids[:-1].tolist(), skip_special_tokens=False)
            assert text == Path(row["location"]).read_text(encoding="utf-8"), row["path"]
            named.add(row["doc_id"])
        published = pq.read_table(out / "short" / "docs" / (Path(shard["prefix"]).name + ".parquet"))
        # the published documents are the shard's, in order (plus their text and typed metadata columns)
        assert published.select(table.column_names) == table
        assert published["text"].to_pylist() == [Path(p).read_text(encoding="utf-8") for p in table["location"].to_pylist()]
    assert named == {doc_id for doc_id, _ in documents}, "every document named once"


def _write_corpus(root: Path, runs: int, per_run: int) -> list[str]:
    """``runs`` runs of ``per_run`` documents each (two tokens and 30 text bytes per document)."""
    prefixes = []
    for r in range(runs):
        ids = sorted((f"run{r}-doc{i}" for i in range(per_run)), key=lambda i: (position_of(i), i))
        prefix = str(root / f"run{r:04d}")
        write_run(prefix, ids, [30] * per_run, np.arange(2 * per_run, dtype=np.uint16), [2] * per_run,
                  [{"doc_id": i, "path": f"pkg/{i}.py"} for i in ids], None)
        prefixes.append(prefix)
    return prefixes


def _index_bytes_per_shard(root: Path, runs: int, monkeypatch) -> tuple[list[int], int]:
    """Run files of a corpus of ``runs`` runs planned into shards of 64 documents' text each: the bytes
    of .index/.meta/.json each shard's merge reads, and the documents all shards read back."""
    prefixes, counted = _write_corpus(root, runs, per_run=96), {}
    total = 30 * 96 * runs
    slices: dict = {}
    for prefix in prefixes:
        for key, part in slices_of_run((("short", "code"), (prefix, 30 * 96)), {("short", "code"): total}, 30 * 64):
            slices.setdefault(key, []).append(part)
    assert len(slices) == shard_count(total, 30 * 64), "guard: every planned shard got documents"
    real_read_at = shards_module.read_at

    def counting_read_at(path, offset=0, size=None):
        data = real_read_at(path, offset, size)
        if not path.endswith(".tokens"):
            counted[path] = counted.get(path, 0) + len(data)
        return data

    monkeypatch.setattr(shards_module, "read_at", counting_read_at)
    per_shard, documents = [], 0
    for key in sorted(slices):
        counted.clear()
        documents += sum(1 for part in slices[key] for _ in read_slice(part, np.uint16))
        per_shard.append(sum(counted.values()))
    monkeypatch.undo()
    return per_shard, documents


def test_a_merge_reads_only_its_slice_of_each_runs_index_whatever_the_corpus_size(tmp_path, monkeypatch):
    """Issue 31: with the corpus 8x larger (8x the runs, 8x the shards), each shard's merge reads
    about the same index bytes (its own documents' rows), where reading every run's whole index
    would read 8x more per shard."""
    small, small_docs = _index_bytes_per_shard(tmp_path / "small", 4, monkeypatch)
    large, large_docs = _index_bytes_per_shard(tmp_path / "large", 32, monkeypatch)
    assert (small_docs, large_docs) == (4 * 96, 32 * 96), "every document read back exactly once"
    whole_index = sum(p.stat().st_size for p in (tmp_path / "large").glob("*") if p.suffix in (".index", ".meta"))
    mean_small, mean_large = sum(small) / len(small), sum(large) / len(large)
    assert 0.8 < mean_large / mean_small < 1.25, (mean_small, mean_large)
    assert max(large) < whole_index / 4, "a shard reads a small part of the runs' indexes"
