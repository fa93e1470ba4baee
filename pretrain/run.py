"""One training run of one stage, start to finish: set-up, resume, the step loop, logs, checkpoints.

Design notes: docs/design/pretrain.md, "pretrain/run.py".
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pretrain.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from codemix.pretrain.configs import Recipe
from codemix.pretrain.data.stage import BatchPlan, StageData, build_stage_dataset, read_stage
from codemix.pretrain.hf.base_import import base_tokenizer, describe_tokenizer, import_base
from codemix.pretrain.lineage import has_run, read_run, run_of_checkpoint, write_run
from codemix.pretrain.loop import Trainer, TrainState, append_jsonl, configure_gpu_schedule, log_row
from codemix.pretrain.metrics import ExpertLoadMonitor
from codemix.pretrain.model.fp8 import EmulatedPrecision, emulate_precision
from codemix.pretrain.model.gpt import PositionSetup, build_model, padded_vocab_size, position_setup
from codemix.pretrain.model.params import count_parameters
from codemix.pretrain.parallel import (
    HAVE_TE,
    Runtime,
    build_optimizer,
    check_precision,
    initialize,
    shutdown,
    wrap_model,
)

logger = logging.getLogger(__name__)


@dataclass(slots=True, kw_only=True)
class TrainOptions:
    """A run's inputs beyond the recipe: stage, data, where to write, how long, where to start."""

    recipe: Recipe
    stage: str
    data_dir: str
    out_dir: str
    steps: int
    run_id: str | None = None  # default: the --out directory's name
    save_interval: int = 0  # also save every N steps (0: only at the end)
    log_interval: int = 1
    sequence_length: int | None = None  # overrides the recipe's and the manifest's
    init_from: str | None = None  # a checkpoint whose weights start this run
    resume_from: str | None = None  # a checkpoint to continue exactly (default: OUT/checkpoints/latest)
    peak_tflops: float | None = None  # per device; default from the GPU's name, none on CPU (MFU not logged)
    tokenizer: str | None = None  # the model's tokenizer, when neither the base nor the parent run records one


@dataclass(slots=True, kw_only=True)
class TrainSummary:
    run_id: str
    out_dir: str
    checkpoint: str
    state: TrainState
    rows: list[dict[str, Any]] = field(default_factory=list)
    initial_weights: str = ""  # sha256 of the weights before the first step: paired runs start alike


def weights_digest(model) -> str:
    """sha256 over every parameter's bytes in state-dict order: equal digests, equal weights."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        if isinstance(tensor, torch.Tensor) and not name.endswith("_extra_state"):
            digest.update(name.encode())
            digest.update(tensor.detach().to("cpu").contiguous().view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:16]


def run(options: TrainOptions) -> TrainSummary:
    """Train ``options.stage`` for ``options.steps`` optimizer steps (counted from step 0 of the run)."""
    if options.steps < 1:
        raise ConfigError("--steps", "must be at least 1")
    # Before any I/O: an FP8 request this machine would silently run in BF16 fails in milliseconds.
    emulate = options.recipe.precision.emulate  # the FP8/BF16 emulation runs on CPU, even on a GPU machine
    check_precision(options.recipe.precision, cuda=torch.cuda.is_available() and not emulate, have_te=HAVE_TE)
    data = read_stage(options.data_dir, options.stage)
    train = options.recipe.stage(options.stage)
    sequence_length = options.sequence_length or train.sequence_length or data.sequence_length
    check_sequence_length(options, data, sequence_length)
    resuming = bool(options.resume_from or latest_checkpoint(options.out_dir))
    importing = bool(options.recipe.init_from_hf) and not (resuming or options.init_from)
    model = check_tokenizer(options, data, base=options.recipe.init_from_hf if importing else None)
    if model is not None and model.get("pad_token"):  # the base's own pad (its tokenizer config), not a guess
        data = replace(data, pad_token=model["pad_token"])
    if importing:
        options.init_from = str(prepare_base(options))
    runtime = initialize(options.recipe.parallel, seed=train.seed, sequence_length=sequence_length,
                         precision=options.recipe.precision, force_cpu=emulate)
    try:
        position = run_position(options)
        trainer = make_trainer(options, data, runtime, sequence_length, position)
        run_id = options.run_id or Path(options.out_dir).name
        write_run_json(options, data, run_id, sequence_length, position, runtime)
        start_from(trainer, options)
        initial = weights_digest(trainer.model)
        rows = train_loop(trainer, options, run_id)
        checkpoint = save_checkpoint(options.out_dir, trainer.model, trainer.optimizer, trainer.state.to_dict(),
                                     cuda=runtime.cuda)
        return TrainSummary(run_id=run_id, out_dir=options.out_dir, checkpoint=str(checkpoint), state=trainer.state,
                            rows=rows, initial_weights=initial)
    finally:
        shutdown(runtime)


def check_sequence_length(options: TrainOptions, data: StageData, sequence_length: int) -> None:
    """The stage's sequence length fits the model (refused with where the length came from)."""
    if sequence_length <= options.recipe.model.max_context:
        return
    origin = ("--seq-length" if options.sequence_length else f"train.{options.stage}.sequence_length"
              if options.recipe.stage(options.stage).sequence_length else f"the build's {options.stage} stage")
    raise ConfigError("--seq-length", f"{origin} asks for {sequence_length} tokens, above the recipe's "
                      f"model.max_context {options.recipe.model.max_context}",
                      f"pass --seq-length {options.recipe.model.max_context} or less, or raise model.max_context")


