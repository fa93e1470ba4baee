"""Mixture specs, tokenization and Megatron indexed-dataset shards."""

from codemix import refuse_bare_name

refuse_bare_name(__name__)
