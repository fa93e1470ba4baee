"""The layout classes the first holdout of issue 45 missed, read by shape on real files of systems in
neither holdout (tests/fixtures/transcripts/README.md and tests/fixtures/transcript_inputs/README.md give
origin, commit and license): call records, step tables kept as columns, steps whose model part sits one
level down, tool-call logs, and a run whose task is its system prompt. Expected messages are taken from the
raw files with plain ``json``; where a test re-lays a real run out (a call log, nested steps, a state with
no user turn), the reference is the run as published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemix.mixtures.transcript_formats import TranscriptShapeError, has_task, parse_json_value, system_as_task

SHAPE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "shape"
TAU = SHAPE / "tau-bench-gpt-4o-airline.rows-1-3.json"
BIODISCO = SHAPE.parents[1] / "transcript_inputs" / "biodisco-run_log.lines-2-12-13.jsonl"
INTERCODE = [SHAPE / "intercode-ic_sql_react_10_turns.records-0-2.json",
             SHAPE / "intercode-ic_bash_multiturn_gpt-4_10_turns_fs_1.records-0-5.json"]


def tau_run(index: int = 2) -> dict:
    return json.loads(TAU.read_text())[index]


def roles_and_text(messages: list[dict]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"] or "") for m in messages]


def test_one_call_record_per_line_is_a_prompt_and_its_response() -> None:
    """BioDisco logs each agent call as ``{agent, input, output}``: the input (text, or an object written
    as JSON) is the user turn, the output the model turn; a call that returned nothing is an empty
    conversation, never a conversation with no model turn."""
    rows = [json.loads(line) for line in BIODISCO.read_text().splitlines()]
    assert {"input", "output"} <= set(rows[0]) and not any("messages" in row for row in rows), "guard: no turns"
    answered = [row for row in rows if row["output"]]
    assert len(answered) == 2 and any(isinstance(row["input"], dict) for row in rows), "guard: both input kinds"
    for row in answered:
        (transcript,) = parse_json_value(row)
        assert transcript.extra["layout"] == "calls"
        prompt = row["input"] if isinstance(row["input"], str) else json.dumps(row["input"], ensure_ascii=False)
        assert roles_and_text(transcript.messages) == [("user", prompt), ("assistant", row["output"])]
        assert has_task(transcript.messages)
    (silent,) = [row for row in rows if not row["output"]]
    with pytest.raises(TranscriptShapeError, match="empty_conversation: \\$.output"):
        parse_json_value(silent)


def test_a_runs_call_log_is_read_back_as_the_run() -> None:
    """An agent's call log, each call's ``messages`` the whole history sent and ``response`` the reply
    (as OpenHands' ``llm_completions`` and Inspect's model events keep it), built from a real tau-bench
    run: read as one conversation, it is the run itself: each prompt adds only what is new."""
    traj = tau_run()["traj"]
    calls = [{"messages": traj[:i], "response": {"choices": [{"message": turn}]}}
             for i, turn in enumerate(traj) if turn["role"] == "assistant"]
    assert len(calls) >= 8 and traj[-1]["role"] == "user", "guard: many calls; a last user turn no call saw"
    traj = traj[:max(i for i, turn in enumerate(traj) if turn["role"] == "assistant") + 1]
    (transcript,) = parse_json_value({"task_id": 7, "llm_calls": calls})
    assert transcript.extra["layout"] == "calls" and transcript.extra["record_id"] == "7"
    assert roles_and_text(transcript.messages) == roles_and_text(traj)
    calls_made = [c["function"]["name"] for m in traj for c in m.get("tool_calls") or []]
    assert [c["name"] for m in transcript.messages for c in m["tool_calls"]] == calls_made


def test_a_prompt_that_restates_the_run_as_text_adds_only_its_new_part() -> None:
    """A ReAct harness sends the whole scratchpad again as one prompt string each call: a later prompt
    that starts with the earlier prompt and reply adds only what follows them."""
    traj = [m for m in tau_run()["traj"] if m["role"] in ("user", "assistant") and m.get("content")]
    traj = traj[:max(i for i, turn in enumerate(traj) if turn["role"] == "assistant") + 1]
    prompts, text = [], ""
    for turn in traj:
        if turn["role"] == "user":
            text += turn["content"] + "\n"
        else:
            prompts.append({"prompt": text, "completion": turn["content"]})
            text += turn["content"] + "\n"
    (transcript,) = parse_json_value({"id": "scratchpad", "calls": prompts})
    assert [m["role"] for m in transcript.messages] == [m["role"] for m in traj]
    assert [m["content"] for m in transcript.messages if m["role"] == "assistant"] == [
        m["content"] for m in traj if m["role"] == "assistant"]
    assert " ".join(m["content"] for m in transcript.messages if m["role"] == "user").split() == " ".join(
        m["content"] for m in traj if m["role"] == "user").split()


@pytest.mark.parametrize("path", INTERCODE, ids=lambda p: p.name.split(".")[0])
def test_a_step_table_kept_as_columns_is_read_step_by_step(path: Path) -> None:
    """InterCode keeps a run as ``turn_history: {thoughts?, actions, observations, rewards}`` beside its
    ``query``: each action (with its thought) is a model turn, each observation a tool turn."""
    records = json.loads(path.read_text())
    transcripts = parse_json_value(records)
    assert len(transcripts) == len(records)
    for transcript, (key, record) in zip(transcripts, records.items()):
        history = record["turn_history"]
        assert transcript.extra["layout"] == "steps" and transcript.extra["record_id"] == str(record["task_id"])
        assert transcript.messages[0]["role"] == "user" and transcript.messages[0]["content"] == record["query"]
        steps = transcript.messages[1:]
        assert [m["role"] for m in steps] == ["assistant", "tool"] * len(history["actions"])
        assert [m["content"] for m in steps if m["role"] == "tool"] == [str(o) for o in history["observations"]]
        for message, action, index in zip(steps[::2], history["actions"], range(len(history["actions"]))):
            assert action in message["content"]
            if "thoughts" in history:
                assert message["content"].startswith(history["thoughts"][index])


def test_steps_whose_model_part_sits_one_level_down_are_read() -> None:
    """Steps as Trae Agent and smolagents write them: ``{llm_response: {content, tool_calls}, tool_results:
    [{call_id, result}]}``, built from a real tau-bench run (task beside the steps): every reply and every
    result, in order, with the calls' names and ids."""
    run = tau_run()
    traj = run["traj"]
    steps, pending = [], None
    for turn in traj[2:]:
        if turn["role"] == "assistant":
            pending = {"llm_response": {"content": turn.get("content"), "tool_calls": turn.get("tool_calls")},
                       "tool_results": []}
            steps.append(pending)
        elif turn["role"] == "tool":
            pending["tool_results"].append({"call_id": turn["tool_call_id"], "result": turn["content"]})
    steps = [s for s in steps if s["tool_results"]]
    assert len(steps) >= 5, "guard: steps with results"
    (transcript,) = parse_json_value({"task": traj[1]["content"], "agent_steps": steps})
    assert transcript.extra["layout"] == "steps"
    assert transcript.messages[0]["content"] == traj[1]["content"]
    expected = [(m["role"], m.get("content") or "") for s in steps for m in
                [{"role": "assistant", "content": s["llm_response"]["content"]}]
                + [{"role": "tool", "content": r["result"]} for r in s["tool_results"]]]
    assert roles_and_text(transcript.messages[1:]) == expected
    assert [m["tool_call_id"] for m in transcript.messages if m["role"] == "tool"] == [
        r["call_id"] for s in steps for r in s["tool_results"]]
    assert [c["name"] for m in transcript.messages for c in m["tool_calls"]] == [
        c["function"]["name"] for s in steps for c in s["llm_response"]["tool_calls"] or []]


