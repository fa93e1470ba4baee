"""Byte-level BPE training, exact round trips on real code, and special-token handling."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from mixtures.tokenizer import SPECIAL_TOKENS, load_tokenizer, save_tokenizer, token_id, train_bpe

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
