"""``mix search``: choose a stage's mixture from small proxy runs over a build's existing shards.

Design notes: docs/design/pretrain.md, "pretrain/search/orchestrate.py".
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import logging
import multiprocessing
import os
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from codemix.config import ConfigError, require
from codemix.mixtures.blend import stage_blend, with_found_prefixes
from codemix.mixtures.spec import load_spec
from codemix.pretrain.cli_args import SEARCHABLE_STAGES, search_parser
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.data.stage import read_stage, source_of_prefix
from codemix.pretrain.evaluate import parse_eval_sets
from codemix.pretrain.search import proxy as search_proxy
from codemix.pretrain.search.fit import FitReport, fit, minimise
from codemix.pretrain.search.proxy import write_json_atomically
from codemix.pretrain.search.space import ZERO_WEIGHT, MixtureSpace, candidate, make_space, parse_bounds

logger = logging.getLogger(__name__)
MIN_PROXIES = 4
SEED_CHECK = "seed-check"
WEAK_SPEARMAN = 0.3  # below this, held-out proxies are ranked little better than at random
NOISE_RATIO = 2.0  # the proxies' spread must be at least this many seed-noise sigmas


@dataclass(slots=True, kw_only=True)
class SearchConfig:
    """What ``mix search`` was asked; ``validate`` names the option and the fix."""

    spec: str
    build_dir: str
    out_dir: str
    proxies: int
    steps: int
    eval_sets: dict[str, str]  # name -> path, in the order given; the first is the objective
    stage: str = "short"
    model: str = "tiny"
    overrides: list[str] = field(default_factory=list)
    sequence_length: int | None = None
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    max_epochs: float = 4.0
    concentration: tuple[float, float] = (1.0, 30.0)
    seed: int = 0
    parallel: int = 0  # 0: one proxy per CPU core
    fit: str = "auto"
    include: list[str] = field(default_factory=lambda: ["*.py"])
    keep_checkpoints: bool = False
    seed_check: bool = True  # also train the spec's mixture at the next seed: the noise floor
    rl: list[str] = field(default_factory=list)  # RL calibration for the dashboard section, as `mix dash --rl`
    rl_eval: list[str] = field(default_factory=list)  # and the eval rows it joins on, as `mix dash --eval`

    def validate(self) -> None:
        require(self.proxies >= MIN_PROXIES, "--proxies", f"{self.proxies} is too few to fit and cross-validate",
                f"use at least {MIN_PROXIES} (RegMix fits hundreds; 24 or more is a useful search)")
        require(self.steps >= 1, "--steps", "must be at least 1")
        require(bool(self.eval_sets), "--eval-set", "no held-out set to score proxies on", "add --eval-set NAME=PATH")
        require(self.stage in SEARCHABLE_STAGES, "--stage", f"cannot search stage {self.stage!r}",
                f"use one of: {', '.join(SEARCHABLE_STAGES)} (SFT trains on transcripts, not a code mixture)")
        low, high = self.concentration
        require(0 < low <= high, "--concentration", f"{low:g}:{high:g} is not 0 < LOW <= HIGH", "e.g. 1:30")
        require(self.parallel >= 0, "--parallel", "must be 0 (one per core) or more")
        require(self.fit in ("auto", "linear", "quadratic"), "--fit", f"unknown model {self.fit!r}",
                "use auto, linear or quadratic")
        for path in self.rl + self.rl_eval:
            require(os.path.exists(path), "--rl", f"{path} does not exist",
                    "give RL results and eval rows as `mix dash` reads them")

    @property
    def workers(self) -> int:
        return self.parallel or cpu_count()

    @property
    def objective(self) -> str:
        return next(iter(self.eval_sets))


def cpu_count() -> int:
    """Cores this process may use (a container's CPU set, not the host's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


# ---- the stage's sources in the build ---------------------------------------------------------------

def stage_shards(build_dir: str, stage: str) -> list[dict[str, Any]]:
    """Every shard of the stage with its source and token count, read from its Megatron index.

    The token counts come from the ``.idx`` files themselves (megatron-core's reader), so a shard
    added to a build by hand is counted exactly as Megatron will sample it.
    """
    from megatron.core.datasets.indexed_dataset import IndexedDataset

    data = read_stage(build_dir, stage)
    prefixes = data.manifest["stages"][stage].get("shards") or data.prefixes
    shards = []
    for prefix in prefixes:
        require(os.path.isfile(f"{prefix}.idx") and os.path.isfile(f"{prefix}.bin"), "--build",
                f"shard {prefix}.bin/.idx named by the manifest is missing", "point --build at a complete `mix build`")
        index = IndexedDataset(prefix)  # held while summing: its lengths are a view of a memory map it closes on delete
        tokens = int(index.sequence_lengths.sum())
        del index
        shards.append({"source": source_of_prefix(prefix), "prefix": prefix, "tokens": tokens})
    return shards


def source_tokens(shards: list[dict[str, Any]]) -> dict[str, int]:
    tokens: dict[str, int] = {}
    for shard in shards:
        tokens[shard["source"]] = tokens.get(shard["source"], 0) + shard["tokens"]
    return tokens


def blend(weights: dict[str, float], shards: list[dict[str, Any]]) -> list:
    """The Megatron ``--data-path`` of a mixture; sources at zero weight get no prefix at all."""
    return stage_blend({s: w for s, w in weights.items() if w > ZERO_WEIGHT}, shards)


def write_view(view_dir: Path, build_dir: str, stage: str, data_path: list, weights: dict[str, float]) -> None:
    """A build directory in everything ``pretrain`` reads, whose ``stage`` blend is ``data_path``.

    Only ``manifest.json`` and ``tokenizer.json`` are written; the shards stay the build's files,
    named by absolute prefix in ``data_path``.
    """
    manifest = with_found_prefixes(json.loads((Path(build_dir) / "manifest.json").read_text()), build_dir)
    entry = dict(manifest["stages"][stage], data_path=data_path, weights=weights)
    manifest["stages"] = {stage: entry}
    manifest["blend_view_of"] = str(Path(build_dir).resolve())
    view_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(build_dir) / "tokenizer.json", view_dir / "tokenizer.json")
    write_json_atomically(view_dir / "manifest.json", manifest)


