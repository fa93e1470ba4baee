"""Peak memory of importing a sharded Hugging Face base (``pretrain.hf.base_import``), against its shards.

    .venv/bin/python -m bench.hf_import_memory              # Qwen3-MoE of 8 and 16 layers, bf16, 25MB shards, 3 rounds
    .venv/bin/python -m bench.hf_import_memory --no-write

Random Qwen3-MoE bases (8 and 16 layers: about 190M and 360M parameters) are saved in bf16 with
``save_pretrained(max_shard_size=...)`` and imported in a fresh process per round, two ways: ``streamed`` (``import_base``: a meta-device model,
each tensor read from its shard when the checkpoint writer reaches it) and ``whole model`` (the import
as it was before, kept here as the baseline: every tensor read, the fp32 model filled, then
``save_checkpoint``). Reported: the on-disk total, largest shard and largest tensor, the process's RSS
just before the import (Python, torch, megatron-core loaded) and its peak RSS (``VmHWM``, the kernel's
high-water mark) after it, and the import's share (peak minus that baseline) in multiples of the
largest shard and of the total.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

BENCH = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench.hf_import_memory: generated, begin -->", "<!-- bench.hf_import_memory: generated, end -->"
CHILD = """
import json, sys
from pathlib import Path
import torch
from codemix.pretrain.configs import load_recipe
import codemix.pretrain.hf.base_import, codemix.pretrain.checkpoint, codemix.pretrain.model.gpt, codemix.pretrain.parallel

def status(key):
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(key))
    return int(line.split()[1]) * 1024

torch.set_num_threads(1)
recipe = load_recipe("continued", [], init_from_hf=sys.argv[1])
if sys.argv[3] == "streamed":
    from codemix.pretrain.hf.base_import import import_base as run
else:
    from bench.hf_import_memory import whole_model_import as run
