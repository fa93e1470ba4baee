"""Peak memory of importing a sharded Hugging Face base (``pretrain.hf.base_import``), against its shards.

    .venv/bin/python -m bench.hf_import_memory              # ~190M-parameter Qwen3-MoE, bf16, ~16 shards
    .venv/bin/python -m bench.hf_import_memory --no-write

A random Qwen3-MoE of about 190M parameters is saved in bf16 with ``save_pretrained(max_shard_size=...)``
and imported in a fresh process. Reported: the on-disk total and largest shard, the process's RSS just
before the import (Python, torch, megatron-core loaded) and its peak RSS (``VmHWM``) after it, and
the import's share of the peak (peak minus that baseline) in multiples of the largest shard and of
the total.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shutil
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
from codemix.pretrain.hf.base_import import import_base

def status(key):
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(key))
    return int(line.split()[1]) * 1024

torch.set_num_threads(1)
recipe = load_recipe("continued", [], init_from_hf=sys.argv[1])
before = status("VmRSS:")
import_base(recipe, sys.argv[2])
print(json.dumps({"before": before, "peak": status("VmHWM:")}))
"""


def make_base(directory: Path, shard: str) -> int:
    """A random ~190M-parameter Qwen3-MoE in bf16, saved in shards of at most ``shard``; returns parameters."""
    import transformers

    from bench.hf_fidelity import write_tokenizer

    config = transformers.Qwen3MoeConfig(
        vocab_size=32_000, hidden_size=512, intermediate_size=1024, num_hidden_layers=8, num_attention_heads=8,
        num_key_value_heads=4, head_dim=64, moe_intermediate_size=384, num_experts=32, num_experts_per_tok=4,
        max_position_embeddings=4096, tie_word_embeddings=False)
    model = transformers.Qwen3MoeForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(directory, max_shard_size=shard)
    write_tokenizer(directory)
    return model.num_parameters()


def measure(root: Path, shard: str) -> dict:
    base = root / "hf"
    parameters = make_base(base, shard)
    shards = sorted(base.glob("*.safetensors"))
    child = subprocess.run([sys.executable, "-c", CHILD, str(base), str(root / "base")], check=True,
                           capture_output=True, text=True)
    rss = json.loads(child.stdout.strip().splitlines()[-1])
    sizes = [p.stat().st_size for p in shards]
    return {"parameters": parameters, "shards": len(shards), "total": sum(sizes), "largest": max(sizes)} | rss


def report(row: dict) -> str:
    mb = 1 << 20
    grown = row["peak"] - row["before"]
    return (f"### Peak RSS of a sharded import (bench.hf_import_memory)\n\n"
            f"{datetime.date.today()}, {platform.machine()} CPU, torch {torch.__version__}: a random Qwen3-MoE of "
            f"{row['parameters'] / 1e6:.0f}M parameters in bf16, {row['shards']} shards.\n\n"
            "| on disk | largest shard | RSS before import | peak RSS | peak - before | / largest shard | / total |\n"
            "|---|---|---|---|---|---|---|\n"
            f"| {row['total'] / mb:.0f} MB | {row['largest'] / mb:.0f} MB | {row['before'] / mb:.0f} MB "
            f"| {row['peak'] / mb:.0f} MB | {grown / mb:.0f} MB | {grown / row['largest']:.1f}x "
            f"| {grown / row['total']:.2f}x |\n")


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
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    root = Path(tempfile.mkdtemp(prefix="hf-import-memory-"))
    try:
        body = report(measure(root, args.shard))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(body)
    if not args.no_write:
        write_results(args.results, body + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
