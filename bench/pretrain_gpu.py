"""BF16 vs each FP8 recipe on one CUDA machine: tokens/s, MFU and the loss gap, with no host sync timed.

Run from the repository root (pytest does not collect it); set-up of CUDA torch and Transformer
Engine: ``pretrain/README.md``, "FP8 and GPUs"::

    python -m bench.pretrain_gpu --data out/demo                          # h100-1b, BF16 + every FP8 recipe
    torchrun --nproc-per-node 8 -m bench.pretrain_gpu --data out/demo     # one row per precision for 8 GPUs
    python -m bench.pretrain_gpu --data out/demo --dry-run                # CPU: tiny, FP8 emulated, same path

One invocation:

1. Warm start. One BF16 run of ``--base-steps`` (default: the stage's LR warm-up + 10) writes the only
   checkpoint of the benchmark, before anything is timed; ``--init-from`` names an existing one instead.
2. For BF16 and each FP8 recipe: set the run up as ``pretrain.run`` does, resume the checkpoint
   (weights, optimizer, step, data position), prefetch the next steps' batches onto the device, run
   ``--warmup`` untimed steps (allocator, cuBLAS and TE autotuning), then ``--steps`` timed steps
   between two CUDA events. The timed steps copy nothing to the host: loss sums, token counts and
   expert loads accumulate in device tensors, read after the closing event. One more step, untimed,
   runs under a host-sync audit (``HostSyncs``, and ``torch.cuda.set_sync_debug_mode`` on a GPU).
   A recipe this GPU or its Transformer Engine cannot run is reported with the reason.
3. Per precision: tokens/s; MFU (6·N_active·tokens/s over the GPU SKU's dense peak x world size:
   against the BF16 peak for every row, so speed-ups read directly, and against the FP8 peak for
   FP8 rows); mean loss of the timed steps (same weights, same batches, so the gap to BF16 is the
   precision's); host syncs per step, ours and megatron-core's; max/mean expert load.

``--dry-run`` takes the same code on CPU: recipe ``tiny``, each FP8 recipe emulated
(``precision.emulate``), a few steps, results printed (written only with ``--results``).

megatron-core's own step syncs where it must: a dropless MoE layer reads its per-expert token counts on
the host to size the expert GEMMs and the all-to-all (once per MoE layer and microbatch), and its
optimizer reads the gradient norm for clipping. The audit counts those apart from ours, which must be 0.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import math
import os
import platform
import sys
import tempfile
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import torch

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
BEGIN, END = "<!-- bench.pretrain_gpu: generated, begin -->", "<!-- bench.pretrain_gpu: generated, end -->"
FP8_RECIPES = ("tensorwise", "delayed", "blockwise", "mxfp8")
HEADER = ("| date | device | GPUs | model | seq | timed steps | precision | tok/s | speed-up | MFU (BF16 peak) "
          "| MFU (own peak) | loss | gap to BF16 | host syncs/step: ours, megatron | expert max/mean |\n|"
          + "---|" * 15 + "\n")


# --- host-sync audit ------------------------------------------------------------------------------


class HostSyncs:
    """Counts, while active, every call that makes the host wait for the device, by who made it.

    Patched: ``Tensor.item/tolist/numpy/cpu``, ``float()/int()/bool()/index`` of a tensor, ``Tensor.to("cpu")``
    (or to a CPU device from an accelerator), and ``torch.cuda`` (stream, event) ``synchronize``. On a GPU each is a device-to-host
    wait; on CPU they are what would be one, so the count holds on either. A call is "ours" when the
    code that made it belongs to this repository, else the framework's (megatron-core, torch).
    """

    METHODS = ("item", "tolist", "numpy", "cpu", "__float__", "__int__", "__bool__", "__index__")

    def __init__(self) -> None:
        self.calls: Counter[tuple[str, str]] = Counter()
        self._saved: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> Self:
        for name in self.METHODS:
            self._patch(torch.Tensor, name, self._counting(getattr(torch.Tensor, name), name))
        self._patch(torch.Tensor, "to", self._counting_to(torch.Tensor.to))
        self._patch(torch.cuda, "synchronize", self._counting(torch.cuda.synchronize, "cuda.synchronize"))
        for cls in (torch.cuda.Event, torch.cuda.Stream):
            self._patch(cls, "synchronize", self._counting(cls.synchronize, f"{cls.__name__}.synchronize"))
        return self

    def __exit__(self, *exc) -> None:
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved = []

    def _patch(self, owner: Any, name: str, replacement: Any) -> None:
        self._saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, replacement)

    def _counting(self, original, label: str):
        def counted(*args, **kwargs):
            self.calls[(caller(), label)] += 1
            return original(*args, **kwargs)

        return counted

    def _counting_to(self, original):
        def to(tensor, *args, **kwargs):
            target = kwargs.get("device", args[0] if args else None)
            # The literal "cpu" is a host copy wherever the tensor lives; a device object only when it moves
            # the tensor off an accelerator (``.to(tensor.device)`` on a CPU run is not one).
            if (isinstance(target, str) and target.startswith("cpu")) or (
                    isinstance(target, torch.device) and target.type == "cpu" and tensor.device.type != "cpu"):
                self.calls[(caller(), "to(cpu)")] += 1
            return original(tensor, *args, **kwargs)

        return to

    def count(self, ours: bool) -> int:
        return sum(n for (where, _), n in self.calls.items() if where.startswith("codemix:") == ours)


def caller() -> str:
    """``codemix:<path>:<function>`` or ``framework:<path>:<function>`` of the code that made the call.

    The frame right above the patched method: torch's own Python code counts as the framework (the
    CPU stand-in optimizer, AdamW, reads its step counters, which live on the host even on a GPU).
    """
    frame = sys._getframe(2)
    path = frame.f_code.co_filename
    if path.startswith(str(REPO)) and "site-packages" not in path:
        return f"codemix:{Path(path).relative_to(REPO)}:{frame.f_code.co_name}"
    return f"framework:{path.split('site-packages/')[-1]}:{frame.f_code.co_name}"


@contextlib.contextmanager
def cuda_sync_warnings(cuda: bool):
    """On a GPU, torch's own detector (``set_sync_debug_mode("warn")``) for syncs no Python patch sees
    (``nonzero``, boolean masks, pageable copies); yields the list its warnings land in."""
    caught: list[warnings.WarningMessage] = []
    if not cuda:
        yield caught
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            yield caught
        finally:
            torch.cuda.set_sync_debug_mode("default")


# --- the timed step --------------------------------------------------------------------------------


@dataclass(slots=True)
class PrefetchedStep:
    """One optimizer step's microbatches, already on the device and shaped for the model."""

    lr: float
    microbatches: list[tuple[dict[str, Any], torch.Tensor]]  # (GPTModel.forward kwargs, loss mask)


