"""Pretrain fixtures: one small real `mix build`, a held-out code set, and a short -> long -> sft run chain.

Everything is session-scoped and built once: the build (~20 s of CPU), 30 steps of ``tiny`` on its
``short`` stage, 2 steps of ``long`` (YaRN) from that, 2 steps of ``sft`` from that. Runs use one
torch thread: faster than two on a loaded 2-core machine, and the same for every run in the session,
which the bit-exact resume test relies on.
"""

from __future__ import annotations

import json
import shutil
import sysconfig
from pathlib import Path

import pytest
import torch
import yaml

from mix.cli import main as mix
from mixtures.sft import loss_mask_prefix
from pretrain.configs import load_recipe
from pretrain.run import TrainOptions, TrainSummary, run

STDLIB = Path(sysconfig.get_path("stdlib"))
# Small and mid-sized real modules: whole files fit the long stage's 1024 tokens only when small.
TRAIN_FILES = ["json/__init__.py", "json/decoder.py", "json/encoder.py", "json/scanner.py", "json/tool.py",
               "textwrap.py", "shlex.py", "fnmatch.py", "queue.py", "bisect.py", "tty.py",
               "turtledemo/chaos.py", "turtledemo/yinyang.py", "turtledemo/peace.py", "turtledemo/lindenmayer.py",
               "asyncio/threads.py", "importlib/machinery.py"]
HELDOUT_FILES = ["colorsys.py", "heapq.py"]
SHORT_STEPS, SAVE_INTERVAL, SFT_LENGTH = 30, 10, 2048


@pytest.fixture(scope="session")
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory, shared_transcripts) -> Path:
    """`mix build` of real stdlib code and the real agent transcripts (SFT samples with loss masks)."""
    root = tmp_path_factory.mktemp("pretrain-build")
    for name in TRAIN_FILES:
        (root / "code" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(STDLIB / name, root / "code" / name)
    transcripts = [str(p) for p in sorted(shared_transcripts.rglob("*")) if p.is_file() and p.suffix != ".md"]
    spec = {
        "name": "pretrain-fixture",
        "sources": [
            {"name": "code", "type": "directory", "paths": [str(root / "code")], "include": ["*.py"], "license": "PSF-2.0"},
            {"name": "runs", "type": "transcripts", "paths": transcripts, "license": "MIT"},
        ],
        "stages": {
            "short": {"sequence_length": 64, "token_budget": 200_000, "weights": {"code": 1.0, "runs": 0.2}},
            "long": {"sequence_length": 1024, "token_budget": 200_000, "weights": {"code": 1.0}},
            "sft": {"sequence_length": SFT_LENGTH, "token_budget": 50_000, "weights": {"runs": 1.0}},
        },
        "tokenizer": {"vocab_size": 1000},
    }
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = root / "out"
    assert mix(["build", str(root / "spec.yaml"), "--out", str(out)]) == 0
    sft_prefixes = json.loads((out / "manifest.json").read_text())["stages"]["sft"]["data_path"][1::2]
    assert sft_prefixes and all(Path(loss_mask_prefix(p) + ".idx").is_file() for p in sft_prefixes), \
        "guard: the build wrote SFT samples with loss masks"
    return out


@pytest.fixture(scope="session")
def heldout_dir(tmp_path_factory) -> Path:
    """Real code the build never saw."""
    root = tmp_path_factory.mktemp("heldout")
    for name in HELDOUT_FILES:
        shutil.copyfile(STDLIB / name, root / name)
    return root


def train(build: Path, out: Path, stage: str, steps: int, **options) -> TrainSummary:
    return run(TrainOptions(recipe=load_recipe("tiny"), stage=stage, data_dir=str(build), out_dir=str(out),
                            steps=steps, **options))


@pytest.fixture(scope="session")
def short_run(build_dir, tmp_path_factory, one_thread) -> TrainSummary:
    """30 steps of tiny on the short stage, checkpoints every 10 steps."""
    out = tmp_path_factory.mktemp("runs") / "short"
    return train(build_dir, out, "short", SHORT_STEPS, save_interval=SAVE_INTERVAL, peak_tflops=0.05)


@pytest.fixture(scope="session")
def long_run(build_dir, short_run, tmp_path_factory, one_thread) -> TrainSummary:
    """2 steps of the long stage (1024 tokens, YaRN) from the short run's last checkpoint."""
    out = tmp_path_factory.mktemp("runs") / "long"
    return train(build_dir, out, "long", 2, init_from=short_run.checkpoint)


@pytest.fixture(scope="session")
def sft_run(build_dir, long_run, tmp_path_factory, one_thread) -> TrainSummary:
    """2 steps of SFT from the long run: the chain a hand-off bundle traces back."""
    out = tmp_path_factory.mktemp("runs") / "sft"
    return train(build_dir, out, "sft", 2, init_from=long_run.checkpoint)


@pytest.fixture
def runtime():
    """A CPU megatron-core runtime for tests that build models themselves (set up and torn down per
    test, so session runs, which set up their own, never find one half-owned)."""
    from pretrain.configs import ParallelConfig
    from pretrain.parallel import initialize, shutdown

    state = initialize(ParallelConfig(), seed=0)
    yield state
    shutdown(state)
