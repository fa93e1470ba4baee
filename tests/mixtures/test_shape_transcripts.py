"""Conversations recognised by their shape, on real published files (tests/fixtures/transcripts/README.md
gives origin, commit and license): the messages each file holds are counted here with plain ``json`` or
``re`` over the raw file, never with codemix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codemix.mixtures.transcript_formats import TranscriptShapeError, parse_json_value, parse_text
from codemix.mixtures.transcript_formats.outcomes import ended_with_submit
from codemix.mixtures.transcript_formats.shape import find_conversations

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
TAU = FIXTURES / "shape/tau-bench-gpt-4o-airline.rows-1-3.json"
SPECSTORY = FIXTURES / "markdown-turns/2025-03-28_16-14-refining-create-model-instance-for-efficiency.md"
NO_CONVERSATION = FIXTURES.parent / "transcript_inputs/medagentbench-baseline_eval.json"


def test_turn_lists_under_an_unknown_key_are_read_one_per_record() -> None:
    """tau-bench keeps each run's OpenAI messages under ``traj``: every row is a transcript with all its
    messages, its calls and the row's own id."""
    rows = json.loads(TAU.read_text())
    assert all("traj" in row and "messages" not in row for row in rows), "guard: a key no adapter knows"
    transcripts = parse_json_value(rows)
    assert [t.format for t in transcripts] == ["shape"] * len(rows)
    assert [len(t.messages) for t in transcripts] == [len(row["traj"]) for row in rows]
    for transcript, row in zip(transcripts, rows):
        assert [m["role"] for m in transcript.messages] == [m["role"] for m in row["traj"]]
        calls = [c["function"]["name"] for m in row["traj"] for c in m.get("tool_calls") or []]
        assert [c["name"] for m in transcript.messages for c in m["tool_calls"]] == calls
        assert transcript.extra["record_id"] == str(row["task_id"]) and transcript.extra["path"].endswith(".traj")
        assert all(m["observation"] for m in transcript.messages if m["role"] == "tool")
    assert sum(len(t.messages) for t in transcripts) > 60


def test_a_role_list_under_a_nested_key_with_aliases_is_found() -> None:
    """The same turns under ``output.history`` with role ``agent`` (AgentBench's layout): found at their
    key path, ``agent`` read as the model."""
    row = json.loads(TAU.read_text())[0]
    turns = [{**m, "role": "agent" if m["role"] == "assistant" else m["role"]} for m in row["traj"]]
    (transcript,) = parse_json_value({"index": 7, "output": {"history": turns, "status": "completed"}})
    assert transcript.extra["path"] == "$.output.history" and transcript.extra["record_id"] == "7"
    assert [m["role"] for m in transcript.messages] == [m["role"] for m in row["traj"]]


def test_growing_prompts_of_each_step_give_the_longest_as_the_run() -> None:
    """ToolBench's ``train_messages`` is a list of the prompts sent at each step, each a prefix of the
    next: one transcript, the longest."""
    row = json.loads(TAU.read_text())[2]
    steps = [row["traj"][:n] for n in range(4, len(row["traj"]) + 1, 4)]
    (transcript,) = parse_json_value({"answer_generation": {"train_messages": steps}})
    assert len(transcript.messages) == len(steps[-1])


def test_a_file_of_no_conversation_is_refused_with_the_keys_it_saw() -> None:
    value = json.loads(NO_CONVERSATION.read_text())
    assert find_conversations(value) == []
    with pytest.raises(TranscriptShapeError, match=r"keys \['model_id', 'per_task_sr', 'success_rate'\]"):
        parse_json_value(value)


def test_markdown_export_with_headed_turns_is_read() -> None:
    """A Cursor chat exported by SpecStory: every ``_**User**_`` heading is a user turn, the model's turns
    keep their prose, and the tool output SpecStory folds into ``<details>`` is an observation."""
    raw = SPECSTORY.read_text()
    users = re.findall(r"^_\*\*User\*\*_\s*\n(.*?)(?=^_\*\*|\Z)", raw, re.MULTILINE | re.DOTALL)
    details = re.findall(r"<details>.*?</details>", raw, re.DOTALL)
    assert len(users) >= 3 and len(details) >= 3, "guard: a multi-turn export with tool output"
    (transcript,) = parse_text(raw)
    messages = transcript.messages
    assert [m["content"] for m in messages if m["role"] == "user"] == [re.sub(r"(\s*---+\s*)+$", "", u).strip() for u in users]
    tools = [m["content"] for m in messages if m["role"] == "tool"]
    reads = re.findall(r"^(Read file: \S+)$", raw, re.MULTILINE)
    assert [t for t in tools if t.startswith("<details>")] == details
    # the parts SpecStory cuts with ``---`` that show what a tool did (a file read, an applied diff) are
    # observations too (issue 45 round 11), never the model's trained text
    assert [t for t in tools if t.startswith("Read file:")] == reads and any(t.startswith("```diff") for t in tools)
    assert not any(r in m["content"] for r in reads for m in messages if m["role"] == "assistant")
    assert all(m["observation"] for m in messages if m["role"] == "tool")
    assert sum(m["role"] == "assistant" for m in messages) >= len(users) - 1


@pytest.mark.parametrize("heading", ["## User", "### Assistant:", "**User**", "_**Assistant**_"])
def test_each_heading_style_names_a_turn(heading: str) -> None:
    other = "## Assistant" if "User" in heading else "## User"
    text = f"{heading}\n\nfirst\n\n{other}\n\nsecond\n" if "User" in heading else f"{other}\n\nfirst\n\n{heading}\n\nsecond\n"
    (transcript,) = parse_text(text)
    assert [(m["role"], m["content"]) for m in transcript.messages] == [("user", "first"), ("assistant", "second")]


def test_submission_by_meaning_is_configurable() -> None:
    """A run's last call counts as a submission when its name means one (or is configured so)."""
    (transcript, *_) = parse_json_value(json.loads(TAU.read_text()))
    last_call = next(c["name"] for m in reversed(transcript.messages) for c in m["tool_calls"])
    assert not ended_with_submit(transcript.messages), "guard: the default names do not include it"
    tail = next(i for i in range(len(transcript.messages) - 1, -1, -1) if transcript.messages[i]["tool_calls"])
    assert ended_with_submit(transcript.messages[:tail + 1], frozenset({last_call.upper()}))
    finished = [*transcript.messages[:tail], {**transcript.messages[tail], "content": "<attempt_completion>\n"
                                              "<result>done</result>\n</attempt_completion>", "tool_calls": []}]
    assert ended_with_submit(finished)
