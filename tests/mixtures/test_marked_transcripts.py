"""Runs recognised by their shape where no name says what they are (issue 45, round 6): exchanges whose
fields are the speakers (``user utterance`` / ``system response``), agents named by a path of sub-agents,
message objects a program printed, turns opened by repeated line markers, and notebooks whose run is only
in a cell's printed output. Real files (tests/fixtures/transcripts/README.md and
tests/fixtures/transcript_inputs/README.md: repository, commit, path, licence); the marker log is two real
runs re-laid out (its README row says so). Every expectation is taken from the raw file with plain
``json``/``re``, never from the reader. Controls: a notebook and a README of no conversation stay
quarantined; inputs built to be slow are read in bounded time."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from codemix.document import Document
from codemix.mixtures.transcript_formats import parse_text
from tests.mixtures.reading import read_split as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SALESBOT = FIXTURES / "transcripts" / "keyed" / "salesbot.converted_examples.json"
TAPE = FIXTURES / "transcripts" / "keyed" / "tapeagents.data_science.final_tape.json"
GECOR = FIXTURES / "transcripts" / "keyed" / "gecor.original_examples.json"
MULTIWOZ = FIXTURES / "transcripts" / "keyed" / "multiwoz21.original_examples.first-dialogue.json"
EMPATHETIC = FIXTURES / "transcripts" / "keyed" / "empathetic.original_examples.json"
ATIF = FIXTURES / "transcripts" / "steps" / "openagents-login-trace.trajectory.json"
WATSONX = FIXTURES / "transcripts" / "printed-messages" / "watsonx.Flow-OneLLMOneAgent.md"
CHAIN = FIXTURES / "transcripts" / "chain-log" / "langchain-benchmarks.multiverse_math.ipynb"
ROUTER = FIXTURES / "transcripts" / "notebooks" / "langchain-academy.router.ipynb"
MARKERS = FIXTURES / "transcripts" / "marker-turns" / "langchain-benchmarks-runs.relaid-as-markers.md"
NOT_CONVERSATIONS = (FIXTURES / "transcript_inputs" / "langchain-academy.state-schema.ipynb",
                     FIXTURES / "transcript_inputs" / "watsonx-ai-platform-demos.README.md",
                     FIXTURES / "transcript_inputs" / "not-botocore-appconfig-2019-10-09-examples-1.json",
                     FIXTURES / "transcript_inputs" / "not-botocore-lex-models-2017-04-19-examples-1.json")


def roles(doc: Document) -> list[str]:
    return [m["role"] for m in doc.metadata["messages"]]


def test_exchanges_whose_fields_are_the_two_sides_are_read_turn_by_turn() -> None:
    """SalesBot's ``{"user utterance", "system response", "dialog history"}`` per exchange: the user's text
    then the system's reply (the model), in order; the history that repeats them is no turn; each of the
    five dialogues (keyed by its id) is its own run."""
    raw = json.loads(SALESBOT.read_text())
    docs, quarantined = read(SALESBOT)
    assert not quarantined and len(docs) == len(raw) == 5
    for doc, dialogue in zip(docs, raw.values()):
        expected = [(role, turn[key]) for turn in dialogue["log"]
                    for role, key in (("user", "user utterance"), ("assistant", "system response")) if turn[key].strip()]
        assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == expected
    history = [t["dialog history"] for d in raw.values() for t in d["log"] if t["dialog history"]]
    assert history and not any("<USER>" in m["content"] for d in docs for m in d.metadata["messages"])


def test_abbreviated_sides_with_their_text_one_object_down_are_the_user_and_the_model() -> None:
    """GECOR's ``{usr: {transcript, slu...}, sys: {sent, DA}}``: ``usr`` a person, ``sys`` the dialogue system
    (the model's side, no other field being the model's), each side's text under its text key."""
    raw = json.loads(GECOR.read_text())
    docs, quarantined = read(GECOR)
    assert not quarantined and len(docs) == len(raw)
    for doc, dialogue in zip(docs, raw):
        expected = [(role, text) for turn in dialogue["dial"] for role, text in
                    (("user", turn["usr"]["transcript"]), ("assistant", turn["sys"]["sent"])) if text.strip()]
        assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == expected


def test_utterances_naming_no_speaker_under_a_dialogue_key_take_turns_by_position() -> None:
    """MultiWOZ's ``log: [{text, metadata, dialog_act}]``: no field names a speaker; the user opens and the
    system answers, turn by turn."""
    raw = json.loads(MULTIWOZ.read_text())
    log = next(iter(raw.values()))["log"]
    assert not any({"speaker", "role", "from"} & set(u) for u in log), "guard: no speaker field"
    docs, quarantined = read(MULTIWOZ)
    assert not quarantined and len(docs) == 1
    assert [(m["role"], m["content"]) for m in docs[0].metadata["messages"]] == [
        (("user", "assistant")[i % 2], u["text"]) for i, u in enumerate(log)]


