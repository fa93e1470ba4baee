"""Runs the seventh traces holdout showed and no reader took (issue 45, fixes after round 7): a call record's
``instruction`` beside its ``input`` (ChatDoctor, Alpaca's seed tasks); exchanges whose two fields are named by
speakers' names (ChatLaw's ``咨询者``/``ChatLAW``) or by domain words (HuatuoGPT's ``medical_case``/
``doctor_diagnosis``); dialogues kept as Markdown tables (MindChat) or as JSON in a Markdown code fence
(Chinese-Vicuna, one document missing a comma); bracketed speakers whose role words are Chinese (``[AI 用户]``);
Bedrock Converse messages printed with their content blocks. Real files (tests/fixtures/transcripts/README.md:
repository, commit, path, licence); for each class one file of the spent holdout and one that was not in it.
Every expectation is taken from the raw file with plain ``json``/``re``, never from the reader."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from codemix.document import Document
from tests.mixtures.reading import read_split as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CHATDOCTOR = FIXTURES / "exchanges" / "chatdoctor.chatdoctor5k.first-3.json"
SEED_TASKS = FIXTURES / "exchanges" / "stanford_alpaca.seed_tasks.lines-2-5.jsonl"
CHATLAW = [FIXTURES / "exchanges" / "chatlaw.demo_data_consultation.first-3.jsonl",
           FIXTURES / "exchanges" / "chatlaw.demo_data_concepts.first-3.jsonl"]
HUATUO = FIXTURES / "exchanges" / "huatuogpt.med-dialog_100.first-8.json"
MINDCHAT = [FIXTURES / "page-data" / "mindchat.mindchat_13B_dialogue_cases.first-2-cases.md",
            FIXTURES / "page-data" / "mindchat.mindchat_Qwen_7B_dialogue_cases.first-2-cases.md"]
VICUNA = FIXTURES / "page-data" / "chinese-vicuna.performance-chatv1.md"
VICUNA_LEGAL = FIXTURES / "page-data" / "chinese-vicuna.performance-chatv1-legal.md"
CAMEL_ZH = FIXTURES / "marker-turns" / "handy-multi-agent.chapter3.cells-7-8.ipynb"
CONVERSE = [FIXTURES / "printed-messages" / "amazon-bedrock-samples.return_of_control.cells-18-19.ipynb",
            FIXTURES / "printed-messages" / "amazon-bedrock-samples.function_calling_with_converse.cells-40-54.ipynb"]


def said(doc: Document) -> list[tuple[str, str]]:
    return [(m["role"], m["content"].strip()) for m in doc.metadata["messages"]]


def test_a_call_records_instruction_is_its_system_turn() -> None:
    """ChatDoctor's ``{instruction, input, output}``: the instruction is the context the doctor answered in,
    the run's system turn, never dropped; the patient's input the user turn, the output the model's."""
    records = json.loads(CHATDOCTOR.read_text())
    docs, quarantined = read(CHATDOCTOR)
    assert not quarantined and len(docs) == len(records) == 3
    for doc, record in zip(docs, records):
        assert said(doc) == [("system", record["instruction"].strip()), ("user", record["input"].strip()),
                             ("assistant", record["output"].strip())]


def test_an_instruction_above_its_instances_is_their_system_turn() -> None:
    """Alpaca's seed tasks keep ``instruction`` above ``instances: [{input, output}]``: each instance reads as
    that instruction (the system turn), the input and the output, every field accounted for."""
    records = [json.loads(line) for line in SEED_TASKS.read_text().splitlines()]
    assert all(len(r["instances"]) == 1 and r["instances"][0]["input"].strip() for r in records)
    docs, quarantined = read(SEED_TASKS)
    assert not quarantined
    assert [said(d) for d in docs] == [[("system", r["instruction"].strip()), ("user", r["instances"][0]["input"].strip()),
                                        ("assistant", r["instances"][0]["output"].strip())] for r in records]


