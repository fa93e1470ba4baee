"""What a run's record keeps beside its turns (``transcript_formats.shape``).

The layout is the spent ninth holdout's Rust-repo YAML run (IsaacBreen/gsg@fe350d4e, conversation.yaml; no
licence, so read in the development corpus, ``bench.traces_dev_corpus``, and rebuilt here in its own keys):
``system: {message, tools, model}`` beside ``messages`` whose first turn is the harness attaching files under
``role: system``."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.mixtures.reading import read_documents as read

RUN = {
    "local_system": {"commit_id": "6dd2024", "attached_files": ["src/gss.rs"]},
    "system": {"message": "You are a helpful assistant.",
               "tools": {"attach": {"type": "function", "name": "attach", "description": "Attach a set of files.",
                                    "input_schema": {"type": "array", "items": "string"}}},
               "model": "gemini/gemini-2.0-flash-exp"},
    "messages": [
        {"tool_calls": [{"id": "1ed3", "name": "attach", "input": ["src/gss.rs"]}], "role": "system"},
        {"tool_results": [{"tool_call_id": "1ed3", "content": "```rust\nuse std::rc::Rc;\n```"}], "role": "tool"},
        {"user": "I want to clean up this code. Make it more concise and readable where possible.",
         "metadata": {"cache_control": {"type": "ephemeral"}}},
        {"assistant": "Okay, I will refactor the code to improve its conciseness and readability."},
    ],
}


def test_the_records_system_message_opens_a_run_whose_harness_calls_sit_under_role_system(tmp_path: Path) -> None:
    """A turn under ``role: system`` that only makes calls is no system prompt: the record's ``system.message``
    is still the run's system turn, first; the harness's calls follow as context, then the tool's result."""
    path = tmp_path / "conversation.yaml"
    path.write_text(yaml.safe_dump(RUN, sort_keys=False))
    (doc,) = read(path)
    turns = [(m["role"], m["content"]) for m in doc.metadata["messages"]]
    assert [role for role, _ in turns] == ["system", "system", "tool", "user", "assistant"]
    assert turns[0][1] == "You are a helpful assistant." and '"name": "attach"' in turns[1][1]
    assert turns[2][1].startswith("```rust") and turns[3][1].startswith("I want to clean up")


# The spent tenth holdout's browser-use run (richard-devbot/waigenie-qa@75337e6e, agent_history.json; no licence:
# read in the development corpus, 10 of 10 with its 5 calls), rebuilt in its own keys, two of its steps.
BROWSER_STEPS = {"history": [
    {"model_output": {"thinking": "The user wants me to fill out the form. I will start with the First Name field.",
                      "evaluation_previous_goal": "Navigated to the target URL. Verdict: Success",
                      "memory": "On the form page.", "next_goal": "Fill the First Name field.",
                      "action": [{"input_text": {"index": 1, "text": "John", "clear_existing": True}}]},
     "result": [{"is_done": False, "long_term_memory": "Input 'John' into element 1.",
                 "extracted_content": "Input 'John' into element 1.", "include_in_memory": False}],
     "state": {"url": "https://example.org/form", "title": "Form"}, "metadata": {"step_number": 1}},
    {"model_output": {"thinking": "The field is filled; this is the last step, so I finish with done.",
                      "evaluation_previous_goal": "Filled the First Name field. Verdict: Success",
                      "memory": "First Name filled.", "next_goal": "Finish.",
                      "action": [{"done": {"text": "The form's First Name field is filled.", "success": True}}]},
     "result": [{"is_done": True, "success": True, "extracted_content": "The form's First Name field is filled.",
                 "include_in_memory": True}],
     "state": {"url": "https://example.org/form", "title": "Form"}, "metadata": {"step_number": 2}},
]}


