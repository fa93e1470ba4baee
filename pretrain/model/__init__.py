"""The model: the megatron-core GPT with MoE layers, its parameter counts and the FP8 recipes."""
