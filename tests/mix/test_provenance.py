"""Provenance sidecars of a real build, checked against what we did not write.

One small build (stdlib modules from a directory, a git repository and an sdist-like tar.gz, and the
example agent transcripts) into all three stages. Every sidecar row is checked with megatron-core's
``IndexedDataset`` (the row's span is the document megatron reads), the ``tokenizers`` library (the
decode) and the input itself, read back by git, tarfile or the json module: a code document decodes
to the file's bytes, a long-stage document holds every file it names, and what a transcript's
samples train on is text of the record its location names.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import tarfile
from pathlib import Path

import duckdb
import numpy as np
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard
from megatron.core.datasets.indexed_dataset import IndexedDataset
from tokenizers import Tokenizer

from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from tests.mix.conftest import ARCHIVE_FILES, GIT_FILES

# Chat-template markup around what a transcript says (ChatML markers, tool-call and reasoning tags).
MARKUP = re.compile(r"<\|[a-z_]+\|>|</?tool_call>|</?think>")


def manifest(out: Path) -> dict:
    return read_manifest(str(out))


def stage_rows(out: Path, stage: str) -> list[tuple[IndexedDataset, dict]]:
    """Every (shard as megatron-core reads it, sidecar row) of the stage, in shard order."""
    rows = []
    for prefix in manifest(out)["stages"][stage]["shards"]:
        dataset = IndexedDataset(prefix)
        table = pq.read_table(prefix + ".provenance.parquet").to_pylist()
        assert len(table) == len(dataset), prefix
        rows += [(dataset, row) for row in table]
    return rows


def span(dataset: IndexedDataset, row: dict) -> np.ndarray:
    """The row's token span, located by its own numbers and checked against megatron's index."""
    index = dataset.index
    assert row["token_start"] * index.dtype_size == index.sequence_pointers[row["document"]]
    assert row["token_count"] == index.sequence_lengths[row["document"]]
    return dataset.get(row["document"])


def raw_file(row: dict, path: str) -> str:
    """The file's text as the input holds it, read by git or tarfile (never by codemix)."""
    if row["commit"]:
        repo = row["location"].split("@")[0]
        return subprocess.run(["git", "-C", repo, "show", f"{row['commit']}:{path}"], check=True,
                              capture_output=True).stdout.decode()
    if row["archive"]:
        with tarfile.open(row["archive"]) as tar:
            member = row["member"] if row["kind"] == "file" else f"eta-1.0/{path}"
            return tar.extractfile(member).read().decode()
    return Path(row["location"]).read_text(encoding="utf-8")


def strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def said(text: str) -> list[str]:
    """The lines of rendered transcript text long enough to be telling, markup lines left out."""
    return [line.strip() for line in text.splitlines() if len(line.strip()) >= 30 and not MARKUP.search(line)]


def record_strings(location: str) -> str:
    """Every string in the transcript record a location names (``file`` or ``file#L3``), parsed by json."""
    path, _, line = location.partition("#L")
    text = Path(path).read_text(encoding="utf-8")
    value = json.loads(text.splitlines()[int(line) - 1]) if line else json.loads(text)
    return "\x00".join(strings_in(value))


def test_every_code_document_decodes_to_the_file_its_row_names(build):
    tokenizer = Tokenizer.from_file(str(build / "tokenizer.json"))
    checked = {}
    for dataset, row in stage_rows(build, "short"):
        ids = span(dataset, row)
        assert row["ends_with_eod"] and ids[-1] == manifest(build)["tokenizer"]["eod_id"]
        text = tokenizer.decode(ids[:-1].tolist(), skip_special_tokens=False)
        if row["kind"] == "file":
            assert text == raw_file(row, row["path"]), row["location"]
            checked[row["source"]] = checked.get(row["source"], 0) + 1
        else:  # a transcript: its text is rendered, so what it says must be the record's own words
            assert row["kind"] == "transcript" and row["transcript_format"]
            source, lines = record_strings(row["location"]), said(text)
            assert lines and all(line in source for line in lines), row["location"]
            checked["transcripts"] = checked.get("transcripts", 0) + 1
    assert checked.keys() == {"tree", "zeta", "eta", "transcripts"}, checked  # guard: every kind of input met
    licenses = {row["source"]: row["license"] for _, row in stage_rows(build, "short")}
    assert licenses == {"tree": "PSF-2.0", "zeta": "MIT", "eta": "Apache-2.0", "runs": "Apache-2.0"}