def test_a_dialogue_kept_by_columns_is_read_by_its_rows() -> None:
    """Empathetic Dialogues as ``{column: [cells]}``: the rows are the utterances, ``speaker_idx`` their
    speaker; the ``prompt`` column (longer, but one situation repeated on every row) is no one's turn."""
    raw = json.loads(EMPATHETIC.read_text())
    assert len(set(raw["prompt"])) == 1 and len(raw["prompt"]) >= 3, "guard: a repeated longer column"
    docs, quarantined = read(EMPATHETIC)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [m["content"] for m in messages] == raw["utterance"]
    assert [m["role"] for m in messages] == [("user", "assistant")[i % 2] for i in range(len(messages))]
    assert [m["role"] == "user" for m in messages] == [s == raw["speaker_idx"][0] for s in raw["speaker_idx"]]


def test_a_step_with_its_text_its_calls_and_its_results_kept_apart_is_one_model_turn() -> None:
    """An ATIF trajectory: each agent step's ``message`` and ``tool_calls`` are one model turn (not a call
    turn and a text turn), its ``observation.results`` the tool turns that follow, by their own text."""
    steps = json.loads(ATIF.read_text())["steps"]
    docs, quarantined = read(ATIF)
    assert not quarantined and len(docs) == 1
    expected = []
    for step in steps:
        if step["source"] == "user":
            expected.append(("user", step["message"], []))
            continue
        expected.append(("assistant", step["message"], [c["function_name"] for c in step["tool_calls"]]))
        expected += [("tool", r["content"], []) for r in step["observation"]["results"]]
    assert [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]]) for m in docs[0].metadata["messages"]] == expected


def test_agents_named_by_a_path_of_sub_agents_are_speakers_and_a_relay_is_said_once() -> None:
    """A TapeAgents tape: five agent names (``Initiator``, ``Initiator/Manager/SoftwareEngineer``...) for
    twelve texts, more names per text than a table's authors would give; the manager's ``broadcast`` of a
    reply is the same text again and is read once; the code a sub-agent ran (``execute_code``) is its turn
    and what the run printed (``code_execution_result``) the tool's."""
    steps = json.loads(TAPE.read_text())["steps"]
    said = [s for s in steps if isinstance(s.get("content"), str) and " " in s["content"].strip()]
    agents = {s["metadata"]["agent"] for s in said}
    assert len(agents) == 5 and len(agents) * 3 > len(said), "guard: more names than the speaker rule allows"
    expected = [("user", said[0]["content"])]
    for step in steps:
        if step["kind"] == "respond" and step in said:
            expected.append(("assistant", step["content"]))
        elif step["kind"] == "execute_code":
            expected.append(("assistant", "\n\n".join(block["code"].strip() for block in step["code"])))
        elif step["kind"] == "code_execution_result":
            expected.append(("tool", step["result"]["output"].strip()))
    docs, quarantined = read(TAPE)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [(m["role"], m["content"]) for m in messages] == expected
    assert all(m["observation"] for m in messages if m["role"] == "tool")
    assert {m["name"] for m in messages if m["role"] == "assistant"} == {
        s["metadata"]["agent"] for s in steps if s["kind"] in ("respond", "execute_code") and (s in said or s["kind"] != "respond")}


def test_printed_message_objects_are_read_as_the_history_they_print() -> None:
    """A Node.js flow log printing ``BaseMessage { role: 'user', text: '...' + '...' }`` lists: each list a
    history (the string pieces joined), a list that a later one begins with is the same run printed again."""
    text = WATSONX.read_text()
    printed = re.findall(r"BaseMessage \{\n\s+role: '(\w+)'", text)
    assert len(printed) >= 6, "guard: the log prints message lists"
    docs, quarantined = read(WATSONX)
    assert not quarantined and docs and {d.metadata["format"] for d in docs} == {"printed-messages"}
    longest = max(docs, key=lambda d: len(d.metadata["messages"]))
    assert roles(longest)[:2] == ["system", "user"] and "assistant" in roles(longest)
    first_piece = re.search(r"role: 'user',\n\s+text: '((?:[^'\\]|\\.)*)' \+\n", text).group(1).encode().decode("unicode_escape")
    user = next(m["content"] for m in longest.metadata["messages"] if m["role"] == "user")
    assert user.startswith(first_piece) and len(user) > len(first_piece) and "' +\n" not in user
    assert sum(len(d.metadata["messages"]) for d in docs) < len(printed), "a repeated history is read once"


