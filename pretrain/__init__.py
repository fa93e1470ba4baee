"""Megatron-core MoE continued pretraining on codemix shards, and the hand-off to RL.

    configs.py    recipes as data (pretrain/configs/*.yaml): model, parallel, precision, per-stage training
    params.py     total/active parameter counts from a config alone (python -m codemix.pretrain.model.params NAME)
    model.py      the model definition: a megatron-core GPTModel with MoE layers, RoPE/YaRN
    parallel.py   process groups, the CPU compatibility layer, FP8 checks, DDP + distributed optimizer
    stage_data.py a `mix build` directory -> megatron-core datasets (data.py, sft_dataset.py) -> batches
    loop.py       the training step (CPU: plain AdamW; GPU: megatron's schedule), loss, logging rows
    checkpoint.py megatron-core distributed checkpoints with optimizer, step, RNG and data position
    run.py        one stage's run: set-up, resume, loop, checkpoints;  train.py: its thin CLI
    evaluate.py   bits per byte on held-out code per checkpoint
    handoff.py    the RL bundle: the Hugging Face class with the trained structure, tokenizer + chat template,
                  checkpoint, lineage, eval
    hf_convert.py Hugging Face <-> megatron-core configs and tensor names (Qwen3-MoE, Qwen2-MoE, DeepSeek-V3)
    hf_import.py  a Hugging Face base checkpoint -> the starting checkpoint of continued pretraining
    fp8.py        FP8 recipes emulated on CPU: quantise-dequantise where Transformer Engine quantises
    te_probe.py   whether Transformer Engine is usable, decided before megatron-core is imported
"""

from codemix.pretrain import te_probe  # noqa: F401  first: hides a half-installed Transformer Engine from megatron-core
