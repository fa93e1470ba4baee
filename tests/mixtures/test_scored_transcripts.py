"""The scored recogniser (issue 45, round 5): where no named format and no shape rule reads a file, every
sequence in it is a candidate, its fields mapped by their statistics (repeating short speaker labels beside
prose), and the best candidate is the run. Also the readers around it: a JSONL file whose lines are read as
one sequence, YAML, HTTP recordings, banner logs. Real files are excerpts of the systems' own output
(tests/fixtures/transcripts/README.md and tests/fixtures/transcript_inputs/README.md: repository, commit,
path, licence); the event-lines file is a real
debate re-laid out as a JSONL event log (its docstring says so). Every expectation is taken from the raw
file with plain ``json``/``re``/``yaml``, never from the reader. Controls: real files of no conversation
(an AWS API's examples, a software bill of materials) stay quarantined with the keys they hold."""

from __future__ import annotations

import itertools
import json
import os
import re
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
import yaml

from codemix.filters.natural_language import without_json_blocks
from codemix.mixtures.transcript_formats import parse_json_value
from tests.mixtures.reading import read_split as read

SCORED = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "scored"
DEBATE = SCORED / "adversarial-debate-debate_log.record-3.json"
DEBATE_LINES = SCORED / "adversarial-debate-record-3.as-event-lines.jsonl"
DYLAN = SCORED / "dylan-high_school_psychology_test_100_23.json"
CURIE = SCORED / "curie-mle_activation_func_20250326.lines-1-100.log"
CHATDEV = SCORED / "chatdev-2048-20230822144615.lines-1007-1610.log"
PROMPTFLOW = SCORED / "promptflow-marketing_writer-history.json"
CASSETTE = SCORED / "pydantic-ai-test_anthropic_tool_output.yaml"
ADK_EVAL = SCORED / "adk-python-order_query.test.json"
SWARM = SCORED / "swarm-session_20240422-135321.json"
TABLE = SCORED / "adversarial-debate-record-3.as-table.csv"
LITERAL = SCORED / "swarm-session_20240422-135321.as-python-repr.txt"
INPUTS = SCORED.parents[1] / "transcript_inputs"
NOT_CONVERSATIONS = (INPUTS / "not-botocore-sts-2011-06-15-examples-1.json", INPUTS / "not-cryptography-rust.cyclonedx.json")


def one_run(path: Path) -> list[dict]:
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1, (quarantined, len(docs))
    return docs[0].metadata["messages"]


def test_exchanges_named_by_their_speakers_follow_the_records_task() -> None:
    """A debate kept as ``transcript: [{round, agent_a: text, agent_b: text}]`` beside ``question``: the
    question is the task (user), each agent's text a model turn under its own name, round by round."""
    record = json.loads(DEBATE.read_text(encoding="utf-8"))[0]
    rounds = record["transcript"]
    assert len(rounds) >= 2, "guard: a debate of several rounds"
    messages = one_run(DEBATE)
    assert messages[0]["role"] == "user" and messages[0]["content"] == record["question"]
    assert [(m["role"], m["name"], m["content"]) for m in messages[1:]] == [
        ("assistant", agent, r[agent]) for r in rounds for agent in ("agent_a", "agent_b")]


def test_jsonl_event_lines_are_read_as_one_sequence() -> None:
    """The same debate re-laid out as a JSONL event log (a header line with the question, one line per
    utterance ``{event, round, agent_id, message}``, vote lines with no text): no line is a transcript alone,
    so the lines are one sequence; the votes are counted as entries left out, the header's question is the task."""
    lines = [json.loads(line) for line in DEBATE_LINES.read_text(encoding="utf-8").splitlines()]
    said = [line for line in lines if line.get("message")]
    docs, quarantined = read(DEBATE_LINES)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert messages[0]["content"] == lines[0]["question"]
    assert [(m["name"], m["content"]) for m in messages[1:]] == [(line["agent_id"], line["message"]) for line in said]
    assert docs[0].metadata["transcript"]["entries_left_out"] == len(lines) - len(said)


def test_a_matrix_of_answers_is_read_round_by_round() -> None:
    """DyLAN writes per question one JSON line ``[[agent 0's answer per round], [agent 1's ...]]``: each line
    one run, the answers read round by round (``speaker N``), nulls (rounds not played) left out."""
    rows = [json.loads(line) for line in DYLAN.read_text(encoding="utf-8").splitlines() if line.strip()]
    docs, quarantined = read(DYLAN)
    assert not quarantined and len(docs) == len(rows)
    for doc, row in zip(docs, rows):
        expected = [(f"speaker {a}", agent[r]) for r in range(max(map(len, row))) for a, agent in enumerate(row)
                    if r < len(agent) and isinstance(agent[r], str) and agent[r].strip()]
        assert [(m["name"], m["content"]) for m in doc.metadata["messages"]] == expected