def test_a_notebook_run_in_a_cells_coloured_executor_log_takes_the_cells_question() -> None:
    """An ``AgentExecutor(verbose=True)`` log in a cell's output: ``Invoking: `add` with `{...}``` the model's
    call, the tool's differently coloured output a tool turn, the last model text the answer; the question
    the cell's source passed to the agent opens the run, named ``task_from: code``."""
    cell = next(c for c in json.loads(CHAIN.read_text())["cells"] if "Entering new" in json.dumps(c.get("outputs")))
    question = re.search(r'"question": "([^"]+)"', "".join(cell["source"])).group(1)
    output = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    call = re.search(r"Invoking: `(\w+)` with `(\{.*?\})`", output)
    docs, quarantined = read(CHAIN)
    assert not quarantined and len(docs) == 1 and docs[0].metadata["format"] == "chain-log"
    messages = docs[0].metadata["messages"]
    assert roles(docs[0]) == ["user", "assistant", "tool", "assistant"] and messages[0]["content"] == question
    assert docs[0].metadata["transcript"]["task_from"] == "code"  # the literal the code passed (issue 45 round 11)
    assert messages[1]["tool_calls"][0]["name"] == call.group(1)
    assert json.loads(messages[1]["tool_calls"][0]["arguments"]) == {"a": 2, "b": 5}
    assert messages[2]["observation"] and messages[2]["content"] == "8.2"
    assert messages[3]["content"].startswith("The result of 2 + 5")


def test_a_notebook_of_pretty_printed_messages_is_read_per_cell() -> None:
    """LangGraph's ``pretty_print()`` banners in cell outputs (``==== Human Message ====``): a short
    exchange of two banners is a conversation too; each cell's output its own run."""
    cells = json.loads(ROUTER.read_text())["cells"]
    outputs = [re.sub(r"\x1b\[[0-9;]*m", "", "".join("".join(o.get("text", "")) for o in c.get("outputs", [])))
               for c in cells]
    printed = [o for o in outputs if re.search(r"=+ Human Message =+", o)]
    assert printed, "guard: the notebook pretty-prints its messages"
    docs, quarantined = read(ROUTER)
    assert not quarantined and len(docs) == len(printed)
    for doc, output in zip(docs, printed):
        assert len(doc.metadata["messages"]) == len(re.findall(r"^=+ \w+ Message =+$", output, re.MULTILINE))
        assert roles(doc)[0] == "user" and "assistant" in roles(doc)


def test_turns_opened_by_repeated_line_markers_are_read_run_by_run() -> None:
    """Emoji markers at line starts (``User prompt:``, ``🔨 Tool Called:``, ``👀 Observation:``, ``🤖 Agent:``):
    their words give the role (a call is the model's, an observation the tool's), a label without such
    words (``Arguments:``) is text of its turn, and the rule between runs splits them."""
    text = MARKERS.read_text()
    runs = [r for r in re.split(r"^_{10,}$", text, flags=re.MULTILINE) if r.strip()]
    docs, quarantined = read(MARKERS)
    assert not quarantined and len(docs) == len(runs) == 2
    for doc, run in zip(docs, runs):
        observations = re.findall(r"^👀 Observation: (.*)$", run, re.MULTILINE)
        answer = re.search(r"^🤖 Agent: (.*)$", run, re.MULTILINE).group(1)
        messages = doc.metadata["messages"]
        assert roles(doc) == ["user"] + ["assistant", "tool"] * len(observations) + ["assistant"]
        assert [m["content"] for m in messages if m["observation"]] == observations
        assert messages[-1]["content"] == answer and "Arguments:" in messages[1]["content"]


@pytest.mark.parametrize("path", NOT_CONVERSATIONS, ids=lambda p: p.name)
def test_a_file_of_no_conversation_stays_quarantined(path: Path) -> None:
    """A notebook of an agent course printing no conversation, a README with headings and emoji, API
    examples holding an event log and a list of sample utterances (lists under dialogue-worded keys)."""
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1


@pytest.mark.parametrize("bomb", [
    "HumanMessage(content='" * 100_000,  # openings that never close
    "{'role': 'user', " * 100_000,
    "> Entering new AgentExecutor chain...\n" * 50_000,  # chains that never finish
    "🤖 Agent: hi there you\nUser prompt: what now\n" * 50_000,
], ids=["unclosed-reprs", "unclosed-dicts", "unfinished-chains", "markers"])
@pytest.mark.timeout(60)  # a hang guard, not a speed claim: one pass takes ~0.3-2.4 CPU s, a rescan hours
def test_hostile_text_is_read_in_bounded_time(bomb: str, tmp_path: Path) -> None:
    """Each reader makes one pass over the text (brackets paired once, chains found by their edges): a
    couple of megabytes built to be slow end as one quarantined file, not the quadratic hours they would
    take by rescanning."""
    path = tmp_path / "bomb.txt"
    path.write_text(bomb)
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1