def test_every_long_document_holds_each_file_it_names(build):
    tokenizer = Tokenizer.from_file(str(build / "tokenizer.json"))
    named = set()
    for dataset, row in stage_rows(build, "long"):
        text = tokenizer.decode(span(dataset, row)[:-1].tolist(), skip_special_tokens=False)
        assert row["kind"] == "repo" and row["paths"]
        for path in row["paths"]:
            assert raw_file(row, path) in text, path
            named.add((row["source"], path))
    assert named == {("zeta", name) for name in GIT_FILES} | {("eta", f"eta/{name}") for name in ARCHIVE_FILES}


def test_what_each_sft_sample_trains_on_is_in_the_transcript_its_row_names(build):
    tokenizer = Tokenizer.from_file(str(build / "tokenizer.json"))
    rows = stage_rows(build, "sft")
    formats = set()
    masks = {dataset.path_prefix: IndexedDataset(dataset.path_prefix + "-loss_mask") for dataset, _ in rows}
    for dataset, row in rows:
        ids = span(dataset, row)
        mask = masks[dataset.path_prefix].get(row["document"])  # the dataset must outlive the view it returns
        edges = np.flatnonzero(np.diff(mask.astype(np.int8))) + 1  # where a trained or masked run starts
        runs = [run for run, trained in zip(np.split(ids, edges), np.split(mask, edges)) if trained[0] == 1]
        lines = [line for run in runs for line in said(tokenizer.decode(run.tolist(), skip_special_tokens=False))]
        source = record_strings(row["location"])
        assert lines and all(line in source for line in lines), row["location"]
        assert not row["ends_with_eod"] and row["sample"] >= 0 and row["turns_end"] > row["turns_start"]
        formats.add(row["transcript_format"])
    assert len(formats) >= 3, formats
    assert any(row["outcome"]["exit_status"] for _, row in rows)


