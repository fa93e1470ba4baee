"""Hugging Face exchange: config and tensor-name conversion, importing a base, the hand-off bundle for RL."""