@dataclass(slots=True)
class DeviceStats:
    """What the timed steps measure, kept on the device until read: (loss sum, loss tokens) per step."""

    totals_S2: torch.Tensor
    one: torch.Tensor = field(init=False)

    def __post_init__(self) -> None:
        self.one = torch.ones(1, device=self.totals_S2.device)


def prefetch(trainer, count: int) -> list[PrefetchedStep]:
    """The next ``count`` steps' batches on the device, in the order a run would read them."""
    from codemix.pretrain.data.stage import microbatches
    from codemix.pretrain.loop import context_parallel_slice, lr_at, model_inputs

    runtime, steps = trainer.runtime, []
    consumed = trainer.state.consumed_samples
    for k in range(count):
        prepared = []
        for batch in microbatches(trainer.dataset, consumed, trainer.plan):
            batch = context_parallel_slice({key: value.to(runtime.device) for key, value in batch.items()})
            prepared.append((model_inputs(batch, runtime), batch["loss_mask"].to(runtime.device)))
        steps.append(PrefetchedStep(lr=lr_at(trainer.state.step + k, trainer.train, trainer.total_steps),
                                    microbatches=prepared))
        consumed += trainer.plan.global_batch_size
    return steps


def bench_step(trainer, step: PrefetchedStep, stats: DeviceStats, index: int) -> None:
    """One optimizer step, the same code on CPU and GPU, with no host sync of its own.

    It is megatron's no-pipelining schedule written out (megatron-core 0.16.1's allocates its token
    counter on "cuda" by name, so it cannot run on CPU): gradients of all but the last microbatch
    accumulate under DDP's ``no_sync``, the summed per-token loss is backpropagated, and the gradient
    is divided by the step's loss tokens (``finalize_model_grads`` on GPU) before the optimizer step.
    What differs by device is what ``pretrain.parallel`` built: megatron's DDP and distributed
    optimizer on GPU, the bare model and AdamW on CPU.
    """
    from megatron.core.transformer.moe.moe_utils import MoEAuxLossAutoScaler

    from codemix.pretrain.loop import masked_loss

    model, optimizer = trainer.wrapped, trainer.optimizer
    for group in optimizer.param_groups:
        group["lr"] = step.lr
    if hasattr(model, "zero_grad_buffer"):
        model.zero_grad_buffer()
    optimizer.zero_grad()
    MoEAuxLossAutoScaler.set_loss_scale(stats.one)  # per-token loss: routers pre-scale their aux losses
    totals = torch.zeros(2, device=stats.totals_S2.device)
    last = len(step.microbatches) - 1
    for i, (inputs, loss_mask) in enumerate(step.microbatches):
        accumulate = model.no_sync() if i < last and hasattr(model, "no_sync") else contextlib.nullcontext()
        with accumulate:
            losses_BS = model(**inputs)
            loss_sum, tokens, _ = masked_loss(loss_mask.reshape(losses_BS.shape), losses_BS)
            loss_sum.backward()
        totals = totals + torch.stack([loss_sum.detach(), tokens.float()])
    finish_gradients(trainer, totals[1])
    stats.totals_S2[index] = totals


