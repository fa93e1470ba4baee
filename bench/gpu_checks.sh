#!/usr/bin/env bash
# GPU checks of issue 30 that a CPU machine cannot run (tests/pretrain/test_hf_gpu.py): MLA's latent-norm
# epsilon inside Transformer Engine's fused LayerNorm + up-projection, imported bases' logits on the GPU
# against transformers (every family, rms_norm_eps 1e-5, fp32 GEMMs: NVIDIA_TF32_OVERRIDE=0), and a tied
# DeepSeek-V3 base trained a few steps on the GPU, then handed off and loaded by transformers.
#
#   bash bench/gpu_checks.sh --prepare   # here, with network: wheels the GPU image lacks -> .whl/ (~25 MB)
#   bash bench/gpu_checks.sh             # on the GPU machine (device tool: carry [".whl"]), under 8 minutes
#
# The GPU image has torch, transformers, safetensors, tokenizers, tiktoken, pytest; megatron-core and the
# few modules codemix.pretrain imports at load time travel as wheels. Transformer Engine is not among
# them (it builds against the image's CUDA and torch): without it the GPU model uses megatron's local
# layers, and the log says so (TE=False); nothing here claims a TE result unless the log shows TE=True.
# The log goes to $OUT/gpu_checks.log when $OUT is set (the device tool), else ./gpu_checks.log.
set -uo pipefail
cd "$(dirname "$0")/.."
WHEELS="megatron-core==0.16.1 smart-open zstandard dill boto3 botocore s3transfer jmespath"

if [ "${1:-}" = "--prepare" ]; then
    grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> "$(git rev-parse --git-path info/exclude)"
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        --platform any -d .whl $WHEELS
    du -sh .whl
    exit $?
fi

LOG="${OUT:-.}/gpu_checks.log"
export NVIDIA_TF32_OVERRIDE=0 PYTHONUNBUFFERED=1
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        || exit 2
    export PYTHONPATH="/tmp/site"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

python3 - <<'EOF' 2>&1 | tee "$LOG"
import importlib, sys
import torch
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, GPU: "
      f"{torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none'}")
missing = []
for module in ("megatron.core", "transformers", "safetensors", "tokenizers", "tiktoken", "yaml", "smart_open",
               "codemix.pretrain.hf.base_import", "codemix.pretrain.hf.handoff"):
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        missing.append(f"{module} (needs {error.name})")
try:
    import transformer_engine.pytorch  # noqa: F401
    print("Transformer Engine: yes")
except Exception as error:  # noqa: BLE001 (any failure means TE's layers are not used)
    print(f"Transformer Engine: no ({type(error).__name__}: {error}) -> megatron's local layers on the GPU")
if not torch.cuda.is_available() or missing:
    print("cannot run: " + ("no CUDA GPU; " if not torch.cuda.is_available() else "") + "; ".join(missing))
    print("carry the missing packages as wheels (bash bench/gpu_checks.sh --prepare, add names to WHEELS)")
    sys.exit(3)
EOF
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 3

# --noconftest: tests/pretrain/conftest.py builds a whole `mix build` (Beam, datatrove, ...) at import.
timeout 450 python3 -m pytest -q -rA -s --noconftest -p no:cacheprovider tests/pretrain/test_hf_gpu.py 2>&1 \
    | tee -a "$LOG"
exit "${PIPESTATUS[0]}"