def test_a_tool_call_log_with_its_task_is_read_as_the_models_calls() -> None:
    """tau-bench's task object lists the calls that solve it (``actions: [{name, kwargs}]``) beside its
    ``instruction``: read alone, a log of calls with no model text, each call a model turn."""
    task = tau_run()["info"]["task"]
    assert set(task) >= {"instruction", "actions"} and len(task["actions"]) >= 2, "guard: a task with calls"
    (transcript,) = parse_json_value(task)
    assert transcript.extra["layout"] == "events"
    assert transcript.messages[0] == {**transcript.messages[0], "role": "user", "content": task["instruction"]}
    calls = [m["tool_calls"][0] for m in transcript.messages[1:]]
    assert [c["name"] for c in calls] == [a["name"] for a in task["actions"]]
    assert [json.loads(c["arguments"]) for c in calls] == [a["kwargs"] for a in task["actions"]]


def test_a_calls_log_inside_a_run_is_part_of_that_run() -> None:
    """The same task object inside a run's ``info`` is that run's task spec, never a run of its own."""
    rows = json.loads(TAU.read_text())
    assert all(row["info"]["task"]["actions"] for row in rows), "guard: every row lists expected calls"
    assert [t.extra["layout"] for t in parse_json_value(rows)] == ["turns"] * len(rows)


def test_tool_declarations_are_no_call_log() -> None:
    """A tools list (name, description, JSON-schema parameters) declares tools; nobody called them."""
    glaive = json.loads((SHAPE.parent / "sharegpt/glaive_toolcall_en_demo.first5.json").read_text())
    declared = json.loads(glaive[0]["tools"])
    assert declared and all("parameters" in tool for tool in declared), "guard: declarations with parameters"
    with pytest.raises(TranscriptShapeError):
        parse_json_value({"task": "book a flight", "available": declared})


def test_a_run_with_no_user_turn_takes_its_system_prompt_as_its_task() -> None:
    """A saved agent state keeps the system prompt and the agent's own turns, not the user's (an agent
    started by its instructions alone): the system prompt becomes the opening user turn (context, never
    trained). Built from a real tau-bench run with its user turns left out."""
    traj = [m for m in tau_run()["traj"] if m["role"] != "user"]
    assert traj[0]["role"] == "system" and traj[1]["role"] == "assistant", "guard: the model speaks first"
    (transcript,) = parse_json_value({"agent_id": "a1", "messages": traj})
    assert not has_task(transcript.messages), "guard: no user turn before the model's first"
    assert system_as_task(transcript.messages) and has_task(transcript.messages)
    assert transcript.messages[0]["role"] == "user" and transcript.messages[0]["content"] == traj[0]["content"]
    assert [m["role"] for m in transcript.messages[1:]] == [m["role"] for m in traj[1:]]


def test_a_run_with_neither_user_turn_nor_system_text_has_no_task() -> None:
    """A log of calls with no instruction anywhere has no task to learn from: read, but ``has_task`` is
    false (the reader refuses it as ``no_task``)."""
    actions = tau_run()["info"]["task"]["actions"]
    (transcript,) = parse_json_value({"actions": actions})
    assert transcript.extra["layout"] == "events" and not has_task(transcript.messages)
    assert not system_as_task(transcript.messages) and not has_task(transcript.messages)
