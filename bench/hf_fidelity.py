"""Import and hand-off fidelity against ``transformers``: family x rms_norm_eps x dtype x tied embeddings.

    .venv/bin/python -m bench.hf_fidelity              # ~2 min on 1 thread; replaces its block of RESULTS.md
    .venv/bin/python -m bench.hf_fidelity --no-write   # print only

For every case a tiny random model is built with ``transformers`` 5.x (tests/pretrain/hf_models.py),
saved as a base (bf16 cases: cast to bf16 before saving; fp8: DeepSeek-V3's block-FP8 release form
with a bf16 rest), imported (``pretrain.hf.base_import``) and handed off with no training
(``pretrain.hf.handoff``). Reported: the max |logit| error of the imported megatron-core model against
``transformers`` on the base, and of ``transformers`` on the bundle against megatron-core (both in
fp32 arithmetic; a bf16 base's weights are bf16 values), greedy-argmax agreement, the bundle's missing
and unexpected keys, whether every exported tensor equals the base's bit for bit in the base's dtype
(fp8: the reference dequantisation, ``transformers``' ``Fp8Dequantize``, rounded to bf16), and the
parameter counts of ``pretrain.model.params`` and of ``transformers``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shutil
import sys
import tempfile
from pathlib import Path

import torch

BENCH = Path(__file__).resolve().parent
BEGIN, END = "<!-- bench.hf_fidelity: generated, begin -->", "<!-- bench.hf_fidelity: generated, end -->"
SPECIALS = ("<|endoftext|>", "<|pad|>")


def write_tokenizer(directory: Path) -> None:
    """A 1000-id BPE on a few standard-library modules, with its EOS in tokenizer_config.json."""
    import sysconfig

    from codemix.mixtures.tokenizer import save_tokenizer, train_bpe

    stdlib = Path(sysconfig.get_path("stdlib"))
    texts = [(stdlib / name).read_text(encoding="utf-8") for name in ("textwrap.py", "shlex.py", "json/decoder.py")]
    save_tokenizer(train_bpe(texts, 1000, SPECIALS), str(directory / "tokenizer.json"))
    (directory / "tokenizer_config.json").write_text(json.dumps({"eos_token": SPECIALS[0], "pad_token": SPECIALS[1]}))


def make_base(root: Path, family: str, eps: float, dtype: str, tied: bool) -> Path:
    from tests.pretrain.hf_models import tiny_hf_model, to_block_fp8

    directory = root / f"{family}-{eps}-{dtype}-{tied}"
    torch_dtype = torch.float32 if dtype == "float32" else torch.bfloat16
    tiny_hf_model(family, eps=eps, tied=tied, dtype=torch_dtype).save_pretrained(directory)
    write_tokenizer(directory)
    if dtype == "fp8":
        to_block_fp8(directory)
    return directory


def reference_tensors(base: Path, fp8_dtype: torch.dtype = torch.bfloat16) -> dict[str, torch.Tensor]:
    """The base's tensors as a dequantised release would be distributed: FP8 pairs through
    ``transformers``' ``Fp8Dequantize`` (fp32 product), in ``fp8_dtype``."""
    from safetensors.torch import load_file

    from tests.pretrain.hf_models import reference_dequantize

    tensors = load_file(str(base / "model.safetensors"))
    for name in [n for n in tensors if n.endswith("_scale_inv")]:
        weight = name.removesuffix("_scale_inv")
        tensors[weight] = reference_dequantize(tensors[weight], tensors.pop(name)).to(fp8_dtype)
    return tensors


def reference_base(base: Path) -> Path:
    """The FP8 base dequantised by the reference to fp32, as a plain checkpoint ``transformers`` loads."""
    from safetensors.torch import save_file

    directory = base.with_name(base.name + "-reference")
    shutil.copytree(base, directory)
    save_file(reference_tensors(base, torch.float32), str(directory / "model.safetensors"), metadata={"format": "pt"})
    config = json.loads((directory / "config.json").read_text())
    config.pop("quantization_config")
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def same_tensors(exported: dict[str, torch.Tensor], original: dict[str, torch.Tensor]) -> bool:
    return set(exported) == set(original) and all(
        exported[n].dtype == t.dtype and torch.equal(exported[n], t) for n, t in original.items())


def reference_dequantize(op, weight: torch.Tensor, scale: torch.Tensor, block: int = 128) -> torch.Tensor:
    """``Fp8Dequantize`` derives the block from the shapes, so a ragged weight is padded to whole blocks
    (zeros) and cropped back."""
    rows, cols = weight.shape
    padded = torch.zeros(scale.shape[0] * block, scale.shape[1] * block, dtype=weight.dtype)
    padded[:rows, :cols] = weight
    return op._dequantize_one(padded, scale, output_dtype=torch.float32)[:rows, :cols].contiguous()


