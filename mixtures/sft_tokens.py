"""SFT samples as tokens: a transcript's turns rendered with the chat template, tokenized with their loss mask."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np
from tokenizers import Tokenizer

from codemix.mixtures.chat import ChatTemplate, ReasoningMode, Segment, render_turn


class RenderConfig(Protocol):
    """What rendering reads of an ``SFTConfig``: the chat template and the reasoning mode."""

    template: ChatTemplate
    reasoning: ReasoningMode


def render_segments(messages: Sequence[dict[str, Any]], config: RenderConfig) -> list[Segment]:
    """Every message's segments, in order; joined, they are the rendered transcript."""
    return [segment for message in messages for segment in render_turn(message, config.template, config.reasoning)]


def tokenize_segments(segments: Sequence[Segment], tokenizer: Tokenizer) -> tuple[np.ndarray, np.ndarray]:
    """``(ids int32 [T], loss mask uint8 [T])`` of one turn's segments, tokenized as the text a tokenizer
    would see at inference (see ``_tokenize_turns``); no post-processor tokens (BOS/EOS) are added."""
    return _tokenize_turns([segments], tokenizer)[0]


def tokenize_turns(
    messages: Sequence[dict[str, Any]], tokenizer: Tokenizer, config: RenderConfig
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(ids, mask)`` per message, from one batched encode of the whole transcript."""
    return _tokenize_turns([render_turn(m, config.template, config.reasoning) for m in messages], tokenizer)


class _Chunk(NamedTuple):
    """Text between special tokens, tokenized in one piece; ``spans`` are the ``(end char, trainable)``
    of the segments it joins, in order."""

    text: str
    spans: list[tuple[int, bool]]


def _tokenize_turns(turns: Sequence[Sequence[Segment]], tokenizer: Tokenizer) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each turn as one text: the template's special tokens (``<|im_start|>``, ``<|im_end|>``) as
    their single ids, and the text between them tokenized in one piece with special tokens read as
    plain text (so content that merely mentions ``<|im_end|>`` cannot forge a boundary). One piece,
    not one encode per segment: encoded apart, ``<tool_call>`` and ``{"name"`` split where a
    tokenizer joins them (``>{"``), and the model would train on tokenizations it never sees at
    inference. A token is trained when the segment its first character belongs to is."""
    specials = tuple(sorted((t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special),
                            key=len, reverse=True))
    pieces = [_pieces(segments, specials) for segments in turns]
    chunks = [piece for turn in pieces for piece in turn if isinstance(piece, _Chunk)]
    encoded = iter(_encode_plain(tokenizer, [chunk.text for chunk in chunks]))
    results = []
    for turn in pieces:
        ids: list[np.ndarray] = []
        mask: list[np.ndarray] = []
        for piece in turn:
            if isinstance(piece, _Chunk):
                encoding = next(encoded)
                ends, trainable = zip(*piece.spans)
                starts = np.fromiter((start for start, _ in encoding.offsets), dtype=np.int64,
                                     count=len(encoding.offsets))
                # The segment holding each token's first character: the first whose end is past it.
                owner = np.minimum(np.searchsorted(np.asarray(ends), starts, side="right"), len(ends) - 1)
                ids.append(np.asarray(encoding.ids, dtype=np.int32))
                mask.append(np.asarray(trainable, dtype=np.uint8)[owner])
            else:
                ids.append(np.array([tokenizer.token_to_id(piece[0])], dtype=np.int32))
                mask.append(np.array([piece[1]], dtype=np.uint8))
        results.append((np.concatenate(ids) if ids else np.zeros(0, np.int32),
                        np.concatenate(mask) if mask else np.zeros(0, np.uint8)))
    return results


def _pieces(segments: Sequence[Segment], specials: tuple[str, ...]) -> list:
    """A turn's segments as chunks of plain text and ``(special token, trainable)`` pairs, in order.
    Special tokens are only looked for in template text (``markup``); content never holds one."""
    pieces: list = []
    text, spans = "", []
    for segment in segments:
        for part, special in _split_specials(segment.text, specials) if segment.markup else ((segment.text, False),):
            if special:
                if text:
                    pieces.append(_Chunk(text, spans))
                text, spans = "", []
                pieces.append((part, segment.trainable))
            elif part:
                text += part
                spans.append((len(text), segment.trainable))
    if text:
        pieces.append(_Chunk(text, spans))
    return pieces


@functools.lru_cache(maxsize=1024)
def _split_specials(text: str, specials: tuple[str, ...]) -> tuple[tuple[str, bool], ...]:
    """Template ``text`` as ``(part, is a special token)`` pairs (a template has few distinct texts)."""
    parts: list[tuple[str, bool]] = []
    position = 0
    while position < len(text):
        found = min(((text.find(token, position), token) for token in specials if token in text[position:]),
                    default=None)
        if found is None:
            parts.append((text[position:], False))
            break
        start, token = found
        parts += [(text[position:start], False), (token, True)]
        position = start + len(token)
    return tuple(part for part in parts if part[0])


def _encode_plain(tokenizer: Tokenizer, texts: Sequence[str]) -> list:
    """Encodings (ids and character offsets) of ``texts`` with special tokens read as plain text."""
    saved = tokenizer.encode_special_tokens
    try:
        tokenizer.encode_special_tokens = True  # "<|im_end|>" in content is text, not a turn end
        if len(texts) == 1:  # a batch call costs ~0.5 ms of thread-pool overhead
            return [tokenizer.encode(texts[0], add_special_tokens=False)]
        return tokenizer.encode_batch(list(texts), add_special_tokens=False) if texts else []
    finally:
        tokenizer.encode_special_tokens = saved  # the tokenizer is shared with other stages


def encode_each(tokenizer: Tokenizer, texts: Sequence[str], markup: Sequence[bool]) -> list[list[int]]:
    """Token ids of each text, batched per special-token mode (a batch call costs ~0.5 ms of thread-pool
    overhead, so a single text goes through ``encode``)."""
    encoded: list[list[int]] = [[] for _ in texts]
    saved = tokenizer.encode_special_tokens
    try:
        for mode in (True, False):
            picks = [i for i, flag in enumerate(markup) if flag == mode and texts[i]]
            # encode_special_tokens=True reads "<|im_end|>" as plain text, which content needs.
            tokenizer.encode_special_tokens = not mode
            if len(picks) == 1:
                encoded[picks[0]] = tokenizer.encode(texts[picks[0]], add_special_tokens=False).ids
            elif picks:
                batch = tokenizer.encode_batch([texts[i] for i in picks], add_special_tokens=False)
                for i, encoding in zip(picks, batch):
                    encoded[i] = encoding.ids
    finally:
        tokenizer.encode_special_tokens = saved  # the tokenizer is shared with other stages
    return encoded
