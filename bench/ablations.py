"""Does a data decision move the model? Paired proxy ablations from one corpus (issue 52).

    .venv/bin/python -m bench.ablations                                     # CPU: 3 seeds x 2 decisions
    .venv/bin/python -m bench.ablations --steps 4 --seeds 0 1 --results /tmp/R.md   # a smoke run
    bash bench/gpu_ablations.sh                                             # the GPU path ($OUT/ablations.md)

Corpus: part of the standard library (no tests) and two releases each of requests (2.31.0, 2.32.3) and
click (8.1.7, 8.1.8) read from their sdists, so near-duplicates exist for dedup to remove. Held out,
never in any build: the code of six 1.16.0 and itsdangerous 2.2.0. Builds: the control (dedup on,
repositories in dependency order, its own BPE), one build per decision with that one field changed and
the control's tokenizer (one vocabulary, so a seed gives every arm the same initial weights).

Decisions: dedup on vs off (stage ``short``); repository order dependency vs random (stage ``long``);
with ``--proposal FILE`` (a ``mix search`` proposal.json) the spec's mixture vs the proposal; with
``--quality-model PATH`` learned-quality keep 100% vs 80%. Each arm trains ``--model`` proxies of
``--steps`` steps with every seed (``pretrain.search.ablate``), scored in bits per byte on the held-out
code; per decision the paired difference treatment - control and its 95% t-interval.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import sysconfig
import time
from pathlib import Path

import yaml

from bench import tokenize as common
from bench.search import extract_heldout, fetch_sdists
from codemix.mix.cli import main as mix
from codemix.pretrain.search.ablate import Arm, Decision, decide, run_arm, table
from codemix.pretrain.search.orchestrate import SearchConfig

BENCH = Path(__file__).resolve().parent
BUILD_SDISTS = ["requests==2.31.0", "requests==2.32.3", "click==8.1.7", "click==8.1.8"]
HELDOUT_SDISTS = ["six==1.16.0", "itsdangerous==2.2.0"]
STDLIB_PARTS = ["json/*", "email/*", "http/*", "logging/*", "concurrent/*", "importlib/*", "xml/*", "urllib/*",
                "asyncio/*", "unittest/*", "*.py"]
STDLIB_SKIP = ["test/*", "*/test/*", "*/tests/*", "idlelib/*", "lib2to3/*", "tkinter/*", "turtledemo/*",
               "site-packages/*", "ensurepip/*", "pydoc_data/*"]


def base_spec(archives: dict[str, Path]) -> dict:
    return {
        "name": "bench-ablations",
        "sources": [
            {"name": "stdlib", "type": "directory", "paths": [sysconfig.get_path("stdlib")], "include": STDLIB_PARTS,
             "exclude": STDLIB_SKIP, "license": "PSF-2.0"},
            {"name": "requests", "type": "archive", "paths": [str(archives["requests-2.31.0"]),
                                                               str(archives["requests-2.32.3"])],
             "include": ["*.py"], "license": "Apache-2.0"},
            {"name": "click", "type": "archive", "paths": [str(archives["click-8.1.7"]), str(archives["click-8.1.8"])],
             "include": ["*.py"], "license": "BSD-3-Clause"},
        ],
        "stages": {
            "short": {"sequence_length": 256, "token_budget": 3_000_000,
                      "weights": {"stdlib": 0.6, "requests": 0.2, "click": 0.2}},
            "long": {"sequence_length": 1024, "token_budget": 3_000_000,
                     "weights": {"stdlib": 0.6, "requests": 0.2, "click": 0.2},
                     "repository": {"order": "dependency"}},
        },
        "tokenizer": {"vocab_size": 4096},
    }


def variants(spec: dict, control_tokenizer: Path, quality_model: str | None) -> dict[str, dict]:
    """Each treatment's spec: the control's with one decision changed and the control's tokenizer."""
    def changed(**edits) -> dict:
        new = json.loads(json.dumps(spec)) | {"tokenizer": {"path": str(control_tokenizer)}}
        for path, value in edits.items():
            *parents, leaf = path.split(".")
            node = new
            for key in parents:
                node = node.setdefault(key, {})
            node[leaf] = value
        return new

    out = {"dedup_off": changed(**{"dedup.exact": False, "dedup.near": False}),
           "order_random": changed(**{"stages.long.repository.order": "random"})}
    if quality_model:
        out["quality_keep_100"] = changed(**{"filters.quality": {"model": quality_model, "keep_fraction": 1.0}})
        out["quality_keep_80"] = changed(**{"filters.quality": {"model": quality_model, "keep_fraction": 0.8}})
    return out


