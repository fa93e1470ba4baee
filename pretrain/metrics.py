"""Training and evaluation metrics as small documented functions, plus the per-expert load monitor.

Legend for tensor names: ``_B`` batch, ``_S`` sequence, ``_T`` tokens (B·S flattened), ``_E`` experts.
"""

from __future__ import annotations

import math

import torch


def tokens_per_second(tokens: int, seconds: float) -> float:
    """Input tokens processed per wall-clock second (all DP ranks together when ``tokens`` is global)."""
    return tokens / seconds if seconds > 0 else 0.0


def model_flops_utilization(active_matmul_params: int, tokens: int, seconds: float, peak_flops: float) -> float:
    """Estimated MFU: 6·N·T / time / peak (Kaplan et al. 2020; PaLM appendix B).

    ``N`` is the active parameters that do matmuls for one token (a MoE token pays for its top-k
    experts only; the embedding lookup is free), 6 = 2 forward + 4 backward FLOPs per weight.
    Attention-score FLOPs (12·L·H·S per token) are left out, so long-context MFU reads low.
    ``peak_flops`` is the dense peak of every device involved, e.g. 989e12 per H100 in BF16.
    """
    if seconds <= 0 or peak_flops <= 0:
        return 0.0
    return 6.0 * active_matmul_params * tokens / seconds / peak_flops


def bits_per_byte(loss_nats_sum: float, num_bytes: int) -> float:
    """Bits per UTF-8 byte: summed token NLL in nats / (ln 2 · bytes of the text).

    Unlike per-token loss it does not depend on the tokenizer (nanochat's ``evaluate_bpb``), so runs
    with different vocabularies land on one axis. Equal to ``loss_nats · tokens / (ln 2 · bytes)``
    when ``loss_nats`` is the mean over ``tokens``.
    """
    return loss_nats_sum / (math.log(2) * num_bytes) if num_bytes else float("nan")


def load_imbalance(tokens_per_expert_E: torch.Tensor) -> float:
    """max / mean tokens over experts: 1.0 is perfect balance, ``num_experts / top_k`` is collapse."""
    mean = tokens_per_expert_E.float().mean()
    return float(tokens_per_expert_E.max() / mean) if mean > 0 else float("nan")


class ExpertLoadMonitor:
    """Counts how many tokens each MoE layer's router sends to each expert.

    A forward hook on every megatron ``TopKRouter`` reads its ``routing_map_TE`` (bool, token x
    expert) output, so the counts are exactly what the dispatcher receives. The counts stay on the
    router's device: a hook that copied them to the host would stall the GPU once per router call
    (layers x microbatches per step). ``take()`` returns the counts since the last call
    ``[num_moe_layers, num_experts]`` on the host and resets them: one copy, when the caller reads.
    Under activation recomputation the router runs twice per microbatch and every count doubles
    (ratios are unchanged).
    """

    def __init__(self, model: torch.nn.Module) -> None:
        from megatron.core.transformer.moe.router import TopKRouter

        self.routers = [m for m in model.modules() if isinstance(m, TopKRouter)]
        self.num_experts = self.routers[0].weight.shape[0] if self.routers else 0
        self.counts_LE: torch.Tensor | None = None  # allocated on the first routing map's device
        self._handles = [r.register_forward_hook(self._hook(i)) for i, r in enumerate(self.routers)]

    def _hook(self, layer: int):
        def record(module, inputs, outputs) -> None:
            _, routing_map_TE = outputs
            if self.counts_LE is None:
                self.counts_LE = torch.zeros(len(self.routers), self.num_experts, dtype=torch.int64,
                                             device=routing_map_TE.device)
            self.counts_LE[layer] += routing_map_TE.detach().sum(dim=0)

        return record

    def peek(self) -> torch.Tensor:
        """The counts so far, on the device, without resetting or copying them."""
        if self.counts_LE is None:
            return torch.zeros(len(self.routers), self.num_experts, dtype=torch.int64)
        return self.counts_LE

    def take(self) -> torch.Tensor:
        counts_LE, self.counts_LE = self.peek(), None
        if torch.distributed.is_initialized() and torch.distributed.get_world_size() > 1:
            counts_LE = _all_reduce_sum(counts_LE)
        return counts_LE.cpu()

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()


def _all_reduce_sum(tensor: torch.Tensor) -> torch.Tensor:
    """Sum a small CPU tensor over all ranks (moved to the GPU for NCCL, then back)."""
    device = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else tensor.device
    moved = tensor.to(device)
    torch.distributed.all_reduce(moved)
    return moved.cpu()
