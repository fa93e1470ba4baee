"""Byte-level BPE tokenizers for codemix: train on the crawl, save, load from any URL, look up ids.

Design notes: docs/design/mixtures.md, "mixtures/tokenizer.py".
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

SPECIAL_TOKENS = ("<|endoftext|>", "<|pad|>", "<|im_start|>", "<|im_end|>")
TIKTOKEN_SUFFIXES = (".tiktoken", "tiktoken.model")
TOKENIZER_CONFIG = "tokenizer_config.json"
# Kimi K2's split (tokenization_kimi.py): Han runs apart, case-aware words without Han, digits in threes.
_KIMI_UPPER = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]"
_KIMI_LOWER = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]"
_KIMI_PREFIX, _CONTRACTION = r"[^\r\n\p{L}\p{N}]?", r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
# Split regexes of tiktoken encodings, by name (a tokenizer_config.json's ``pat_str`` may name one).
SPLIT_PATTERNS = {
    # GPT-2 / r50k_base: what ``pre_tokenizers.ByteLevel(use_regex=True)`` splits with.
    "gpt2": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    "cl100k_base": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+""",
    "kimi": "|".join([
        r"[\p{Han}]+",
        _KIMI_PREFIX + _KIMI_UPPER + "*" + _KIMI_LOWER + "+" + _CONTRACTION,
        _KIMI_PREFIX + _KIMI_UPPER + "+" + _KIMI_LOWER + "*" + _CONTRACTION,
        r"\p{N}{1,3}", r" ?[^\s\p{L}\p{N}]+[\r\n]*", r"\s*[\r\n]+", r"\s+(?!\S)", r"\s+",
    ]),
}


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


# Object stores go through Beam's FileSystems, so the pipeline options that configure them (an S3
# endpoint and keys, a GCP project) apply to the tokenizer as to every other file of a build.
BEAM_SCHEMES = ("s3://", "gs://", "hdfs://", "azfs://")


def open_text(path: str, mode: str):
    """A text stream on ``path``: Beam's FileSystems for object stores, smart-open for the rest."""
    if path.startswith(BEAM_SCHEMES):
        from apache_beam.io.filesystem import CompressionTypes  # Beam loads only for object stores
        from apache_beam.io.filesystems import FileSystems

        handle = (FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) if mode == "w"
                  else FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED))
        return io.TextIOWrapper(handle, encoding="utf-8")
    import smart_open  # here: it imports boto3 and google-auth, which a spec error need not pay for

    return smart_open.open(path, mode, encoding="utf-8")


def save_tokenizer(tokenizer: Tokenizer, path: str) -> None:
    """Write ``tokenizer.json`` to a local path or a URL (gs://, s3://, or anything smart-open writes)."""
    with open_text(path, "w") as stream:
        stream.write(tokenizer.to_str())


def load_tokenizer(path: str) -> Tokenizer:
    """A tokenizer from a ``tokenizer.json`` (local path or URL), a Hugging Face tokenizer directory or a
    tiktoken BPE file (see the module docstring); errors name the path and the fix."""
    path = resolve_tokenizer_path(path)
    try:
        with open_text(path, "r") as stream:
            text = stream.read()
    except OSError as error:
        raise FileNotFoundError(
            f"cannot read tokenizer {path}: {error}. Fix: give the path of a tokenizer.json, a Hugging Face "
            "tokenizer directory or a tiktoken file, or train one with mixtures.tokenizer.train_bpe"
        ) from error
    if is_tiktoken_text(text):
        return tiktoken_tokenizer(path, text)
    try:
        return Tokenizer.from_str(text)
    except Exception as error:  # tokenizers raises a bare Exception on malformed JSON
        raise ValueError(f"{path} is not a Hugging Face tokenizers tokenizer.json: {error}") from error


def resolve_tokenizer_path(path: str) -> str:
    """The file a tokenizer path names: itself, or in a directory its ``tokenizer.json``, else its
    tiktoken file (``tiktoken.model``, ``*.tiktoken``). A directory with neither is an error."""
    if "://" in path or not os.path.isdir(path):
        return path
    directory = Path(path)
    if (directory / "tokenizer.json").is_file():
        return str(directory / "tokenizer.json")
    found = sorted(p for p in directory.iterdir() if p.is_file() and p.name.endswith(TIKTOKEN_SUFFIXES))
    if not found:
        raise FileNotFoundError(f"tokenizer directory {path} holds no tokenizer.json and no tiktoken file "
                                "(tiktoken.model, *.tiktoken). Fix: point at the base model's tokenizer files")
    return str(found[0])


def is_tiktoken_text(text: str) -> bool:
    """tiktoken's format: ``base64 rank`` per line (a tokenizer.json starts with ``{``)."""
    first = text.lstrip()[:200].split("\n", 1)[0]
    return bool(re.fullmatch(r"[A-Za-z0-9+/]+=*\s+\d+", first.strip()))


def read_tiktoken_ranks(text: str, path: str) -> dict[bytes, int]:
    """``{token bytes: rank}`` of a tiktoken file; ranks must be 0..n-1, each once (they are the ids)."""
    ranks = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            raise ValueError(f"{path}:{number} is not a tiktoken line 'base64 rank': {line[:80]!r}")
        ranks[base64.b64decode(parts[0])] = int(parts[1])
    if sorted(ranks.values()) != list(range(len(ranks))):
        raise ValueError(f"{path}: tiktoken ranks are not 0..{len(ranks) - 1}, each once (duplicate tokens or gaps)")
    return ranks


