"""Does `mix search` pick a better mixture? A search on a 73 MB build, then its proposal and the
spec's own mixture trained as long as a proxy and 4x longer, scored on held-out repositories.

Run from the repository root (the first run downloads four sdists with pip, as `make demo` does)::

    .venv/bin/python -m bench.search                                  # 24 proxies x 60 steps (~30 min on 2 cores)
    .venv/bin/python -m bench.search --proxies 8 --steps 10 --results /tmp/RESULTS.md   # a smoke run

Corpus (build sources of the `short` stage): the standard library without its tests (`stdlib`),
the standard library's tests (`stdlib_tests`), and the Django 5.2.19 and SymPy 1.14.0 sdists
(`django`, `sympy`, read from the archives), 73 MB of `*.py` in all. Held-out repositories, never in
the build: the non-test code of click 8.1.8, requests 2.32.3, itsdangerous 2.2.0 and six 1.16.0.
The spec's hand-set mixture is stdlib 0.4, stdlib_tests 0.2, django 0.2, sympy 0.2.

Steps, each reused when its output exists (so a rerun after a kill resumes): `mix build`; `mix
search` (proxies on `tiny` at sequence length 256, bounds 0.05..0.7 per source); then the proposal
and the spec's mixture each trained at ``--scales`` (1 and 4) times the proxy steps with each of ``--seeds``,
through the same proxy machinery (same recipe, data path, tokens and eval), and scored on the
held-out set. Appends its section to bench/RESULTS.md between its markers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import time
import types
from dataclasses import replace
from pathlib import Path

import yaml

from bench import tokenize as common
from codemix.mix.cli import main as mix
from codemix.pretrain.data.stage import read_stage
from codemix.pretrain.search.orchestrate import (
    blend,
    eval_digest,
    parse_args,
    proxy_task,
    run_proxies,
    run_search,
    stage_shards,
)

BENCH = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench.search: generated, begin -->", "<!-- bench.search: generated, end -->"
BUILD_SDISTS = ["django==5.2.19", "sympy==1.14.0"]
HELDOUT_SDISTS = ["click==8.1.8", "requests==2.32.3", "itsdangerous==2.2.0", "six==1.16.0"]
SPEC_WEIGHTS = {"stdlib": 0.4, "stdlib_tests": 0.2, "django": 0.2, "sympy": 0.2}
NOT_HELDOUT_CODE = ("/tests/", "/test/", "/docs/", "/examples/", "/test_", "conftest.py", "setup.py")
logger = logging.getLogger("bench.search")


def fetch_sdists(requirements: list[str], directory: Path) -> dict[str, Path]:
    """Each sdist once, with pip (the ordinary client, as the Makefile's demo does)."""
    directory.mkdir(parents=True, exist_ok=True)
    found = {}
    for requirement in requirements:
        name, version = requirement.split("==")
        stem = f"{name}-{version}".lower().replace("_", "-")
        matches = [p for p in directory.glob("*.tar.gz") if p.name.lower().replace("_", "-").startswith(stem + ".")]
        if not matches:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
                            "--dest", str(directory), requirement], check=True)
            matches = [p for p in directory.glob("*.tar.gz") if p.name.lower().replace("_", "-").startswith(stem + ".")]
        found[name] = matches[0]
    return found


def extract_heldout(archives: dict[str, Path], out: Path) -> Path:
    """The held-out repositories' own code (no tests, docs or examples), one folder per sdist."""
    if out.is_dir() and any(out.rglob("*.py")):
        return out
    for archive in archives.values():
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                path = "/" + member.name
                if member.isfile() and member.name.endswith(".py") and not any(m in path for m in NOT_HELDOUT_CODE):
                    target = out / member.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(tar.extractfile(member).read())
    return out


