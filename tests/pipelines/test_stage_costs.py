"""CPU per stage and language (``pipelines.costs``), from a real build of real C, C++ and Python files.

Each stage's per-document steps count the bytes it took in by language: checked here against the same
bytes counted from the stage's input (the files on disk for the crawl, the previous stage's Parquet for
the others). Their CPU is present for every language, never negative, and never more than the stage's
own CPU (the manifest's ``local_cpu_seconds``), whose rest ``mix stats`` shows as unattributed. No CPU
figure is compared with a number.
"""

from __future__ import annotations

import collections
import glob
import json
import shutil
import sysconfig
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from megatron.core.datasets.indexed_dataset import IndexedDataset
from tokenizers import Tokenizer

from codemix.mix.cli import main as mix
from codemix.pipelines.manifest import BuildLayout
from codemix.pipelines.shards import ENCODE_BATCH_DOCUMENTS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
STDLIB = Path(sysconfig.get_path("stdlib"))
MEASURED = ("crawl", "filter", "dedup", "shards")  # the stages with per-document steps
PREVIOUS = {"filter": "crawl", "dedup": "filter", "shards": "dedup"}  # whose documents each stage reads


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """Real C and C++ files (tests/fixtures/headers), four stdlib modules and a binary file the crawl drops."""
    root = tmp_path_factory.mktemp("costs")
    source = root / "src"
    for name in ("fmtlib+fmt", "google+googletest", "DaveGamble+cJSON"):
        shutil.copytree(FIXTURES / "headers" / name, source / name)
    (source / "py").mkdir()
    for name in ("shlex.py", "heapq.py", "colorsys.py", "fnmatch.py"):
        shutil.copy(STDLIB / name, source / "py" / name)
    shutil.copy(FIXTURES / "binary" / "requests-logo.ai.head", source / "py" / "blob.bin")
    spec = {"name": "costs", "sources": [{"name": "mixed", "type": "directory", "paths": [str(source)],
                                          "license": "MIT"}],
            "stages": {"short": {"sequence_length": 512, "token_budget": 10**9, "weights": {"mixed": 1.0}}},
            "tokenizer": {"vocab_size": 600, "train_sample_documents": 30}}
    (root / "spec.yaml").write_text(json.dumps(spec))
    assert mix(["build", str(root / "spec.yaml"), "--out", str(root / "out"), "--no-progress"]) == 0
    return root


def documents(pattern: str) -> list[dict]:
    return [row for path in sorted(glob.glob(pattern)) for row in pq.read_table(path).to_pylist()]


def bytes_by_language(rows: list[dict]) -> dict[str, int]:
    counted: collections.Counter = collections.Counter()
    for row in rows:
        counted[row["language"] or "(none)"] += len(row["text"].encode("utf-8"))
    return dict(counted)


def manifest(built: Path) -> dict:
    return json.loads((built / "out" / "manifest.json").read_text())


def test_the_crawl_counts_the_bytes_of_the_files_it_read_by_language(built):
    layout = BuildLayout(str(built / "out"))
    read = documents(layout.docs("crawl"))
    on_disk: collections.Counter = collections.Counter()
    for row in read:
        on_disk[row["language"]] += (built / "src" / row["path"]).stat().st_size
    assert {"c", "cpp", "python"} <= set(on_disk)  # the fixture holds what the test is about
    assert not any(row["path"].endswith("blob.bin") for row in read)  # ... and a file that is no document
    costs = manifest(built)["stage_costs"]["crawl"]
    assert {language: entry["bytes"] for language, entry in costs.items()} == dict(on_disk)


@pytest.mark.parametrize("stage", sorted(PREVIOUS))
def test_each_stage_counts_the_bytes_of_the_documents_it_took_in_by_language(built, stage):
    layout = BuildLayout(str(built / "out"))
    taken_in = bytes_by_language(documents(layout.docs(PREVIOUS[stage])))
    assert len(taken_in) >= 3
    costs = manifest(built)["stage_costs"][stage]
    assert {language: entry["bytes"] for language, entry in costs.items()} == taken_in


@pytest.mark.parametrize("stage", MEASURED)
def test_every_language_has_its_cpu_and_the_documents_never_exceed_the_stage(built, stage):
    built_manifest = manifest(built)
    costs = built_manifest["stage_costs"][stage]
    assert {"c", "cpp", "python"} <= set(costs)
    assert all(entry["cpu_seconds"] >= 0 for entry in costs.values())
    assert sum(entry["cpu_seconds"] for entry in costs.values()) <= built_manifest["local_cpu_seconds"][stage]


def test_mix_stats_adds_the_languages_and_the_rest_up_to_each_stage(built, capsys):
    out = str(built / "out")
    assert mix(["stats", out, "--json"]) == 0
    assert "_stage_costs" not in json.loads(capsys.readouterr().out)  # timings only when asked: stats stay reproducible
    assert mix(["stats", out, "--json", "--costs"]) == 0
    costs = json.loads(capsys.readouterr().out)["_stage_costs"]
    stage_cpu = manifest(built)["local_cpu_seconds"]
    assert set(costs) == set(stage_cpu) and set(MEASURED) <= set(costs)
    for stage, info in costs.items():
        attributed = sum(entry["cpu_seconds"] for entry in info["languages"].values())
        assert attributed + info["unattributed_cpu_seconds"] == pytest.approx(stage_cpu[stage], abs=1e-6)
        assert info["unattributed_cpu_seconds"] >= 0
    assert mix(["stats", out, "--costs"]) == 0
    table = capsys.readouterr().out.split("CPU per stage and language", 1)[1]
    for stage in MEASURED:
        lines = [line.split() for line in table.splitlines() if line.startswith(stage + " ")]
        assert {"c", "cpp", "python", "(unattributed)", "stage"} <= {words[1] for words in lines}


def test_shards_hold_each_document_as_the_tokenizer_encodes_it_though_its_batch_mixed_languages(built):
    """The shards stage encodes a batch language by language (to time each) and puts the documents back
    in order: megatron-core reads every document as ``tokenizers`` encodes its text alone, plus EOD."""
    out = built / "out"
    kept = documents(BuildLayout(str(out)).docs("dedup"))
    assert len({row["language"] for row in kept}) >= 3 and len(kept) < ENCODE_BATCH_DOCUMENTS  # one mixed batch
    texts = {row["id"]: row["text"] for row in kept}
    tokenizer = Tokenizer.from_file(str(out / "tokenizer.json"))
    tokenizer.encode_special_tokens = True
    eod = tokenizer.token_to_id("<|endoftext|>")
    seen = 0
    for prefix in manifest(built)["stages"]["short"]["data_path"][1::2]:
        dataset = IndexedDataset(str(out / prefix))
        for row in pq.read_table(f"{out / prefix}.provenance.parquet").to_pylist():
            assert dataset[row["document"]].tolist() == tokenizer.encode(texts[row["doc_id"]]).ids + [eod]
            seen += 1
    assert seen == len(kept)
