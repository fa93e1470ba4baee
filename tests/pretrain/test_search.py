"""`mix search` end to end on CPU: 6 proxies of 8 steps over a real build with a planted source of
random tokens, then the proposal, the proxy table, resume, and the dashboard section.

The build is the session's `mix build` of real stdlib code (`code`) and real agent transcripts
(`runs`), plus a third `short` source written here: uniformly random token ids (`noise`). The
search must learn from the proxies that noise hurts held-out code and give it no more than its
lower bound. One `mix search` (module-scoped) serves every test; it takes about a minute.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats

from codemix.mix.cli import main as mix
from codemix.mixtures.indexed_dataset import dtype_for_vocab, write_indexed_dataset
from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.spec import load_spec
from codemix.mixtures.tokenizer import SPECIAL_TOKENS, load_tokenizer
from codemix.pretrain.search.orchestrate import parse_args, run_search

PROXIES, STEPS, NOISE_LOWER = 6, 8, 0.02
SEQUENCE_LENGTH = 64  # the fixture build's short stage; tiny's own 256 would only make the test slower
# RL calibration planted exactly log-linear in perplexity: pass@1 = A + B·log(ppl) = A + B·loss.
RL_A, RL_B = 1.4, -0.15


def plant_noise(build_dir: Path, out: Path, tokens: int = 40_000, seed: int = 7) -> Path:
    """A build dir whose `short` stage is the session build's shards plus one shard of random ids."""
    out.mkdir(parents=True)
    shutil.copyfile(build_dir / "tokenizer.json", out / "tokenizer.json")
    vocab = load_tokenizer(str(out / "tokenizer.json")).get_vocab_size(with_added_tokens=True)
    rng = np.random.default_rng(seed)
    ids = rng.integers(len(SPECIAL_TOKENS), vocab, tokens)  # never a special token (EOD, pad, ChatML)
    prefix = str(out / "short" / "noise-00000-of-00001")
    os.makedirs(out / "short")
    write_indexed_dataset(prefix, np.split(ids, np.arange(500, tokens, 500)), dtype_for_vocab(vocab))
    manifest = read_manifest(str(build_dir))
    short = manifest["stages"]["short"]
    short["shards"] = sorted([*short["shards"], prefix])
    short["tokens_per_source"]["noise"] = tokens
    manifest["stages"] = {"short": short}
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


