"""Mixture specs, tokenization and Megatron indexed-dataset shards."""
