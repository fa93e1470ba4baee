"""Older real layouts (tests/fixtures/transcripts/README.md gives their origin): OpenHands' resolver output rows,
whose events are flattened (no ``source``, ``id`` or ``args``), and an aider chat history cut from aider's own.
Messages are counted here from the raw file (plain ``json``; aider's own edit-block output), not by codemix."""

from __future__ import annotations

import json
import re
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from codemix.document import Document, Quarantined
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.natural_language import NaturalLanguageChecker, NaturalLanguageConfig, transcript_prose
from codemix.mixtures.chat import is_model_turn
from codemix.mixtures.sft import SFTConfig, sft_samples
from codemix.mixtures.tokenizer import train_bpe
from codemix.mixtures.transcript_formats import parse_json_value, parse_text
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
RESOLVER = FIXTURES / "openhands-resolver" / "output.jsonl"
SILENT = ("null", "agent_state_changed")


def read(path: Path) -> list[Document | Quarantined]:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    return list(read_location(source, str(path)))


def resolver_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in RESOLVER.read_text(encoding="utf-8").splitlines()]


def event_role(event: dict[str, Any]) -> str:
    """The task (a message action) is the user's, every other action the model's, an observation the tool's."""
    if "observation" in event:
        return "tool"
    return "user" if event["action"] == "message" else "assistant"


def trained_every_model_turn(doc: Document) -> bool:
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))]
    tokenizer = train_bpe([*stdlib, doc.text], vocab_size=600)
    samples, _ = sft_samples(doc, tokenizer, 1 << 16, SFTConfig(outcome_policy="any", min_tokens=1))
    model = [i for i, m in enumerate(doc.metadata["messages"]) if is_model_turn(m)]
    covered = {i for s in samples for i in range(*s.turns)}
    trained = [tokenizer.decode(s.tokens[s.loss_mask == 1].tolist(), skip_special_tokens=False) for s in samples]
    return bool(model) and set(model) <= covered and all(
        doc.metadata["messages"][i]["content"][:200] in "".join(trained) for i in model)


def test_resolver_rows_with_flattened_events_are_read_whole() -> None:
    rows = resolver_rows()
    assert all("source" not in e and "args" not in e for r in rows for e in r["history"]), "guard: flattened"
    outcomes = read(RESOLVER)
    assert all(isinstance(o, Document) for o in outcomes) and len(outcomes) == len(rows) == 2
    for row, doc in zip(rows, outcomes):
        events = [e for e in row["history"] if e.get("observation") not in SILENT]
        messages = doc.metadata["messages"]
        assert doc.metadata["format"] == "openhands-events"
        assert [m["role"] for m in messages] == [event_role(e) for e in events]
        assert messages[0]["content"] == row["history"][0]["content"] == row["instruction"]
        actions = [e for e in events if event_role(e) == "assistant"]
        model = [m for m in messages if m["role"] == "assistant"]
        assert [m["content"] for m in model] == [e["thought"] for e in actions]
        assert [m["tool_calls"][0]["name"] for m in model] == [e["action"] for e in actions]
        for message, event in zip(model, actions):
            arguments = json.loads(message["tool_calls"][0]["arguments"])
            assert {k: event[k] for k in ("command", "code", "outputs") if k in event}.items() <= arguments.items()
        assert [m["content"] for m in messages if m["role"] == "tool"] == [
            e["content"] for e in events if "observation" in e]
        assert all(m["observation"] for m in messages if m["role"] == "tool")
    assert sum(len(o.metadata["messages"]) for o in outcomes) == 8 + 44


def test_resolver_rows_are_kept_and_every_model_turn_trained() -> None:
    judge = DocumentFilter(FiltersConfig())
    for doc in read(RESOLVER):
        assert judge.drop_reason(doc) is None
        assert trained_every_model_turn(doc)


def test_history_pairs_read_as_the_events_they_pair() -> None:
    """``compatibility_for_eval_history_pairs`` (OpenHands evaluation/utils/shared.py) writes each action with
    the observation answering it, a message with a null observation; the real row's events paired that way."""
    row = resolver_rows()[0]
    history, pairs = list(row["history"]), []
    while history:
        action = history.pop(0)
        answered = action["action"] not in ("message", "finish") and history and "observation" in history[0]
        pairs.append([action, history.pop(0) if answered else {"observation": "null", "content": "", "extras": {}}])
    assert any(p[1]["observation"] == "null" for p in pairs) and len(pairs) < len(row["history"]), "guard"
    (paired,) = parse_json_value({**row, "history": pairs})
    (flat,) = parse_json_value(row)
    assert paired.messages == flat.messages