def write_calibration(root: Path) -> tuple[Path, Path]:
    """Eval rows and RL results of four checkpoints, as `mix dash` reads them."""
    evals, rl = [], []
    for step, loss in zip((100, 200, 300, 400), (7.4, 7.0, 6.7, 6.5)):
        evals.append({"run_id": "calib", "step": step, "eval_set": "heldout", "loss_nats": loss, "bits_per_byte": 1.0})
        rl.append({"run_id": "calib", "step": step, "benchmark": "swe", "metric": "pass@1",
                   "value": RL_A + RL_B * loss})
    (root / "calib-eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in evals))
    (root / "calib-rl.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rl))
    return root / "calib-eval.jsonl", root / "calib-rl.jsonl"


@pytest.fixture(scope="module")
def search_inputs(build_dir, heldout_dir, tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("search")
    build = plant_noise(build_dir, root / "build")
    spec = yaml.safe_load((build_dir.parent / "spec.yaml").read_text())
    spec["sources"].append({"name": "noise", "type": "directory", "paths": [str(root / "nowhere")]})
    # A budget the real sources can fill at 4 epochs: then the epoch caps leave noise free to fall to its bound.
    spec["stages"] = {"short": dict(spec["stages"]["short"], token_budget=100_000,
                                    weights={"code": 0.5, "runs": 0.2, "noise": 0.3})}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    calib_eval, calib_rl = write_calibration(root)
    argv = [str(root / "spec.yaml"), "--build", str(build), "--proxies", str(PROXIES), "--steps", str(STEPS),
            "--eval-set", f"heldout={heldout_dir}", "--out", str(root / "search"),
            "--bounds", f"noise={NOISE_LOWER}:0.6", "--parallel", "2", "--seq-length", str(SEQUENCE_LENGTH),
            "--rl", str(calib_rl), "--rl-eval", str(calib_eval)]
    return {"root": root, "build": build, "argv": argv, "out": root / "search", "calib": (calib_eval, calib_rl)}


@pytest.fixture(scope="module")
def searched(search_inputs) -> dict:
    """`mix search` once, through the CLI, with RL calibration for its dashboard section."""
    assert mix(["search", *search_inputs["argv"]]) == 0
    out = search_inputs["out"]
    rows = [json.loads(line) for line in (out / "proxies.jsonl").read_text().splitlines()]
    return dict(search_inputs, rows=rows, fit=json.loads((out / "fit.json").read_text()))


def test_the_planted_source_is_random_tokens_in_the_blend(searched):
    """Guard: the noise shard holds uniform ids, and the proxies really trained on it, in proportion."""
    from megatron.core.datasets.indexed_dataset import IndexedDataset

    index = IndexedDataset(str(searched["build"] / "short" / "noise-00000-of-00001"))
    ids = np.concatenate([index[i] for i in range(len(index))])
    del index
    counts = np.bincount(ids, minlength=int(ids.max()) + 1)[len(SPECIAL_TOKENS):]
    assert stats.chisquare(counts).pvalue > 1e-3  # indistinguishable from uniform
    for row in searched["rows"]:
        share = {s: n / row["tokens_seen"] for s, n in row["tokens_per_source"].items()}
        for source, weight in row["weights"].items():  # megatron-core's BlendedDataset honours each weight
            assert abs(share.get(source, 0.0) - weight) < 0.06, (row["proxy"], source, share, weight)


def test_noise_hurts_held_out_code_and_gets_no_more_than_its_lower_bound(searched):
    noise = np.array([row["weights"]["noise"] for row in searched["rows"]])
    bpb = np.array([row["eval"]["heldout"]["bits_per_byte"] for row in searched["rows"]])
    assert np.ptp(noise) > 0.15, "guard: the proxies span a range of noise weights"
    assert stats.spearmanr(noise, bpb).statistic > 0.5, "guard: more noise, worse held-out code"
    proposal = searched["fit"]["proposal"]["weights"]
    assert proposal["noise"] <= NOISE_LOWER + 1e-9
    assert math.isclose(sum(proposal.values()), 1.0, abs_tol=1e-9)


def test_proposal_is_a_valid_spec_with_the_proposed_weights_and_says_how(searched):
    text = (searched["out"] / "proposal.yaml").read_text()
    spec = load_spec(searched["out"] / "proposal.yaml")
    weights = spec.stages["short"].normalised_weights()
    for source, weight in searched["fit"]["proposal"]["weights"].items():  # a source at 0 is left out of the spec
        assert math.isclose(weights.get(source, 0.0), weight, abs_tol=1e-5)
    assert "from 6 proxies of 8 steps" in text and "Spearman" in text and "ridge" in text
    assert "noise: 0.02  # spec 0.3000; bounds [0.02, 0.6]" in text


def test_every_proxy_is_in_the_table_with_identical_seed_and_tokens(searched):
    rows = searched["rows"]
    assert [row["proxy"] for row in rows] == list(range(PROXIES))
    assert len({row["seed"] for row in rows}) == 1
    assert {row["tokens_seen"] for row in rows} == {STEPS * 16 * SEQUENCE_LENGTH}  # tiny's global batch is 16
    spec = searched["fit"]["spec"]["spec_weights_as_written"]
    assert all(math.isclose(rows[0]["weights"][s], w, abs_tol=1e-12) for s, w in spec.items())  # proxy 0 is the spec
    assert len({tuple(sorted(row["weights"].items())) for row in rows}) == PROXIES
    heldout = searched["fit"]["fit"]["heldout"]
    assert len(heldout["predicted_bpb"]) == PROXIES and heldout["spearman"] is not None


def test_the_spec_mixture_at_the_next_seed_measures_the_noise_floor(searched):
    """The seed check trains proxy 0's mixture with seed + 1: same blend, other initialisation and order."""
    noise, rows = searched["fit"]["seed_noise"], searched["rows"]
    check = json.loads((searched["out"] / "proxies" / "seed-check" / "result.json").read_text())
    assert check["weights"] == rows[0]["weights"] and check["seed"] == rows[0]["seed"] + 1
    scores = [rows[0]["eval"]["heldout"]["bits_per_byte"], check["eval"]["heldout"]["bits_per_byte"]]
    assert noise["bits_per_byte"] == scores
    assert noise["difference"] > 0  # another seed really trains another model
    sd = np.std([row["eval"]["heldout"]["bits_per_byte"] for row in rows], ddof=1)
    assert math.isclose(noise["signal_to_noise"], sd / (noise["difference"] / math.sqrt(2)))


def test_a_rerun_reuses_finished_proxies_and_retrains_only_a_lost_one(searched):
    """Proxy 3's result is deleted (as if killed before it finished): the rerun trains it alone,
    with the same seed and batches, so it scores exactly what it scored before."""
    out, before = searched["out"], searched["rows"]
    (out / "proxies" / "p0003" / "result.json").unlink()
    result = run_search(parse_args(searched["argv"]))
    assert [row["reused"] for row in result.rows] == [i != 3 for i in range(PROXIES)]
    assert result.rows[3]["eval"] == before[3]["eval"]


class PageStructure(HTMLParser):
    """Checks every element closes in order, and collects section ids, headings and table text."""

    VOID = frozenset({"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "source", "wbr"})

    def __init__(self):
        super().__init__()
        self.stack, self.sections, self.headings, self.cells, self.errors = [], [], [], [], []
        self._text_into = None

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        self.stack.append(tag)
        if tag == "section":
            self.sections.append(dict(attrs).get("id"))
        self._text_into = tag if tag in ("h2", "td", "th") else None

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data):
        if self._text_into == "h2":
            self.headings.append(data)
        elif self._text_into in ("td", "th"):
            self.cells.append(data)


def parse_page(path: Path) -> PageStructure:
    parser = PageStructure()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    assert not parser.errors and not parser.stack, (parser.errors[:5], parser.stack[:5])
    return parser


def test_dashboard_section_shows_proxies_fit_proposal_and_rl_predictions(searched):
    page = parse_page(searched["out"] / "search.html")
    assert "search-0" in page.sections and "Mixture search: search" in page.headings
    html = (searched["out"] / "search.html").read_text(encoding="utf-8")
    assert "Proposed weights vs the spec" in html and "Fit on held-out proxies: Spearman" in html
    assert all(f"{row['weights']['noise']:.4f}" in page.cells for row in searched["rows"])
    # The RL table: the planted law at each proxy's measured loss (log-linear fits it exactly).
    for row in searched["rows"]:
        loss = row["eval"]["heldout"]["loss_nats"]
        assert f"{math.exp(loss):.4f}" in page.cells
        assert f"{RL_A + RL_B * loss:.4f}" in page.cells, row["proxy"]
    # ... and at the loss the regression predicts for the spec and the proposal (bits/byte -> nats/token).
    fit = searched["fit"]
    for name in ("spec", "proposal"):
        loss = fit[name]["predicted_bpb"] * math.log(2) / fit["tokens_per_byte"]
        assert f"{name} (predicted)" in page.cells and f"{RL_A + RL_B * loss:.4f}" in page.cells


def test_mix_dash_adds_the_search_section_to_the_full_page(searched, tmp_path):
    calib_eval, calib_rl = searched["calib"]
    out = tmp_path / "dash.html"
    assert mix(["dash", "--search", str(searched["out"]), "--eval", str(calib_eval), "--rl", str(calib_rl),
                "--out", str(out)]) == 0
    page = parse_page(out)
    assert {"search-0", "ppl-vs-rl"} <= set(page.sections)


def test_a_changed_recipe_or_mixture_changes_the_proxy_key(searched):
    """What a finished proxy is reused for: the same mixture, recipe (resolved, overrides included) and steps."""
    from codemix.pretrain.search.orchestrate import proxy_task

    config = parse_args(searched["argv"])
    task = json.loads((searched["out"] / "proxies" / "p0001" / "proxy.json").read_text())

    def key(config, weights):
        return proxy_task(config, 1, weights, task["data_path"], "unused-build-hash", {"heldout": "d"})["key"]

    base = key(config, task["weights"])
    assert key(config, task["weights"]) == base
    assert key(replace(config, overrides=["train.short.lr=2e-3"]), task["weights"]) != base
    assert key(replace(config, steps=STEPS + 1), task["weights"]) != base
    assert key(config, dict(task["weights"], code=task["weights"]["code"] + 1e-6)) != base


def test_the_search_directory_defaults_to_search_spec_stage(search_inputs):
    argv = list(search_inputs["argv"])
    del argv[argv.index("--out"):argv.index("--out") + 2]
    assert parse_args(argv).out_dir == os.path.join("search", "spec-short")


def test_too_few_proxies_or_an_unknown_bound_is_a_config_error(search_inputs, capsys):
    argv = list(search_inputs["argv"])
    argv[argv.index("--proxies") + 1] = "3"
    assert mix(["search", *argv]) == 2
    assert "--proxies: 3 is too few" in capsys.readouterr().err
    argv = [*search_inputs["argv"], "--bounds", "nosuch=0:1"]
    assert mix(["search", *argv]) == 2
    assert "--bounds nosuch: no source of that name" in capsys.readouterr().err