def finish_gradients(trainer, loss_tokens: torch.Tensor) -> None:
    """Gradients / loss tokens, then the optimizer step (with clipping), without reading either on the host."""
    model, optimizer, params = trainer.wrapped, trainer.optimizer, None
    if hasattr(model, "finish_grad_sync"):  # megatron DDP: reduce-scatter, all-reduce the token count, scale
        from megatron.core.distributed import finalize_model_grads

        finalize_model_grads([model], num_tokens=loss_tokens.to(torch.int))
        optimizer.step()  # megatron's: its grad-norm clipping reads the norm on the host (counted as megatron's)
        return
    params = [p for p in model.parameters() if p.grad is not None]
    torch._foreach_div_([p.grad for p in params], loss_tokens.clamp(min=1))
    if trainer.train.clip_grad > 0:
        torch.nn.utils.clip_grad_norm_(params, trainer.train.clip_grad, foreach=True)
    optimizer.step()


class Clock:
    """CUDA events around the timed steps (no sync until ``seconds``); wall time on CPU."""

    def __init__(self, cuda: bool) -> None:
        self.cuda = cuda
        self.marks: list[Any] = []

    def mark(self) -> None:
        if self.cuda:
            event = torch.cuda.Event(enable_timing=True)
            event.record()
            self.marks.append(event)
        else:
            import time

            self.marks.append(time.perf_counter())

    def seconds(self) -> float:
        first, last = self.marks[0], self.marks[-1]
        if self.cuda:
            last.synchronize()
            return first.elapsed_time(last) / 1000.0
        return last - first


# --- one precision ---------------------------------------------------------------------------------


