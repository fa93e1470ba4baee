"""Byte-level BPE training, exact round trips on real code, and special-token handling."""

from __future__ import annotations

import json
import shutil
import sysconfig
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from codemix.mixtures.tokenizer import SPECIAL_TOKENS, load_tokenizer, save_tokenizer, token_id, train_bpe

STDLIB = Path(sysconfig.get_path("stdlib"))
# Real stdlib modules that carry non-ASCII text (accents, symbols, case-folding tables); the
# tokenizer never sees them in training, so they test unseen input.
UNICODE_MODULES = [
    "re/_casefix.py",
    "shlex.py",
    "fractions.py",
    "urllib/parse.py",
    "zipfile.py",
    "runpy.py",
    "sqlite3/__init__.py",
    "statistics.py",
    "heapq.py",
]


def stdlib_texts(pattern: str) -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted(STDLIB.glob(pattern))]


@pytest.fixture(scope="module")
def training_texts() -> list[str]:
    texts = stdlib_texts("json/*.py") + stdlib_texts("email/*.py")
    assert len(texts) > 20 and sum(map(len, texts)) > 300_000
    return texts


@pytest.fixture(scope="module")
def tokenizer(training_texts) -> Tokenizer:
    return train_bpe(training_texts, vocab_size=1_000)


@pytest.fixture(scope="module")
def unicode_texts() -> list[str]:
    texts = [(STDLIB / name).read_text(encoding="utf-8") for name in UNICODE_MODULES if (STDLIB / name).is_file()]
    assert sum(ch > "\x7f" for text in texts for ch in text) > 100, "fixture must really contain non-ASCII"
    return texts


def render_chatml(messages: list[dict]) -> str:
    return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)


def test_trained_vocab_has_requested_size_and_special_tokens_first(tokenizer):
    assert tokenizer.get_vocab_size() == 1_000
    assert [tokenizer.token_to_id(token) for token in SPECIAL_TOKENS] == [0, 1, 2, 3]


def test_training_texts_round_trip_exactly(tokenizer, training_texts):
    for text in training_texts:
        assert tokenizer.decode(tokenizer.encode(text).ids) == text


def test_unseen_unicode_code_round_trips_exactly(tokenizer, unicode_texts):
    for text in unicode_texts:
        assert tokenizer.decode(tokenizer.encode(text).ids) == text


@pytest.mark.parametrize(
    "text",
    [
        "clef 𝄞 and emoji 👩‍💻 (astral, ZWJ)",
        "e\u0301 combining",
        "\ufeffbom\r\nCRLF\ttab",
        "nul\x00byte",
        "   leading spaces",
        "中文注释 # コメント",
        "",
    ],
)
def test_exotic_strings_round_trip_exactly(tokenizer, text):
    assert tokenizer.decode(tokenizer.encode(text).ids) == text


@pytest.mark.parametrize("special", SPECIAL_TOKENS)
def test_special_tokens_are_never_split(tokenizer, special):
    ids = tokenizer.encode(f"x = 1{special}def f():").ids
    assert ids.count(token_id(tokenizer, special)) == 1
    assert tokenizer.decode(ids, skip_special_tokens=False) == f"x = 1{special}def f():"


def test_chatml_markers_in_a_real_transcript_map_to_single_ids(tokenizer, shared_transcripts):
    messages = json.loads((shared_transcripts / "mini-swe-agent" / "github_issue.traj.json").read_text())
    text = render_chatml(messages)
    ids = tokenizer.encode(text).ids
    assert len(messages) > 10
    assert ids.count(token_id(tokenizer, "<|im_start|>")) == len(messages)
    assert ids.count(token_id(tokenizer, "<|im_end|>")) == len(messages)
    assert tokenizer.decode(ids, skip_special_tokens=False) == text


def test_save_then_load_gives_the_same_tokenizer(tokenizer, unicode_texts, tmp_path):
    path = str(tmp_path / "sub" / "tokenizer.json")
    (tmp_path / "sub").mkdir()
    save_tokenizer(tokenizer, path)
    loaded = load_tokenizer(path)
    assert loaded.get_vocab() == tokenizer.get_vocab()
    assert loaded.encode(unicode_texts[0]).ids == tokenizer.encode(unicode_texts[0]).ids


def test_load_reports_a_missing_file_with_its_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.json"):
        load_tokenizer(str(tmp_path / "nope.json"))


def test_load_reports_an_invalid_file_with_its_path(tmp_path):
    (tmp_path / "bad.json").write_text('{"not": "a tokenizer"}')
    with pytest.raises(ValueError, match="bad.json is not"):
        load_tokenizer(str(tmp_path / "bad.json"))