# ---- proxies ----------------------------------------------------------------------------------------

def eval_digest(eval_sets: dict[str, str], include: list[str]) -> dict[str, str]:
    """A content hash per eval set (a changed held-out set invalidates every proxy's score)."""
    texts = parse_eval_sets([f"{n}={p}" for n, p in eval_sets.items()], include)
    return {name: hashlib.sha256("\0".join(docs).encode("utf-8", "replace")).hexdigest()[:16]
            for name, docs in texts.items()}


def proxy_task(config: SearchConfig, index: int, weights: dict[str, float], data_path: list,
               build_hash: str, digests: dict[str, str], name: str | None = None) -> dict[str, Any]:
    """What proxy ``index`` trains (in ``proxies/NAME``), and its ``key``: the hash of everything its
    result depends on."""
    name = name or f"p{index:04d}"
    task = {"index": index, "name": name, "run_id": f"proxy-{name}",
            "weights": {s: round(w, 12) for s, w in weights.items()}, "model": config.model,
            "overrides": list(config.overrides), "stage": config.stage, "steps": config.steps,
            "sequence_length": config.sequence_length, "eval_sets": dict(config.eval_sets), "include": config.include,
            "keep_checkpoints": config.keep_checkpoints, "data_path": data_path}
    keyed = {k: task[k] for k in ("weights", "model", "overrides", "stage", "steps", "sequence_length")}
    # The resolved recipe, not just its name: an edited recipe file must retrain every proxy.
    recipe = asdict(load_recipe(config.model, config.overrides))
    keyed.update(build=build_hash, eval_digests=digests, recipe=recipe)
    task["key"] = hashlib.sha256(json.dumps(keyed, sort_keys=True, default=str).encode()).hexdigest()[:20]
    return task


