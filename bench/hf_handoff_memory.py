"""Import and hand-off of a >= 2 GB, >= 16-shard base: peak memory against its shards, and what comes out.

    .venv/bin/python -m bench.hf_handoff_memory                  # ~1.1B-parameter Qwen3-MoE, bf16, 128MB shards
    .venv/bin/python -m bench.hf_handoff_memory --layers 4 --no-write   # a quick smaller run

A random Qwen3-MoE is saved in bf16 with ``save_pretrained(max_shard_size=...)`` (transformers' own
sharding and index), imported (``pretrain.hf.base_import``) and handed off (``pretrain.hf.handoff``,
``--error-check never``: the check loads the whole model by design), each in a fresh process whose peak
RSS (``VmHWM``) is compared with its RSS just before the call. Then, independently of codemix: every
bundle tensor against the base's (``safetensors.load_file``; bf16 -> fp32 -> bf16 is exact, so they must
be bit-equal), and ``transformers`` loading the sharded bundle with no missing or unexpected key.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

BENCH = Path(__file__).resolve().parent
MB = 1 << 20
CHILD = """
import json, sys
from pathlib import Path
import torch
import codemix.pretrain.hf.base_import, codemix.pretrain.hf.handoff, codemix.pretrain.checkpoint
import codemix.pretrain.model.gpt, codemix.pretrain.parallel

def status(key):
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(key))
    return int(line.split()[1]) * 1024

torch.set_num_threads(1)
before = status("VmRSS:")
if sys.argv[1] == "import":
    from codemix.pretrain.configs import load_recipe
    codemix.pretrain.hf.base_import.import_base(load_recipe("continued", [], init_from_hf=sys.argv[2]), sys.argv[3])
else:
    codemix.pretrain.hf.handoff.handoff(sys.argv[2], sys.argv[3], error_check="never")
print(json.dumps({"before": before, "peak": status("VmHWM:")}))
"""


def make_base(directory: Path, layers: int, shard: str) -> int:
    import transformers

    from bench.hf_fidelity import write_tokenizer

    config = transformers.Qwen3MoeConfig(
        vocab_size=32_000, hidden_size=1024, intermediate_size=2048, num_hidden_layers=layers, num_attention_heads=8,
        num_key_value_heads=4, head_dim=128, moe_intermediate_size=512, num_experts=32, num_experts_per_tok=4,
        max_position_embeddings=4096, tie_word_embeddings=False)
    with torch.device("meta"):
        model = transformers.Qwen3MoeForCausalLM(config)
    model = model.to_empty(device="cpu").to(torch.bfloat16)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, tensor in model.named_parameters():
            tensor.copy_(torch.randn(tensor.shape, generator=generator) * (0.02 if tensor.ndim > 1 else 0.1) +
                         (0 if tensor.ndim > 1 else 1))
    model.save_pretrained(directory, max_shard_size=shard)
    write_tokenizer(directory)
    return model.num_parameters()


def peak(step: str, source: Path, out: Path) -> dict:
    child = subprocess.run([sys.executable, "-c", CHILD, step, str(source), str(out)], check=True, capture_output=True,
                           text=True, cwd=BENCH.parent)
    return json.loads(child.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=20)
    parser.add_argument("--shard", default="128MB")
    parser.add_argument("--no-write", action="store_true", help="print, do not write bench/RESULTS.md")
    args = parser.parse_args(argv)
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM

    with tempfile.TemporaryDirectory(prefix="hf-handoff-") as folder:
        root = Path(folder)
        parameters = make_base(root / "hf", args.layers, args.shard)
        shards = sorted((root / "hf").glob("model-*.safetensors"))
        sizes = [p.stat().st_size for p in shards]
        imported = peak("import", root / "hf", root / "base")
        handed = peak("handoff", root / "base", root / "bundle")
        bundle = sorted((root / "bundle" / "hf").glob("model-*.safetensors"))
        out_sizes = [p.stat().st_size for p in bundle]
        unequal, count = [], 0
        for base_file in shards:  # one base shard at a time against the bundle's copies (memory stays small)
            original = load_file(str(base_file))
            index = json.loads((root / "bundle" / "hf" / "model.safetensors.index.json").read_text())["weight_map"]
            for file in sorted({index[name] for name in original}):
                for name, tensor in load_file(str(root / "bundle" / "hf" / file)).items():
                    if name in original:
                        count += 1
                        if tensor.dtype != original[name].dtype or not torch.equal(tensor, original[name]):
                            unequal.append(name)
        _, info = AutoModelForCausalLM.from_pretrained(root / "bundle" / "hf", output_loading_info=True,
                                                       dtype=torch.bfloat16)
    rows = {step: (r["peak"] - r["before"]) / MB for step, r in (("import", imported), ("hand-off", handed))}
    lines = [
        "### Import and hand-off of a >= 2 GB sharded base (bench.hf_handoff_memory, issue 50)", "",
        (f"{datetime.date.today()}, {platform.machine()} 2-core shared sandbox (other jobs running), torch "
        f"{torch.__version__}: a random Qwen3-MoE of {parameters / 1e9:.2f}B parameters ({args.layers} layers, 32 "
        f"experts) in bf16, saved by transformers in {len(shards)} shards ({sum(sizes) / MB:,.0f} MB, largest "
        f"{max(sizes) / MB:.1f} MB); each step a fresh process, growth = peak RSS (VmHWM) - RSS before it."), "",
        "| step | growth | growth / largest base shard |", "|---|---|---|",
        *(f"| {step} | {grown:,.0f} MB | {grown * MB / max(sizes):.2f}x |" for step, grown in rows.items()), "",
        (f"Bundle: {len(bundle)} shards (largest {max(out_sizes) / MB:.1f} MB) with model.safetensors.index.json; "
        f"{count} tensors compared with the base by safetensors' load_file: {len(unequal)} differ; transformers "
        f"loads it with {len(info['missing_keys'])} missing and {len(info['unexpected_keys'])} unexpected keys."), ""]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        with (BENCH / "RESULTS.md").open("a") as results:
            results.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
