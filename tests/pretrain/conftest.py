"""Pretrain fixtures: one small real `mix build`, a held-out code set, and a short -> long -> sft run chain.

Everything is session-scoped and built once: the build (~25 s of CPU), 30 steps of ``tiny`` on its
``short`` stage, 2 steps of ``long`` (YaRN) from that, 2 steps of ``sft`` from that. Runs use one
torch thread: faster than two on a loaded 2-core machine, and the same for every run in the session,
which the bit-exact resume test relies on.

The build tokenizes with a base model's tokenizer in Kimi K2's form: a tiktoken file and a
``tokenizer_config.json`` beside it (special tokens after the ranks, the split regex by name), made
from a byte-level BPE trained on the code (so its merges are realistic for it). Its short stage
also carries over 1 MB of other real stdlib code, on which the shards' ids are checked against
``tiktoken`` itself and the hand-off bundle's ``AutoTokenizer``.
"""

from __future__ import annotations

import base64
import json
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
import yaml

from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.sft_shards import loss_mask_prefix
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.run import TrainOptions, TrainSummary, run

STDLIB = Path(sysconfig.get_path("stdlib"))
# Small and mid-sized real modules: whole files fit the long stage's 1024 tokens only when small.
TRAIN_FILES = ["json/__init__.py", "json/decoder.py", "json/encoder.py", "json/scanner.py", "json/tool.py",
               "textwrap.py", "shlex.py", "fnmatch.py", "queue.py", "bisect.py", "tty.py",
               "turtledemo/chaos.py", "turtledemo/yinyang.py", "turtledemo/peace.py", "turtledemo/lindenmayer.py",
               "asyncio/threads.py", "importlib/machinery.py"]
HELDOUT_FILES = ["colorsys.py", "heapq.py"]
# Over 1 MB of real code for the tokenizer checks: whole stdlib packages the other sets do not use.
MORE_CODE = ["email", "asyncio", "concurrent", "importlib/metadata", "logging", "multiprocessing", "xml", "http",
             "unittest", "urllib"]
SHORT_STEPS, SAVE_INTERVAL, SFT_LENGTH = 30, 10, 2048
SPECIALS = ("<|endoftext|>", "<|pad|>", "<|im_start|>", "<|im_end|>")


@pytest.fixture(scope="session")
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@dataclass(frozen=True)
class BaseTokenizer:
    """A base model's tokenizer in tiktoken form, and the ``tiktoken.Encoding`` that is its reference."""

    directory: Path
    ranks: dict[bytes, int]
    specials: dict[str, int]

    def encoding(self):
        import tiktoken

        from codemix.mixtures.tokenizer import SPLIT_PATTERNS

        return tiktoken.Encoding("codemix-test", pat_str=SPLIT_PATTERNS["gpt2"], mergeable_ranks=self.ranks,
                                 special_tokens=self.specials)


@pytest.fixture(scope="session")
def base_tokenizer(tmp_path_factory) -> BaseTokenizer:
    """tiktoken.model + tokenizer_config.json (Kimi K2's layout) from a 1000-id BPE trained on the code."""
    from codemix.mixtures.tokenizer import byte_symbols, train_bpe

    bpe = train_bpe([(STDLIB / name).read_text(encoding="utf-8") for name in TRAIN_FILES], 1000, SPECIALS)
    to_byte = {symbol: b for b, symbol in enumerate(byte_symbols())}
    pieces = [token for token, _ in sorted(bpe.get_vocab(with_added_tokens=False).items(), key=lambda kv: kv[1])
              if token not in SPECIALS]
    ranks = {bytes(to_byte[c] for c in token): rank for rank, token in enumerate(pieces)}
    specials = {token: len(ranks) + i for i, token in enumerate(SPECIALS)}
    directory = tmp_path_factory.mktemp("base-tokenizer")
    (directory / "tiktoken.model").write_text("".join(f"{base64.b64encode(token).decode()} {rank}\n"
                                                      for token, rank in ranks.items()))
    config = {"pat_str": "gpt2", "eos_token": "<|endoftext|>", "pad_token": "<|pad|>",
              "added_tokens_decoder": {str(i): {"content": t, "special": True} for t, i in specials.items()}}
    (directory / "tokenizer_config.json").write_text(json.dumps(config))
    return BaseTokenizer(directory=directory, ranks=ranks, specials=specials)


def more_code_files() -> list[Path]:
    files = sorted(p for package in MORE_CODE for p in (STDLIB / package).rglob("*.py") if "test" not in p.parts)
    assert sum(p.stat().st_size for p in files) > 1_100_000, "guard: over 1 MB of real code"
    return files


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory, shared_transcripts, base_tokenizer) -> Path:
    """`mix build` of real stdlib code and the real agent transcripts (SFT samples with loss masks),
    tokenized with the tiktoken-form base tokenizer."""
    root = tmp_path_factory.mktemp("pretrain-build")
    for name in TRAIN_FILES:
        (root / "code" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(STDLIB / name, root / "code" / name)
    for path in more_code_files():
        target = root / "more" / path.relative_to(STDLIB)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    transcripts = [str(p) for p in sorted(shared_transcripts.rglob("*")) if p.is_file() and p.suffix != ".md"]
    spec = {
        "name": "pretrain-fixture",
        "sources": [
            {"name": "code", "type": "directory", "paths": [str(root / "code")], "include": ["*.py"], "license": "PSF-2.0"},
            {"name": "more", "type": "directory", "paths": [str(root / "more")], "include": ["*.py"], "license": "PSF-2.0"},
            {"name": "runs", "type": "transcripts", "paths": transcripts, "license": "MIT"},
        ],
        "stages": {
            "short": {"sequence_length": 64, "token_budget": 1_500_000, "weights": {"code": 1.0, "more": 1.0, "runs": 0.2}},
            "long": {"sequence_length": 1024, "token_budget": 200_000, "weights": {"code": 1.0}},
            "sft": {"sequence_length": SFT_LENGTH, "token_budget": 50_000, "weights": {"runs": 1.0}},
        },
        "tokenizer": {"path": str(base_tokenizer.directory)},
    }
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = root / "out"
    assert mix(["build", str(root / "spec.yaml"), "--out", str(out)]) == 0
    sft_prefixes = read_manifest(str(out))["stages"]["sft"]["data_path"][1::2]
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
    """Train tiny at the build's sequence lengths (64, 1024, 2048), not the recipe's CPU defaults."""
    recipe = load_recipe("tiny", [f"train.{stage}.sequence_length=null"])
    return run(TrainOptions(recipe=recipe, stage=stage, data_dir=str(build), out_dir=str(out), steps=steps, **options))


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
    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.parallel import initialize, shutdown

    state = initialize(ParallelConfig(), seed=0)
    yield state
    shutdown(state)