def finished(proxy_dir: Path, key: str) -> dict[str, Any] | None:
    """The proxy's result if it finished with this key, else None."""
    path = proxy_dir / "result.json"
    if not path.is_file():
        return None
    result = json.loads(path.read_text())
    return result if result.get("key") == key else None


def prepare(task: dict[str, Any], proxy_dir: Path, build_dir: str) -> str:
    """A clean proxy directory holding the blend view and the task (an unfinished attempt is removed)."""
    if proxy_dir.exists():
        shutil.rmtree(proxy_dir)
    write_view(proxy_dir / "data", build_dir, task["stage"], task["data_path"], task["weights"])
    write_json_atomically(proxy_dir / "proxy.json", task)
    return str(proxy_dir)


class SearchError(RuntimeError):
    """Proxies that failed; the message names each one's log and how to retry."""


def failure(name: str, proxy_dir: Path, error: BaseException) -> str:
    log = proxy_dir / "log.txt"
    tail = log.read_text(errors="replace").splitlines()[-5:] if log.is_file() else []
    return f"proxy {name} failed ({type(error).__name__}: {error}); see {log}:\n  " + "\n  ".join(tail)


def run_proxies(tasks: list[dict[str, Any]], out_dir: Path, build_dir: str, workers: int) -> list[dict[str, Any]]:
    """Every task's result: finished ones reused, the rest trained by ``workers`` processes.

    Each worker process (spawned, so no parent state leaks in) runs proxies one after another with
    ``cores // workers`` torch threads: a fixed count, so a proxy retrained alone on resume sums in
    the same order and scores exactly what it scored the first time.
    """
    results: dict[str, dict[str, Any]] = {}
    pending = []
    for task in tasks:
        done = finished(proxy_path(out_dir, task["name"]), task["key"])
        if done:
            results[task["name"]] = dict(done, reused=True)
        else:
            pending.append(task)
    logger.info("%d proxies: %d finished earlier, %d to train, %d at a time", len(tasks), len(results), len(pending),
                workers)
    failures = []
    if pending:
        threads = max(1, cpu_count() // workers)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=context,
                                 initializer=search_proxy.start_worker, initargs=(threads,)) as pool:
            futures = {pool.submit(search_proxy.work, prepare(t, proxy_path(out_dir, t["name"]), build_dir)): t
                       for t in pending}
            for future, task in futures.items():
                try:
                    result = future.result()
                except Exception as error:  # noqa: BLE001 - any failure of a proxy is reported with its log
                    failures.append(failure(task["name"], proxy_path(out_dir, task["name"]), error))
                    continue
                results[task["name"]] = dict(result, reused=False)
                logger.info("proxy %s done in %.0f s: %s", task["name"], result["seconds"],
                            ", ".join(f"{n} {e['bits_per_byte']:.4f} bits/byte" for n, e in result["eval"].items()))
    if failures:
        raise SearchError("\n".join(failures) + "\nRerun the same command to retry them: finished proxies are reused.")
    return [results[t["name"]] for t in tasks]


def proxy_path(out_dir: Path, name: str) -> Path:
    return out_dir / "proxies" / name


# ---- fit, proposal ------------------------------------------------------------------------------------

@dataclass(slots=True, kw_only=True)
class SearchResult:
    out_dir: str
    space: MixtureSpace
    rows: list[dict[str, Any]]
    report: FitReport
    check: dict[str, Any] | None
    proposal: dict[str, float]
    spec_weights: dict[str, float]
    fit_json: dict[str, Any]

    @property
    def runs(self) -> list[dict[str, Any]]:
        """Every proxy run of the search: the proxies, and the seed check if there was one."""
        return self.rows + ([self.check] if self.check else [])

    @property
    def trained(self) -> int:
        """Proxy runs trained by this call (the others were reused from an earlier one)."""
        return sum(not run["reused"] for run in self.runs)

    @property
    def total(self) -> int:
        return len(self.runs)


