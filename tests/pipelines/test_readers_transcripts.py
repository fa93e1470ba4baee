"""The transcript reader on the real SWE-agent / mini-swe-agent runs and on synthetic JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemix.document import Document, Dropped, Quarantined
from codemix.sources import ReadLimits, SourceConfig
from mixtures.chat import render_messages
from mixtures.transcripts import outcome_fields, parse_test_summary
from pipelines.readers import read_location
from tests.pipelines.readers_fixtures import compress, jsonl, outcome_table, source

REAL_FILES = [
    ("mini-swe-agent/local.traj.json", "mini-swe-agent"),
    ("mini-swe-agent/github_issue.traj.json", "mini-swe-agent"),
    ("swe-agent/function_calling_simple.traj", "swe-agent"),
]
CALL = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
OPENAI_TRANSCRIPT = {
    "messages": [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [{"type": "text", "text": "List"}, {"type": "image_url", "image_url": {}},
                                     {"type": "text", "text": "files"}]},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "name": "bash", "content": "a.py\n"},
        {"role": "assistant", "content": "Done."},
    ],
    "info": {"exit_status": "submitted", "submission": "diff --git a/x b/x", "repo_name": "octo/demo"},
}
JSONL_LINES = [
    OPENAI_TRANSCRIPT,                                        # L1
    [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],  # L2 bare list
    b"",                                                      # L3 blank
    b'{"messages": [',                                        # L4 malformed
    {"prompt": "no messages here"},                           # L5
    {"messages": [{"content": "who am I?"}]},                 # L6 message without role
    {"messages": []},                                         # L7
    42,                                                       # L8
    {"messages": [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}]},  # L9 nameless call
]
JSONL_OUTCOMES = {
    "#L1": ("document", ""), "#L2": ("document", ""), "#L4": ("quarantined", "JSONDecodeError"),
    "#L5": ("quarantined", "TranscriptShapeError"), "#L6": ("quarantined", "TranscriptShapeError"),
    "#L7": ("quarantined", "TranscriptShapeError"), "#L8": ("quarantined", "TranscriptShapeError"),
    "#L9": ("quarantined", "TranscriptShapeError"),
}


def transcripts_source(**overrides: object) -> SourceConfig:
    """Default limits: the shared fixture's 1000-byte file cap would drop every real run."""
    return source("transcripts", **{"limits": ReadLimits(), **overrides})


def _read_one(path: Path, **overrides: object) -> Document:
    outcomes = list(read_location(transcripts_source(**overrides), str(path)))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Document), outcomes
    return outcomes[0]


@pytest.fixture(scope="module")
def transcripts_jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("transcripts") / "runs.jsonl.zst"
    path.write_bytes(compress(jsonl(*JSONL_LINES), path.name))
    return path


@pytest.mark.parametrize(("name", "format_"), REAL_FILES)
def test_real_transcript_is_one_document_per_message_turn(shared_transcripts: Path, name: str, format_: str) -> None:
    raw = json.loads((shared_transcripts / name).read_text())
    raw_messages = raw["history"] if isinstance(raw, dict) else raw
    assert len(raw_messages) > 2, "guard: a real multi-turn run"
    doc = _read_one(shared_transcripts / name)
    assert (doc.metadata["format"], doc.kind, doc.path) == (format_, "transcript", Path(name).name)
    assert doc.text.count("<|im_start|>") == doc.text.count("<|im_end|>") == len(raw_messages)


@pytest.mark.parametrize(("name", "format_"), REAL_FILES)
def test_real_message_contents_are_kept_verbatim(shared_transcripts: Path, name: str, format_: str) -> None:
    raw = json.loads((shared_transcripts / name).read_text())
    raw_messages = raw["history"] if isinstance(raw, dict) else raw
    doc = _read_one(shared_transcripts / name)
    assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == \
           [(m["role"], m["content"]) for m in raw_messages]


def test_swe_agent_tool_calls_are_rendered_and_answered(shared_transcripts: Path) -> None:
    doc = _read_one(shared_transcripts / "swe-agent/function_calling_simple.traj")
    messages = doc.metadata["messages"]
    calls = [call for m in messages for call in m["tool_calls"]]
    answers = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert len(calls) == 5 and [c["id"] for c in calls] == answers
    assert '<tool_call>{"name": "find_file", "arguments": {"file_name": "missing_colon.py"}}</tool_call>' in doc.text


def test_every_jsonl_line_has_its_outcome(transcripts_jsonl: Path) -> None:
    table = outcome_table(read_location(transcripts_source(), str(transcripts_jsonl)), str(transcripts_jsonl))
    assert table == JSONL_OUTCOMES


def test_shape_errors_say_unknown_transcript_shape(transcripts_jsonl: Path) -> None:
    errors = [o.error for o in read_location(transcripts_source(), str(transcripts_jsonl))
              if isinstance(o, Quarantined) and "Shape" in o.error]
    assert len(errors) == 5 and all(e.startswith("TranscriptShapeError: unknown transcript shape: ") for e in errors)