def test_a_banner_log_names_its_speakers() -> None:
    """Curie's log opens each agent's turn with ``<><><> SUPERVISOR <><><>`` (after a coloured timestamp and
    level) and each hand-off with ``===== Global Step N =====``: one turn per banner, named by its label; the
    first speaker sets the task, the others are named model turns."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", CURIE.read_text(encoding="utf-8"))
    banners = re.findall(r"(?:<><><><><>|={5,}) (.+?) (?:<><><><><>|={5,})$", text, re.MULTILINE)
    assert len(banners) >= 4 and len(set(banners)) >= 2, "guard: several labels, repeated"
    messages = one_run(CURIE)
    names = [" ".join(w for w in re.sub(r"[^\w ]+", " ", b).split() if not w.isdigit()) for b in banners]
    assert [m["name"] for m in messages] == names  # CONTROL_WORKER_0 keeps its id, "Global Step 2" its kind
    assert messages[0]["role"] == "user" and {m["role"] for m in messages[1:]} <= {"assistant", "user"}


def test_a_log_whose_records_name_their_writer_is_their_turns() -> None:
    """ChatDev's log writes each message as a record ``[time INFO] Programmer: ...``: one turn per such record,
    ``System`` records as system turns, the agents as named turns."""
    text = CHATDEV.read_text(encoding="utf-8")
    writers = re.findall(r"^\[[\d: -]+ INFO\] ([A-Z][A-Za-z ]+): ", text, re.MULTILINE)
    assert len(set(writers)) >= 3, "guard: several writers"
    messages = one_run(CHATDEV)
    assert [m["name"] or m["role"] for m in messages] == [w if w != "System" else "system" for w in writers]


def test_input_output_pairs_are_exchanges() -> None:
    """promptflow's chat history ``[{inputs: {user_input}, outputs: {response}}]``: each pair a user turn and a
    model turn, a one-word input included."""
    pairs = json.loads(PROMPTFLOW.read_text(encoding="utf-8"))
    messages = one_run(PROMPTFLOW)
    assert [(m["role"], m["content"]) for m in messages] == [
        turn for p in pairs for turn in (("user", p["inputs"]["user_input"]), ("assistant", p["outputs"]["response"]))]


def test_an_http_recording_is_its_last_call_and_reply() -> None:
    """A VCR cassette (YAML) of two Anthropic Messages calls, the second sent the first's history: one run,
    the second call's messages (its tool_result as the tool's turn) then the reply it got (a tool call)."""
    calls = yaml.safe_load(CASSETTE.read_text(encoding="utf-8"))["interactions"]
    last = calls[-1]["request"]["parsed_body"]["messages"]
    reply = calls[-1]["response"]["parsed_body"]["content"]
    assert len(calls) == 2 and len(last) == 3, "guard: a second call that repeats the first"
    messages = one_run(CASSETTE)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert [c["name"] for c in messages[-1]["tool_calls"]] == [b["name"] for b in reply if b["type"] == "tool_use"]
    assert messages[2]["content"] == last[2]["content"][0]["content"]


def test_a_yaml_file_of_nested_aliases_is_quarantined_without_being_expanded(tmp_path: Path) -> None:
    """A few hundred bytes of nested YAML aliases ("billion laughs") name 9**6 strings; read as the JSON value
    they stand for they would take hundreds of megabytes. The reader refuses aliases: one quarantine, and the
    read allocates a small fraction of what the expansion needs."""
    levels = ['a0: &a0 ["lol lol lol lol lol lol lol lol"]']
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 7)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join([*levels, "messages: *a6"]) + "\n", encoding="utf-8")
    assert len(json.dumps(yaml.safe_load(bomb.read_text(encoding="utf-8"))["messages"])) > 15_000_000  # guard
    tracemalloc.start()
    try:
        docs, quarantined = read(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not docs and len(quarantined) == 1 and quarantined[0].location == str(bomb)
    assert peak < 100_000_000, peak  # the expansion: ~340 MB; a read of the file alone: ~50 MB (its byte limit)


@pytest.mark.parametrize("path", NOT_CONVERSATIONS, ids=lambda p: p.name)
def test_a_file_of_no_conversation_stays_quarantined_with_its_keys(path: Path) -> None:
    """Real JSON of no conversation (records with short labels and text: an API's request/response examples,
    a bill of materials whose components name their authors) is no run: one quarantine naming its keys."""
    keys = sorted(json.loads(path.read_text(encoding="utf-8")))
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1
    assert str(keys[:3])[1:-1] in quarantined[0].error


def test_exchanges_whose_fields_are_turns_log_their_calls_before_the_reply() -> None:
    """ADK's eval set keeps each invocation as ``{user_content: {role: user, parts}, final_response: {role:
    model, parts}, intermediate_data: {tool_uses: [{name, args}]}}``: the user's turn, the model's calls, its
    final reply, invocation after invocation (shape alone found only the calls, with no task)."""
    (case,) = json.loads(ADK_EVAL.read_text(encoding="utf-8"))["eval_cases"]
    expected = []
    for invocation in case["conversation"]:
        calls = [use["name"] for use in invocation["intermediate_data"]["tool_uses"]]
        expected += [("user", invocation["user_content"]["parts"][0]["text"], [])]
        expected += [("assistant", "", calls)] if calls else []
        expected += [("assistant", invocation["final_response"]["parts"][0]["text"], [])]
    messages = one_run(ADK_EVAL)
    assert [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]]) for m in messages] == expected


def test_a_log_of_several_runs_is_split_by_run_id_and_logged_calls_are_the_models() -> None:
    """Swarm's session log is one message list of three runs (each message's ``task_id``), its tool calls
    logged as user messages holding only ``tool: {tool, args}``: one transcript per run, and each such
    message the model's call (the role the log gave it is no evidence; the call is)."""
    log = json.loads(SWARM.read_text(encoding="utf-8"))
    runs = [list(group) for _, group in itertools.groupby(log, key=lambda m: m["task_id"])]
    assert len(runs) == 3 and any("tool" in m for m in log), "guard: several runs, logged calls"
    docs, quarantined = read(SWARM)
    assert not quarantined and len(docs) == len(runs)
    for doc, run in zip(docs, runs):
        got = [(m["role"], [c["name"] for c in m["tool_calls"]]) for m in doc.metadata["messages"]]
        assert got == [("assistant", [m["tool"]["tool"]]) if "tool" in m else (m["role"], []) for m in run]


