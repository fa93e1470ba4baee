"""The transcript reader on the real SWE-agent / mini-swe-agent runs, every format's fixture, and synthetic JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemix.config import ConfigError
from codemix.document import Document, Dropped, Quarantined
from codemix.mixtures.chat import render_messages
from codemix.mixtures.transcript_formats.base import recorded_facts
from codemix.mixtures.transcripts import TEXT_FORMAT_NAMES, parse_test_summary
from codemix.pipelines.readers import read_location
from codemix.sources import TRANSCRIPT_FORMATS, ReadLimits, SourceConfig
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
    # The arguments exactly as the model sent them (no space after the colon), not re-serialised.
    assert '<tool_call>{"name": "find_file", "arguments": {"file_name":"missing_colon.py"}}</tool_call>' in doc.text


def test_every_jsonl_line_has_its_outcome(transcripts_jsonl: Path) -> None:
    table = outcome_table(read_location(transcripts_source(), str(transcripts_jsonl)), str(transcripts_jsonl))
    assert table == JSONL_OUTCOMES


def test_unknown_shapes_list_the_formats_tried(transcripts_jsonl: Path) -> None:
    errors = [o.error for o in read_location(transcripts_source(), str(transcripts_jsonl))
              if isinstance(o, Quarantined) and "Shape" in o.error]
    unknown = [e for e in errors if "is no transcript layout; tried " in e]
    empty = [e for e in errors if "empty_conversation: $.messages holds no turns" in e]
    assert len(errors) == 5 and len(unknown) == 3 and len(empty) == 1  # and a chat line with a nameless tool call
    assert all("openai-chat" in e and "anthropic" in e and "swe-agent" in e for e in unknown)


def canonical(role: str, content: str = "", **fields: object) -> dict:
    return {"role": role, "content": content, "reasoning": "", "tool_calls": [], "tool_call_id": "", "name": "",
            "observation": role == "tool", **fields}


def test_openai_jsonl_normalised_messages(transcripts_jsonl: Path) -> None:
    doc = next(o for o in read_location(transcripts_source(), str(transcripts_jsonl)) if isinstance(o, Document))
    assert doc.metadata["messages"][1:4] == [
        canonical("user", "List\nfiles"),
        canonical("assistant", tool_calls=[{"id": "call_1", "name": "bash", "arguments": '{"command": "ls"}',
                                            "kind": "function"}]),
        canonical("tool", "a.py\n", tool_call_id="call_1", name="bash"),
    ]


def test_openai_jsonl_metadata(transcripts_jsonl: Path) -> None:
    doc = next(o for o in read_location(transcripts_source(), str(transcripts_jsonl)) if isinstance(o, Document))
    assert (doc.metadata["format"], doc.metadata["exit_status"], doc.metadata["submitted"], doc.repo, doc.path) == (
        "openai-chat", "submitted", True, "", "runs.jsonl.zst")
    assert doc.metadata["location"] == f"{transcripts_jsonl}#L1"


def test_render_chatml_layout() -> None:
    messages = [
        canonical("user", "run ls"),
        canonical("assistant", "ok", reasoning="list first",
                  tool_calls=[{"id": "1", "name": "bash", "arguments": '{"c":  "ls"}', "kind": "function"},
                              {"id": "2", "name": "apply_patch", "arguments": "*** Begin Patch", "kind": "custom"}]),
    ]
    assert render_messages(messages) == (
        "<|im_start|>user\nrun ls<|im_end|>\n"
        "<|im_start|>assistant\n<think>\nlist first\n</think>\nok"
        '\n<tool_call>{"name": "bash", "arguments": {"c":  "ls"}}</tool_call>'
        '\n<tool_call>{"name": "apply_patch", "arguments": "*** Begin Patch"}</tool_call><|im_end|>\n')


@pytest.mark.parametrize(("info", "fields"), [
    ({"exit_status": "Submitted", "submission": "diff"}, {"exit_status": "Submitted", "submitted": True}),
    ({"exit_status": "submitted (exit_cost)"}, {"exit_status": "submitted (exit_cost)", "submitted": True}),
    ({"exit_status": "exit_cost", "submission": None}, {"exit_status": "exit_cost", "submitted": False}),
    ({"model_stats": {}}, {}),
    ({"tests_passed": True, "resolved": False}, {"tests_passed": True, "resolved": False}),
    ({"resolved": 1, "model_patch": ""}, {"resolved": True, "submitted": False}),
])
def test_recorded_facts(info: dict, fields: dict) -> None:
    assert recorded_facts([info]) == fields


def test_mini_swe_agent_object_form(tmp_path: Path) -> None:
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "x"}], "trajectory_format": "mini-swe-agent-1",
                                "info": {"exit_status": "Submitted", "submission": "", "mini_version": "1.9.0"}}))
    doc = _read_one(path)
    assert (doc.metadata["format"], doc.metadata["submitted"]) == ("mini-swe-agent", False)


def test_ids_are_stable_across_reads(shared_transcripts: Path) -> None:
    path = shared_transcripts / "swe-agent/function_calling_simple.traj"
    assert _read_one(path).id == _read_one(path).id


@pytest.mark.parametrize(("content", "expected"), [
    (b"{not json", "JSONDecodeError"),
    (b'"just a string"', "TranscriptShapeError"),
    (b'[{"role": "user", "content": 7}]', "TranscriptShapeError"),
    (b"\xc3\x28\xa0", "UnicodeDecodeError"),
    (b"\xff\xfe", "TranscriptShapeError: empty"),  # a UTF-16 byte-order mark and nothing after it
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
    canonical("system", "You are a coding agent."),
    canonical("user", "Fix the failing test."),
    canonical("assistant", "Running the tests first.", reasoning="hidden", tool_calls=[
        {"id": "toolu_1", "name": "bash", "arguments": '{"command": "pytest -q"}', "kind": "function"},
        {"id": "toolu_2", "name": "str_replace_editor", "arguments": '{"command": "view", "path": "a.py"}',
         "kind": "function"}]),
    canonical("tool", "1 failed in 0.1s", tool_call_id="toolu_1", name="bash"),
    canonical("tool", "def f(): ...", tool_call_id="toolu_2", name="str_replace_editor"),
    canonical("user", "Keep going."),
    canonical("assistant", tool_calls=[{"id": "toolu_3", "name": "bash", "arguments": '{"command": "pytest -q"}',
                                        "kind": "function"}]),
    canonical("tool", "2 passed in 0.1s", tool_call_id="toolu_3", name="bash"),
    canonical("assistant", "Fixed."),
]


def test_anthropic_messages_normalise_to_the_canonical_schema(tmp_path: Path) -> None:
    path = tmp_path / "claude.json"
    path.write_text(json.dumps(ANTHROPIC_TRANSCRIPT))
    doc = _read_one(path)
    assert doc.metadata["messages"] == ANTHROPIC_CANONICAL
    assert (doc.metadata["format"], doc.metadata["tools"]) == ("anthropic", ["bash", "str_replace_editor"])
    assert doc.text == render_messages(ANTHROPIC_CANONICAL) and "<think>\nhidden\n</think>\n" in doc.text


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
    assert (metadata["submitted"], metadata["outcome_evidence"]["submitted"]) == (True, "submit_action")
    assert "exit_status" not in metadata  # the real runs record none


def test_info_outcome_wins_over_the_submit_action(tmp_path: Path, shared_transcripts: Path) -> None:
    traj = json.loads((shared_transcripts / "swe-agent/function_calling_simple.traj").read_text())
    path = tmp_path / "run.traj"
    path.write_text(json.dumps({**traj, "info": {"exit_status": "exit_cost", "submission": None, "resolved": False}}))
    metadata = _read_one(path).metadata
    assert {k: metadata[k] for k in ("exit_status", "submitted", "resolved", "tests_passed", "outcome_evidence")} == {
        "exit_status": "exit_cost", "submitted": False, "resolved": False, "tests_passed": False,
        "outcome_evidence": {"exit_status": "recorded", "submitted": "recorded", "resolved": "recorded",
                             "tests_passed": "resolved"}}


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


# --- every format through the reader ------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.name != "README.md")
# Real files that also hold sessions where no person asked anything (aider's linter reported): those are no_task;
# aider's sessions that sent the model nothing (started and quit) are no transcript.
IDLE_SESSIONS = {"chat-history.first-2705-lines.md": 1}


def call_text(call: dict) -> str:
    """A call's arguments as the text shows them: verbatim when a JSON object, else as a JSON string."""
    try:
        verbatim = call["kind"] == "function" and isinstance(json.loads(call["arguments"]), dict)
    except ValueError:
        verbatim = False
    return call["arguments"] if verbatim else json.dumps(call["arguments"], ensure_ascii=False)