def measure(root: Path, family: str, eps: float, dtype: str, tied: bool) -> dict:
    from safetensors.torch import load_file

    from codemix.pretrain.configs import load_recipe
    from codemix.pretrain.hf.base_import import import_base
    from codemix.pretrain.hf.handoff import handoff
    from codemix.pretrain.model.params import count_parameters
    from tests.pretrain.hf_models import VOCAB_ROWS, hf_logits, megatron_logits, sample_tokens

    base = make_base(root, family, eps, dtype, tied)
    recipe = load_recipe("continued", [], init_from_hf=str(base))
    run_dir, bundle = root / f"{base.name}-run", root / f"{base.name}-bundle"
    checkpoint = import_base(recipe, run_dir)
    tokens_BS = sample_tokens()
    ours_BSV = megatron_logits(run_dir, checkpoint, tokens_BS)
    summary = handoff(run_dir, bundle)
    row = {"family": family, "eps": eps, "dtype": dtype, "tied": tied, "exported_dtype": summary["dtype"],
           "bit_exact": same_tensors(load_file(str(bundle / "hf" / "model.safetensors")), reference_tensors(base))}
    if dtype == "fp8":  # the logits are compared in fp32: the reference's fp32 product, a float32 hand-off
        fp32 = {name: tensor.float() for name, tensor in reference_tensors(base, torch.float32).items()}
        base, bundle = reference_base(base), root / f"{base.name}-bundle-fp32"
        handoff(run_dir, bundle, dtype="float32")
        row["bit_exact"] &= same_tensors(load_file(str(bundle / "hf" / "model.safetensors")), fp32)
        row["exported_dtype"] += " (and float32)"
    base_BSV = hf_logits(base, tokens_BS)
    row |= {"import_err": float((ours_BSV - base_BSV).abs().max()),
            "import_argmax": float((ours_BSV.argmax(-1) == base_BSV.argmax(-1)).float().mean())}
    bundle_BSV, info, hf_params = hf_logits(bundle / "hf", tokens_BS, info=True)
    row |= {"export_err": float((bundle_BSV - ours_BSV).abs().max()),
            "export_argmax": float((bundle_BSV.argmax(-1) == ours_BSV.argmax(-1)).float().mean()),
            "missing": len(info["missing_keys"]), "unexpected": len(info["unexpected_keys"]),
            "params_ours": count_parameters(recipe.model, VOCAB_ROWS).total, "params_hf": hf_params,
            "logit_scale": float(ours_BSV.abs().max())}
    return row


def table(rows: list[dict]) -> str:
    def err(value):
        return f"{value:.2e}"

    lines = [("| family | eps | base dtype | tied | import max err | import argmax | export max err | export argmax "
              "| missing / unexpected | exported | bit-exact | params (ours / transformers) |"),
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        argmax = f"{r['import_argmax']:.0%}"
        lines.append(f"| {r['family']} | {r['eps']:g} | {r['dtype']} | {'yes' if r['tied'] else 'no'} "
                     f"| {err(r['import_err'])} | {argmax} | {err(r['export_err'])} | {r['export_argmax']:.0%} "
                     f"| {r['missing']} / {r['unexpected']} | {r['exported_dtype']} | {'yes' if r['bit_exact'] else 'NO'} "
                     f"| {r['params_ours']:,} / {r['params_hf']:,} |")
    return "\n".join(lines) + "\n"


def cases() -> list[tuple[str, float, str, bool]]:
    from tests.pretrain.hf_models import FAMILIES

    grid = [(f, eps, dtype, tied) for f in FAMILIES for eps in (1e-5, 1e-6) for dtype in ("float32", "bfloat16")
            for tied in (False, True)]
    return grid + [("deepseek_v3", eps, "fp8", False) for eps in (1e-5, 1e-6)]


def write_results(path: Path, body: str) -> None:
    """Replace this script's block of RESULTS.md (appending it the first time), leaving the rest."""
    old = path.read_text() if path.is_file() else ""
    block = f"{BEGIN}\n{body}{END}"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        path.write_text(head + block + rest.split(END, 1)[1])
    else:
        path.write_text(old.rstrip("\n") + "\n\n" + block + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.hf_fidelity", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    args = parser.parse_args(argv)
    import transformers

    torch.set_num_threads(1)
    root = Path(tempfile.mkdtemp(prefix="hf-fidelity-"))
    try:
        rows = [measure(root, *case) for case in cases()]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    head = (f"### Import and hand-off against transformers {transformers.__version__} (bench.hf_fidelity)\n\n"
            f"{datetime.date.today()}, {platform.machine()} CPU, torch {torch.__version__}, 1 thread; logits of "
            f"2 x 48 random ids, fp32 arithmetic, max |logit| {max(r['logit_scale'] for r in rows):.1f}.\n\n")
    body = head + table(rows)
    print(body)
    if not args.no_write:
        write_results(args.results, body + "\n")
    return 0 if all(r["bit_exact"] and max(r["import_err"], r["export_err"]) <= 4e-6 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