@pytest.mark.parametrize("path", CHATLAW, ids=lambda p: p.name)
def test_an_exchange_keyed_by_two_names_is_read_opener_first(path: Path) -> None:
    """``chat: [{"咨询者": q, "ChatLAW": a}]``: neither key is a role word; the field that opens the exchange
    is the person, the other (the longer reply, under a ``chat`` key) the model; the record's
    ``meta_instruction`` is the system turn. The second file (not in the holdout) asks no questions."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == len(records)
    for doc, record in zip(docs, records):
        (exchange,) = record["chat"]
        person, model = list(exchange)
        assert said(doc) == [("system", record["meta_instruction"].strip()), ("user", exchange[person].strip()),
                             ("assistant", exchange[model].strip())]


def test_an_exchange_keyed_by_domain_words_is_read_by_who_asks() -> None:
    """HuatuoGPT's ``{id, medical_case, doctor_diagnosis, Department}``: the case asks (question marks), the
    diagnosis answers; the department label and the id are no turns."""
    records = json.loads(HUATUO.read_text())
    asks = [bool(re.search("[?？]", r["medical_case"])) for r in records]
    assert sum(asks) * 4 >= len(records) and not any(re.search("[?？]", r["doctor_diagnosis"]) for r in records)
    docs, quarantined = read(HUATUO)
    assert not quarantined
    assert [said(d) for d in docs] == [[("user", r["medical_case"].strip()), ("assistant", r["doctor_diagnosis"].strip())]
                                       for r in records]


@pytest.mark.parametrize("path", MINDCHAT, ids=lambda p: p.name)
def test_a_markdown_table_of_rounds_is_one_dialogue(path: Path) -> None:
    """MindChat's ``| 轮数 | 用户 | MindChat |`` tables: each table one run, each numbered row a round (the
    person's cell, then the model's); the round numbers are no turns."""
    text = path.read_text()
    tables = [re.findall(r"^\|\s*(\d+)\s*\|(.*?)\|(.*?)\|\s*$", section, re.MULTILINE) for section in text.split("\n### ")[1:]]
    assert len(tables) == 2 and all(len(rows) >= 5 for rows in tables)
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == len(tables)
    for doc, rows in zip(docs, tables):
        assert [int(n) for n, _, _ in rows] == list(range(1, len(rows) + 1))
        assert said(doc) == [turn for _, person, model in rows
                             for turn in (("user", person.strip()), ("assistant", model.strip()))]


def fenced_json(path: Path, repair: tuple[str, str]) -> list:
    """The page's fenced blocks that open as JSON, parsed after one slip mended by hand (as the holdout's
    collector did); the test first checks that the slip is really there."""
    bodies = [b for b in re.findall(r"^```[^\n]*\n(.*?)^```", path.read_text(), re.MULTILINE | re.DOTALL)
              if b.lstrip()[:1] in "[{"]
    broken = [b for b in bodies if repair[0] in b]
    assert len(broken) == 1 and broken[0].count(repair[0]) == 1
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken[0])
    return [json.loads(b.replace(*repair)) for b in bodies]


def exchanges(value) -> list[dict]:
    """Every ``{input, output}`` object in a JSON value, in document order."""
    if isinstance(value, dict):
        return [value] if {"input", "output"} <= set(value) else [e for v in value.values() for e in exchanges(v)]
    return [e for v in value for e in exchanges(v)] if isinstance(value, list) else []


@pytest.mark.parametrize(("path", "repair"), [(VICUNA, ("]\n    \"Vicuna\"", "],\n    \"Vicuna\"")),
                                              (VICUNA_LEGAL, ("}\n        ]\n    },\n]", "}\n        ]\n    }\n]"))],
                         ids=["holdout-missing-comma", "not-in-holdout-trailing-comma"])
def test_json_in_a_markdown_fence_is_read(path: Path, repair: tuple[str, str]) -> None:
    """Chinese-Vicuna's pages keep models' answers as JSON documents in code fences (``{model: [{input,
    output}, ...]}``, ``[{history: [{input, output}, ...]}]``), written by hand: the holdout's page misses a
    comma between two models, the other page leaves one before a closing bracket. Every input is a user
    turn and every output the model's; a ``history`` is one run."""
    values = fenced_json(path, repair)
    expected = sorted((role, turn[key].strip()) for value in values for turn in exchanges(value)
                      for role, key in (("user", "input"), ("assistant", "output")))
    assert len(expected) >= 40
    docs, quarantined = read(path)
    assert not quarantined
    assert sorted(m for d in docs for m in said(d)) == expected
    assert all([m["role"] for m in d.metadata["messages"]] == ["user", "assistant"] * (len(d.metadata["messages"]) // 2)
               for d in docs)
    histories = [v for value in values if isinstance(value, list) for v in value if isinstance(v, dict) and "history" in v]
    assert len(docs) >= len(histories) and all(any(said(d) == [t for e in h["history"] for t in (
        ("user", e["input"].strip()), ("assistant", e["output"].strip()))] for d in docs) for h in histories)


def test_bracketed_speakers_with_chinese_role_words_take_sides_by_who_opens() -> None:
    """CAMEL's society printed in Chinese, ``[AI 用户] Instruction: ...`` then ``[AI 助手] Solution: ...``: the
    role words are in no English list; both labels name an AI, and the one that opens (who sets the task)
    is the person. ``Input:`` inside the person's message stays its text."""
    cells = json.loads(CAMEL_ZH.read_text())["cells"]
    (output,) = ["".join("".join(o.get("text", [])) for o in c.get("outputs", [])) for c in cells if c.get("outputs")]
    person, model = re.split(r"^\[AI 助手\] ", output.split("[AI 用户] ", 1)[1], flags=re.MULTILINE)
    docs, quarantined = read(CAMEL_ZH)
    assert not quarantined and len(docs) == 1
    assert said(docs[0]) == [("user", person.strip()), ("assistant", model.strip())]
    assert "Input: None" in docs[0].metadata["messages"][0]["content"]


@pytest.mark.parametrize("path", CONVERSE, ids=lambda p: p.name)
def test_printed_converse_messages_with_content_blocks_are_read(path: Path) -> None:
    """A notebook prints Bedrock Converse's message list (``Messages:`` then JSON): each message's content
    is a list of blocks, ``{text}``, ``{toolUse: {name, input}}``, or a user-role ``{toolResult}`` (the tool's
    turn). Every printed list is one run, its roles, texts and calls kept; the model's last reply, printed
    only in the API's response dict above the list (``{'ResponseMetadata': ..., 'output': {'message': ...}}``),
    closes the run (after the tool's result it answers)."""
    cells = json.loads(path.read_text())["cells"]
    outputs = ["".join("".join(o.get("text", [])) for o in c.get("outputs", [])) for c in cells if c.get("outputs")]
    printed = [json.loads(re.search(r"^Messages:\n(\[.*?^\])", text, re.MULTILINE | re.DOTALL).group(1)) for text in outputs]
    expected = []
    for messages in printed:
        run = []
        for m in messages:
            blocks = m["content"]
            texts = [b["text"] for b in blocks if "text" in b]
            results = [c["text"] for b in blocks if "toolResult" in b for c in b["toolResult"]["content"]]
            calls = [b["toolUse"]["name"] for b in blocks if "toolUse" in b]
            role = "tool" if results and not texts else m["role"]
            run.append((role, "\n".join(texts or results).strip(), calls))
        expected.append(run)
    for run, text in zip(expected, outputs):  # the replies the API returned, by the standard library's literal_eval
        replies = [ast.literal_eval(line)["output"]["message"] for line in text.splitlines() if line.startswith("{'ResponseMetadata'")]
        said_by_model = [(m["role"], "\n".join(b["text"] for b in m["content"] if "text" in b).strip(),
                          [b["toolUse"]["name"] for b in m["content"] if "toolUse" in b]) for m in replies if m["content"]]
        assert said_by_model and said_by_model[-1] not in run  # the list stops before the last reply
        run.append(said_by_model[-1])
    docs, quarantined = read(path)
    assert not quarantined
    assert [[(m["role"], m["content"].strip(), [c["name"] for c in m["tool_calls"]]) for m in d.metadata["messages"]]
            for d in docs] == expected
    assert all(m["observation"] == (m["role"] == "tool") for d in docs for m in d.metadata["messages"])