def test_fixtures_cover_every_format() -> None:
    formats = {d.metadata["format"] for path in FIXTURE_FILES for d in read_location(transcripts_source(), str(path))
               if isinstance(d, Document)}
    assert formats == set(TRANSCRIPT_FORMATS)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_well_formed_fixture_gives_documents_only(path: Path) -> None:
    """0 quarantined (but idle sessions), and every message's text (content, reasoning, call arguments) is in
    the rendered text."""
    outcomes = list(read_location(transcripts_source(), str(path)))
    idle = [o for o in outcomes if not isinstance(o, Document)]
    assert len(idle) == IDLE_SESSIONS.get(path.name, 0) and all("no_task" in o.error for o in idle), idle
    outcomes = [o for o in outcomes if isinstance(o, Document)]
    assert outcomes
    for doc in outcomes:
        pieces = [p for m in doc.metadata["messages"] for p in (m["content"], m["reasoning"],
                                                                  *(call_text(c) for c in m["tool_calls"])) if p]
        assert len(pieces) >= 2 and [p for p in pieces if p not in doc.text] == []
        assert doc.text == render_messages(doc.metadata["messages"])


def test_one_file_with_several_transcripts_gives_each_its_own_location(tmp_path: Path) -> None:
    claude = next(p for p in FIXTURE_FILES if p.parent.name == "claude-code")
    main, side = read_location(transcripts_source(), str(claude))
    assert (main.metadata["location"], side.metadata["location"]) == (f"{claude}#transcript1", f"{claude}#transcript2")
    assert main.id != side.id and side.metadata["transcript"]["sidechain"] is True