def test_token_id_names_a_missing_token_and_the_fix(tokenizer):
    with pytest.raises(ValueError, match=r"'<\|eot_id\|>' is not in the tokenizer's vocabulary. Fix"):
        token_id(tokenizer, "<|eot_id|>")


def test_vocab_too_small_for_the_byte_alphabet_is_rejected():
    with pytest.raises(ValueError, match="256 byte symbols"):
        train_bpe(["x"], vocab_size=200)


# --- a base model's tokenizer: Hugging Face directories and tiktoken files ----------------------------

CJK_AND_MARKS = "# 中文注释：计算总和 — コメント, 한국어 주석, naïve café e\u0301 ΣΑΣ İstanbul 123456789 don't WE'RE\r\n\r\n  x"


@pytest.fixture(scope="module")
def tiktoken_files(tmp_path_factory, training_texts):
    """A tiktoken file made from a trained BPE's ranks (4,000 ids), specials after the ranks."""
    import base64

    from codemix.mixtures.tokenizer import byte_symbols

    bpe = train_bpe(training_texts, vocab_size=4_000)
    to_byte = {symbol: b for b, symbol in enumerate(byte_symbols())}
    pieces = [t for t, _ in sorted(bpe.get_vocab(with_added_tokens=False).items(), key=lambda kv: kv[1])
              if t not in SPECIAL_TOKENS]
    ranks = {bytes(to_byte[c] for c in token): rank for rank, token in enumerate(pieces)}
    specials = {token: len(ranks) + i for i, token in enumerate(SPECIAL_TOKENS)}
    root = tmp_path_factory.mktemp("tiktoken")
    (root / "codemix.tiktoken").write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()))
    return root, ranks, specials


def write_sidecar(root: Path, specials: dict[str, int], **extra) -> None:
    config = {"added_tokens_decoder": {str(i): {"content": t, "special": True} for t, i in specials.items()}, **extra}
    (root / "tokenizer_config.json").write_text(json.dumps(config))


@pytest.fixture(scope="module")
def real_code() -> list[str]:
    texts = stdlib_texts("asyncio/*.py") + stdlib_texts("logging/*.py") + stdlib_texts("http/*.py") \
        + [(STDLIB / name).read_text(encoding="utf-8") for name in UNICODE_MODULES if (STDLIB / name).is_file()]
    assert sum(len(t.encode()) for t in texts) > 1_000_000, "guard: over 1 MB of real code"
    return texts + [CJK_AND_MARKS]


@pytest.mark.parametrize("pattern", ["gpt2", "cl100k_base", "kimi"])
def test_a_tiktoken_file_tokenizes_real_code_exactly_as_tiktoken(tiktoken_files, real_code, pattern):
    import tiktoken

    from codemix.mixtures.tokenizer import SPLIT_PATTERNS

    root, ranks, specials = tiktoken_files
    write_sidecar(root, specials, pat_str=pattern)
    ours = load_tokenizer(str(root))
    reference = tiktoken.Encoding(pattern, pat_str=SPLIT_PATTERNS[pattern], mergeable_ranks=ranks, special_tokens=specials)
    ours.encode_special_tokens = True  # code: marker look-alikes are text, as in tiktoken's encode_ordinary
    assert [e.ids for e in ours.encode_batch_fast(real_code)] == reference.encode_ordinary_batch(real_code)
    ours.encode_special_tokens = False
    chat = "<|im_start|>user\nfix <|pad|>?<|im_end|>\n<|endoftext|>"
    assert ours.encode(chat).ids == reference.encode(chat, allowed_special="all")
    assert ours.get_vocab_size() == len(ranks) + len(specials)
    assert ours.decode(ours.encode(CJK_AND_MARKS).ids) == CJK_AND_MARKS


def test_kimis_tokenizer_config_selects_kimis_split(tiktoken_files, tmp_path):
    from codemix.mixtures.tokenizer import SPLIT_PATTERNS

    root, _, specials = tiktoken_files
    shutil.copyfile(root / "codemix.tiktoken", tmp_path / "tiktoken.model")
    write_sidecar(tmp_path, specials, auto_map={"AutoTokenizer": ["tokenization_kimi.TikTokenTokenizer", None]})
    pre_tokenizer = json.loads(load_tokenizer(str(tmp_path)).to_str())["pre_tokenizer"]
    assert pre_tokenizer["pretokenizers"][0]["pattern"]["Regex"] == SPLIT_PATTERNS["kimi"]


