"""codemix: code, repositories and agent transcripts into Megatron pretraining shards."""

__version__ = "0.1.0"