before = status("VmRSS:")
run(recipe, sys.argv[2])
print(json.dumps({"before": before, "peak": status("VmHWM:")}))
"""
MODES = ("streamed", "whole model")


def whole_model_import(recipe, out_dir: str) -> None:
    """The import before streaming, as the baseline: all tensors in memory, the fp32 model filled from
    them (each tensor freed once copied), then ``save_checkpoint``."""
    from codemix.pretrain.architecture import hf_family
    from codemix.pretrain.checkpoint import save_checkpoint
    from codemix.pretrain.configs import ParallelConfig
    from codemix.pretrain.hf.base_import import model_tensors
    from codemix.pretrain.hf.convert import Layout, hf_to_megatron
    from codemix.pretrain.hf.shards import dequantize_checkpoint, read_hf_tensors
    from codemix.pretrain.model.gpt import build_model, position_setup
    from codemix.pretrain.parallel import initialize, shutdown

    config = json.loads((Path(recipe.init_from_hf) / "config.json").read_text())
    tensors = read_hf_tensors(recipe.init_from_hf)
    state = hf_to_megatron(model_tensors(dequantize_checkpoint(tensors, config), config),
                           Layout.of(recipe, hf_family(config, "init_from_hf")))
    del tensors
    runtime = initialize(ParallelConfig(), seed=0, force_cpu=True)
    try:
        model = build_model(recipe, vocab_size=config["vocab_size"], sequence_length=recipe.model.rope.original_context,
                            position=position_setup(recipe, "short"), cpu=True)
        with torch.no_grad():
            for name, tensor in model.state_dict().items():
                if name in state:
                    tensor.copy_(state.pop(name))
        save_checkpoint(out_dir, model, None, {"step": 0}, cuda=False)
    finally:
        shutdown(runtime)


def make_base(directory: Path, shard: str, layers: int = 8) -> int:
    """A random Qwen3-MoE in bf16 (8 layers: ~190M parameters), saved in shards of at most ``shard``;
    returns its parameter count."""
    import transformers

    from bench.hf_fidelity import write_tokenizer

    config = transformers.Qwen3MoeConfig(
        vocab_size=32_000, hidden_size=512, intermediate_size=1024, num_hidden_layers=layers, num_attention_heads=8,
        num_key_value_heads=4, head_dim=64, moe_intermediate_size=384, num_experts=32, num_experts_per_tok=4,
        max_position_embeddings=4096, tie_word_embeddings=False)
    model = transformers.Qwen3MoeForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(directory, max_shard_size=shard)
    write_tokenizer(directory)
    return model.num_parameters()


def import_peak(base: Path, out: Path, mode: str) -> dict:
    child = subprocess.run([sys.executable, "-c", CHILD, str(base), str(out), mode], check=True, capture_output=True,
                           text=True, cwd=BENCH.parent)
    shutil.rmtree(out, ignore_errors=True)
    return json.loads(child.stdout.strip().splitlines()[-1])


def measure(root: Path, shard: str, rounds: int, layers: int) -> dict:
    from safetensors import safe_open

    base = root / f"hf-{layers}"
    parameters = make_base(base, shard, layers)
    shards = sorted(base.glob("*.safetensors"))
    sizes = [p.stat().st_size for p in shards]
    largest_tensor = 0
    for path in shards:
        with safe_open(str(path), framework="pt") as handle:
            for name in handle.keys():  # noqa: SIM118
                shape = handle.get_slice(name).get_shape()
                largest_tensor = max(largest_tensor, 2 * math.prod(shape))  # bf16
    runs = {mode: [import_peak(base, root / "out", mode) for _ in range(rounds)] for mode in MODES}
    shutil.rmtree(base)
    return {"parameters": parameters, "shards": len(shards), "total": sum(sizes), "largest": max(sizes),
            "largest_tensor": largest_tensor, "rounds": rounds, "runs": runs, "layers": layers}


def report(rows: list[dict]) -> str:
    mb = 1 << 20
    first = rows[0]
    lines = [(f"### Peak RSS of a sharded import (bench.hf_import_memory)\n\n"
              f"{datetime.date.today()}, 2-core shared sandbox ({platform.machine()}), torch {torch.__version__}: random "
              f"Qwen3-MoE bases in bf16 saved with max_shard_size (largest shard {first['largest'] / mb:.1f} MB, largest "
              f"tensor {first['largest_tensor'] / mb:.1f} MB in bf16, which the import writes in fp32), "
              f"{first['rounds']} rounds per row, each a fresh process; growth = peak RSS (VmHWM) - RSS before the "
              "import, with Python, torch and megatron-core already loaded.\n\n"
              "| base | shards (on disk) | import | RSS before | growth min / median / max | growth / largest shard "
              "| growth / total |\n|---|---|---|---|---|---|---|\n")]
    for row in rows:
        for mode, runs in row["runs"].items():
            growth = sorted(r["peak"] - r["before"] for r in runs)
            median = statistics.median(growth)
            lines.append(f"| {row['parameters'] / 1e6:.0f}M, {row['layers']} layers | {row['shards']} "
                         f"({row['total'] / mb:.0f} MB) | {mode} | {statistics.median(r['before'] for r in runs) / mb:.0f} MB "
                         f"| {growth[0] / mb:.0f} / {median / mb:.0f} / {growth[-1] / mb:.0f} MB "
                         f"| {median / row['largest']:.1f}x | {median / row['total']:.2f}x |\n")
    return "".join(lines)


def write_results(path: Path, body: str) -> None:
    old = path.read_text() if path.is_file() else ""
    block = f"{BEGIN}\n{body}{END}"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        path.write_text(head + block + rest.split(END, 1)[1])
    else:
        path.write_text(old.rstrip("\n") + "\n\n" + block + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.hf_import_memory", description=__doc__.splitlines()[0])
    parser.add_argument("--shard", default="25MB", help="save_pretrained's max_shard_size")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--layers", type=int, nargs="+", default=[8, 16], help="one base per depth")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    root = Path(tempfile.mkdtemp(prefix="hf-import-memory-"))
    try:
        body = report([measure(root, args.shard, args.rounds, n) for n in args.layers])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(body)
    if not args.no_write:
        write_results(args.results, body + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
