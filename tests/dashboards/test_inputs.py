"""Reading what the pipeline, training and RL wrote: the build ledgers, eval and RL rows, TensorBoard."""

from __future__ import annotations

import collections
import math
import os

import pytest

from codemix.dashboards.builds import load_build
from codemix.dashboards.runs import (
    TENSORBOARD_EVAL_SET,
    EvalRow,
    default_eval_set,
    read_eval_rows,
    read_rl_rows,
    read_tensorboard,
    tensorboard_eval_rows,
)
from tests.dashboards import fixtures


@pytest.fixture(scope="module")
def build(build_dir):
    return load_build(str(build_dir))


def test_funnel_documents_per_source_and_step(build):
    assert build.funnel_docs == {
        "read": {"alpha": 8, "beta": 6},  # crawled + dropped at crawl + quarantined
        "crawled": {"alpha": 6, "beta": 4},
        "filtered": {"alpha": 5, "beta": 4},
        "deduplicated": {"alpha": 4, "beta": 3},
        "shards: short": {"alpha": 4, "beta": 3},
        "shards: long": {"alpha": 4},
    }


def test_funnel_read_total_matches_the_manifest(build):
    assert sum(build.funnel_docs["read"].values()) == build.manifest["counts"]["read"]


def test_funnel_tokens_are_exact_in_shards_and_bytes_times_tokens_per_byte_before(build):
    kept_bytes = sum(len(fixtures.text_of(d).encode()) for d in fixtures.kept_ids()["alpha"])
    assert build.funnel_tokens["shards: short"]["alpha"] == int(kept_bytes * fixtures.TOKENS_PER_BYTE)
    crawled_bytes = sum(len(fixtures.text_of(d).encode()) for d in fixtures.CRAWLED["alpha"])
    ratio = int(kept_bytes * fixtures.TOKENS_PER_BYTE) / kept_bytes
    assert build.funnel_tokens["crawled"]["alpha"] == pytest.approx(crawled_bytes * ratio)


def test_drops_redactions_duplicates_and_quarantine_per_source(build):
    assert build.dropped == collections.Counter({("crawl", "binary", "alpha"): 2, ("filter", "too_small", "alpha"): 1,
                                                 ("crawl", "path_not_included", "beta"): 1})
    assert build.redactions == collections.Counter({("EMAIL", "alpha"): 3, ("SECRET_PASSWORD", "beta"): 1})
    assert build.duplicates == collections.Counter({("exact", "alpha"): 1, ("near", "beta"): 1})
    assert build.quarantined == collections.Counter({"beta": 1})


def test_language_and_license_mix_of_kept_documents(build):
    assert build.kept.per(1) == collections.Counter({"python": 4, "go": 2, "markdown": 1})
    assert build.kept.per(2) == collections.Counter({"MIT": 4, "Apache-2.0": 2, "(none)": 1})


def test_length_histograms_count_every_document_once(build):
    assert {s: int(h.sum()) for s, h in build.kept.lengths.items()} == {"alpha": 4, "beta": 3}
    assert sum(int(h.sum()) for h in build.crawled_lengths.values()) == 10


def test_a_directory_without_manifest_is_named_in_the_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="manifest.json not found"):
        load_build(str(tmp_path))


def test_eval_rows_skip_and_count_a_half_written_line(run_files):
    loaded = read_eval_rows([str(run_files["eval"])])
    assert len(loaded.rows) == len(fixtures.eval_rows())
    assert loaded.skipped == {str(run_files["eval"]): 1}
    assert loaded.messages("eval") == [f"{run_files['eval']}: skipped 1 unreadable eval line(s)"]


def test_a_missing_eval_file_reads_as_empty_and_is_reported(tmp_path):
    loaded = read_eval_rows([str(tmp_path / "not-yet.jsonl")])
    assert loaded.rows == [] and loaded.missing == [str(tmp_path / "not-yet.jsonl")]


def test_rl_rows_from_jsonl_and_csv_agree_with_what_was_written(run_files):
    loaded = read_rl_rows([str(run_files["rl_jsonl"]), str(run_files["rl_csv"])])
    got = [(r.run_id, r.step, r.benchmark, r.metric, r.value) for r in loaded.rows]
    assert got == [(r["run_id"], r["step"], r["benchmark"], r["metric"], r["value"]) for r in fixtures.rl_rows()]
    assert loaded.skipped == {}


def test_default_eval_set_prefers_code_over_others_and_tensorboard():
    assert default_eval_set([]) is None
    sets = ["prose", "the-code-set", TENSORBOARD_EVAL_SET]
    assert default_eval_set([EvalRow(run_id="r", step=1, eval_set=s, loss_nats=1.0) for s in sets]) == "the-code-set"


def test_tensorboard_scalars_as_megatron_writes_them(run_files):
    scalars = read_tensorboard(str(run_files["tensorboard"]))
    by_tag = collections.defaultdict(list)
    for s in scalars:
        by_tag[s.tag].append(s)
    assert {"lm loss", "lm loss validation", "lm loss validation ppl"} <= set(by_tag)
    validation = sorted(by_tag["lm loss validation"], key=lambda s: s.step)
    assert [s.run_id for s in validation] == ["run-a"] * len(fixtures.STEPS)
    assert [s.step for s in validation] == list(fixtures.STEPS)
    expected = [fixtures.code_loss("run-a", step) + 0.1 for step in fixtures.STEPS]
    assert [s.value for s in validation] == pytest.approx(expected, rel=1e-6)
    ppl = sorted(by_tag["lm loss validation ppl"], key=lambda s: s.step)
    assert [s.value for s in ppl] == pytest.approx([math.exp(v) for v in expected], rel=1e-5)


def test_tensorboard_validation_loss_becomes_an_eval_set(run_files):
    rows = tensorboard_eval_rows(read_tensorboard(str(run_files["tensorboard"])))
    assert {r.eval_set for r in rows} == {TENSORBOARD_EVAL_SET}
    assert len(rows) == len(fixtures.STEPS) and all(r.bits_per_byte is None for r in rows)


@pytest.mark.parametrize("line", ['{"run_id": "r", "step": 1, "eval_set": "code", "loss_nats": NaN}',
                                  '{"run_id": "r", "step": null, "eval_set": "code", "loss_nats": 1.0}',
                                  '{"run_id": "r", "step": 1, "eval_set": "code"}', "[1, 2]", "not json"])
def test_eval_rows_without_a_usable_loss_or_step_are_skipped_and_counted(tmp_path, line):
    path = tmp_path / "eval.jsonl"
    path.write_text('{"run_id": "r", "step": 2, "eval_set": "code", "loss_nats": 1.0, "bits_per_byte": NaN}\n'
                    + line + "\n")
    loaded = read_eval_rows([str(path)])
    assert [(r.step, r.bits_per_byte) for r in loaded.rows] == [(2, None)]
    assert loaded.skipped == {str(path): 1}


def test_a_build_being_rewritten_is_flagged(tmp_path):
    out = fixtures.write_build(tmp_path / "out")
    assert load_build(str(out)).messages == []
    manifest = out / "manifest.json"
    os.utime(manifest, (manifest.stat().st_mtime - 60, manifest.stat().st_mtime - 60))
    assert "newer than manifest.json" in load_build(str(out)).messages[0]