def prepare_base(options: TrainOptions) -> Path:
    """Import ``recipe.init_from_hf`` into ``OUT/base`` once; its checkpoint starts the run."""
    base = Path(options.out_dir) / "base"
    existing = latest_checkpoint(base)
    if existing is not None:
        return existing
    if torch.cuda.is_available() and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        raise ConfigError("--init-from-hf", "several ranks would import the base at once",
                          f"import it first: python -m codemix.pretrain.hf.base_import {options.recipe.init_from_hf} --out {base}")
    return import_base(options.recipe, base)


def check_tokenizer(options: TrainOptions, data: StageData, *, base: str | None) -> dict[str, Any] | None:
    """Refuse a build whose shards were written with another tokenizer than the model's (``base``: the
    Hugging Face directory about to be imported), before anything is imported or trained; returns the
    model's tokenizer record (None: trained from scratch, the build's tokenizer)."""
    built = describe_tokenizer(load_tokenizer(data.tokenizer_path), data.tokenizer_path)
    model = model_tokenizer(options, base)
    if model is None or model["fingerprint"] == built["fingerprint"]:
        return model
    raise ConfigError("--data", f"the build {data.build_dir} was tokenized with {built['path']} ({built['vocab_size']} "
                      f"ids, fingerprint {built['fingerprint']}), but the model's tokenizer is {model['path']} "
                      f"({model['vocab_size']} ids, fingerprint {model['fingerprint']})",
                      f"rebuild the mixture with tokenizer.path: {model['path']}")


def model_tokenizer(options: TrainOptions, base: str | None) -> dict[str, Any] | None:
    """The model's tokenizer: --tokenizer, else the base's, else what the starting checkpoint's run
    recorded (an imported base records its own). None: a model trained from scratch, whose tokenizer
    is the build's."""
    if options.tokenizer:
        return describe_tokenizer(load_tokenizer(options.tokenizer), options.tokenizer)
    if base:
        found = base_tokenizer(base)
        if found is None:
            raise ConfigError("--init-from-hf", f"{base} ships no tokenizer to check the build against",
                              "pass --tokenizer PATH, the base model's tokenizer")
        return found
    parent = run_of_checkpoint(options.init_from or options.resume_from)
    return parent.get("tokenizer") if parent is not None else None


def run_position(options: TrainOptions) -> PositionSetup:
    """RoPE of this run: YaRN in the long stage, and in any run started from a YaRN run's weights."""
    parent = run_of_checkpoint(options.init_from or options.resume_from)
    extended = parent is not None and PositionSetup(**parent.get("position", {})).scaled
    return position_setup(options.recipe, options.stage, extended=extended)


def make_trainer(options: TrainOptions, data: StageData, runtime: Runtime, sequence_length: int,
                 position: PositionSetup) -> Trainer:
    """Model, optimizer, dataset and batch plan of the stage on this device."""
    recipe, train = options.recipe, options.recipe.stage(options.stage)
    model = build_model(recipe, vocab_size=data.tokenizer().vocab_size, sequence_length=sequence_length,
                        position=position, cpu=not runtime.cuda)
    if recipe.precision.emulate:  # CPU numerics study: GEMM operands rounded as on the GPU (pretrain.model.fp8)
        emulate_precision(model, EmulatedPrecision.from_config(recipe.precision))
    wrapped = wrap_model(model, runtime)
    optimizer = build_optimizer(wrapped, train, runtime, bf16=recipe.precision.dtype == "bf16")
    if runtime.cuda:
        configure_gpu_schedule(wrapped, optimizer)
    plan = BatchPlan(micro_batch_size=train.micro_batch_size, global_batch_size=train.global_batch_size,
                     data_parallel_size=runtime.data_parallel_size, data_parallel_rank=runtime.data_parallel_rank)
    plan.validate()
    dataset = build_stage_dataset(data, sequence_length=sequence_length, num_samples=options.steps * plan.global_batch_size,
                                  cache_dir=str(Path(options.out_dir) / "data_cache"), seed=train.seed,
                                  attention_mask=not runtime.te_attention)
    return Trainer(recipe=recipe, stage=options.stage, train=train, runtime=runtime, model=model, wrapped=wrapped,
                   optimizer=optimizer, dataset=dataset, sources=data.sources, plan=plan,
                   sequence_length=sequence_length, total_steps=options.steps, monitor=ExpertLoadMonitor(model))