@pytest.mark.parametrize("event", [{"action": "run", "observation": "run"}, {"command": "ls"}])
def test_a_row_whose_history_holds_no_events_is_no_openhands_row(event: dict[str, Any]) -> None:
    """Not read as OpenHands events (a step with an action and an observation may still be read by its
    shape, ``shape``; a lone command is nothing)."""
    try:
        transcripts = parse_json_value({"instruction": "fix it", "history": [event]})
    except ValueError:
        return
    assert "action" in event and {t.format for t in transcripts} == {"shape"}


# --- aider: a real chat history, cut from aider's own tests/fixtures/chat-history.md ------------------------

AIDER = FIXTURES / "aider-history" / "chat-history.first-2705-lines.md"
# aider's tests/fixtures/chat-history-search-replace-gold.txt for the same lines: the edit blocks aider's own
# find_original_update_blocks finds in each ``####`` section (tests/basic/test_find_or_blocks.py wrote it).
AIDER_GOLD = FIXTURES.parent / "transcript_references" / "aider-chat-history-search-replace-gold.first-7-sections.txt"
GOLD_BLOCK = re.compile(r"^@@@ SEARCH: .*? @{20}\n(.*?)^@{20}\n(.*?)^@@@ REPLACE @{20}$", re.DOTALL | re.MULTILINE)


def aider_messages() -> list[dict[str, Any]]:
    """Every session's messages, the idle sessions' (quarantined when read) too."""
    return [m for t in parse_text(AIDER.read_text(encoding="utf-8")) for m in t.messages]


def test_aider_inputs_and_replies_are_counted_from_the_raw_lines() -> None:
    """Every ``####`` run is one user turn but a command to aider itself (``/undo``, ``/test``: never sent to the
    model), which its transcript counts; every ``> Tokens:`` line (aider's report of a finished reply) is aider
    telling the person, no message; the two replies cut off (an API error, ``^C``) are model turns too."""
    lines = AIDER.read_text(encoding="utf-8").split("\n")
    inputs = [line for i, line in enumerate(lines) if line.startswith("####") and not lines[i - 1].startswith("####")]
    commands = [line for line in inputs if line.startswith(("#### /", "#### !"))]
    finished = sum(1 for line in lines if line.startswith("> Tokens:"))
    messages = aider_messages()
    assert (len(inputs), len(commands), finished) == (27, 19, 10), "guard: the excerpt"
    assert sum(m["role"] == "user" for m in messages) == len(inputs) - len(commands)
    # one session is only ``/ex``: nothing was sent in it, so it is no transcript
    assert sum(t.extra.get("aider_commands", 0) for t in parse_text(AIDER.read_text(encoding="utf-8"))) == 18
    assert not any(m["content"].startswith("Tokens:") or m["content"].startswith("/") for m in messages)
    assert sum(is_model_turn(m) for m in messages) == finished + 2


def test_aider_edit_blocks_are_in_the_model_turns_and_its_output_is_not() -> None:
    """The SEARCH/REPLACE blocks aider itself finds in this history (its gold file) are all in model turns; a
    failing ``/test`` run the model answered (aider sends it by itself) is a tool's output; the repo map aider
    printed for the person (``>`` on its first line only) is no message at all."""
    blocks = GOLD_BLOCK.findall(AIDER_GOLD.read_text(encoding="utf-8"))
    assert len(blocks) == 9, "guard: the gold sections of the excerpt"
    replies = "\n".join(m["content"] for m in aider_messages() if is_model_turn(m))
    assert [b for block in blocks for b in block if b not in replies] == []
    tools = "\n".join(m["content"] for m in aider_messages() if m["role"] == "tool")
    assert "test session starts" in tools and "1 failed, 6 passed in 3.28s" in tools
    raw = AIDER.read_text(encoding="utf-8")
    for shown in ("Here are summaries of some files", "tests/scrape/test_scrape.py", "-*- mode: fundamental -*-"):
        assert shown in raw and shown not in tools and shown not in replies


def test_aider_sessions_without_input_are_quarantined_and_the_rest_trained() -> None:
    """9 sessions, one of them split at its ``/clear`` (aider empties the chat history there); five sent the
    model nothing (aider started and quit), the excerpt's opening part only a linter report (no task)."""
    outcomes = read(AIDER)
    idle = [o for o in outcomes if isinstance(o, Quarantined)]
    assert len(outcomes) == 5 and len(idle) == 1 and all("no_task" in o.error for o in idle)
    judge = DocumentFilter(FiltersConfig())
    worked = [o for o in outcomes if isinstance(o, Document) and any(map(is_model_turn, o.metadata["messages"]))]
    assert len(worked) == 4
    for doc in worked:
        assert judge.drop_reason(doc) is None
        assert trained_every_model_turn(doc)