@pytest.mark.timeout(120)  # a hang guard, not a speed claim
@pytest.mark.parametrize("cells", [4_000, 6_000])
def test_a_notebook_of_thousands_of_printing_cells_is_refused_or_read_in_bounded_time(cells: int, tmp_path: Path) -> None:
    """Each printing cell is read as a text; a notebook of more than 5,000 printing cells is refused whole,
    with its reason, before any is read."""
    cell = {"cell_type": "code", "source": "print('what now')\n", "outputs": [
        {"output_type": "stream", "text": "Thought: a b\nUser: c d\nAgent: e f\n"}]}
    path = tmp_path / "many.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "cells": [cell] * cells}))
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1
    assert ("more than 5000" in quarantined[0].error) == (cells > 5_000)


def test_marker_labels_in_brackets_are_markers_too(tmp_path: Path) -> None:
    """The marker fixture's two real runs with their person's and model's labels in brackets (``[User
    prompt]:``, ``[Agent output]:``, as some programs print them): the same runs, the same turns."""
    text = re.sub(r"^(\d+\. )?(User prompt|Agent output):", r"[\2]:", MARKERS.read_text(), flags=re.MULTILINE)
    assert text.count("[User prompt]:") == 2, "guard: the labels are bracketed"
    path = tmp_path / "bracketed.md"
    path.write_text(text)
    docs, quarantined = read(path)
    expected, _ = read(MARKERS)
    assert not quarantined and len(docs) == len(expected) == 2
    assert [[(m["role"], m["content"]) for m in d.metadata["messages"]] for d in docs] == [
        [(m["role"], m["content"]) for m in d.metadata["messages"]] for d in expected]


@pytest.mark.parametrize("module", ["huggingface_hub.inference._client", "trl.data_utils"])
def test_a_source_files_docstrings_and_examples_are_no_conversation(module: str) -> None:
    """Installed source files whose docstrings label arguments with role words (``model (str):``,
    ``messages:``) and whose examples write message lists (``[{"role": "user", ...}]``): a source file is
    code, its labels are no markers and its examples were never printed by a run."""
    spec = importlib.util.find_spec(pytest.importorskip(module.split(".")[0]).__name__ + module[module.index("."):])
    text = Path(spec.origin).read_text(encoding="utf-8")
    assert re.search(r"""['"]role['"]:\s*['"](user|assistant)['"]""", text) or re.search(
        r"^\s+model \(`?str", text, re.MULTILINE), "guard: role words where a reader might look for speakers"
    assert parse_text(text) is None


CPSYCOUN = FIXTURES / "transcripts" / "labelled-dialogue" / "cpsycoun.case_0.txt"
MT_EVAL = FIXTURES / "transcripts" / "keyed" / "mt-eval.mt-bench_extended.first-3.jsonl"


def cpsycoun_turns() -> list[tuple[str, str]]:
    """The fixture's turns taken with plain ``re``: each paragraph opens with its speaker and a full-width colon."""
    return [(label, body.strip()) for label, body in re.findall(r"^(来访者|心理咨询师)：(.*?)(?=^(?:来访者|心理咨询师)：|\Z)",
                                                                  CPSYCOUN.read_text(), flags=re.MULTILINE | re.DOTALL)]


def test_two_labels_in_any_script_taking_turns_are_a_dialogue() -> None:
    """CPsyCoun's counselling dialogue: ``来访者：`` (the client) and ``心理咨询师：`` (the counsellor), labels
    in no Latin script after a full-width colon, taking turns. The labels' words say no role: the one who
    opens (the client, with the problem) is the person, the other the model's side; every utterance is read
    in order, the label kept as the speaker's name."""
    expected = cpsycoun_turns()
    assert len(expected) == 12 and expected[0][0] == "来访者", "guard: the raw file's turns"
    docs, quarantined = read(CPSYCOUN)
    assert not quarantined and len(docs) == 1 and docs[0].metadata["format"] == "labelled-dialogue"
    messages = docs[0].metadata["messages"]
    assert [(m["name"], m["content"]) for m in messages] == expected
    assert roles(docs[0]) == ["user" if label == "来访者" else "assistant" for label, _ in expected]