def recipe_for(args: argparse.Namespace, precision: str):
    from codemix.pretrain.configs import load_recipe

    overrides = list(args.set)
    if precision != "bf16":
        overrides += ["precision.fp8=e4m3", f"precision.fp8_recipe={precision}"]
    if args.dry_run:
        overrides.append("precision.emulate=true")
    return load_recipe(args.model, overrides)


def refusal(args: argparse.Namespace, precision: str) -> str | None:
    """Why this machine cannot run ``precision`` (pretrain.parallel's FP8 guard), or None."""
    from codemix.config import ConfigError
    from codemix.pretrain.parallel import HAVE_TE, check_precision

    try:
        check_precision(recipe_for(args, precision).precision, cuda=not args.dry_run, have_te=HAVE_TE)
    except ConfigError as error:
        return str(error)
    return None


def base_checkpoint(args: argparse.Namespace, work: Path) -> str:
    """The warm-start checkpoint: ``--init-from``, or a BF16 run past the LR warm-up (saved once, untimed)."""
    from codemix.pretrain.run import TrainOptions, run

    if args.init_from:
        return args.init_from
    recipe = recipe_for(args, "bf16")
    steps = args.base_steps or recipe.stage(args.stage).warmup_steps + 10
    summary = run(TrainOptions(recipe=recipe, stage=args.stage, data_dir=args.data, out_dir=str(work / "base"),
                               steps=steps, sequence_length=args.seq_length, log_interval=max(1, steps // 5)))
    return summary.checkpoint


def measure(args: argparse.Namespace, precision: str, checkpoint: str, work: Path) -> dict[str, Any]:
    """Resume ``checkpoint`` in ``precision``; warm-up, timed and audit steps; the row's numbers."""
    from codemix.pretrain.data.stage import read_stage
    from codemix.pretrain.parallel import initialize, shutdown
    from codemix.pretrain.run import TrainOptions, make_trainer, run_position, start_from

    recipe = recipe_for(args, precision)
    data = read_stage(args.data, args.stage)
    train = recipe.stage(args.stage)
    sequence_length = args.seq_length or train.sequence_length or data.sequence_length
    runtime = initialize(recipe.parallel, seed=train.seed, sequence_length=sequence_length, precision=recipe.precision,
                         force_cpu=args.dry_run)
    try:
        options = TrainOptions(recipe=recipe, stage=args.stage, data_dir=args.data, out_dir=str(work / precision),
                               steps=1, sequence_length=sequence_length, resume_from=checkpoint)
        options.steps = checkpoint_step(checkpoint) + args.warmup + args.steps + 1
        trainer = make_trainer(options, data, runtime, sequence_length, run_position(options))
        start_from(trainer, options)
        return timed_steps(args, trainer, runtime, recipe, sequence_length)
    finally:
        shutdown(runtime)


def checkpoint_step(checkpoint: str) -> int:
    """The step a ``step_NNNNNNN`` checkpoint directory was written at."""
    return int(Path(checkpoint).name.removeprefix("step_"))


def timed_steps(args, trainer, runtime, recipe, sequence_length: int) -> dict[str, Any]:
    """Warm-up, the timed steps between two clock marks, one audited step; then read the device."""
    from codemix.pretrain.metrics import load_imbalance
    from codemix.pretrain.model.gpt import padded_vocab_size
    from codemix.pretrain.model.params import count_parameters

    steps = prefetch(trainer, args.warmup + args.steps + 1)
    stats = DeviceStats(torch.zeros(len(steps), 2, device=runtime.device))
    for i in range(args.warmup):
        bench_step(trainer, steps[i], stats, i)
    trainer.monitor.take()
    clock = Clock(runtime.cuda)
    clock.mark()
    for i in range(args.warmup, args.warmup + args.steps):
        bench_step(trainer, steps[i], stats, i)
    clock.mark()
    seconds = clock.seconds()
    expert_tokens_LE = trainer.monitor.take()
    with HostSyncs() as syncs, cuda_sync_warnings(runtime.cuda) as detected:
        bench_step(trainer, steps[-1], stats, len(steps) - 1)
    all_totals = stats.totals_S2.cpu()
    totals = all_totals[args.warmup:args.warmup + args.steps]
    tokens = trainer.plan.global_batch_size * sequence_length * args.steps
    active = count_parameters(recipe.model, padded_vocab_size(trainer.model.vocab_size)).active_matmul
    return {"seconds": seconds, "tokens_per_s": tokens / seconds, "flops_per_s": 6.0 * active * tokens / seconds,
            "loss": float(totals[:, 0].sum() / totals[:, 1].sum()), "world_size": runtime.world_size,
            # The first step's loss is taken before this precision's first update: the resumed checkpoint on
            # the first batch, so precisions differ there by rounding alone (later steps compound it).
            "first_loss": float(all_totals[0, 0] / all_totals[0, 1]),
            "syncs_ours": syncs.count(ours=True), "syncs_framework": syncs.count(ours=False),
            "sync_sites": sorted(f"{where} {what} x{n}" for (where, what), n in syncs.calls.items()),
            "cuda_sync_warnings": len(detected),
            "expert_imbalance": sum(load_imbalance(row) for row in expert_tokens_LE) / max(1, len(expert_tokens_LE))}


# --- report -----------------------------------------------------------------------------------------


def peak_tflops(args: argparse.Namespace) -> tuple[str, float | None, float | None]:
    """(device description, BF16 peak, FP8 peak) per device: ``--peak-tflops`` or the GPU's SKU."""
    from codemix.pretrain.gpus import current_gpu

    if args.dry_run or not torch.cuda.is_available():
        return f"CPU ({platform.processor() or platform.machine()})", args.peak_tflops, args.peak_tflops
    spec = current_gpu()
    name = f"{torch.cuda.get_device_name()} ({spec.sku if spec else 'unknown SKU'})"
    if args.peak_tflops:
        return name, args.peak_tflops, args.peak_tflops
    return name, spec.bf16_tflops if spec else None, spec.peak_tflops(fp8=True) if spec else None


def mfu(result: dict[str, Any], peak_tflops: float | None) -> str:
    if not peak_tflops:
        return "n/a"
    return f"{result['flops_per_s'] / (peak_tflops * 1e12 * result['world_size']):.1%}"


def result_rows(args: argparse.Namespace, results: dict[str, dict | str]) -> str:
    """One table row per precision; a refused recipe's row says why."""
    device, bf16_peak, fp8_peak = peak_tflops(args)
    base = results.get("bf16")
    rows = []
    for precision, result in results.items():
        cells = [datetime.date.today().isoformat(), device, str(torch.cuda.device_count() if not args.dry_run else 0),
                 args.model, str(args.seq_length or "manifest"), str(args.steps), precision]
        if isinstance(result, str):
            rows.append("| " + " | ".join(cells + [f"refused: {result}"] + [""] * 7) + " |\n")
            continue
        own_peak = bf16_peak if precision == "bf16" else fp8_peak
        speedup = f"{result['tokens_per_s'] / base['tokens_per_s']:.2f}x" if isinstance(base, dict) else "n/a"
        gap = f"{(result['loss'] - base['loss']) / base['loss']:+.2%}" if isinstance(base, dict) else "n/a"
        cells += [f"{result['tokens_per_s']:,.0f}", speedup, mfu(result, bf16_peak), mfu(result, own_peak),
                  f"{result['loss']:.4f}", gap, f"{result['syncs_ours']}, {result['syncs_framework']}",
                  f"{result['expert_imbalance']:.2f}"]
        rows.append("| " + " | ".join(cells) + " |\n")
    return "".join(rows)


def append_result(path: Path, rows: str) -> None:
    """Append ``rows`` to this script's table in RESULTS.md, leaving every other block as it was."""
    old = path.read_text() if path.is_file() else "# Benchmarks\n\n"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        block, tail = rest.split(END, 1)
        path.write_text(f"{head}{BEGIN}{block}{rows}{END}{tail}")
    else:
        intro = "\n## Pretraining throughput: BF16 vs FP8 (`bench/pretrain_gpu.py`)\n\n"
        path.write_text(f"{old.rstrip()}\n{intro}{BEGIN}\n{HEADER}{rows}{END}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.pretrain_gpu", description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a `mix build` output directory")
    parser.add_argument("--model", help="recipe (default: h100-1b; tiny with --dry-run)")
    parser.add_argument("--stage", default="short")
    parser.add_argument("--recipes", nargs="*", default=list(FP8_RECIPES), choices=FP8_RECIPES,
                        help="FP8 recipes to compare with BF16 (default: all; refused ones say why)")
    parser.add_argument("--init-from", help="warm-start checkpoint past LR warm-up (default: train one, BF16)")
    parser.add_argument("--base-steps", type=int, help="steps of the warm-start run (default: warm-up + 10)")
    parser.add_argument("--warmup", type=int, help="untimed steps per precision (default 5; 1 with --dry-run)")
    parser.add_argument("--steps", type=int, help="timed steps per precision (default 20; 2 with --dry-run)")
    parser.add_argument("--seq-length", type=int)
    parser.add_argument("--peak-tflops", type=float, help="peak per device for MFU (default: the GPU SKU's)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="recipe override")
    parser.add_argument("--work", type=Path, help="where the warm-start run goes (default: a temporary directory)")
    parser.add_argument("--results", type=Path, help="RESULTS.md to append to (default: bench/RESULTS.md on GPU)")
    parser.add_argument("--dry-run", action="store_true", help="CPU: tiny, FP8 emulated, the same code path")
    return parser


def resolve(args: argparse.Namespace) -> argparse.Namespace:
    """Dry-run or GPU defaults for the options left unset."""
    dry = args.dry_run
    args.model = args.model or ("tiny" if dry else "h100-1b")
    args.warmup = args.warmup if args.warmup is not None else (1 if dry else 5)
    args.steps = args.steps or (2 if dry else 20)
    args.base_steps = args.base_steps or (4 if dry else None)
    args.results = args.results or (None if dry else BENCH / "RESULTS.md")
    return args


def run_all(args: argparse.Namespace, work: Path) -> dict[str, dict | str]:
    """BF16 and each FP8 recipe from one warm-start checkpoint: results, or the reason a recipe was refused."""
    checkpoint = base_checkpoint(args, work)
    results: dict[str, dict | str] = {}
    for precision in ["bf16", *args.recipes]:
        reason = refusal(args, precision)
        results[precision] = reason or measure(args, precision, checkpoint, work)
    return results


def main(argv: list[str] | None = None) -> int:
    args = resolve(build_parser().parse_args(argv))
    if not args.dry_run and not torch.cuda.is_available():
        print("bench.pretrain_gpu needs a CUDA GPU (torch.cuda.is_available() is False); run it on an "
              "H100/H200/B200, or pass --dry-run to take the same code path on CPU", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        work = args.work or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-pretrain-")))
        results = run_all(args, work)
    rows = result_rows(args, results)
    rank0 = int(os.environ.get("RANK", "0")) == 0
    if rank0:
        print(HEADER + rows, end="")
        for precision, result in results.items():
            if isinstance(result, dict):
                print(f"{precision}: host syncs in the audited step: {result['sync_sites']}; "
                      f"torch sync-debug warnings: {result['cuda_sync_warnings']}")
        if args.results:
            append_result(args.results, rows)
    return 0 if all(isinstance(r, dict) and r["syncs_ours"] == 0 and math.isfinite(r["loss"])
                    for r in results.values() if not isinstance(r, str)) else 1


if __name__ == "__main__":
    sys.exit(main())