def test_an_aider_reply_in_its_source_fence_is_code_not_prose() -> None:
    """aider also asks models for ``<source>`` fences (``all_fences``); the edit inside one is code: the
    run is kept (judged as prose its repeated code lines fail ``dup_line_char_frac``) and trained."""
    path = FIXTURES / "aider-history" / "chat-history.lines-5312-5401.md"
    raw = path.read_text(encoding="utf-8")
    edit = raw[raw.index("<source>python\n"):raw.index("</source>\n") + len("</source>")]
    assert "<<<<<<< SEARCH" in edit and ">>>>>>> REPLACE" in edit, "guard: a tag-fenced edit"
    (doc,) = [o for o in read(path) if isinstance(o, Document)]
    (reply,) = [m for m in doc.metadata["messages"] if is_model_turn(m)]
    assert edit in reply["content"]
    prose = transcript_prose(doc.metadata["messages"])
    assert "<<<<<<< SEARCH" not in prose and "Certainly!" in prose
    checker = NaturalLanguageChecker(NaturalLanguageConfig())
    assert checker.drop_reason(prose + "\n\n" + edit) is not None, "guard: the edit judged as prose fails"
    assert DocumentFilter(FiltersConfig()).drop_reason(doc) is None and trained_every_model_turn(doc)


def test_an_aider_session_is_split_where_clear_emptied_the_history() -> None:
    raw = AIDER.read_text(encoding="utf-8")
    assert raw.count("\n#### /clear  \n") == 1, "guard"
    before, after = [t for t in parse_text(raw) if t.extra["started_at"] == "2024-08-06 08:47:10"]
    assert before.messages[-1]["role"] == "assistant" and before.extra["aider_commands"] == 4  # /clear one of them
    assert after.extra["after_clear"] == 1
    assert after.messages[0]["content"] == "make `test_subtree_only` use GitTemporaryDirectory"


# --- aider's log of what it sent the model (--llm-history-file), a real one ----------------------------------

LLM_HISTORY = FIXTURES / "aider-llm-history" / "llm.history.first-4-requests"


def test_each_request_to_the_model_is_a_transcript_with_every_message_sent() -> None:
    """Counted on the raw lines: a message per ``-------`` line of a ``TO LLM`` record (its role the first
    word of its first line), then the reply of the ``LLM RESPONSE`` record after it."""
    records = re.split(r"^(TO LLM|LLM RESPONSE) \S+\n", LLM_HISTORY.read_text(encoding="utf-8"), flags=re.MULTILINE)
    requests = [body for kind, body in zip(records[1::2], records[2::2]) if kind == "TO LLM"]
    roles = [[chunk.split(" ", 1)[0].lower() for chunk in body.split("-------\n")[1:]] for body in requests]
    assert len(requests) == 4 and sum(map(len, roles)) == 7 + 9 + 11 + 13 - 4, "guard: the excerpt"
    outcomes = read(LLM_HISTORY)
    assert [o.metadata["format"] for o in outcomes] == ["aider-llm-history"] * 4
    for sent, doc in zip(roles, outcomes):
        messages = doc.metadata["messages"]
        assert [m["role"] for m in messages] == [*sent, "assistant"]
        model = [i for i, m in enumerate(messages) if is_model_turn(m)]
        task = [i for i, m in enumerate(messages) if m["role"] == "user" and not m["observation"]]
        assert model == [len(messages) - 1] and task == [len(messages) - 2]
    replies = [body for kind, body in zip(records[1::2], records[2::2]) if kind == "LLM RESPONSE"]
    assert [o.metadata["messages"][-1]["content"] for o in outcomes] == [
        "\n".join(line[len("ASSISTANT "):] for line in body.rstrip("\n").split("\n")) for body in replies]


def test_only_the_reply_to_each_request_is_trained() -> None:
    """Earlier replies sent back as context were trained in their own request; the canned ones are aider's."""
    outcomes = read(LLM_HISTORY)
    judge = DocumentFilter(FiltersConfig())
    for doc in outcomes:
        assert judge.drop_reason(doc) is None and trained_every_model_turn(doc)
    context = [m for doc in outcomes for m in doc.metadata["messages"][:-1] if m["role"] == "assistant"]
    canned = "Ok, I won't try and edit those files without asking first."
    assert context and all(m["observation"] for m in context) and canned in {m["content"] for m in context}
    tokenizer = train_bpe([doc.text for doc in outcomes], vocab_size=600)
    for doc in outcomes:
        samples, _ = sft_samples(doc, tokenizer, 1 << 16, SFTConfig(outcome_policy="any", min_tokens=1))
        trained = "".join(tokenizer.decode(s.tokens[s.loss_mask == 1].tolist(), skip_special_tokens=False)
                          for s in samples)
        assert doc.metadata["messages"][-1]["content"][:300] in trained and canned not in trained