def extrapolation(space: MixtureSpace, weights_K: np.ndarray, w_NK: np.ndarray) -> dict[str, Any]:
    """How far a mixture is from what the proxies covered: per-source ranges and the nearest proxy."""
    low, high = w_NK.min(axis=0), w_NK.max(axis=0)
    outside = [s for s, w, lo, hi in zip(space.sources, weights_K, low, high) if w < lo - 1e-9 or w > hi + 1e-9]
    distances = np.abs(w_NK - weights_K).sum(axis=1) / 2  # total variation distance
    return {"sources_outside_proxy_range": outside, "nearest_proxy": int(np.argmin(distances)),
            "nearest_proxy_distance": float(distances.min()),
            "proxy_range": {s: [float(lo), float(hi)] for s, lo, hi in zip(space.sources, low, high)}}


def summarise(config: SearchConfig, space: MixtureSpace, rows: list[dict[str, Any]],
              check: dict[str, Any] | None = None) -> tuple[FitReport, dict]:
    """Fit the proxies, find the optimum, and describe both it and the spec's mixture (and, with the
    seed check, how much of the proxies' spread a change of seed alone would explain)."""
    w_NK = np.array([space.vector(row["weights"]) for row in rows])
    bpb_N = np.array([row["eval"][config.objective]["bits_per_byte"] for row in rows])
    report = fit(w_NK, bpb_N, config.fit)
    spec_K = w_NK[0]  # proxy 0 trains the spec's mixture (moved into the box if it was outside)
    optimum = minimise(report.model, space, np.vstack([spec_K, w_NK]))
    evaluation = rows[0]["eval"][config.objective]
    mixtures = {}
    for name, weights_K in (("proposal", optimum.weights_K), ("spec", spec_K)):
        mixtures[name] = {"weights": space.as_dict(weights_K),
                          "predicted_bpb": float(np.exp(report.model.predict(weights_K[None])[0])),
                          "epochs": space.as_dict(space.epochs(weights_K)),
                          **extrapolation(space, weights_K, w_NK)}
    mixtures["spec"]["measured_bpb"] = float(bpb_N[0])
    mixtures["spec"]["spec_weights_as_written"] = space.as_dict(np.array(space.spec_weights))
    best = int(np.argmin(bpb_N))
    noise = seed_noise(rows[0], check, bpb_N, config.objective)
    fit_json = {"objective": config.objective, "optimiser": optimum.method, "warnings": warnings(report, noise),
                "seed_noise": noise,
                "tokens_per_byte": evaluation["tokens"] / evaluation["bytes"],
                "fit": report.to_json(), "proposal": mixtures["proposal"], "spec": mixtures["spec"],
                "best_proxy": {"proxy": best, "bits_per_byte": float(bpb_N[best]),
                               "weights": space.as_dict(w_NK[best])},
                "coefficients": {"kind": report.model.kind, "mean": report.model.mean_F.tolist(),
                                 "scale": report.model.scale_F.tolist(), "beta": report.model.beta_F.tolist(),
                                 "intercept": report.model.intercept}}
    return report, fit_json


