"""What training reads: a build's shards as megatron-core datasets (pretraining and SFT) and their batches."""