def test_a_tiktoken_file_without_a_split_regex_is_refused_with_the_fix(tiktoken_files, tmp_path):
    root, _, specials = tiktoken_files
    shutil.copyfile(root / "codemix.tiktoken", tmp_path / "codemix.tiktoken")
    write_sidecar(tmp_path, specials)
    with pytest.raises(ValueError, match=r'no split regex .* Fix: add "pat_str"'):
        load_tokenizer(str(tmp_path / "codemix.tiktoken"))


def test_special_ids_inside_the_ranks_are_refused(tiktoken_files, tmp_path):
    root, _, _ = tiktoken_files
    shutil.copyfile(root / "codemix.tiktoken", tmp_path / "codemix.tiktoken")
    write_sidecar(tmp_path, {"<|endoftext|>": 5}, pat_str="gpt2")
    with pytest.raises(ValueError, match="must follow the .* ranks"):
        load_tokenizer(str(tmp_path / "codemix.tiktoken"))


def test_a_hugging_face_directory_tokenizes_as_transformers(tokenizer, real_code, tmp_path):
    from transformers import AutoTokenizer

    save_tokenizer(tokenizer, str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "PreTrainedTokenizerFast"}))
    ours = load_tokenizer(str(tmp_path))
    reference = AutoTokenizer.from_pretrained(tmp_path)
    assert [e.ids for e in ours.encode_batch(real_code[:20])] == reference(real_code[:20])["input_ids"]


def test_a_directory_without_a_tokenizer_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no tokenizer.json and no tiktoken file"):
        load_tokenizer(str(tmp_path))


def test_spec_tokenizer_path_accepts_a_directory(tiktoken_files):
    from codemix.config import load_config
    from codemix.mixtures.spec import TokenizerConfig

    root, _, specials = tiktoken_files
    write_sidecar(root, specials, pat_str="gpt2")
    config = load_config(TokenizerConfig, {"path": str(root)}, "tokenizer")
    assert config.path == str(root / "codemix.tiktoken")


def test_fingerprint_follows_the_ids_not_the_file(tiktoken_files, tokenizer, tmp_path):
    from codemix.mixtures.tokenizer import tokenizer_fingerprint

    root, _, specials = tiktoken_files
    write_sidecar(root, specials, pat_str="gpt2")
    converted = load_tokenizer(str(root))
    save_tokenizer(converted, str(tmp_path / "tokenizer.json"))
    assert tokenizer_fingerprint(load_tokenizer(str(tmp_path / "tokenizer.json"))) == tokenizer_fingerprint(converted)
    assert tokenizer_fingerprint(tokenizer) != tokenizer_fingerprint(converted)


def test_pad_token_is_a_special_token_other_than_the_eod(tokenizer, tiktoken_files):
    from codemix.mixtures.tokenizer import pick_pad_token

    assert pick_pad_token(tokenizer, "<|endoftext|>") == "<|pad|>"
    root, ranks, _ = tiktoken_files
    write_sidecar(root, {"[EOS]": len(ranks), "[PAD]": len(ranks) + 2}, pat_str="gpt2")  # id +1: reserved
    kimi_like = load_tokenizer(str(root))
    assert kimi_like.id_to_token(len(ranks) + 1) == f"<|reserved_token_{len(ranks) + 1}|>"
    assert pick_pad_token(kimi_like, "[EOS]") == "[PAD]"


def test_the_configured_pad_comes_first_and_an_eos_only_tokenizer_has_none(tokenizer, tiktoken_files):
    """A base's tokenizer_config.json pad (Qwen's ``<|im_end|>``-style choice) is taken as it is, if the
    vocabulary has it and it is not the EOD; a GPT-2-style tokenizer with only an EOS gets None (the
    trainer pads with the EOS under the loss mask)."""
    from codemix.mixtures.tokenizer import pick_pad_token

    assert pick_pad_token(tokenizer, "<|endoftext|>", configured="<|im_end|>") == "<|im_end|>"
    assert pick_pad_token(tokenizer, "<|endoftext|>", configured="<|endoftext|>") == "<|pad|>"  # never the EOD
    assert pick_pad_token(tokenizer, "<|endoftext|>", configured="<|nowhere|>") == "<|pad|>"
    root, ranks, _ = tiktoken_files
    write_sidecar(root, {"<|endoftext|>": len(ranks)}, pat_str="gpt2")
    gpt2_like = load_tokenizer(str(root))
    assert [t.content for t in gpt2_like.get_added_tokens_decoder().values()] == ["<|endoftext|>"], "guard"
    assert pick_pad_token(gpt2_like, "<|endoftext|>") is None
