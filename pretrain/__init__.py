"""Megatron-core MoE continued pretraining on codemix shards (training lands with its own issue; data loading lives here now)."""