def seed_noise(spec_row: dict[str, Any], check: dict[str, Any] | None, bpb_N: np.ndarray,
               objective: str) -> dict[str, Any] | None:
    """The spec's mixture at two seeds against the proxies' spread.

    Two runs differing only in seed differ by ``sqrt(2)·sigma`` on average, ``sigma`` being one run's
    seed noise; the proxies' standard deviation is ``sqrt(signal² + sigma²)``. A spread below twice
    ``sigma`` means most of what separates the proxies is noise the fit cannot rank by.
    """
    if check is None:
        return None
    a, b = spec_row["eval"][objective]["bits_per_byte"], check["eval"][objective]["bits_per_byte"]
    sigma = abs(a - b) / np.sqrt(2)
    spread = float(np.std(bpb_N, ddof=1))
    return {"seeds": [spec_row["seed"], check["seed"]], "bits_per_byte": [a, b], "difference": abs(a - b),
            "sigma": float(sigma), "proxies_sd": spread, "signal_to_noise": spread / sigma if sigma > 0 else None}


def warnings(report: FitReport, noise: dict[str, Any] | None = None) -> list[str]:
    """What makes a proposal no better informed than the spec: a fit that cannot rank unseen proxies,
    or proxies that differ by little more than a change of seed does."""
    found = []
    if noise and noise["signal_to_noise"] is not None and noise["signal_to_noise"] < NOISE_RATIO:
        found.append(f"the proxies' bits per byte vary by {noise['proxies_sd']:.4f} (sd), less than {NOISE_RATIO:g}x "
                     f"the seed noise {noise['sigma']:.4f} (the spec's mixture at seeds {noise['seeds'][0]} and "
                     f"{noise['seeds'][1]}: {noise['bits_per_byte'][0]:.4f} vs {noise['bits_per_byte'][1]:.4f}); "
                     "train the proxies longer before trusting the proposal")
    return found + fit_warnings(report)


def fit_warnings(report: FitReport) -> list[str]:
    rho = report.heldout_spearman
    if rho is None:
        return [("the proxies all scored the same: the fit has nothing to rank and the proposal is arbitrary; "
                "train the proxies longer")]
    if rho < WEAK_SPEARMAN:
        return [(f"the fit ranks held-out proxies poorly (Spearman {rho:.2f} < {WEAK_SPEARMAN}): the proxies differ "
                "mostly by noise; run more proxies or more steps before trusting the proposal")]
    return []


def proposal_yaml(config: SearchConfig, space: MixtureSpace, fit_json: dict[str, Any], tokens_per_step: int) -> str:
    """The input spec with the stage's proposed weights, and comments saying how they were chosen."""
    raw = yaml.safe_load(Path(config.spec).read_text())
    mark = "__mix_search_weights__"
    raw["stages"][config.stage]["weights"] = mark
    body = yaml.safe_dump(raw, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True)
    lines = body.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == f"weights: {mark}")
    indent = " " * (len(lines[at]) - len(lines[at].lstrip()) + 2)
    proposal, spec = fit_json["proposal"], fit_json["spec"]
    block = [lines[at].replace(mark, "") + " # proposed by mix search (header); spec's weight, bounds, epochs"]
    for i, name in enumerate(space.sources):
        w = proposal["weights"][name]
        note = (f"spec {spec['spec_weights_as_written'][name]:.4f}; bounds [{space.lower[i]:g}, {space.upper[i]:.4g}]; "
                f"{proposal['epochs'][name]:.2f} epochs at the token budget")
        if w > ZERO_WEIGHT:
            block.append(f"{indent}{name}: {round(w, 6)}  # {note}")
        else:
            block.append(f"{indent}# {name}: left out, at its lower bound 0 ({note})")
    lines[at:at + 1] = block
    heldout = fit_json["fit"]["heldout"]
    spearman = "n/a" if heldout["spearman"] is None else f"{heldout['spearman']:.3f}"
    outside = proposal["sources_outside_proxy_range"]
    header = [
        (f"# Proposed by `mix search` on {datetime.date.today().isoformat()} from {config.proxies} proxies of "
         f"{config.steps} steps ({config.model}, {tokens_per_step:,} tokens a step, identical seeds)"),
        f"# over the shards of {config.build_dir}.",
        (f"# stages.{config.stage}.weights minimise the predicted held-out bits per byte on '{config.objective}' "
         f"within the bounds and at most {config.max_epochs:g} epochs per source."),
        (f"# Regression: {fit_json['fit']['model']} ridge (alpha {fit_json['fit']['alpha']:g}) on log(bits per byte); "
        f"on held-out proxies RMSE {heldout['rmse_bpb']:.4f} bits/byte, Spearman {spearman}."),
        (f"# Predicted at proxy scale: proposal {proposal['predicted_bpb']:.4f}, spec {spec['predicted_bpb']:.4f} "
        f"(measured {spec['measured_bpb']:.4f}) bits/byte; best proxy {fit_json['best_proxy']['bits_per_byte']:.4f}."),
        "# " + (f"Extrapolated beyond the proxies' range for: {', '.join(outside)}." if outside else
                "Every proposed weight lies within the range the proxies covered."),
        *[f"# WARNING: {warning}." for warning in fit_json["warnings"]],
        "# Everything else is the input spec (its comments are not carried over); proxies.jsonl and fit.json hold",
        "# the data.",
    ]
    return "\n".join(header + lines) + "\n"