@pytest.mark.parametrize("change", [
    lambda t: t.replace("来访者：", "Note：").replace("心理咨询师：", "Example："),  # labels of a document's fields
    lambda t: t.replace("？", "。").replace("?", "."),  # nobody asks anything: statements under two labels
    lambda t: re.sub(r"^心理咨询师：", lambda m: f"字段{m.start()}：", t, flags=re.MULTILINE),  # many labels
    lambda t: "\n".join(line for line in t.splitlines() if not line.startswith("心理咨询师")),  # one label only
], ids=["field-labels", "no-question", "many-labels", "one-speaker"])
def test_labelled_texts_that_are_no_dialogue_stay_quarantined(change, tmp_path: Path) -> None:
    """Controls derived from the real dialogue: the same utterances under field labels (``Note：``), without a
    question, under a label that never recurs, or under one label only are no conversation."""
    path = tmp_path / "labels.txt"
    path.write_text(change(CPSYCOUN.read_text()))
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1


@pytest.mark.timeout(60)  # a hang guard, not a speed claim
def test_hostile_labelled_text_is_read_in_bounded_time(tmp_path: Path) -> None:
    """A megabyte of labels taking turns with nothing to say (one regex pass) end quarantined. Sized so a rescan
    (hours) trips the guard while a pass (~7 CPU s here) stays far below it on a loaded machine."""
    path = tmp_path / "labels.txt"
    path.write_text("甲：\n乙：\n" * 100_000)
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1


def test_an_exchange_id_is_neither_a_speaker_nor_a_turn() -> None:
    """MT-Eval's ``{user, sys, id: "81_0"}`` per exchange: ``user`` then ``sys`` (the model), and the id, a
    token with a digit, no third speaker: one model turn per exchange, none of them an id."""
    raw = [json.loads(line) for line in MT_EVAL.read_text().splitlines()]
    assert all(re.fullmatch(r"\d+_\d+", t["id"]) for r in raw for t in r["conversation"]), "guard: ids present"
    docs, quarantined = read(MT_EVAL)
    assert not quarantined and len(docs) == len(raw) == 3
    for doc, record in zip(docs, raw):
        assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == [
            (role, turn[key]) for turn in record["conversation"] for role, key in (("user", "user"), ("assistant", "sys"))]


BOTCHAT = FIXTURES / "transcripts" / "markdown-table" / "botchat.GoodCases.md"
PLOTLY_README = FIXTURES / "transcript_inputs" / "not-plotly-figure_factory.README.md"


def test_a_conversation_in_markdown_tables_is_read_table_by_table() -> None:
    """BotChat's good cases: each dialogue a Markdown table ``| Speaker | Utterance |`` of speakers ``A`` and
    ``B``; each table its own run, every row a turn in order (one row lacks its closing pipe), the first
    speaker setting the task."""
    tables = re.split(r"^\| Speaker\s*\| Utterance\s*\|$", BOTCHAT.read_text(), flags=re.MULTILINE)[1:]
    expected = [re.findall(r"^\|\s*([AB])\s*\|\s*(.*?)\s*\|?[ \t]*$", table, flags=re.MULTILINE) for table in tables]
    assert [len(e) for e in expected] == [16, 16], "guard: the raw file's two dialogues"
    docs, quarantined = read(BOTCHAT)
    assert not quarantined and len(docs) == 2
    for doc, rows in zip(docs, expected):
        assert [m["content"] for m in doc.metadata["messages"]] == [text for _, text in rows]
        assert roles(doc) == ["user" if speaker == "A" else "assistant" for speaker, _ in rows]


def test_a_markdown_table_of_data_is_no_conversation(tmp_path: Path) -> None:
    """Controls: plotly's README, whose table lists names and links, and the BotChat file with its speaker
    column dropped (utterances with nobody saying them) stay quarantined."""
    docs, quarantined = read(PLOTLY_README)
    assert "| Name" in PLOTLY_README.read_text() and not docs and len(quarantined) == 1
    path = tmp_path / "utterances.md"
    path.write_text(re.sub(r"^\|[^|\n]*\|", "|", BOTCHAT.read_text(), flags=re.MULTILINE))
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1


@pytest.mark.timeout(60)  # a hang guard, not a speed claim
def test_hostile_markdown_tables_are_read_in_bounded_time(tmp_path: Path) -> None:
    """A hundred thousand rules with no rows and a table of a hundred thousand ragged rows: one pass."""
    path = tmp_path / "tables.md"
    path.write_text("| a | b |\n|---|---|\n" * 100_000 + "| a | b |\n|---|---|\n" + "| x |\n" * 100_000)
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == 1
