"""Fixed costs of the ``mix`` command (issue 49): CPU seconds of a spec error, ``mix plan`` and ``--version``.

    .venv/bin/python -m bench.fixed_costs [--runs 5]

Each command runs ``--runs`` times in a fresh process, after one untimed run that leaves the bytecode
caches a user has (``PYTHONDONTWRITEBYTECODE`` is unset); the CPU seconds are the child's user + system
time (``resource.getrusage(RUSAGE_CHILDREN)`` before and after), min / median / max. The code measured is
``--tree``'s (default: this checkout), put first on ``PYTHONPATH``: the ``mix`` script of an editable
install would otherwise import the tree it was installed from. The spec with an error names a source no
stage has, so ``load_spec`` refuses it; the valid spec reads one small directory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIX = Path(sys.executable).parent / "mix"


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(argv: list[str], runs: int, expect: int, env: dict[str, str]) -> dict:
    subprocess.run(argv, capture_output=True, env=env, check=False)  # warm: bytecode caches written
    cpu, wall = [], []
    for _ in range(runs):
        before, start = child_cpu(), time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        wall.append(time.perf_counter() - start)
        cpu.append(child_cpu() - before)
        if result.returncode != expect:
            raise SystemExit(f"{' '.join(argv)} exited {result.returncode}, expected {expect}:\n{result.stderr}")
    return {name: {"min": round(min(v), 3), "median": round(statistics.median(v), 3), "max": round(max(v), 3)}
            for name, v in (("cpu_s", cpu), ("wall_s", wall))}


def specs(directory: Path) -> tuple[Path, Path]:
    (directory / "code").mkdir()
    (directory / "code" / "a.py").write_text("def f(x):\n    return x + 1\n")
    good = {"name": "fixed-costs", "sources": [{"name": "code", "type": "directory", "paths": [str(directory / "code")],
                                                "license": "MIT"}],
            "stages": {"short": {"sequence_length": 1024, "token_budget": 1000, "weights": {"code": 1.0}}}}
    bad = {**good, "stages": {"short": {"sequence_length": 1024, "token_budget": 1000, "weights": {"nowhere": 1.0}}}}
    (directory / "good.yaml").write_text(json.dumps(good))
    (directory / "bad.yaml").write_text(json.dumps(bad))
    return directory / "good.yaml", directory / "bad.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1], help="checkout measured")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(args.tree.resolve())
    with tempfile.TemporaryDirectory() as tmp:
        good, bad = specs(Path(tmp))
        report = {"tree": str(args.tree),
                  "mix plan (spec error)": measure([str(MIX), "plan", str(bad)], args.runs, 2, env),
                  "mix --version": measure([str(MIX), "--version"], args.runs, 0, env),
                  "mix plan (valid spec)": measure([str(MIX), "plan", str(good)], args.runs, 0, env)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