def test_a_bad_line_in_a_session_is_quarantined_alone(tmp_path: Path) -> None:
    codex = next(p for p in FIXTURE_FILES if p.parent.name == "codex")
    lines = codex.read_text().splitlines()
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([*lines[:5], '{"type": "response_item", "payload": {"type": "mess', *lines[5:]]) + "\n")
    outcomes = list(read_location(transcripts_source(), str(path)))
    assert [type(o).__name__ for o in outcomes] == ["Quarantined", "Document"]
    assert outcomes[0].location == f"{path}#L6" and outcomes[0].error.startswith("JSONDecodeError")
    whole = next(read_location(transcripts_source(), str(codex)))
    assert outcomes[1].metadata["messages"] == whole.metadata["messages"]


def test_a_forced_format_reads_only_that_format() -> None:
    anthropic = next(p for p in FIXTURE_FILES if p.parent.name == "anthropic")
    (doc,) = read_location(transcripts_source(format="anthropic"), str(anthropic))
    assert doc.metadata["format"] == "anthropic"
    (wrong,) = read_location(transcripts_source(format="swe-agent"), str(anthropic))
    assert isinstance(wrong, Quarantined) and wrong.error.endswith("tried swe-agent")
    codex = next(p for p in FIXTURE_FILES if p.parent.name == "codex")
    (not_claude,) = read_location(transcripts_source(format="claude-code"), str(codex))
    assert isinstance(not_claude, Quarantined) and "not a claude-code session entry" in not_claude.error


def test_text_that_is_no_format_names_the_formats_tried(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Meeting notes\n\nNothing to see.\n")
    (outcome,) = read_location(transcripts_source(), str(path))
    assert isinstance(outcome, Quarantined) and outcome.error.startswith("JSONDecodeError")
    assert outcome.error.endswith(f"(nor a text transcript; tried {', '.join(sorted(TEXT_FORMAT_NAMES))})")


@pytest.mark.parametrize(("overrides", "field", "fix"), [
    ({"format": "claude"}, "sources.0.format", "claude-code"),
    ({"type": "dump", "format": "codex"}, "sources.0.format", "type: transcripts"),
])
def test_format_errors_name_the_field_and_the_fix(overrides: dict, field: str, fix: str) -> None:
    config = SourceConfig(**{"name": "runs", "type": "transcripts", "paths": ["a.jsonl"], **overrides})
    with pytest.raises(ConfigError) as error:
        config.validate("sources.0")
    assert error.value.field_path == field and fix in str(error.value)
