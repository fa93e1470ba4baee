"""`mix build` end to end on real code and real transcripts, read back by megatron-core itself.

The fixture plants: two git repos (one with a symlink and an undecodable blob), an exact copy and
an edited copy of a file across the repos, an sdist-like tar.gz, a JSONL dump with a malformed
line, a dump path that does not exist, the real agent transcripts and one transcript of unknown
shape (the spec allows the dump to miss that path). One build runs in-process, the other with two
worker processes; both must agree byte for byte.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
import subprocess
import sysconfig
import tarfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml
from megatron.core.datasets.indexed_dataset import IndexedDataset

from codemix.filters.secrets import RedactionConfig, redact_text
from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.repository import FILE_SEP, REPO_NAME
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pretrain.data.pretraining import build_gpt_dataset, read_documents
from codemix.pretrain.data.sft import build_sft_dataset
from tests.conftest import committed

STDLIB = Path(sysconfig.get_path("stdlib"))
GIT = ["git", "-c", "user.name=codemix", "-c", "user.email=codemix@example.com", "-c", "init.defaultBranch=main"]
BAD_UTF8 = b"# caf\xe9 -- Latin-1, not UTF-8\nx = 1\n"
MIT_LICENSE = """MIT License

Copyright (c) 2024 Beta Authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense,
and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so,
subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
"""


def stdlib_text(relative: str) -> str:
    return (STDLIB / relative).read_text()


def edited(text: str) -> str:
    """A near duplicate: three lines changed in a file of hundreds."""
    lines = text.splitlines(keepends=True)
    for i in (40, 120, 200):
        lines[i] = f"# local patch {i}\n"
    return "".join(lines)


def make_git_repo(root: Path, files: dict[str, bytes], symlinks: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True)
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    for name, target in (symlinks or {}).items():
        (root / name).symlink_to(target)
    subprocess.run([*GIT, "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(root), "commit", "-qm", "fixture"], check=True)
    return root


def make_sdist(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"gamma-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, shared_transcripts):
    """Inputs on disk, the spec naming them, and the raw texts of every good record."""
    root = tmp_path_factory.mktemp("corpus")
    decoder, textwrap_py = stdlib_text("json/decoder.py"), stdlib_text("textwrap.py")
    alpha = make_git_repo(root / "alpha", {
        "alpha/decoder.py": decoder.encode(), "alpha/textwrap.py": textwrap_py.encode(),
        "alpha/shlex.py": stdlib_text("shlex.py").encode(), "alpha/latin1.py": BAD_UTF8,
    }, symlinks={"link.py": "alpha/decoder.py"})
    beta = make_git_repo(root / "beta", {
        "beta/copied_decoder.py": decoder.encode(),          # exact duplicate of alpha/decoder.py
        "beta/wrap.py": edited(textwrap_py).encode(),        # near duplicate of alpha/textwrap.py
        "beta/fnmatch.py": stdlib_text("fnmatch.py").encode(),
        "LICENSE": MIT_LICENSE.encode(),                     # detected, so beta passes the license policy
    })
    sdist = make_sdist(root / "gamma-1.0.tar.gz", {
        "gamma/colors.py": stdlib_text("colorsys.py"), "gamma/queue.py": stdlib_text("queue.py"),
    })
    dump_rows = [{"content": stdlib_text(name), "repo_name": "delta/heap", "path": name}
                 for name in ("heapq.py", "bisect.py")]
    dump = root / "dump.jsonl.gz"
    with gzip.open(dump, "wt") as handle:
        handle.write(json.dumps(dump_rows[0]) + "\n")
        handle.write('{"content": "truncated record\n')      # malformed JSON line
        handle.write(json.dumps(dump_rows[1]) + "\n")
    odd = root / "odd-transcripts.jsonl"
    odd.write_text(json.dumps({"episode": 7, "log": "no messages here"}) + "\n")
    transcripts = [str(p) for p in sorted(shared_transcripts.rglob("*")) if p.is_file() and p.suffix != ".md"]
    assert len(transcripts) == 3, "the real transcripts fixture changed"
    spec = {
        "name": "fixture",
        "sources": [
            {"name": "alpha", "type": "git", "paths": [str(alpha)], "license": "MIT"},
            {"name": "beta", "type": "git", "paths": [str(beta)]},
            {"name": "gamma", "type": "archive", "paths": [str(sdist)], "license": "Apache-2.0"},
            {"name": "dump", "type": "dump", "paths": [str(dump), str(root / "missing.jsonl")], "license": "MIT"},
            {"name": "runs", "type": "transcripts", "paths": [*transcripts, str(odd)], "license": "MIT"},
        ],
        "stages": {
            "short": {"sequence_length": 64, "token_budget": 100_000,
                      "weights": {"alpha": 1, "beta": 1, "gamma": 1, "dump": 1, "runs": 0.5}},
            "long": {"sequence_length": 32768, "token_budget": 100_000, "weights": {"alpha": 1, "beta": 1, "gamma": 1}},
            "sft": {"sequence_length": 8192, "token_budget": 10_000, "weights": {"runs": 1}},
        },
        "tokenizer": {"vocab_size": 1000, "train_sample_documents": 100},
        "allow_missing": ["dump"],  # its second path does not exist, on purpose
    }
    spec_path = root / "spec.yaml"
    spec_path.write_text(yaml.safe_dump(spec))
    code_texts = [decoder, textwrap_py, edited(textwrap_py), stdlib_text("shlex.py"), stdlib_text("fnmatch.py"),
                  stdlib_text("colorsys.py"), stdlib_text("queue.py"), *[r["content"] for r in dump_rows]]
    # What survives is the text after PII redaction (textwrap.py names its author's email).
    redacted = [redact_text(text, RedactionConfig())[0] for text in code_texts]
    assert redacted != code_texts, "guard: the fixture exercises redaction"
    return {"spec": spec_path, "code_texts": redacted}


@pytest.fixture(scope="module")
def builds(corpus, tmp_path_factory):
    """The same spec built twice: in-process, and with two worker processes."""
    out = tmp_path_factory.mktemp("builds")
    assert mix(["build", str(corpus["spec"]), "--out", str(out / "one")]) == 0
    assert mix(["build", str(corpus["spec"]), "--out", str(out / "two"),
                "--direct_num_workers", "2", "--direct_running_mode", "multi_processing"]) == 0
    return out / "one", out / "two"


def manifest(out: Path) -> dict:
    return read_manifest(str(out))


def parquet_rows(pattern_dir: Path, prefix: str) -> list[dict]:
    return [row for f in sorted(pattern_dir.glob(f"{prefix}*.parquet")) for row in pq.read_table(f).to_pylist()]


# Records the fixture holds, by hand: alpha's tree has 4 files and a symlink, beta's 3 files and a
# LICENSE, the sdist 2 members, the dump 3 lines and a missing path (one record: the location), the
# transcripts 3 files and 1 line of unknown shape.
FIXTURE_RECORDS = {"alpha": 5, "beta": 4, "gamma": 2, "dump": 4, "runs": 4}


def test_counts_are_conserved(builds):
    for out in builds:
        info = manifest(out)
        counts = info["counts"]
        assert {source: row["read"] for source, row in info["sources"].items()} == FIXTURE_RECORDS
        assert counts["read"] == sum(FIXTURE_RECORDS.values())
        assert counts["kept"] > 0 and counts["duplicates"] >= 2
        assert counts["read"] == counts["kept"] + sum(counts["dropped"].values()) + counts["duplicates"] + counts[
            "quarantined"]


def test_the_missing_dump_path_was_allowed_and_recorded(builds):
    health = manifest(builds[0])["health"]
    assert list(health["allowed_missing"]) == ["dump"]
    assert "missing.jsonl" in health["allowed_missing"]["dump"][0]
    assert any("runs" in w and "quarantined" in w for w in health["warnings"])  # 1 of 4 transcripts


def test_each_bad_record_is_quarantined_with_location_and_error(builds):
    rows = [json.loads(line) for f in sorted((builds[0] / "quarantine").glob("*.jsonl"))
            for line in f.read_text().splitlines()]
    found = {(row["source"], row["error"].split(":")[0]) for row in rows}
    assert len(rows) == 3, rows
    assert "alpha" not in {source for source, _ in found}  # its Latin-1 file is a drop, not_utf8
    assert manifest(builds[0])["sources"]["alpha"]["dropped_by_reason"]["not_utf8"] == 1
    assert any(r["source"] == "dump" and "missing.jsonl" in r["location"] for r in rows)
    assert any(r["source"] == "dump" and "#L2" in r["location"] for r in rows)
    assert any(r["source"] == "runs" and "odd-transcripts" in r["location"] for r in rows)


def test_symlink_is_recorded_and_skipped(builds):
    assert manifest(builds[0])["counts"]["dropped"].get("symlink") == 1


def test_every_good_record_survives_or_is_a_planted_duplicate(builds, corpus):
    kept = parquet_rows(committed(builds[0], "dedup"), "docs")
    kept_code = [d["text"] for d in kept if d["kind"] == "file"]
    for text in corpus["code_texts"]:
        planted = text in (corpus["code_texts"][1], corpus["code_texts"][2])  # textwrap and its edit
        assert text in kept_code or planted, text[:80]
    assert sum(d["kind"] == "transcript" for d in kept) == 3


def test_exactly_one_copy_of_each_planted_duplicate_survives(builds, corpus):
    decoder, textwrap_py, near = corpus["code_texts"][:3]
    survivors = []
    for out in builds:
        kept = parquet_rows(committed(out, "dedup"), "docs")
        texts = [d["text"] for d in kept]
        assert texts.count(decoder) == 1
        assert (texts.count(textwrap_py), texts.count(near)) in ((1, 0), (0, 1))
        survivors.append(sorted((d["source"], d["path"]) for d in kept if d["text"] in (decoder, textwrap_py, near)))
    assert survivors[0] == survivors[1]
    duplicates = parquet_rows(committed(builds[0], "dedup"), "duplicates")
    assert {d["method"] for d in duplicates} == {"exact", "near"}


def test_megatron_opens_every_shard(builds):
    info = manifest(builds[0])
    for stage, details in info["stages"].items():
        assert details["shards"], stage
        documents = 0
        for prefix in details["shards"]:
            dataset = IndexedDataset(prefix)
            documents += len(dataset)
            assert dataset.index.dtype == np.uint16  # vocab below 65,500
        assert documents == details["documents"] > 0


def test_sft_samples_decode_to_kept_transcripts_with_a_loss_mask(builds, tmp_path):
    out = builds[0]
    info = manifest(out)
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    pad = tokenizer.token_to_id("<|pad|>")
    dataset = build_sft_dataset(info["stages"]["sft"]["data_path"], 8192, 4, str(out / "tokenizer.json"),
                                str(tmp_path / "cache"))
    kept = [d["text"] for d in parquet_rows(committed(out, "dedup"), "docs") if d["kind"] == "transcript"]
    for i in range(len(dataset)):
        item = dataset[i]
        tokens, positions = np.asarray(item["tokens"]), np.asarray(item["position_ids"])
        mask = np.asarray(item["loss_mask"])
        assert 0 < mask.sum() < (tokens != pad).sum()  # assistant turns trained, the rest masked
        for sample in np.split(tokens, np.flatnonzero(positions == 0)[1:]):
            sample = sample[sample != pad]
            if len(sample):
                assert tokenizer.decode(sample.tolist(), skip_special_tokens=False) in kept


@pytest.mark.parametrize("stage", ["short", "long"])
def test_gpt_dataset_samples_decode_to_input_text(builds, corpus, stage, tmp_path):
    out = builds[0]
    info = manifest(out)
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    eod = info["tokenizer"]["eod_id"]
    length = info["stages"][stage]["sequence_length"]
    dataset = build_gpt_dataset(info["stages"][stage]["data_path"], length, 16, str(out / "tokenizer.json"),
                                str(tmp_path / "cache"))
    # The long stage holds only repository files, so its samples must be text of the raw input files;
    # the others mix in transcripts, whose text is the rendered conversation the build kept.
    if stage == "long":
        reference = "\x00".join([*corpus["code_texts"], MIT_LICENSE])
        check = lambda text: all(part in reference for part in file_texts(text))
    else:
        reference = "\x00".join(d["text"] for d in parquet_rows(committed(out, "dedup"), "docs"))
        check = lambda text: text in reference
    checked = 0
    for i in range(len(dataset)):
        tokens = np.asarray(dataset[i]["tokens"])
        assert len(tokens) == length
        for piece in np.split(tokens, np.flatnonzero(tokens == eod)):
            piece = piece[piece != eod][1:-1]  # the edges may cut a multi-byte character
            if len(piece) >= 8:
                assert check(tokenizer.decode(piece.tolist(), skip_special_tokens=False))
                checked += 1
    assert checked > 0


# A header line of a long-stage document, even when a sample starts inside it (e.g. "repo_name>alpha").
HEADER_LINE = re.compile(r"(?m)^.*(?:file_sep>|repo_name>).*(?:\n|$)")


def file_texts(chunk_text: str) -> list[str]:
    """The file contents inside a piece of a long-stage document, without the repository and path headers."""
    return [part for part in HEADER_LINE.split(chunk_text) if part]


def test_long_stage_documents_are_repositories_in_dependency_order(builds):
    out = builds[0]
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    texts = [tokenizer.decode(d.tolist(), skip_special_tokens=False)
             for p in manifest(out)["stages"]["long"]["shards"] for d in read_documents(p)]
    assert texts and all(t.startswith(REPO_NAME) for t in texts)
    alpha = next(t for t in texts if t.startswith(f"{REPO_NAME}alpha\n"))
    assert [line for line in alpha.splitlines() if line.startswith(FILE_SEP)] == [
        f"{FILE_SEP}alpha/decoder.py", f"{FILE_SEP}alpha/shlex.py", f"{FILE_SEP}alpha/textwrap.py"]


def test_long_stage_keeps_whole_repositories_despite_file_level_duplicates(builds, corpus):
    """alpha/decoder.py and beta/copied_decoder.py are exact duplicates: the short stage keeps one,
    but alpha and beta are different repositories, so the long stage keeps both whole."""
    out = builds[0]
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    decoder = corpus["code_texts"][0]

    def copies(stage: str) -> int:
        prefixes = manifest(out)["stages"][stage]["shards"]
        texts = [tokenizer.decode(d.tolist(), skip_special_tokens=False) for p in prefixes for d in read_documents(p)]
        return sum(text.count(decoder) for text in texts)

    assert (copies("short"), copies("long")) == (1, 2)


def test_two_runs_write_byte_identical_shards(builds):
    one, two = builds
    files_one = sorted(p.relative_to(one) for p in one.glob("*/*") if p.suffix in (".bin", ".idx", ".parquet"))
    files_two = sorted(p.relative_to(two) for p in two.glob("*/*") if p.suffix in (".bin", ".idx", ".parquet"))
    assert files_one and files_one == files_two
    for relative in files_one:
        assert (one / relative).read_bytes() == (two / relative).read_bytes(), relative
    assert manifest(one)["counts"] == manifest(two)["counts"]
    assert (one / "tokenizer.json").read_bytes() == (two / "tokenizer.json").read_bytes()


def test_rerun_from_a_later_stage_reuses_parquet(builds, corpus, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(builds[0], copy)
    for stage in ("short", "long", "sft"):
        shutil.rmtree(copy / stage)
    assert mix(["build", str(corpus["spec"]), "--out", str(copy), "--from-stage", "shards"]) == 0
    assert manifest(copy)["counts"] == manifest(builds[0])["counts"]
    for prefix in manifest(copy)["stages"]["short"]["shards"]:
        assert Path(prefix + ".bin").read_bytes() == Path(prefix.replace(str(copy), str(builds[0])) + ".bin").read_bytes()


def test_mix_inspect_marks_what_sft_does_not_train_on(builds, capsys):
    assert mix(["inspect", str(builds[0] / "sft"), "-n", "1", "--max-chars", "100000"]) == 0
    printed = capsys.readouterr().out
    assert "[masked]<|im_start|>system\n" in printed
    trained = re.sub(r"\[masked\].*?\[/masked\]", "", printed, flags=re.DOTALL)
    assert "<|im_start|>user" not in trained and "<|im_start|>tool" not in trained and "<|im_end|>" in trained


def test_mix_inspect_table_has_every_source_with_totals_and_a_seeded_sample(builds, capsys):
    out = builds[0]
    assert mix(["inspect", str(out / "short"), "--sample", "2", "--seed", "7", "--max-chars", "200"]) == 0
    first = capsys.readouterr().out
    assert mix(["inspect", str(out / "short"), "--sample", "2", "--seed", "7", "--max-chars", "200"]) == 0
    assert capsys.readouterr().out == first  # the same seed shows the same documents
    table = first.split("\n\n")[0].splitlines()
    rows = {line.split()[0]: line.split() for line in table[3:] if line and not line.startswith("-")}
    info = manifest(out)["stages"]["short"]
    assert set(rows) == {*(s for s in info["tokens_per_source"] if info["tokens_per_source"][s]), "total"}
    assert int(rows["total"][2].replace(",", "")) == info["documents"]
    assert len({len(line) for line in table[1:4]}) == 1  # header, rule and first row line up
    assert first.count("===== short sample") == 2 and "(source " in first and ", license " in first
    licenses = first.split("\n\n")[1].splitlines()
    assert licenses[0].split() == ["license", "documents", "tokens"]
    assert int(licenses[-1].split()[1].replace(",", "")) == info["documents"]


def test_mix_inspect_and_stats_refuse_a_wrong_directory_in_one_line(builds, tmp_path, capsys):
    assert mix(["inspect", str(builds[0])]) == 2
    assert "is a build; give one of its stages as DIR/STAGE (long, sft, short)" in capsys.readouterr().err
    assert mix(["inspect", str(builds[0] / "medium")]) == 2
    assert "has no stage 'medium'; its stages are: long, sft, short" in capsys.readouterr().err
    assert mix(["inspect", str(tmp_path / "short")]) == 2
    assert "is not a mix build output directory" in capsys.readouterr().err
    assert mix(["stats", str(tmp_path)]) == 2
    assert "is not a mix build output directory" in capsys.readouterr().err


def test_mix_stats_funnel_totals_match_the_manifest(builds, capsys):
    out = builds[0]
    assert mix(["stats", str(out), "--sample", "1", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    funnel = printed.split("\n\n")[0].splitlines()
    total = funnel[-1].split()
    counts = manifest(out)["counts"]
    assert total[0] == "total" and int(total[1].replace(",", "")) == counts["read"]
    assert int(total[-2].replace(",", "")) == counts["kept"]
    assert {row.split()[0] for row in funnel[3:-2]} == set(FIXTURE_RECORDS)
    assert len({len(line) for line in funnel[1:3]}) == 1
    assert "dropped alpha symlink: " in printed and "quarantined dump: " in printed
    assert mix(["stats", str(out), "--sample", "1", "--seed", "3"]) == 0
    assert capsys.readouterr().out == printed


def test_stats_show_transcript_outcomes_per_source_and_format(builds):
    from codemix.pipelines.stats import build_stats, format_stats

    stats = build_stats(str(builds[0]))
    outcomes = stats["runs"]["transcript_outcomes"]
    assert {fmt: entry["transcripts"] for fmt, entry in outcomes.items()} == {"mini-swe-agent": 2, "swe-agent": 1}
    assert outcomes["mini-swe-agent"]["submitted"] == {"true": 2} and outcomes["swe-agent"]["resolved"] == {"unknown": 1}
    printed = format_stats(stats)
    assert "transcript outcomes" in printed and any(
        line.split()[:3] == ["runs", "mini-swe-agent", "2"] for line in printed.splitlines())
    assert set(manifest(builds[0])["stages"]["sft"]["summaries"]) == {"real", "templated"}