def test_openai_jsonl_normalised_messages(transcripts_jsonl: Path) -> None:
    doc = next(o for o in read_location(transcripts_source(), str(transcripts_jsonl)) if isinstance(o, Document))
    assert doc.metadata["messages"][1:4] == [
        {"role": "user", "content": "List\nfiles", "tool_calls": [], "tool_call_id": "", "name": ""},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "name": "bash",
                                                             "arguments": {"command": "ls"}}],
         "tool_call_id": "", "name": ""},
        {"role": "tool", "content": "a.py\n", "tool_calls": [], "tool_call_id": "call_1", "name": "bash"},
    ]


def test_openai_jsonl_metadata(transcripts_jsonl: Path) -> None:
    doc = next(o for o in read_location(transcripts_source(), str(transcripts_jsonl)) if isinstance(o, Document))
    assert (doc.metadata["format"], doc.metadata["exit_status"], doc.metadata["submitted"], doc.repo, doc.path) == (
        "openai-jsonl", "submitted", True, "octo/demo", "runs.jsonl.zst")
    assert doc.metadata["location"] == f"{transcripts_jsonl}#L1"


def test_render_chatml_layout() -> None:
    messages = [
        {"role": "user", "content": "run ls", "tool_calls": [], "tool_call_id": "", "name": ""},
        {"role": "assistant", "content": "ok", "tool_calls": [{"id": "1", "name": "bash", "arguments": {"c": "ls"}}],
         "tool_call_id": "", "name": ""},
    ]
    assert render_messages(messages) == (
        "<|im_start|>user\nrun ls<|im_end|>\n"
        '<|im_start|>assistant\nok\n<tool_call>{"name": "bash", "arguments": {"c": "ls"}}</tool_call><|im_end|>\n')


@pytest.mark.parametrize(("info", "fields"), [
    ({"exit_status": "Submitted", "submission": "diff"}, {"exit_status": "Submitted", "submitted": True}),
    ({"exit_status": "submitted (exit_cost)"}, {"exit_status": "submitted (exit_cost)", "submitted": True}),
    ({"exit_status": "exit_cost", "submission": None}, {"exit_status": "exit_cost", "submitted": False}),
    ({"model_stats": {}}, {}),
    ({"tests_passed": True, "resolved": False}, {"tests_passed": True}),
    ({"resolved": False}, {"tests_passed": False}),
])
def test_outcome_fields(info: dict, fields: dict) -> None:
    assert outcome_fields(info) == fields


def test_mini_swe_agent_object_form(tmp_path: Path) -> None:
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x"}],
                                "info": {"exit_status": "Submitted", "submission": ""}}))
    doc = _read_one(path)
    assert (doc.metadata["format"], doc.metadata["submitted"]) == ("mini-swe-agent", False)


def test_ids_are_stable_across_reads(shared_transcripts: Path) -> None:
    path = shared_transcripts / "swe-agent/function_calling_simple.traj"
    assert _read_one(path).id == _read_one(path).id


@pytest.mark.parametrize(("content", "expected"), [
    (b"{not json", "JSONDecodeError"),
    (b'"just a string"', "TranscriptShapeError"),
    (b'[{"role": "user", "content": 7}]', "TranscriptShapeError"),
    (b"\xff\xfe", "UnicodeDecodeError"),
])
def test_bad_whole_file_is_one_quarantine(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "bad.traj"
    path.write_bytes(content)
    outcomes = list(read_location(transcripts_source(), str(path)))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Quarantined) and outcomes[0].error.startswith(expected)


def test_oversized_file_is_dropped(shared_transcripts: Path) -> None:
    path = shared_transcripts / "swe-agent/function_calling_simple.traj"
    outcomes = list(read_location(transcripts_source(limits=ReadLimits(max_file_bytes=1000)), str(path)))
    assert len(outcomes) == 1 and isinstance(outcomes[0], Dropped) and outcomes[0].reason == "file_too_large"


# --- Anthropic messages, outcome facts, summaries ---------------------------------------------------