def test_a_step_s_actions_keyed_by_their_names_are_calls_and_its_result_records_are_read(tmp_path: Path) -> None:
    """browser-use keeps each action as ``{action_name: {arguments}}`` and each result as a record
    (``extracted_content``, ``error``, flags): the actions are the model's calls, the results' content the tool's."""
    path = tmp_path / "agent_history.json"
    path.write_text(json.dumps(BROWSER_STEPS))
    (doc,) = read(path)
    turns = doc.metadata["messages"]
    calls = [(c["name"], json.loads(c["arguments"])) for m in turns for c in m["tool_calls"]]
    assert calls == [("input_text", {"index": 1, "text": "John", "clear_existing": True}),
                     ("done", {"text": "The form's First Name field is filled.", "success": True})]
    assert [m["content"] for m in turns if m["role"] == "tool"] == [
        step["result"][0]["extracted_content"] for step in BROWSER_STEPS["history"]]


# The spent eleventh holdout's coding agent log (Avoodaiappan2004/Auto_Agent@623425eb, agent_log.json; no licence:
# read in the development corpus), rebuilt in its own keys, values shortened.
NAMED_STEPS = {"logs": [
    {"step": "discover", "task": "create the prime number checker app and push to github"},
    {"step": "plan", "output": "Here's a step-by-step guide: 1. Create the app. 2. Push it to GitHub."},
    {"step": "execute", "files": ["index.html", "style.css", "script.js"]},
    {"step": "tool_use", "tool": "github", "repo": "prime-number-checker-app", "folder": "projects/prime",
     "result": "Repo created & pushed: https://github.com/example/prime-number-checker-app.git"},
    {"step": "verify", "files_exist": True},
    {"step": "submit", "status": "done"},
    {"step": "compute", "api_calls": 2, "limit": 10},
]}


def test_steps_named_by_their_stage_are_events_the_task_stated_by_one_of_them(tmp_path: Path) -> None:
    """A log whose records name their stage under ``step`` (words, not numbers) is an event log: the stage that
    only states the ``task`` is the person's request, the plan's output the model's text, the tool use a call
    with its result; the harness's stages (files written, checks, counters) are left out and counted."""
    path = tmp_path / "agent_log.json"
    path.write_text(json.dumps(NAMED_STEPS))
    (doc,) = read(path)
    got = [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]]) for m in doc.metadata["messages"]]
    logs = NAMED_STEPS["logs"]
    assert got == [("user", logs[0]["task"], []), ("assistant", logs[1]["output"], []),
                   ("assistant", "", ["github"]), ("tool", logs[3]["result"], [])]
    assert doc.metadata["transcript"]["entries_left_out"] == 4


# The spent eleventh holdout's OpenAI Assistants event stream (Ajuram-Prasanna/Agent_POC@3c06f56f, events.jsonl; no
# licence: read in the development corpus), its tool and answer events in its own keys, status events shortened.
STREAM = [
    {"event_type": "status", "data": {"message": "Run status: RunStatus.REQUIRES_ACTION"}},
    {"event_type": "initial_response", "data": {"content": "Let me pull up the number of loans handled by each agent."}},
    {"event_type": "tool_execution", "data": {"tool_name": "process_user_query", "status": "executing"}},
    {"event_type": "tool_execution", "data": {"tool_name": "process_user_query", "status": "completed",
                                              "output": "SELECT AGENT_NAME, COUNT(*) FROM LOAN_DATA GROUP BY AGENT_NAME"}},
    {"event_type": "status", "data": {"message": "Tool outputs submitted"}},
    {"event_type": "final_response", "data": {"content": "Here are the loan counts for each agent."}},
    {"event_type": "completed", "data": {"tool_calls_executed": ["process_user_query"], "status": "success"}},
]


def test_a_tool_events_status_says_whether_it_is_the_call_or_its_result(tmp_path: Path) -> None:
    """Two events of one kind (``tool_execution``) are told apart by their ``status``: ``executing`` is the call
    being made, ``completed`` with an ``output`` its result, which answers that call."""
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in STREAM) + "\n")
    (doc,) = read(path)
    turns = doc.metadata["messages"]
    (call,) = [c for m in turns for c in m["tool_calls"]]
    (result,) = [m for m in turns if m["role"] == "tool"]
    assert call["name"] == "process_user_query" and result["content"] == STREAM[3]["data"]["output"]
    assert turns.index(result) == 1 + next(i for i, m in enumerate(turns) if m["tool_calls"])