def build(spec: dict, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    out = folder / "build"
    if not (out / "manifest.json").is_file():
        code = mix(["build", str(folder / "spec.yaml"), "--out", str(out), "--no-progress"])
        if code != 0:
            raise SystemExit(f"mix build of {folder / 'spec.yaml'} failed ({code})")
    return out


def decisions(builds: dict[str, Path], proposal: dict | None) -> list[Decision]:
    found = [Decision("dedup", Arm("dedup_on", str(builds["control"])), Arm("dedup_off", str(builds["dedup_off"])),
                      "near-duplicate and exact dedup on vs off"),
             Decision("repository_order", Arm("order_dependency", str(builds["control"]), "long"),
                      Arm("order_random", str(builds["order_random"]), "long"),
                      "long documents in import (dependency) order vs random file order")]
    if "quality_keep_80" in builds:
        found.append(Decision("quality", Arm("keep_100", str(builds["quality_keep_100"])),
                              Arm("keep_80", str(builds["quality_keep_80"])), "learned quality keep 100% vs 80%"))
    if proposal:
        found.append(Decision("mixture", Arm("spec_mixture", str(builds["control"])),
                              Arm("search_proposal", str(builds["control"]), weights=proposal),
                              "the spec's mixture vs mix search's proposal"))
    return found


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ablations", description=__doc__.splitlines()[0])
    parser.add_argument("--work", default=str(BENCH / ".cache" / "ablations"), help="builds, proxies, sdists")
    parser.add_argument("--proxies-dir", help="where proxies train (default: WORK/proxies)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--model", default="tiny", help="proxy recipe (pretrain/configs) or a YAML path")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="recipe override")
    parser.add_argument("--seq-length", type=int, default=256)
    parser.add_argument("--parallel", type=int, default=0, help="proxies at a time (0: one per core)")
    parser.add_argument("--proposal", help="a `mix search` proposal.json: its weights are the mixture arm")
    parser.add_argument("--quality-model", help="a `mix quality train` model: adds the keep 100%% vs 80%% decision")
    parser.add_argument("--results", default=str(BENCH / "RESULTS.md"), help="Markdown file the table is appended to")
    parser.add_argument("--json", help="also write every row as JSON here")
    parser.add_argument("--decisions", nargs="+", help="only these decisions (dedup, repository_order, ...)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started, clock = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"), time.monotonic()
    work = Path(args.work)
    # one pip call per release: two versions of one package cannot share a resolve
    archives = {requirement.replace("==", "-"): fetch_sdists([requirement], work / "sdists")[requirement.split("==")[0]]
                for requirement in BUILD_SDISTS}
    heldout = extract_heldout(fetch_sdists(HELDOUT_SDISTS, work / "sdists-heldout"), work / "heldout")
    spec = base_spec(archives)
    builds = {"control": build(spec, work / "control")}
    for name, variant in variants(spec, builds["control"] / "tokenizer.json", args.quality_model).items():
        builds[name] = build(variant, work / name)
    built = time.monotonic() - clock
    proposal = json.loads(Path(args.proposal).read_text())["weights"] if args.proposal else None
    proxies = Path(args.proxies_dir or work / "proxies")
    base = SearchConfig(spec="", build_dir="", out_dir=str(proxies), proxies=0, steps=args.steps,
                        eval_sets={"heldout": str(heldout)}, model=args.model, overrides=list(args.set),
                        sequence_length=args.seq_length, parallel=args.parallel)
    rows = []
    for decision in decisions(builds, proposal):
        if args.decisions and decision.name not in args.decisions:
            continue
        control = run_arm(base, decision.control, args.seeds, proxies)
        treatment = run_arm(base, decision.treatment, args.seeds, proxies)
        rows.append(decide(decision, control, treatment, "heldout"))
    lines = ["", f"## Paired data ablations (bench.ablations, issue 52), {started}", "",
             (f"{common.machine()}; command `.venv/bin/python -m bench.ablations {' '.join(argv or sys.argv[1:])}`; "
             f"proxies `{args.model}` {' '.join(args.set)} at sequence length {args.seq_length}, {args.steps} steps, "
             f"seeds {', '.join(map(str, args.seeds))} (recipe seed = seed in every arm); held-out: six 1.16.0 and "
             f"itsdangerous 2.2.0 code, in no build. Builds {built:.0f} s, all {time.monotonic() - clock:.0f} s wall."),
             "", *table(rows), "",
             ("Difference = treatment - control held-out bits per byte at the same seed (negative: the treatment "
             "helps). A decision is resolved when its interval excludes 0; `interval width / seed sd` near 4-5 at "
             "3 seeds is what the t-interval costs, and an effect smaller than the width is not resolvable here."), ""]
    text = "\n".join(lines)
    print(text)
    with open(args.results, "a") as results:
        results.write(text)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