def atomic_text(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def run_search(config: SearchConfig) -> SearchResult:
    """Draw, train (or reuse), fit and propose; writes everything listed in the module docstring."""
    config.validate()
    spec = load_spec(config.spec)
    require(config.stage in spec.stages, "--stage", f"the spec has no stage {config.stage!r}",
            f"stages: {', '.join(spec.stages)}")
    recipe = load_recipe(config.model, config.overrides)  # fails here, not in N proxies
    shards = stage_shards(config.build_dir, config.stage)
    stage = spec.stages[config.stage]
    space = make_space(stage.normalised_weights(), source_tokens(shards), token_budget=stage.token_budget,
                       bounds=config.bounds, max_epochs=config.max_epochs)
    digests = eval_digest(config.eval_sets, config.include)
    build_hash = read_stage(config.build_dir, config.stage).spec_hash
    out = Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    train = recipe.stage(config.stage)
    build_length = read_stage(config.build_dir, config.stage).sequence_length
    length = config.sequence_length or train.sequence_length or build_length
    tokens_per_step = train.global_batch_size * length
    record = search_record(config, space, build_hash, digests, tokens_per_step, train.seed)
    write_json_atomically(out / "search.json", record)
    tasks = []
    for index in range(config.proxies):
        weights = space.as_dict(candidate(space, index, seed=config.seed, concentration=config.concentration))
        tasks.append(proxy_task(config, index, weights, blend(weights, shards), build_hash, digests))
    if config.seed_check:  # proxy 0's mixture again at the next seed: how far the seed alone moves a score
        reseeded = replace(config, overrides=[*config.overrides, f"train.{config.stage}.seed={train.seed + 1}"])
        tasks.append(proxy_task(reseeded, 0, tasks[0]["weights"], tasks[0]["data_path"], build_hash, digests,
                                name=SEED_CHECK))
    results = run_proxies(tasks, out, config.build_dir, config.workers)
    rows, check = results[:config.proxies], (results[config.proxies:] or [None])[0]
    atomic_text(out / "proxies.jsonl", "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows))
    report, fit_json = summarise(config, space, rows, check)
    write_json_atomically(out / "fit.json", fit_json)
    atomic_text(out / "proposal.yaml", proposal_yaml(config, space, fit_json, tokens_per_step))
    return SearchResult(out_dir=str(out), space=space, rows=rows, report=report, check=check,
                        proposal=fit_json["proposal"]["weights"], spec_weights=fit_json["spec"]["weights"],
                        fit_json=fit_json)


def search_record(config: SearchConfig, space: MixtureSpace, build_hash: str, digests: dict[str, str],
                  tokens_per_step: int, seed: int) -> dict[str, Any]:
    return {"config": asdict(config), "build_spec_hash": build_hash, "eval_digests": digests,
            "objective": config.objective, "tokens_per_step": tokens_per_step, "train_seed": seed,
            "tokens_per_proxy": tokens_per_step * config.steps,
            "sources": [{"name": s, "tokens": space.tokens[i], "spec_weight": space.spec_weights[i],
                         "lower": space.lower[i], "upper": space.upper[i], "epoch_cap": space.epoch_cap(s)}
                        for i, s in enumerate(space.sources)],
            "token_budget": space.token_budget, "max_epochs": space.max_epochs}


# ---- command line -------------------------------------------------------------------------------------

def build_parser(prog: str = "mix search") -> argparse.ArgumentParser:
    return search_parser(prog)


def parse_args(argv: list[str] | None, prog: str = "mix search") -> SearchConfig:
    args = build_parser(prog).parse_args(argv)
    eval_sets = {}
    for item in args.eval_set:
        name, sep, path = item.partition("=")
        if not sep or not name:
            raise ConfigError("--eval-set", f"{item!r} is not NAME=PATH", "e.g. --eval-set heldout=data/heldout-repos")
        eval_sets[name] = path
    low, colon, high = args.concentration.partition(":")
    try:
        concentration = (float(low), float(high if colon else low))
    except ValueError as error:
        raise ConfigError("--concentration", f"{args.concentration!r} is not LOW:HIGH", "e.g. 1:30") from error
    out = args.out or os.path.join("search", f"{Path(args.spec).stem}-{args.stage}")
    return SearchConfig(spec=args.spec, build_dir=os.path.abspath(args.build), out_dir=out, proxies=args.proxies,
                        steps=args.steps, eval_sets=eval_sets, stage=args.stage, model=args.model, overrides=args.set,
                        sequence_length=args.seq_length, bounds=parse_bounds(args.bounds), max_epochs=args.max_epochs,
                        concentration=concentration, seed=args.seed, parallel=args.parallel, fit=args.fit,
                        include=args.include or ["*.py"], keep_checkpoints=args.keep_checkpoints,
                        seed_check=args.seed_check, rl=args.rl,
                        rl_eval=args.rl_eval)


def format_result(result: SearchResult) -> str:
    """The few lines a person reads after a search."""
    fit_json, space = result.fit_json, result.space
    heldout = fit_json["fit"]["heldout"]
    spearman = "n/a" if heldout["spearman"] is None else f"{heldout['spearman']:.3f}"
    lines = [(f"{result.total} proxy runs ({result.trained} trained now, {result.total - result.trained} reused); "
             f"objective: bits per byte on {fit_json['objective']!r}"),
             (f"fit: {fit_json['fit']['model']} ridge (alpha {fit_json['fit']['alpha']:g}) on log bits/byte; held-out "
             f"proxies: RMSE {heldout['rmse_bpb']:.4f} bits/byte, Spearman {spearman}"),
             f"{'source':<20}{'spec':>9}{'proposal':>10}{'bounds':>18}"]
    for i, name in enumerate(space.sources):
        lines.append(f"{name:<20}{result.spec_weights[name]:>9.4f}{result.proposal[name]:>10.4f}"
                     f"{f'[{space.lower[i]:g}, {space.upper[i]:.4g}]':>18}")
    lines.append(f"predicted bits/byte: proposal {fit_json['proposal']['predicted_bpb']:.4f}, spec "
                 f"{fit_json['spec']['predicted_bpb']:.4f} (measured {fit_json['spec']['measured_bpb']:.4f})")
    lines += [f"warning: {warning}" for warning in fit_json["warnings"]]
    lines.append(f"wrote {result.out_dir}/proposal.yaml, proxies.jsonl, fit.json")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m codemix.pretrain.search.orchestrate``: the search without the dashboard page (``mix search`` adds it)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        result = run_search(parse_args(argv, prog="python -m codemix.pretrain.search.orchestrate"))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except SearchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(format_result(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
