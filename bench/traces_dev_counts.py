"""Independent message counts for the development runs of ``bench/traces_dev_extra.tsv``: one small function per
file layout, written from the file with ``json``/``re``/``yaml`` only (never codemix). One message per user or
task turn, per model turn (its calls inside it) and per tool or environment result; a file that holds no
conversation counts 0 (a control: it must be quarantined)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml


def count_toolbench(path: Path) -> int:
    """``answer_generation.train_messages``: the prompts of each model call, the last one the whole run
    (system, user, then assistant and ``function`` turns); plus nothing else (the tree repeats them)."""
    return len(json.loads(path.read_text())["answer_generation"]["train_messages"][-1])


def count_io_pairs(path: Path) -> int:
    """A list of ``{inputs: {...}, outputs: {...}}`` chat-history entries: the input and the output each."""
    return 2 * len(json.loads(path.read_text()))


def count_io_pairs_with_tools(path: Path) -> int:
    """As ``count_io_pairs``, plus the model's call when ``outputs.llm_output`` holds one (``answer`` is then the
    tool's result written as the reply)."""
    rows = json.loads(path.read_text())
    return sum(2 + bool((row["outputs"].get("llm_output") or {}).get("tool_calls")) for row in rows)


def count_chatdev(path: Path) -> int:
    """ChatDev's log: each record ``[time INFO] <Role Name>: **...`` written by a named agent (not ``System``):
    the phase's opening prompt (``[Start Chat]``) and every agent's reply (``A<->B on : Phase, turn N``)."""
    record = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} INFO\] (?!System:)[A-Z][A-Za-z ]+: \*\*", re.MULTILINE)
    return len(record.findall(path.read_text(errors="replace")))


def count_cassette_openai(path: Path) -> int:
    """A VCR cassette of chat-completion calls: the last call's request messages, plus its reply."""
    calls = [json.loads(i["request"]["body"]) for i in yaml.safe_load(path.read_text())["interactions"]
             if "chat/completions" in i["request"]["uri"]]
    return len(calls[-1]["messages"]) + 1


def count_cassette_anthropic(path: Path) -> int:
    """A VCR cassette of Messages API calls (``parsed_body``): the last request's messages, a tool_result block
    in a user message counted as the tool's turn, plus the final reply."""
    calls = [i for i in yaml.safe_load(path.read_text())["interactions"] if "/v1/messages" in i["request"]["uri"]]
    return len(calls[-1]["request"]["parsed_body"]["messages"]) + 1


def count_instruction_output(path: Path) -> int:
    """Rows of ``{instruction, output, generator}``: the instruction and the answer."""
    return sum(bool(r.get("instruction")) + bool(r.get("output")) for r in json.loads(path.read_text()))


def count_taskmaster(path: Path) -> int:
    """One dialog (``utterances``: speaker USER/ASSISTANT, text), or a list of them."""
    value = json.loads(path.read_text())
    return sum(len(d["utterances"]) for d in (value if isinstance(value, list) else [value]))


def count_tape(path: Path) -> int:
    """A TapeAgents tape: every step with text in its ``content`` (calls, responses, broadcasts, results)."""
    return sum(isinstance(s.get("content"), str) and bool(s["content"].strip()) for s in json.loads(path.read_text())["steps"])


def count_adk_eval_set(path: Path) -> int:
    """An ADK eval set: per case, per invocation the user's content, one model turn calling the tools of
    ``intermediate_data.tool_uses`` when there are any, and the ``final_response``."""
    cases = json.loads(path.read_text())["eval_cases"]
    return sum(2 + bool((inv.get("intermediate_data") or {}).get("tool_uses"))
               for case in cases for inv in case["conversation"])


def count_adk_legacy_cases(path: Path) -> int:
    """ADK's older eval cases ``[{query, expected_tool_use, reference}]``: the query, one model turn calling the
    expected tools when there are any, and the reference answer."""
    return sum(1 + bool(case.get("expected_tool_use")) + bool(case.get("reference")) for case in json.loads(path.read_text()))


def count_messages_lines(path: Path) -> int:
    """One record per JSONL line, ``messages`` a list of ``{role, content}`` (content text or an object)."""
    return sum(len(json.loads(line)["messages"]) for line in path.read_text().splitlines() if line.strip())


def count_none(path: Path) -> int:
    """A file of no conversation (a pipeline's progress log, an ontology): 0."""
    return 0


EXTRA_COUNTS = {"ToolBench (DFS answer)": count_toolbench, "promptflow (chat history)": count_io_pairs,
                "promptflow (chat history with tools)": count_io_pairs_with_tools, "ChatDev (WareHouse log)": count_chatdev,
                "crewAI (VCR cassette)": count_cassette_openai, "pydantic-ai (VCR cassette)": count_cassette_anthropic,
                "AlpacaEval (model outputs)": count_instruction_output, "Taskmaster-1 (sample dialog)": count_taskmaster,
                "TapeAgents (data science tape)": count_tape, "TapeAgents (delegate stack tape)": count_tape,
                "Google ADK (eval set)": count_adk_eval_set, "Google ADK (legacy eval cases)": count_adk_legacy_cases,
                "Arena-Hard-Auto (model answers)": count_messages_lines,
                "SWE-bench submission (pipeline log, no conversation)": count_none,
                "Taskmaster-2 (ontology, no conversation)": count_none}