def write_spec(path: Path, archives: dict[str, Path], token_budget: int) -> None:
    stdlib = sysconfig.get_path("stdlib")
    gui = ["idlelib/*", "lib2to3/*", "tkinter/*", "turtledemo/*", "site-packages/*"]
    tests = ["test/*", "*/test/*", "*/tests/*"]
    spec = {
        "name": "bench-search",
        "sources": [
            {"name": "stdlib", "type": "directory", "paths": [stdlib], "include": ["*.py"], "exclude": tests + gui,
             "license": "PSF-2.0"},
            {"name": "stdlib_tests", "type": "directory", "paths": [stdlib], "include": [f"{t}.py" for t in tests],
             "exclude": gui,
             "license": "PSF-2.0"},
            {"name": "django", "type": "archive", "paths": [str(archives["django"])], "include": ["*.py"],
             "license": "BSD-3-Clause"},
            {"name": "sympy", "type": "archive", "paths": [str(archives["sympy"])], "include": ["*.py"],
             "license": "BSD-3-Clause"},
        ],
        "stages": {"short": {"sequence_length": 1024, "token_budget": token_budget, "weights": SPEC_WEIGHTS}},
        "tokenizer": {"vocab_size": 8192},
    }
    path.write_text(yaml.safe_dump(spec, sort_keys=False))


def corpus_bytes(spec_path: Path) -> int:
    """UTF-8 bytes the build read (its crawl's documents, before filters)."""
    import pyarrow.parquet as pq

    build = spec_path.parent / "build"
    return sum(sum(len(t.encode()) for t in pq.read_table(f, columns=["text"]).column("text").to_pylist())
               for f in sorted((build / "work" / "crawl").glob("attempt-*/docs*.parquet")))  # the committed attempt


def train_finals(search_argv: list[str], proposal: dict, spec: dict, scale: int, seeds: list[int], out: Path,
                 workers: int) -> list[dict]:
    """Each mixture at ``scale`` x the proxy steps, once per seed, on the proxies' machinery."""
    base = parse_args(search_argv)
    config = replace(base, steps=base.steps * scale, out_dir=str(out))
    shards = stage_shards(config.build_dir, config.stage)
    build_hash = read_stage(config.build_dir, config.stage).spec_hash
    digests = eval_digest(config.eval_sets, config.include)
    tasks, labels = [], []
    for seed in seeds:
        for name, weights in (("proposal", proposal), ("spec", spec)):
            seeded = replace(config, overrides=[*config.overrides, f"train.short.seed={seed}"])
            tasks.append(proxy_task(seeded, len(tasks), weights, blend(weights, shards), build_hash, digests))
            labels.append((name, seed))
    results = run_proxies(tasks, out, config.build_dir, workers)
    return [dict(result, mixture=name, train_seed=seed) for result, (name, seed) in zip(results, labels)]


