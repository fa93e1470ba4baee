"""A tokenizer file that cannot serve the spec is refused by `mix plan` and by `mix build` before the
crawl, one problem per reason, each naming the field and the fix: a file that is no tokenizer, a
WordPiece whose unk_token is not in its vocabulary (it fails on the first unknown character), a
tokenizer without the EOD token, one without the chat stage's turn-end special token, and
one with more ids than ``tokenizer.vocab_size``. The tokenizers are real ones, made with `tokenizers`
on stdlib sources here (no hub); each failure is checked to be real with `tokenizers` itself."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest
import yaml
from tokenizers import Tokenizer, models, pre_tokenizers

from codemix.mix.cli import main as mix
from codemix.mixtures.tokenizer import SPECIAL_TOKENS, save_tokenizer, train_bpe

STDLIB = Path(sysconfig.get_path("stdlib"))
TRANSCRIPT = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "mini-swe-agent-calc.traj.json"
TEXTS = [(STDLIB / name).read_text() for name in ("textwrap.py", "shlex.py", "colorsys.py")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tokenizers")
    (root / "code").mkdir()
    (root / "code" / "textwrap.py").write_text(TEXTS[0])
    return root


def spec_with(root: Path, tokenizer: dict, *, sft: bool = False) -> Path:
    stages = {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1}}}
    sources = [{"name": "code", "type": "directory", "paths": [str(root / "code")], "license": "MIT"}]
    if sft:
        stages["sft"] = {"sequence_length": 1024, "token_budget": 1000, "weights": {"runs": 1}}
        sources.append({"name": "runs", "type": "transcripts", "paths": [str(TRANSCRIPT)], "license": "MIT"})
    spec = {"name": "t", "sources": sources, "stages": stages, "tokenizer": tokenizer}
    path = root / f"spec-{len(list(root.glob('spec-*')))}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def bpe(root: Path, name: str, special_tokens=SPECIAL_TOKENS, vocab_size: int = 400) -> Path:
    path = root / name
    save_tokenizer(train_bpe(TEXTS, vocab_size, special_tokens), str(path))
    return path


def wordpiece_without_unk(root: Path) -> Path:
    """A WordPiece tokenizer.json whose unk_token is not in its vocabulary."""
    vocab = {token: i for i, token in enumerate(["def", "return", "self", "<|endoftext|>"])}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    path = root / "wordpiece.json"
    path.write_text(tokenizer.to_str())
    with pytest.raises(Exception, match="UNK"):  # guard: `tokenizers` itself fails on unknown text
        Tokenizer.from_file(str(path)).encode("héllo")
    return path


def plan_problems(spec: Path, capsys) -> list[dict]:
    status = mix(["plan", str(spec), "--json"])
    plan = json.loads(capsys.readouterr().out)
    assert status == (0 if plan["preflight"]["ok"] else 1)
    return plan["preflight"]["problems"]


def test_a_fitting_tokenizer_passes_the_plan(corpus, capsys):
    spec = spec_with(corpus, {"path": str(bpe(corpus, "good.json")), "vocab_size": 400}, sft=True)
    assert plan_problems(spec, capsys) == []


def test_a_garbage_file_is_refused_naming_the_file(corpus, capsys):
    garbage = corpus / "garbage.json"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n not a tokenizer")
    [problem] = plan_problems(spec_with(corpus, {"path": str(garbage)}), capsys)
    assert problem["where"] == f"tokenizer.path = {garbage}"
    assert problem["error"] == ("it cannot be loaded as a tokenizer (UnicodeDecodeError: 'utf-8' codec can't decode "
                                "byte 0x89 in position 0: invalid start byte)")
    assert "give a Hugging Face tokenizer.json" in problem["fix"]


def test_json_that_is_not_a_tokenizer_is_refused(corpus, capsys):
    config = corpus / "tokenizer_config.json"
    config.write_text(json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "<|endoftext|>"}))
    [problem] = plan_problems(spec_with(corpus, {"path": str(config)}), capsys)
    assert problem["error"].startswith(f"it cannot be loaded as a tokenizer (ValueError: {config} is not a Hugging "
                                       "Face tokenizers tokenizer.json")


def test_a_wordpiece_without_its_unk_token_is_refused(corpus, capsys):
    [problem] = plan_problems(spec_with(corpus, {"path": str(wordpiece_without_unk(corpus))}), capsys)
    assert problem["error"].startswith("it cannot encode text: ") and "UNK" in problem["error"]
    assert "unk_token" in problem["fix"]


def test_no_eod_no_turn_end_and_too_many_ids_are_each_named(corpus, capsys):
    path = bpe(corpus, "bare.json", special_tokens=["<|im_start|>"], vocab_size=420)
    bare = Tokenizer.from_file(str(path))
    assert bare.token_to_id("<|endoftext|>") is None and bare.token_to_id("<|im_end|>") is None  # guard
    size = bare.get_vocab_size(with_added_tokens=True)
    problems = plan_problems(spec_with(corpus, {"path": str(path), "vocab_size": size - 1}, sft=True), capsys)
    errors = [p["error"] for p in problems]
    assert len(errors) == 3, errors
    assert errors[0] == "no EOD token '<|endoftext|>' in its vocabulary (documents end with it)"
    assert errors[1].startswith("stage sft's template ends a turn with '<|im_end|>', which is not one of its special")
    assert errors[2] == (f"it has {size:,} ids, more than tokenizer.vocab_size = {size - 1:,} "
                         "(the ids the model has room for)")
    assert problems[2]["fix"] == f"set tokenizer.vocab_size to at least {size:,}, or remove it"


def test_build_refuses_the_tokenizer_before_the_crawl(corpus, tmp_path, capsys):
    path = bpe(corpus, "no-eod.json", special_tokens=["<|pad|>"])
    out = tmp_path / "out"
    assert mix(["build", str(spec_with(corpus, {"path": str(path)})), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mix build: preflight: the tokenizer cannot be used (checked before any stage ran)\n")
    assert f"tokenizer.path = {path}: no EOD token '<|endoftext|>'" in err and "Traceback" not in err
    assert not (out / "work").exists()  # nothing crawled
