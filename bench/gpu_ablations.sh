#!/usr/bin/env bash
# Paired data ablations on one GPU (issue 52): the device tool runs this from the repository root with
# $OUT set, no network. It needs what the CPU path prepared beside it (bench/.cache/ablations: the
# sdists, the builds), which the device tool carries: run `python -m bench.ablations --steps 1 --seeds 0 1`
# here first, then `run` with carry ["bench/.cache/ablations", ".venv"] (or a wheel install on the device).
#
# Sizes (the tiny recipe widened to ~25M parameters; bf16; sequence length 1024; 3 seeds x 2 decisions
# x 2 arms = 12 proxies of STEPS steps at batch 32, ~33M tokens each at STEPS=1000). The expected time
# per proxy is measured on the first run and printed; set STEPS for the budget (10 minutes in all).
#   DRY_RUN=1 bash bench/gpu_ablations.sh     # on a CPU: the same script, 2 steps, CPU recipe, no GPU needed
#   WORK=DIR reuses the builds of an earlier `python -m bench.ablations --work DIR` (they take the CPU longest)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-out/gpu-ablations}"
mkdir -p "$OUT"
PY="${PYTHON:-.venv/bin/python}"
if [[ "${DRY_RUN:-0}" == "1" ]]; then
  STEPS="${STEPS:-2}"
  SIZE=()
  SEQ=256
else
  STEPS="${STEPS:-1000}"
  SIZE=(--set model.hidden_size=512 --set model.num_layers=6 --set model.num_attention_heads=8
        --set model.num_query_groups=4 --set model.moe.num_experts=8 --set model.moe.ffn_hidden_size=512
        --set model.moe.shared_expert_intermediate_size=512 --set model.max_context=8192
        --set model.rope.original_context=1024
        --set train.short.micro_batch_size=32 --set train.short.global_batch_size=32
        --set train.long.micro_batch_size=8 --set train.long.global_batch_size=8)
  SEQ=1024
  "$PY" -c "import torch; assert torch.cuda.is_available(), 'no GPU'; print(torch.cuda.get_device_name())"
fi
start=$(date +%s)
"$PY" -m bench.ablations --work "${WORK:-bench/.cache/ablations}" --proxies-dir "$OUT/proxies" \
  --steps "$STEPS" --seeds 0 1 2 --seq-length "$SEQ" "${SIZE[@]}" --parallel 1 \
  --results "$OUT/ablations.md" --json "$OUT/ablations.json" 2>&1 | tee "$OUT/log.txt"
end=$(date +%s)
echo "wall $((end - start)) s for 12 proxies of $STEPS steps (per proxy: $(( (end - start) / 12 )) s)" | tee -a "$OUT/ablations.md"