def start_from(trainer: Trainer, options: TrainOptions) -> None:
    """Resume this run's own state, or start from another run's weights, or from scratch."""
    resume = options.resume_from or latest_checkpoint(options.out_dir)
    if resume:
        state = load_checkpoint(resume, trainer.model, trainer.optimizer, cuda=trainer.runtime.cuda)
        trainer.state = TrainState(**state)
        logger.info("resumed from %s at step %d", resume, trainer.state.step)
    elif options.init_from:
        load_checkpoint(options.init_from, trainer.model)
        logger.info("initialised weights from %s", options.init_from)


def train_loop(trainer: Trainer, options: TrainOptions, run_id: str) -> list[dict[str, Any]]:
    """Step until ``options.steps``, logging every step to metrics.jsonl and saving on the interval."""
    rows, metrics = [], Path(options.out_dir) / "metrics.jsonl"
    active = count_parameters(trainer.recipe.model, padded_vocab_size(trainer.model.vocab_size)).active_matmul
    peak = peak_flops(options, trainer.runtime, trainer.recipe)
    while trainer.state.step < options.steps:
        stats = trainer.step()
        row = log_row(run_id, trainer.stage, trainer.state, stats, active_matmul_params=active, peak_flops=peak)
        rows.append(row)
        if trainer.runtime.rank == 0:
            append_jsonl(metrics, row)
            if trainer.state.step % options.log_interval == 0:
                print(format_row(row), flush=True)
        if options.save_interval and trainer.state.step % options.save_interval == 0 and trainer.state.step < options.steps:
            save_checkpoint(options.out_dir, trainer.model, trainer.optimizer, trainer.state.to_dict(),
                            cuda=trainer.runtime.cuda)
    return rows


def peak_flops(options: TrainOptions, runtime: Runtime, recipe: Recipe) -> float | None:
    """Peak FLOP/s of all devices of the run: --peak-tflops, else the GPU's datasheet BF16 figure (x2 in FP8)."""
    per_device = options.peak_tflops or runtime.peak_tflops
    if per_device is None:
        return None
    fp8 = 2.0 if recipe.precision.fp8 and not options.peak_tflops else 1.0
    return per_device * fp8 * 1e12 * runtime.world_size


def format_row(row: dict[str, Any]) -> str:
    mfu = f" mfu {row['mfu']:.1%}" if row["mfu"] is not None else ""
    balance = " ".join(f"{x:.2f}" for x in row["expert_imbalance"])
    return (f"[{row['stage']}] step {row['step']:>6}  loss {row['loss']:.4f}  lr {row['lr']:.2e}  "
            f"grad {row['grad_norm']:.3f}  {row['tokens_per_s']:,.0f} tok/s{mfu}  expert max/mean {balance}")


def lineage_parent(options: TrainOptions) -> str | None:
    """The checkpoint whose *weights* this stage started from. A run resumed from another directory
    continues that run's stage (its tokens are already in the resumed state), so it inherits the
    parent's own starting point rather than pointing at the parent."""
    if not options.resume_from:
        return options.init_from
    parent = run_of_checkpoint(options.resume_from)
    return parent.get("init_from") if parent is not None else None


def build_tokenizer_record(data: StageData) -> dict[str, Any]:
    """The tokenizer the run trains with (the build's), as later stages and the hand-off read it."""
    tokenizer = data.tokenizer()
    return describe_tokenizer(tokenizer.hf_tokenizer, data.tokenizer_path) | {
        "eod_token": tokenizer.eod_token, "pad_token": tokenizer.pad_token}


def write_run_json(options: TrainOptions, data: StageData, run_id: str, sequence_length: int, position: PositionSetup,
                   runtime: Runtime) -> None:
    """Record what the run is (written once; a resumed run must be the same stage of the same build)."""
    record = {
        "run_id": run_id, "stage": options.stage, "recipe": asdict(options.recipe), "steps": options.steps,
        "sequence_length": sequence_length, "position": asdict(position), "init_from": lineage_parent(options),
        "resumed_from": options.resume_from,
        "data": {"build_dir": str(Path(data.build_dir).resolve()), "spec_hash": data.spec_hash,
                 "spec_name": data.manifest.get("spec_name"), "data_path": data.data_path, "sources": data.sources},
        "tokenizer": build_tokenizer_record(data),
        "device": "cuda" if runtime.cuda else "cpu", "world_size": runtime.world_size,
    }
    if has_run(options.out_dir):
        earlier = read_run(options.out_dir)
        if (earlier["stage"], earlier["data"]["spec_hash"]) != (options.stage, data.spec_hash):
            raise ConfigError("--out", f"{options.out_dir} holds a run of stage {earlier['stage']!r} on another build",
                              "use a new --out directory for a new stage or build")
        return
    if runtime.rank == 0:
        write_run(options.out_dir, record)