ANTHROPIC_TRANSCRIPT = {
    "system": [{"type": "text", "text": "You are a coding agent."}],
    "tools": [{"name": "bash", "description": "Run a command", "input_schema": {"type": "object"}},
              {"name": "str_replace_editor", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "Fix the failing test."},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hidden", "signature": "x"},
            {"type": "text", "text": "Running the tests first."},
            {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "pytest -q"}},
            {"type": "tool_use", "id": "toolu_2", "name": "str_replace_editor",
             "input": {"command": "view", "path": "a.py"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1 failed in 0.1s"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": False,
             "content": [{"type": "text", "text": "def f(): ..."}, {"type": "image", "source": {}}]},
            {"type": "text", "text": "Keep going."}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_3", "name": "bash", "input": {"command": "pytest -q"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_3", "content": "2 passed in 0.1s"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}]},
    ],
}
ANTHROPIC_CANONICAL = [
    {"role": "system", "content": "You are a coding agent.", "tool_calls": [], "tool_call_id": "", "name": ""},
    {"role": "user", "content": "Fix the failing test.", "tool_calls": [], "tool_call_id": "", "name": ""},
    {"role": "assistant", "content": "Running the tests first.", "tool_call_id": "", "name": "", "tool_calls": [
        {"id": "toolu_1", "name": "bash", "arguments": {"command": "pytest -q"}},
        {"id": "toolu_2", "name": "str_replace_editor", "arguments": {"command": "view", "path": "a.py"}}]},
    {"role": "tool", "content": "1 failed in 0.1s", "tool_calls": [], "tool_call_id": "toolu_1", "name": "bash"},
    {"role": "tool", "content": "def f(): ...", "tool_calls": [], "tool_call_id": "toolu_2",
     "name": "str_replace_editor"},
    {"role": "user", "content": "Keep going.", "tool_calls": [], "tool_call_id": "", "name": ""},
    {"role": "assistant", "content": "", "tool_call_id": "", "name": "", "tool_calls": [
        {"id": "toolu_3", "name": "bash", "arguments": {"command": "pytest -q"}}]},
    {"role": "tool", "content": "2 passed in 0.1s", "tool_calls": [], "tool_call_id": "toolu_3", "name": "bash"},
    {"role": "assistant", "content": "Fixed.", "tool_calls": [], "tool_call_id": "", "name": ""},
]


def test_anthropic_messages_normalise_to_the_canonical_schema(tmp_path: Path) -> None:
    path = tmp_path / "claude.json"
    path.write_text(json.dumps(ANTHROPIC_TRANSCRIPT))
    doc = _read_one(path)
    assert doc.metadata["messages"] == ANTHROPIC_CANONICAL
    assert (doc.metadata["format"], doc.metadata["tools"]) == ("anthropic", ["bash", "str_replace_editor"])
    assert doc.text == render_messages(ANTHROPIC_CANONICAL) and "hidden" not in doc.text


def test_anthropic_lines_in_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "claude.jsonl"
    path.write_bytes(jsonl(ANTHROPIC_TRANSCRIPT, {"messages": ANTHROPIC_TRANSCRIPT["messages"]}))
    docs = list(read_location(transcripts_source(), str(path)))
    assert [d.metadata["format"] for d in docs] == ["anthropic", "anthropic"]
    assert docs[1].metadata["messages"] == ANTHROPIC_CANONICAL[1:]  # no system field: no system message


def test_last_test_run_in_tool_output_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "claude.json"
    path.write_text(json.dumps(ANTHROPIC_TRANSCRIPT))
    metadata = _read_one(path).metadata
    assert (metadata["tests_passed"], metadata["outcome_evidence"]) == (True, {"tests_passed": "test_output"})
    assert "submitted" not in metadata  # no info, no submit action: unknown, not False


@pytest.mark.parametrize("name", ["swe-agent/function_calling_simple.traj", "mini-swe-agent/github_issue.traj.json",
                                  "mini-swe-agent/local.traj.json"])
def test_real_runs_that_end_with_the_submit_action_are_submitted(shared_transcripts: Path, name: str) -> None:
    metadata = _read_one(shared_transcripts / name).metadata
    assert (metadata["submitted"], metadata["outcome_evidence"]) == (True, {"submitted": "submit_action"})
    assert "tests_passed" not in metadata and "exit_status" not in metadata  # the real runs record neither


def test_info_outcome_wins_over_the_submit_action(tmp_path: Path, shared_transcripts: Path) -> None:
    traj = json.loads((shared_transcripts / "swe-agent/function_calling_simple.traj").read_text())
    path = tmp_path / "run.traj"
    path.write_text(json.dumps({**traj, "info": {"exit_status": "exit_cost", "submission": None, "resolved": False}}))
    metadata = _read_one(path).metadata
    assert {k: metadata[k] for k in ("exit_status", "submitted", "tests_passed", "outcome_evidence")} == {
        "exit_status": "exit_cost", "submitted": False, "tests_passed": False,
        "outcome_evidence": {"exit_status": "info", "submitted": "info", "tests_passed": "info"}}


def test_flagged_summary_messages_are_recorded(tmp_path: Path) -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"},
                {"role": "assistant", "content": "step"},
                {"role": "user", "content": "Summary: edited a.py", "isCompactSummary": True},
                {"role": "assistant", "content": "more"}]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(messages))
    assert _read_one(path).metadata["summary_turns"] == [3]


@pytest.mark.parametrize(("output", "result"), [
    ("....\n===== 1 failed, 3 passed in 0.12s =====", (False, "1 failed, 3 passed")),
    ("3 passed, 1 warning in 0.50s", (True, "3 passed, 1 warning")),
    ("= 2 passed in 1.0s =\nthen\n=== 1 error in 0.1s ===", (False, "1 error")),
    ("Ran 5 tests in 0.010s\n\nOK", (True, "Ran 5 tests: OK")),
    ("Ran 5 tests in 0.010s\n\nFAILED (failures=2)", (False, "Ran 5 tests: FAILED (failures=2)")),
    ("hello world", None),
])
def test_parse_test_summary(output: str, result) -> None:
    assert parse_test_summary(output) == result