def render(args: argparse.Namespace, started: str, info: dict, search: dict, finals: list[dict], wall: dict) -> str:
    fit, record = search["fit"], search["record"]
    heldout = fit["fit"]["heldout"]
    sources = [s["name"] for s in record["sources"]]
    lines = [
        "## Mixture search: `mix search` proposal vs the spec's mixture",
        "",
        (f"{started}; {common.machine()}; torch {torch_version()}, megatron-core {megatron_version()}; "
        f"command `.venv/bin/python -m bench.search {' '.join(args.argv)}`."),
        (f"Build: {info['megabytes']:.1f} MB of `*.py` read ({info['documents']:,} documents kept, "
        f"{info['tokens']:,} `short` tokens, BPE vocabulary 8,192): stdlib without tests, stdlib tests, Django 5.2.19 "
        f"and SymPy 1.14.0 sdists. Held-out: {info['heldout_files']} files, {info['heldout_bytes'] / 1e3:.0f} kB of "
        "click 8.1.8, requests 2.32.3, itsdangerous 2.2.0 and six 1.16.0 (no tests, docs or examples), never in the "
        "build."),
        (f"Search: {len(search['rows'])} proxies x {args.steps} steps of `tiny` at sequence length 256 "
        f"({record['tokens_per_step']:,} tokens a step, {record['tokens_per_proxy']:,} a proxy, recipe seed "
        f"{record['train_seed']} for all), bounds 0.05..0.7 per source, at most 4 epochs per source at the spec's "
        f"{record['token_budget']:,}-token budget, {args.workers} proxies at a time. "
        f"Wall: build {wall['build']:.0f} s, search {wall['search']:.0f} s, "
        + ", ".join(f"{k}x runs {wall[f'finals-x{k}']:.0f} s" for k in args.scales)
        + " (each as measured when it ran; a rerun reuses finished steps)."),
        "",
        "| source | build tokens | spec weight | proposed weight | best proxy's weight |",
        "|---|---:|---:|---:|---:|",
    ]
    for entry in record["sources"]:
        name = entry["name"]
        lines.append(f"| {name} | {entry['tokens']:,} | {fit['spec']['spec_weights_as_written'][name]:.3f} | "
                     f"{fit['proposal']['weights'][name]:.3f} | {fit['best_proxy']['weights'][name]:.3f} |")
    spearman = "n/a" if heldout["spearman"] is None else f"{heldout['spearman']:.3f}"
    lines += [
        "",
        (f"- Fit: {fit['fit']['model']} ridge (alpha {fit['fit']['alpha']:g}) on log bits/byte, chosen by "
         f"leave-one-out "
        f"RMSE; on held-out proxies (nested leave-one-out) **Spearman {spearman}**, RMSE {heldout['rmse_bpb']:.4f} "
        f"bits/byte; in-sample R² {fit['fit']['in_sample_r2']:.3f}. Proxies' bits/byte ranged "
        f"{min(r['eval']['heldout']['bits_per_byte'] for r in search['rows']):.4f}.."
        f"{max(r['eval']['heldout']['bits_per_byte'] for r in search['rows']):.4f}."),
        seed_noise_line(fit.get("seed_noise")),
        (f"- Predicted at proxy scale: proposal {fit['proposal']['predicted_bpb']:.4f}, spec "
        f"{fit['spec']['predicted_bpb']:.4f} (its proxy measured {fit['spec']['measured_bpb']:.4f}); best proxy "
        f"{fit['best_proxy']['bits_per_byte']:.4f}. Proposal outside the proxies' range for: "
        f"{', '.join(fit['proposal']['sources_outside_proxy_range']) or 'none'}."),
        "",
        (f"Final runs: the proposal and the spec's mixture at {' and '.join(f'{k}x' for k in args.scales)} a proxy's "
         f"steps, each with train seeds {', '.join(map(str, args.seeds))}; held-out bits per byte:"),
        "",
        "| scale | steps | tokens | train seed | proposal | spec | proposal − spec |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    verdicts = []
    for scale in args.scales:
        runs = [r for r in finals if r["scale"] == scale]
        by = {(r["mixture"], r["train_seed"]): r["eval"]["heldout"]["bits_per_byte"] for r in runs}
        diffs = [by[("proposal", seed)] - by[("spec", seed)] for seed in args.seeds]
        for seed, diff in zip(args.seeds, diffs):
            lines.append(f"| {scale}x | {args.steps * scale} | {runs[0]['tokens_seen']:,} | {seed} | "
                         f"{by[('proposal', seed)]:.4f} | {by[('spec', seed)]:.4f} | {diff:+.4f} |")
        mean_p = statistics.mean(by[("proposal", s)] for s in args.seeds)
        mean_s = statistics.mean(by[("spec", s)] for s in args.seeds)
        lines.append(f"| {scale}x | | | mean | {mean_p:.4f} | {mean_s:.4f} | {mean_p - mean_s:+.4f} |")
        spread = max(abs(by[(m, args.seeds[0])] - by[(m, s)]) for m in ("proposal", "spec") for s in args.seeds)
        verdict = ("lower (better) than the spec's for every seed" if all(d < 0 for d in diffs) else
                   "higher (worse) than the spec's for every seed" if all(d > 0 for d in diffs) else
                   "mixed across seeds")
        verdicts.append(f"- At {scale}x the proxy steps the proposal's held-out bits per byte is **{verdict}** "
                        f"({(mean_p / mean_s - 1) * 100:+.2f}% on the mean); one mixture's bits per byte moves up to "
                        f"{spread:.4f} between train seeds.")
    lines += ["", *verdicts,
              (f"- Cost: the search trained {len(search['rows'])} x {record['tokens_per_proxy']:,} = "
               f"{len(search['rows']) * record['tokens_per_proxy']:,} tokens, plus one proxy for the seed check: "
               f"{(len(search['rows']) + 1) / max(args.scales):.2f}x one {max(args.scales)}x run here, where proxy "
               "and final model are the same size; RegMix's proxies are ~1M-parameter models for a 1B target, about "
               "2% of its compute."),
              (f"- Sources: {', '.join(sources)}; proposal and spec weights are written in `SEARCH/proposal.yaml` and "
              "`fit.json` (bench/.cache/search/)."), ""]
    return "\n".join(lines)


def seed_noise_line(noise: dict | None) -> str:
    if not noise:
        return "- Seed noise: not measured."
    return (f"- Seed noise (the search's seed check): the spec's mixture scores "
            f"{noise['bits_per_byte'][0]:.4f} at seed {noise['seeds'][0]} and {noise['bits_per_byte'][1]:.4f} at "
            f"seed {noise['seeds'][1]} (one run's sigma {noise['sigma']:.4f}); the proxies' sd is "
            f"{noise['proxies_sd']:.4f}, **{noise['signal_to_noise']:.2f} "
            "sigmas**.")


class Walls:
    """Wall seconds per bench step, kept in a file: a rerun that reuses a step reports the time it took,
    and one that finishes a step begun earlier (a killed run, or proxies added) adds its time to it."""

    def __init__(self, path: Path):
        self.path = path
        self.seconds = json.loads(path.read_text()) if path.is_file() else {}

    @contextlib.contextmanager
    def step(self, name: str):
        started, record = time.monotonic(), types.SimpleNamespace(worked=True, partly=False)
        yield record
        if record.worked or name not in self.seconds:
            earlier = self.seconds.get(name, 0.0) if record.partly else 0.0
            self.seconds[name] = earlier + time.monotonic() - started
            self.path.write_text(json.dumps(self.seconds, indent=1))


def torch_version() -> str:
    import torch

    return torch.__version__


def megatron_version() -> str:
    from importlib.metadata import version

    return version("megatron-core")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.search", description=__doc__.splitlines()[0])
    parser.add_argument("--proxies", type=int, default=24)
    parser.add_argument("--steps", type=int, default=60, help="optimizer steps of a proxy")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4],
                        help="final runs train these many times a proxy's steps")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1234, 1235], help="training seeds of the final runs")
    parser.add_argument("--workers", type=int, default=2, help="proxies at a time")
    parser.add_argument("--token-budget", type=int, default=10_000_000, help="the spec's short-stage budget")
    parser.add_argument("--cache", type=Path, default=BENCH / ".cache" / "search")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    started = common.begin_run()
    logging.getLogger("megatron").setLevel(logging.WARNING)
    cache = args.cache
    build_archives = fetch_sdists(BUILD_SDISTS, cache / "sdists")
    heldout = extract_heldout(fetch_sdists(HELDOUT_SDISTS, cache / "sdists"), cache / "heldout")
    spec_path, build = cache / "spec.yaml", cache / "build"
    write_spec(spec_path, build_archives, args.token_budget)
    walls = Walls(cache / "walls.json")
    with walls.step("build") as step:
        step.worked = not (build / "manifest.json").is_file()
        if step.worked and mix(["build", str(spec_path), "--out", str(build)]) != 0:
            raise SystemExit("mix build failed")
    search_argv = [str(spec_path), "--build", str(build), "--proxies", str(args.proxies), "--steps", str(args.steps),
                   "--eval-set", f"heldout={heldout}", "--out", str(cache / "search"), "--seq-length", "256",
                   "--parallel", str(args.workers), *[f"--bounds={s}=0.05:0.7" for s in SPEC_WEIGHTS]]
    with walls.step("search") as step:
        result = run_search(parse_args(search_argv))
        step.worked, step.partly = result.trained > 0, result.trained < result.total
    finals = []
    for scale in args.scales:
        with walls.step(f"finals-x{scale}") as step:
            runs = train_finals(search_argv, result.proposal, result.spec_weights, scale, args.seeds,
                                cache / f"finals-x{scale}", args.workers)
            step.worked = not all(run["reused"] for run in runs)
            step.partly = any(run["reused"] for run in runs)
        finals += [dict(run, scale=scale) for run in runs]
    manifest = json.loads((build / "manifest.json").read_text())
    files = sorted(heldout.rglob("*.py"))
    info = {"megabytes": corpus_bytes(spec_path) / 1e6, "documents": manifest["counts"]["kept"],
            "tokens": manifest["stages"]["short"]["tokens"], "heldout_files": len(files),
            "heldout_bytes": sum(f.stat().st_size for f in files)}
    search = {"fit": result.fit_json, "rows": result.rows,
              "record": json.loads((cache / "search" / "search.json").read_text())}
    text = render(args, started, info, search, finals, walls.seconds)
    common.write_section(args.results, text, BEGIN, END)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
