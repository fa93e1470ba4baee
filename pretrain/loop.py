"""The training loop: one data path, one loss, one model builder; the step itself is CPU- or GPU-shaped.

Design notes: docs/design/pretrain.md, "pretrain/loop.py".
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError
from codemix.pretrain.configs import Recipe, StageTrainConfig
from codemix.pretrain.metrics import ExpertLoadMonitor, load_imbalance, model_flops_utilization, tokens_per_second
from codemix.pretrain.parallel import Runtime


@dataclass(slots=True, kw_only=True)
class TrainState:
    """Where a run is; stored in every checkpoint so a resumed run continues exactly."""

    step: int = 0  # optimizer updates done
    consumed_samples: int = 0  # global position in the stage dataset
    tokens_seen: int = 0  # input tokens of all consumed samples
    loss_tokens_seen: int = 0  # tokens that carried loss (SFT: the assistant's)
    tokens_per_source: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True, kw_only=True)
class StepStats:
    """What one optimizer step measured (loss is the mean NLL per loss token, in nats)."""

    loss: float
    loss_tokens: int
    tokens: int
    grad_norm: float
    lr: float
    seconds: float
    tokens_per_source: dict[str, int]
    load_balancing_loss_L: list[float] = field(default_factory=list)
    expert_tokens_LE: list[list[int]] = field(default_factory=list)


def lr_at(step: int, train: StageTrainConfig, total_steps: int) -> float:
    """Learning rate of optimizer update ``step`` (0-based): linear warmup, then cosine to ``min_lr``."""
    if step < train.warmup_steps:
        return train.lr * (step + 1) / train.warmup_steps
    decay_steps = max(1, total_steps - train.warmup_steps)
    progress = min(1.0, (step - train.warmup_steps) / decay_steps)
    return train.min_lr + 0.5 * (train.lr - train.min_lr) * (1 + math.cos(math.pi * progress))


def causal_mask(sequence_length: int) -> torch.Tensor:
    """[1, 1, S, S] bool, True where attention is *forbidden* (megatron's convention): the future."""
    return torch.ones(1, 1, sequence_length, sequence_length, dtype=torch.bool).triu(diagonal=1)


def packed_seq_params(position_ids_BS: torch.Tensor):
    """THD packing for GPU SFT: the batch flattened to one sequence, a segment starting wherever
    ``position_ids`` restart at 0 (each row starts one too), as TE's varlen attention expects."""
    from megatron.core.packed_seq_params import PackedSeqParams

    flat_T = position_ids_BS.reshape(-1)
    starts = torch.nonzero(flat_T == 0).flatten().to(torch.int32)
    cu_seqlens = torch.cat([starts, torch.tensor([flat_T.numel()], dtype=torch.int32, device=starts.device)])
    max_len = int((cu_seqlens[1:] - cu_seqlens[:-1]).max())
    return PackedSeqParams(qkv_format="thd", cu_seqlens_q=cu_seqlens, cu_seqlens_kv=cu_seqlens,
                           max_seqlen_q=max_len, max_seqlen_kv=max_len)


def model_inputs(batch: dict[str, torch.Tensor], runtime: Runtime) -> dict[str, Any]:
    """``GPTModel.forward`` arguments for one microbatch on this device.

    megatron's local ``DotProductAttention`` (CPU, or GPU without TE) needs an explicit mask: causal
    for pretraining, the SFT pack's block-diagonal one. Transformer Engine attention builds causal
    masks itself and takes SFT packs as THD segments, so no S x S mask is materialised.
    """
    tokens_BS = batch["tokens"].to(runtime.device)
    inputs = {"input_ids": tokens_BS, "position_ids": batch["position_ids"].to(runtime.device),
              "labels": batch["labels"].to(runtime.device), "attention_mask": None}
    packed = "attention_mask" in batch or bool((batch["position_ids"][:, 1:] == 0).any())
    if runtime.te_attention:
        if packed:
            inputs.update(input_ids=tokens_BS.reshape(1, -1), labels=inputs["labels"].reshape(1, -1),
                          position_ids=inputs["position_ids"].reshape(1, -1),
                          packed_seq_params=packed_seq_params(batch["position_ids"].to(runtime.device)))
        return inputs
    mask = batch["attention_mask"] if "attention_mask" in batch else causal_mask(tokens_BS.shape[1])
    inputs["attention_mask"] = mask.to(runtime.device)
    return inputs


def masked_loss(loss_mask_BS: torch.Tensor, losses_BS: torch.Tensor):
    """megatron's 3-tuple loss function: (summed masked NLL, loss tokens, report for logging).

    ``loss_mask_BS`` is 0 on padding and, for SFT, everywhere the label is not the assistant's.
    """
    mask = loss_mask_BS.reshape(-1).float()
    loss_sum = torch.sum(losses_BS.reshape(-1).float() * mask)
    num_tokens = mask.sum().to(torch.int)
    return loss_sum, num_tokens, {"lm loss": torch.stack([loss_sum.detach(), num_tokens.detach().float()])}


def batch_loss(model, batch: dict[str, torch.Tensor], runtime: Runtime) -> tuple[torch.Tensor, torch.Tensor]:
    """(summed masked NLL, loss tokens) of one microbatch: the quantity every step and eval uses."""
    losses_BS = model(**model_inputs(batch, runtime))
    loss_sum, num_tokens, _ = masked_loss(batch["loss_mask"].to(losses_BS.device).reshape(losses_BS.shape), losses_BS)
    return loss_sum, num_tokens


def cpu_step(model, optimizer, batches: list[dict[str, torch.Tensor]], train: StageTrainConfig,
             runtime: Runtime) -> tuple[float, int, float]:
    """One CPU update: backward per microbatch on the summed loss, gradients / total loss tokens, clip, AdamW."""
    from megatron.core.transformer.moe.moe_utils import MoEAuxLossAutoScaler

    optimizer.zero_grad(set_to_none=True)
    # routers pre-scale aux losses by their token count; a scale another run left (of another shape) is replaced, not
    # copied into
    MoEAuxLossAutoScaler.main_loss_backward_scale = None
    MoEAuxLossAutoScaler.set_loss_scale(torch.ones(1))
    loss_sum, tokens = 0.0, 0
    for batch in batches:
        batch_sum, batch_tokens = batch_loss(model, batch, runtime)
        batch_sum.backward()
        loss_sum, tokens = loss_sum + float(batch_sum.detach()), tokens + int(batch_tokens)
    params = [p for p in model.parameters() if p.grad is not None]
    for p in params:
        p.grad.div_(max(tokens, 1))  # finalize_model_grads' 1/num_tokens
    grad_norm = float(torch.nn.utils.clip_grad_norm_(params, train.clip_grad)) if train.clip_grad > 0 else 0.0
    optimizer.step()
    update_expert_bias(model)
    return loss_sum, tokens, grad_norm


def update_expert_bias(model) -> None:
    """The aux-loss-free expert-bias step after a global batch, as megatron's ``finalize_model_grads``
    does it on GPU (its own function): each router's bias moves by ``moe_router_bias_update_rate``
    towards the experts that got fewer tokens than the mean, and the token counts restart."""
    config = model.config
    if not config.moe_router_enable_expert_bias:
        return
    from megatron.core.distributed.finalize_model_grads import _update_router_expert_bias, reset_model_temporary_tensors

    _update_router_expert_bias([model], config)
    reset_model_temporary_tensors(config, [model])


def context_parallel_slice(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """This CP rank's share of each sequence: chunks r and 2·CP−1−r of 2·CP, megatron's load-balanced
    split for causal attention (every rank gets one early and one late chunk)."""
    from megatron.core import parallel_state
    from megatron.core.utils import get_batch_on_this_cp_rank

    if parallel_state.get_context_parallel_world_size() == 1:
        return batch
    if bool((batch["position_ids"][:, 1:] == 0).any()):
        raise ConfigError("parallel.context", "packed SFT sequences are not split over context-parallel ranks here",
                          "train the sft stage with parallel.context: 1")
    keys = ("tokens", "labels", "loss_mask", "position_ids")
    return batch | get_batch_on_this_cp_rank({key: batch[key] for key in keys})


def gpu_step(model, optimizer, batches: list[dict[str, torch.Tensor]], runtime: Runtime,
             sequence_length: int) -> tuple[float, int, float]:
    """One GPU update through megatron-core's schedule, DDP and the distributed optimizer."""
    from megatron.core import parallel_state
    from megatron.core.pipeline_parallel import get_forward_backward_func

    model.zero_grad_buffer()
    optimizer.zero_grad()

    def forward_step(data_iterator, step_model):
        batch = context_parallel_slice({k: v.to(runtime.device) for k, v in next(data_iterator).items()})
        losses_BS = step_model(**model_inputs(batch, runtime))
        loss_mask = batch["loss_mask"].to(runtime.device).reshape(losses_BS.shape)
        return losses_BS, partial(masked_loss, loss_mask)

    reports = get_forward_backward_func()(
        forward_step_func=forward_step, data_iterator=iter(batches), model=[model], num_microbatches=len(batches),
        seq_length=sequence_length, micro_batch_size=batches[0]["tokens"].shape[0], forward_only=False)
    _, grad_norm, _ = optimizer.step()
    totals = torch.stack([r["lm loss"] for r in reports]).sum(0) if reports else torch.zeros(2, device=runtime.device)
    # Each DP and CP rank summed its own tokens; TP ranks hold the same sums, so not over them.
    torch.distributed.all_reduce(totals, group=parallel_state.get_data_parallel_group(with_context_parallel=True))
    return float(totals[0]), int(totals[1]), float(grad_norm or 0.0)


def configure_gpu_schedule(model, optimizer) -> None:
    """Hook megatron's schedule to DDP and the optimizer, as Megatron-LM's training loop does."""
    from megatron.core.distributed import finalize_model_grads

    config = model.config
    config.grad_scale_func = optimizer.scale_loss
    config.no_sync_func = model.no_sync
    config.finalize_model_grads_func = finalize_model_grads


def aux_losses(num_microbatches: int, cuda: bool) -> list[float]:
    """Per-layer load-balancing loss of the last step from megatron's MoE tracker (1.0 = balanced)."""
    from megatron.core.transformer.moe import moe_utils

    tracker = moe_utils.get_moe_layer_wise_logging_tracker()
    if "load_balancing_loss" not in tracker:
        return []
    if cuda:
        moe_utils.reduce_aux_losses_tracker_across_ranks(["load_balancing_loss"])
    values = (tracker["load_balancing_loss"]["values"] / num_microbatches).tolist()
    moe_utils.clear_aux_losses_tracker()
    return values


def source_tokens(batches: list[dict[str, torch.Tensor]], sources: list[str], runtime: Runtime) -> dict[str, int]:
    """Input tokens per source in the global batch (a blend's ``dataset_id`` indexes ``sources``;
    on GPU each DP rank counts its microbatches and the counts are summed over DP ranks)."""
    counts_N = torch.zeros(len(sources), dtype=torch.int64)
    for batch in batches:
        counts_N += torch.bincount(batch["dataset_id_B"], minlength=len(sources)) * batch["tokens"].shape[1]
    if runtime.cuda and runtime.data_parallel_size > 1:
        from megatron.core import parallel_state

        counts_N = counts_N.to(runtime.device)
        torch.distributed.all_reduce(counts_N, group=parallel_state.get_data_parallel_group())
    return {source: int(count) for source, count in zip(sources, counts_N.tolist()) if count}


@dataclass(slots=True, kw_only=True)
class Trainer:
    """Owns one stage's model, optimizer and data for a run; ``step()`` advances by one update."""

    recipe: Recipe
    stage: str
    train: StageTrainConfig
    runtime: Runtime
    model: Any  # the bare GPTModel (checkpoints, export)
    wrapped: Any  # what the step runs: DDP on GPU, the model itself on CPU
    optimizer: Any
    dataset: Any
    sources: list[str]
    plan: Any  # stage_data.BatchPlan
    sequence_length: int
    total_steps: int
    state: TrainState = field(default_factory=TrainState)
    monitor: ExpertLoadMonitor | None = None

    def step(self) -> StepStats:
        from codemix.pretrain.data.stage import microbatches

        batches = microbatches(self.dataset, self.state.consumed_samples, self.plan)
        lr = lr_at(self.state.step, self.train, self.total_steps)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        started = time.perf_counter()
        if self.runtime.cuda:
            loss_sum, loss_tokens, grad_norm = gpu_step(self.wrapped, self.optimizer, batches, self.runtime,
                                                        self.sequence_length)
        else:
            loss_sum, loss_tokens, grad_norm = cpu_step(self.wrapped, self.optimizer, batches, self.train, self.runtime)
        seconds = time.perf_counter() - started
        return self._advance(batches, loss_sum, loss_tokens, grad_norm, lr, seconds)

    def _advance(self, batches, loss_sum, loss_tokens, grad_norm, lr, seconds) -> StepStats:
        """Move the train state past this global batch and collect the step's measurements."""
        tokens = self.plan.global_batch_size * self.sequence_length
        per_source = source_tokens(batches, self.sources, self.runtime)
        self.state.step += 1
        self.state.consumed_samples += self.plan.global_batch_size
        self.state.tokens_seen += tokens
        self.state.loss_tokens_seen += loss_tokens
        for source, count in per_source.items():
            self.state.tokens_per_source[source] = self.state.tokens_per_source.get(source, 0) + count
        expert_tokens = self.monitor.take().tolist() if self.monitor else []
        return StepStats(loss=loss_sum / max(loss_tokens, 1), loss_tokens=loss_tokens, tokens=tokens,
                         grad_norm=grad_norm, lr=lr, seconds=seconds, tokens_per_source=per_source,
                         load_balancing_loss_L=aux_losses(len(batches), self.runtime.cuda),
                         expert_tokens_LE=expert_tokens)


def log_row(run_id: str, stage: str, state: TrainState, stats: StepStats, *, active_matmul_params: int,
            peak_flops: float | None) -> dict[str, Any]:
    """The metrics.jsonl row of one step: loss, throughput, MFU, router balance per MoE layer."""
    tps = tokens_per_second(stats.tokens, stats.seconds)
    return {
        "run_id": run_id, "stage": stage, "step": state.step, "tokens_seen": state.tokens_seen,
        "loss": stats.loss, "loss_tokens": stats.loss_tokens, "lr": stats.lr, "grad_norm": stats.grad_norm,
        "tokens": stats.tokens, "seconds": stats.seconds, "tokens_per_s": tps,
        "mfu": model_flops_utilization(active_matmul_params, stats.tokens, stats.seconds, peak_flops) if peak_flops else None,
        "load_balancing_loss": stats.load_balancing_loss_L,
        "expert_load": [[c / max(1, sum(row)) for c in row] for row in stats.expert_tokens_LE],
        "expert_imbalance": [load_imbalance(torch.tensor(row)) for row in stats.expert_tokens_LE],
    }


def append_jsonl(path: str | Path, row: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")