def tiktoken_sidecar(path: str, num_ranks: int) -> tuple[str, dict[str, int]]:
    """(split regex, {special token: id}) of a tiktoken file, from the tokenizer_config.json beside it."""
    config_path = os.path.join(os.path.dirname(path) or ".", TOKENIZER_CONFIG)
    config = json.loads(Path(config_path).read_text(encoding="utf-8")) if os.path.isfile(config_path) else {}
    listed = {int(i): entry["content"] for i, entry in config.get("added_tokens_decoder", {}).items()}
    if any(i < num_ranks for i in listed):
        raise ValueError(f"{config_path}: special token ids must follow the {num_ranks} ranks of {path}, "
                         f"got {min(listed)}")
    last = max(listed, default=num_ranks - 1)
    specials = {listed.get(i, f"<|reserved_token_{i}|>"): i for i in range(num_ranks, last + 1)}
    pattern = config.get("pat_str")
    if pattern is None and "tokenization_kimi" in json.dumps(config.get("auto_map", {})):
        pattern = "kimi"
    if pattern is None:
        raise ValueError(f"{path}: no split regex for this tiktoken file. Fix: add \"pat_str\" to {config_path} "
                         f"(one of {', '.join(SPLIT_PATTERNS)}, or the encoding's regex)")
    return SPLIT_PATTERNS.get(pattern, pattern), specials


def tiktoken_tokenizer(path: str, text: str) -> Tokenizer:
    """The tiktoken file at ``path`` (already read as ``text``) as a ``tokenizers.Tokenizer`` with tiktoken's ids."""
    ranks = read_tiktoken_ranks(text, path)
    pattern, specials = tiktoken_sidecar(path, len(ranks))
    return tokenizer_from_ranks(ranks, pattern, specials)


def byte_symbols() -> list[str]:
    """GPT-2's reversible byte -> printable character table (what ``pre_tokenizers.ByteLevel`` maps to):
    printable Latin-1 bytes stand for themselves, the other 68 take the code points from 256 upward."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {b: chr(b) for b in printable}, 0
    for b in range(256):
        if b not in table:
            table[b], extra = chr(256 + extra), extra + 1
    return [table[b] for b in range(256)]


def tokenizer_from_ranks(ranks: dict[bytes, int], pattern: str, specials: dict[str, int]) -> Tokenizer:
    """A byte-level BPE tokenizing exactly as ``tiktoken.Encoding(pat_str=pattern, mergeable_ranks=ranks,
    special_tokens=specials)``: ids are the ranks, special tokens keep their ids."""
    symbols = byte_symbols()

    def as_symbols(token: bytes) -> str:
        return "".join(symbols[b] for b in token)

    vocab = {as_symbols(token): rank for token, rank in ranks.items()}
    merges = []
    for token, rank in ranks.items():  # every split into two tokens, in the merged token's rank order
        merges += [(rank, as_symbols(token[:i]), as_symbols(token[i:]))
                   for i in range(1, len(token)) if token[:i] in ranks and token[i:] in ranks]
    merges.sort(key=lambda merge: merge[0])
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=[(left, right) for _, left, right in merges],
                                     ignore_merges=True))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tokenizer.decoder = decoders.ByteLevel()
    ordered = sorted(specials.items(), key=lambda item: item[1])
    if [i for _, i in ordered] != list(range(len(ranks), len(ranks) + len(ordered))):
        raise ValueError(f"special token ids must be {len(ranks)}.. without gaps, got {[i for _, i in ordered][:8]}...")
    tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token, _ in ordered])
    return tokenizer


def tokenizer_fingerprint(tokenizer: Tokenizer) -> str:
    """What decides the ids, hashed: vocabulary, merges, added tokens, normalizer, pre-tokenizer and
    post-processor (not padding/truncation), so the same tokenizer gives the same fingerprint whatever
    file it came from (a tiktoken file and the tokenizer.json a build wrote from it)."""
    data = json.loads(tokenizer.to_str())
    data = {key: value for key, value in data.items() if key not in ("truncation", "padding", "version")}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def pick_pad_token(tokenizer: Tokenizer, eod_token: str, configured: str | None = None) -> str | None:
    """A token to pad with that is not the EOD (megatron masks the loss where labels equal the pad id,
    so it must never be a real target): ``configured`` (a tokenizer_config.json's ``pad_token``) when the
    vocabulary has it, else ``<|pad|>``, else a special token named like a pad (``[PAD]``,
    ``<|fim_pad|>``), else the highest reserved special token. None when there is none (a GPT-2-style
    tokenizer with only ``<|endoftext|>``): the caller pads with the EOD under the loss mask, as
    Hugging Face trainers do (``HFTokenizerForMegatron``)."""
    if configured and configured != eod_token and tokenizer.token_to_id(configured) is not None:
        return configured
    specials = [t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special and t.content != eod_token]
    if "<|pad|>" in specials:
        return "<|pad|>"
    named = [t for t in specials if "pad" in t.lower()]
    reserved = [t for t in specials if "reserved" in t.lower()]
    return (named or reserved)[-1] if named or reserved else None


def token_id(tokenizer: Tokenizer, token: str) -> int:
    """The id of ``token``; ValueError naming the token when the vocabulary lacks it."""
    found = tokenizer.token_to_id(token)
    if found is None:
        raise ValueError(
            f"token {token!r} is not in the tokenizer's vocabulary. Fix: train the tokenizer with it "
            "among special_tokens (see mixtures.tokenizer.SPECIAL_TOKENS), or configure a token it has"
        )
    return found
