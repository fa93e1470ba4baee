"""Megatron-core MoE continued pretraining on codemix shards, and the hand-off to RL.

Rooms: ``model/`` (the GPT with MoE layers, parameter counts, FP8), ``data/`` (shards as datasets),
``hf/`` (Hugging Face import and export, the RL hand-off), ``search/`` (the mixture search); beside
them the loop, one stage's run, checkpoints and run lineage. README "Layout" maps each change to a file.
"""

from codemix import refuse_bare_name

refuse_bare_name(__name__)

from codemix.pretrain import te_probe  # noqa: F401  first: hides a half-installed Transformer Engine from megatron-core