@pytest.mark.parametrize("stage", ["short", "long", "sft"])
def test_mix_where_answers_for_a_random_document_of_each_stage(build, stage, capsys):
    rows = [row for _, row in stage_rows(build, stage)]
    index = random.Random(stage).randrange(len(rows))
    assert mix(["where", str(build / stage), str(index), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert {k: answer[k] for k in rows[index]} == rows[index] and answer["stage_document"] == index
    assert mix(["where", str(build / stage), str(rows[index]["document"]), "--shard", rows[index]["shard"]]) == 0
    assert f"location: {rows[index]['location']}" in capsys.readouterr().out.splitlines()
    assert mix(["where", str(build / stage), str(len(rows))]) == 2
    assert "out of range" in capsys.readouterr().err


def test_mix_inspect_shows_where_samples_came_from_and_licenses(build, capsys):
    assert mix(["inspect", str(build / "short"), "-n", "50", "--max-chars", "10"]) == 0
    printed = capsys.readouterr().out
    rows = [row for _, row in stage_rows(build, "short")]
    assert all(f"{row['location']}, license {row['license']}" in printed for row in rows)
    licenses = {line.split()[0]: int(line.split()[1].replace(",", "")) for line in printed.splitlines()
                if line.split() and line.split()[0] in ("PSF-2.0", "MIT", "Apache-2.0", "total")}
    assert licenses["total"] == len(rows) == manifest(build)["stages"]["short"]["documents"]


def test_the_build_writes_a_dataset_card_hugging_face_reads(build):
    """huggingface_hub parses the card's front matter; its license and drop tables agree with the
    sidecars (read by pyarrow) and the manifest."""
    card = DatasetCard.load(build / "README.md")
    assert card.data.license == ["other"] and card.data.size_categories == ["n<1K"]  # PSF-2.0 has no HF id
    info = manifest(build)
    for stage in info["stages"]:
        licenses = {}
        for _, row in stage_rows(build, stage):
            documents, tokens = licenses.get(row["license"], (0, 0))
            licenses[row["license"]] = (documents + 1, tokens + row["token_count"])
        section = card.text.split(f"### {stage}\n")[1]
        assert all(f"| {name} | {n:,} | {t:,} |" in section for name, (n, t) in licenses.items()), stage
    assert info["counts"]["dropped"], "guard: the build dropped something for the card to explain"
    assert all(f"| {reason} | {n:,} |" in card.text for reason, n in info["counts"]["dropped"].items())
    assert "humaneval" in card.text and "stock Megatron-LM over that blend trains on every token" in card.text
    assert "`sft/chat/`" in card.text and "`sft/packed/`" in card.text


@pytest.mark.parametrize("stage", ["short", "long"])
def test_each_stages_documents_are_published_under_stable_names(build, stage):
    """OUT/STAGE/docs/*.parquet: read by duckdb and pyarrow, one row per document of the stage, with the
    text the shard's tokens decode to and the sidecar's typed columns (outcome a struct)."""
    tokenizer = Tokenizer.from_file(str(build / "tokenizer.json"))
    pattern = str(build / stage / "docs" / "*.parquet")
    rows = stage_rows(build, stage)
    assert duckdb.sql(f"SELECT count(*) FROM '{pattern}'").fetchall() == [(len(rows),)]
    by_shard = {(row["shard"], row["document"]): (dataset, row) for dataset, row in rows}
    published = pq.ParquetDataset(str(build / stage / "docs")).read()
    assert published.schema.field("outcome").type.num_fields == 4
    for document in published.to_pylist():
        dataset, row = by_shard[document["shard"], document["document"]]
        assert {k: document[k] for k in row} == row
        assert tokenizer.decode(span(dataset, row)[:-1].tolist(), skip_special_tokens=False) == document["text"]
    if stage == "short":
        formats = duckdb.sql(f"SELECT DISTINCT transcript_format FROM '{pattern}' WHERE outcome.submitted").fetchall()
        assert formats, "guard: submitted transcripts are found by their typed outcome"


def test_a_moved_build_still_loads(build, tmp_path, capsys):
    """manifest.json names its shards relative to itself; moved elsewhere (renamed, nothing left at the
    old place), the build's readers (mix where and inspect, mix train's read_stage, megatron-core's GPT
    dataset over its blend) find the moved shards. An older manifest, whose prefixes are absolute and
    name the old place, still reads the moved build's own shards."""
    from codemix.pretrain.data.pretraining import build_gpt_dataset
    from codemix.pretrain.data.stage import read_stage

    written = json.loads((build / "manifest.json").read_text())
    for stage, info in written["stages"].items():
        assert info["shards"] and all(p.startswith(f"{stage}/") for p in info["data_path"][1::2] + info["shards"])
    moved = tmp_path / "moved"
    build.rename(moved)
    try:
        for old_style in (False, True):
            if old_style:  # the absolute prefixes an older mix build wrote, naming where the build was
                manifest_text = json.dumps({**written, "stages": {
                    stage: {**info, "data_path": [item if isinstance(item, float) else f"{build}/{item}"
                                                  for item in info["data_path"]],
                            "shards": [f"{build}/{prefix}" for prefix in info["shards"]]}
                    for stage, info in written["stages"].items()}})
                (moved / "manifest.json").write_text(manifest_text)
            data = read_stage(moved, "short")
            assert data.prefixes and all(p.startswith(f"{moved}/short/") for p in data.prefixes)
            dataset = build_gpt_dataset(data.data_path, 256, 8, data.tokenizer_path, str(tmp_path / f"cache{old_style}"))
            assert len(dataset) >= 8 and len(dataset[0]["tokens"]) == 256
            assert mix(["where", str(moved / "long"), "0"]) == 0
            assert "shard: " in capsys.readouterr().out
            assert mix(["inspect", str(moved / "sft"), "-n", "1"]) == 0
            assert capsys.readouterr().out.count("masked") > 0
    finally:
        (moved / "manifest.json").write_text(json.dumps(written, indent=2, sort_keys=True) + "\n")
        moved.rename(build)


def traced_pieces(build: Path, stage: str, sequence_length: int) -> tuple[list[tuple[np.ndarray, dict]], int]:
    """A random training sequence of the stage as megatron-core's GPT dataset serves it (the blend
    ``mix train`` builds), cut into its documents' pieces by megatron's own sample and document
    indices, each with its provenance row."""
    from codemix.pretrain.data.pretraining import build_gpt_dataset
    from codemix.pretrain.data.stage import read_stage

    data = read_stage(build, stage)
    blend = build_gpt_dataset(data.data_path, sequence_length, 64, data.tokenizer_path, str(build.parent / "cache"))
    index = random.Random(stage).randrange(len(blend))
    gpt = blend.datasets[blend.dataset_index[index]] if hasattr(blend, "dataset_index") else blend
    sample = int(blend.dataset_sample_index[index]) if hasattr(blend, "dataset_index") else index
    tokens, documents = gpt._query_document_sample_shuffle_indices(sample)
    assert np.array_equal(tokens[:-1], blend[index]["tokens"].numpy())  # the very sequence training reads
    rows = pq.read_table(gpt.dataset.path_prefix + ".provenance.parquet").to_pylist()
    eod = manifest(build)["tokenizer"]["eod_id"]
    pieces = [piece for piece in np.split(tokens, np.flatnonzero(tokens == eod) + 1) if piece.size]
    assert len(pieces) == len(documents)
    return [(piece[piece != eod], rows[int(document)]) for piece, document in zip(pieces, documents)], eod


@pytest.mark.parametrize("stage", ["short", "long"])
def test_a_random_training_sequence_traces_to_its_source_files(build, stage):
    """Each piece of the sequence decodes to text of the file (or transcript record) its row names,
    read by git, tarfile or the json module."""
    tokenizer = Tokenizer.from_file(str(build / "tokenizer.json"))
    pieces, _ = traced_pieces(build, stage, 256 if stage == "short" else 1024)
    for ids, row in pieces:
        text = tokenizer.decode(ids.tolist(), skip_special_tokens=False)
        if row["kind"] == "file":
            assert text in raw_file(row, row["path"]), row["location"]
        elif row["kind"] == "transcript":
            assert all(line in record_strings(row["location"]) for line in said(text)), row["location"]
        else:  # a repository: every line long enough to tell is a line of one of its files
            files = "\n".join(raw_file(row, path) for path in row["paths"])
            lines = [line for line in text.splitlines() if len(line) >= 30 and "<" not in line[:12]]
            assert lines and all(line in files for line in lines), row["location"]
    assert sum(ids.size for ids, _ in pieces) >= 200, "guard: the sequence holds text to trace"


def test_a_random_packed_sft_sequence_traces_to_its_transcript(build):
    """A random sequence of a random pack in the Megatron-Bridge export: its shard document's row names
    the transcript record, which holds what the sequence trains on."""
    tokenizer = Tokenizer.from_file(str(build / "tokenizer.json"))
    rng = random.Random("sft")
    packed = sorted((build / "sft" / "packed").glob("*.idx.parquet"))
    path = packed[rng.randrange(len(packed))]
    packs = pq.read_table(path).to_pylist()
    chosen = rng.randrange(len(packs))
    pack, position = packs[chosen], rng.randrange(len(packs[chosen]["seq_start_id"]))
    before = sum(len(p["seq_start_id"]) for p in packs[:chosen])  # packs hold samples in shard order
    sidecar = str(path).replace("/packed/", "/").replace(".idx.parquet", ".provenance.parquet")
    row = pq.read_table(sidecar).to_pylist()[before + position]
    start, end = [*pack["seq_start_id"], len(pack["input_ids"])][position:position + 2]
    ids = np.array(pack["input_ids"][start:end])
    trained = np.array([0, *pack["loss_mask"][start:end - 1]], dtype=np.int8)  # loss_mask[j] trains token j + 1
    edges = np.flatnonzero(np.diff(trained)) + 1
    runs = [run for run, flags in zip(np.split(ids, edges), np.split(trained, edges)) if flags[0]]
    lines = [line for run in runs for line in said(tokenizer.decode(run.tolist(), skip_special_tokens=False))]
    assert lines and all(line in record_strings(row["location"]) for line in lines), row["location"]
