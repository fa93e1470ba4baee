"""Byte-level BPE tokenizers for codemix: train on the crawl, save, load from any URL, look up ids.

Byte-level (GPT-2 style) so that every string round-trips: the pre-tokenizer maps each UTF-8 byte
to one of 256 printable characters and the trainer starts from all of them
(``ByteLevel.alphabet()``), so no input, however exotic its unicode, can hit an unknown token.
There is deliberately no normalizer: NFC or whitespace cleanup would make code lossy.

The special tokens are added tokens: ``encode`` matches them in the text before pre-tokenizing, so
a ChatML marker in a rendered transcript becomes exactly one id. They are flagged *special*
(as GPT-2 and Qwen do), which means ``decode`` drops them unless given
``skip_special_tokens=False``; pass that whenever the decoded text must equal the input.
"""

from __future__ import annotations

from collections.abc import Iterable

import smart_open
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers

SPECIAL_TOKENS = ("<|endoftext|>", "<|pad|>", "<|im_start|>", "<|im_end|>")


def train_bpe(texts: Iterable[str], vocab_size: int, special_tokens: Iterable[str] = SPECIAL_TOKENS) -> Tokenizer:
    """Train a byte-level BPE of ``vocab_size`` ids (special tokens included, ids 0.. in order).

    ``vocab_size`` must leave room for the 256 byte symbols plus the special tokens; merges fill
    the rest, so a small corpus may yield fewer ids than asked for.
    """
    special = list(special_tokens)
    if vocab_size < 256 + len(special):
        raise ValueError(f"vocab_size {vocab_size} is below the 256 byte symbols + {len(special)} special tokens")
    tokenizer = Tokenizer(models.BPE())
    # use_regex keeps GPT-2's split (words, numbers, punctuation, whitespace runs), so merges never
    # cross those boundaries; add_prefix_space=False so that decode(encode(text)) == text exactly.
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[AddedToken(token, special=True, normalized=False) for token in special],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    return tokenizer


def save_tokenizer(tokenizer: Tokenizer, path: str) -> None:
    """Write ``tokenizer.json`` to a local path or any URL smart-open can write (gs://, s3://)."""
    with smart_open.open(path, "w", encoding="utf-8") as stream:
        stream.write(tokenizer.to_str())


def load_tokenizer(path: str) -> Tokenizer:
    """Read a ``tokenizer.json`` from a local path or URL; errors name the path and the fix."""
    try:
        with smart_open.open(path, "r", encoding="utf-8") as stream:
            text = stream.read()
    except OSError as error:
        raise FileNotFoundError(
            f"cannot read tokenizer {path}: {error}. Fix: give the path of a tokenizer.json, "
            "or train one with mixtures.tokenizer.train_bpe"
        ) from error
    try:
        return Tokenizer.from_str(text)
    except Exception as error:  # tokenizers raises a bare Exception on malformed JSON
        raise ValueError(f"{path} is not a Hugging Face tokenizers tokenizer.json: {error}") from error


def token_id(tokenizer: Tokenizer, token: str) -> int:
    """The id of ``token``; ValueError naming the token when the vocabulary lacks it."""
    found = tokenizer.token_to_id(token)
    if found is None:
        raise ValueError(
            f"token {token!r} is not in the tokenizer's vocabulary. Fix: train the tokenizer with it "
            "among special_tokens (see mixtures.tokenizer.SPECIAL_TOKENS), or configure a token it has"
        )
    return found
