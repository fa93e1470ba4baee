"""One large git repository read by several workers: split into parts by its tree's size, and built into
the same documents, counts and long-context documents as when one part reads it whole. The fixture is a
repository of real files: Python standard-library modules and fmtlib/fmt's six C and C++ files
(tests/fixtures/headers), whose ``.h`` files take their language from the repository."""

from __future__ import annotations

import dataclasses
import json
import sysconfig
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from megatron.core.datasets.indexed_dataset import IndexedDataset

from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from codemix.pipelines.crawl import planned_parts, read_location_part
from codemix.pipelines.readers import read_counted
from codemix.pipelines.readers.git import tree_size
from codemix.sources import ReadLimits
from tests.pipelines.readers_fixtures import git, source

STDLIB = Path(sysconfig.get_path("stdlib"))
FMT = Path(__file__).parent.parent / "fixtures" / "headers" / "fmtlib+fmt"
MODULES = ["bisect.py", "colorsys.py", "fnmatch.py", "heapq.py", "keyword.py", "shlex.py", "textwrap.py",
           "this.py", "stat.py", "reprlib.py", "numbers.py", "opcode.py", "glob.py", "struct.py", "sched.py",
           "cmd.py", "abc.py", "copy.py", "graphlib.py", "nturl2path.py"]
FILES_PER_PART = 4


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("split") / "widgets"
    for name in MODULES:
        (root / "widgets" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "widgets" / name).write_bytes((STDLIB / name).read_bytes())
    for file in FMT.rglob("*"):
        if file.is_file():
            (root / file.relative_to(FMT)).parent.mkdir(parents=True, exist_ok=True)
            (root / file.relative_to(FMT)).write_bytes(file.read_bytes())
    (root / "LICENSE").write_text("MIT License\n\nPermission is hereby granted, free of charge, to any person "
                                  "obtaining a copy of this software.\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")
    return root


def test_a_repository_is_split_by_the_size_of_its_tree(repo: Path) -> None:
    src = source("git", paths=[str(repo)], files_per_part=FILES_PER_PART, limits=ReadLimits())
    entries = tree_size(str(repo), "HEAD")
    assert entries == len(MODULES) + 6 + 1  # the modules, fmt's six files, LICENSE
    parts = planned_parts((src, str(repo), 1))
    assert parts == [(src, str(repo), part, -(-entries // FILES_PER_PART)) for part in range(len(parts))]
    assert len(planned_parts((dataclasses.replace(src, files_per_part=10**6), str(repo), 3))) == 3  # workers' floor
    assert planned_parts((src, str(repo.parent / "gone"), 1)) == [(src, str(repo.parent / "gone"), 0, 1)]
    remote = source("git", paths=["https://github.com/octo/x.git"], files_per_part=1)
    assert planned_parts((remote, remote.paths[0], 1)) == [(remote, remote.paths[0], 0, 1)]  # never listed here

    def described(outcomes) -> list[tuple]:
        return sorted((o.id, o.text, o.language) if hasattr(o, "text") else (type(o).__name__, o.location)
                      for o in outcomes if not hasattr(o, "records"))

    read = [list(read_location_part(part)) for part in parts]
    assert described(o for part in read for o in part) == described(read_counted(src, str(repo)))
    assert sum(1 for part in read if described(part)) > 2, "guard: several parts hold documents"


def build(tmp_path: Path, repo: Path, out: str, files_per_part: int, *beam_args: str, tokenizer: dict) -> Path:
    spec = {"name": "split", "sources": [{"name": "code", "type": "git", "paths": [str(repo)], "license": "MIT",
                                          "files_per_part": files_per_part}],
            "stages": {"short": {"sequence_length": 2048, "token_budget": 1_000_000, "weights": {"code": 1}},
                       "long": {"sequence_length": 16384, "token_budget": 1_000_000, "weights": {"code": 1}}},
            "tokenizer": tokenizer}
    (tmp_path / f"{out}.yaml").write_text(yaml.safe_dump(spec))
    assert mix(["build", str(tmp_path / f"{out}.yaml"), "--out", str(tmp_path / out), "--no-progress",
                *beam_args]) == 0
    return tmp_path / out


def shard_rows(out: Path, stage: str) -> list[tuple]:
    """(provenance row without its place, token ids) per document of the stage, in shard order."""
    rows = []
    for prefix in read_manifest(str(out))["stages"][stage]["shards"]:
        shard = IndexedDataset(prefix)
        for row in pq.read_table(f"{prefix}.provenance.parquet").to_pylist():
            ids = shard[row.pop("document")].tolist()
            rows.append((json.dumps(row, sort_keys=True, default=str), ids))
    return rows


def test_a_split_repository_builds_exactly_as_one_read_whole(tmp_path: Path, repo: Path) -> None:
    whole = build(tmp_path, repo, "whole", 10**6, tokenizer={"vocab_size": 600, "train_sample_documents": 50})
    split = build(tmp_path, repo, "split", FILES_PER_PART, "--direct_num_workers", "2",
                  tokenizer={"path": str(whole / "tokenizer.json")})  # the same ids, without training again
    reads = [json.loads(line) for f in sorted(split.glob("work/crawl/*/reads-*.jsonl")) for line in f.read_text().splitlines()]
    assert len(reads) == -(-tree_size(str(repo), "HEAD") // FILES_PER_PART), "guard: one ReadCount per part"
    for key in ("counts", "sources", "repositories", "git_repositories"):
        assert read_manifest(str(split))[key] == read_manifest(str(whole))[key]
    assert read_manifest(str(split))["stages"]["long"]["import_order"] == read_manifest(str(whole))["stages"]["long"][
        "import_order"]
    for stage in ("short", "long"):
        assert sorted(shard_rows(split, stage)) == sorted(shard_rows(whole, stage))
    assert shard_rows(split, "long") == shard_rows(whole, "long")  # the repository's documents, in order
    parts = [(row["part"], row["parts"]) for row in (json.loads(row) for row, _ in shard_rows(split, "long"))]
    assert len(parts) > 2, "guard: the repository is split into several long documents"
    assert parts == [(k, len(parts)) for k in range(len(parts))]  # stored together and in part order (issue 46)

    files = {json.loads(row)["path"]: json.loads(row)["language"] for row, _ in shard_rows(split, "short")}
    assert files["include/fmt/core.h"] == "cpp" and files["include/fmt/fmt-c.h"] == "c"
    long_languages = {language for row, _ in shard_rows(split, "long") for language in json.loads(row)["language"].split(",")}
    assert long_languages == {"c", "cpp", "python", "text"}