@pytest.mark.parametrize(("path", "original"), [(TABLE, DEBATE), (LITERAL, SWARM)], ids=["csv", "python-repr"])
def test_other_notations_are_read_as_the_value_they_are(path: Path, original: Path) -> None:
    """A real run written in another notation (re-laid out: the debate as a CSV table with a header row; the
    Swarm log as Python's ``repr`` of its message list) reads as the same conversation as its JSON."""
    json_docs, _ = read(original)
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == len(json_docs) >= 1
    texts = [[m["content"] for m in d.metadata["messages"]] for d in docs]
    expected = [[m["content"] for m in d.metadata["messages"]] for d in json_docs]
    if path == TABLE:  # the table holds the utterances, not the record's question
        expected = [[t for t in run if t != json.loads(original.read_text(encoding="utf-8"))[0]["question"]] for run in expected]
    assert texts == expected


def test_exchanges_kept_under_numbered_keys_are_a_sequence() -> None:
    """The debate re-laid out as rounds under numbered keys (``{rounds: {round_1: {agent_a, agent_b}, ...}}``):
    the object is the list of its values in number order, each round's speaker-named fields its turns."""
    record = json.loads(DEBATE.read_text(encoding="utf-8"))[0]
    rounds = {f"round_{r['round'] + 1}": {"agent_a": r["agent_a"], "agent_b": r["agent_b"]}
              for r in reversed(record["transcript"])}  # written out of order: the numbers give it
    assert len(rounds) >= 2, "guard: several rounds"
    (transcript,) = parse_json_value({"rounds": rounds})
    assert [(m["name"], m["content"]) for m in transcript.messages] == [
        (agent, r[agent]) for r in record["transcript"] for agent in ("agent_a", "agent_b")]


def test_json_an_agent_writes_over_several_lines_is_no_repeated_prose() -> None:
    """Curie's hand-off turn pastes the experiment plan as a JSON object over dozens of lines (``{``, ``},``,
    ``"control_group": [`` repeat): data, as fenced code is, so Gopher's repeated-line check does not judge
    it; the sentence before it stays. The part left out is exactly a JSON value (``json.loads``)."""
    messages = one_run(CURIE)
    content = next(m["content"] for m in messages if re.search(r'\{\n\s+"\w+": ', m["content"]))  # a JSON object
    lines = [line for line in content.split("\n") if line.strip()]
    assert sum(n for n in Counter(lines).values() if n > 1) > 0.3 * len(lines), "guard: repeated lines, as Gopher counts"
    kept = without_json_blocks(content)
    head, tail = len(os.path.commonprefix([content, kept])), len(os.path.commonprefix([content[::-1], kept[::-1]]))
    assert isinstance(json.loads(content[head:len(content) - tail]), (dict, list))
    assert kept.startswith("Event value: The experimental plan has been successfully stored")
    assert "{" not in kept.split("\n", 1)[1]
