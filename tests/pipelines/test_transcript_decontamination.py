"""Benchmark solutions an agent's tools carried are found (issue 47): HumanEval and MBPP code written by a
tool call (a file write, an edit, a patch, a heredoc in a command) or shown by a tool (``cat``, a
numbered file view), in OpenAI chat, Claude Code and SWE-agent transcripts, each read by the real
transcript reader and judged by the filter stage's ``DocumentFilter``. The same transcripts with
unrelated code are kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import DecontaminationConfig, humaneval_items, read_benchmark
from codemix.pipelines.crawl import path_language
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

MBPP_SAMPLE = Path(__file__).parents[1] / "filters" / "data" / "mbpp_1-54.jsonl"
HUMANEVAL = {item_id: text for _, item_id, text, _ in list(humaneval_items())[::2]}  # prompt + solution
MBPP = {item_id: text for _, item_id, text, _ in read_benchmark(str(MBPP_SAMPLE), "mbpp")}
CLEAN = ("def load_settings(path):\n    with open(path) as handle:\n        lines = handle.read().splitlines()\n"
         "    return {k.strip(): v.strip() for k, v in (line.split('=', 1) for line in lines if '=' in line)}\n")


def numbered(code: str, style: str) -> str:
    """A file view as the tool prints it: ``cat -n`` (tab after the number) or SWE-agent's ``12:``."""
    lines = code.rstrip("\n").split("\n")
    return "\n".join(f"{i:6d}\t{line}" if style == "cat-n" else f"{i}:{line}" for i, line in enumerate(lines, 1)) + "\n"


def patch(code: str) -> str:
    added = "".join(f"+{line}\n" for line in code.rstrip("\n").split("\n"))
    return f"--- /dev/null\n+++ b/solution.py\n@@ -0,0 +1,{code.count(chr(10))} @@\n{added}"


def openai_chat(form: str, code: str) -> str:
    calls = {"write": ("write_file", {"path": "solution.py", "content": code}),
             "patch": ("apply_patch", {"patch": patch(code)}),
             "heredoc": ("bash", {"command": f"cat > solution.py <<'EOF'\n{code}EOF\npython solution.py"}),
             "cat": ("bash", {"command": "cat solution.py"})}
    name, arguments = calls[form]
    output = code if form == "cat" else "done"
    messages = [{"role": "user", "content": "Solve the task in solution.py."},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]},
                {"role": "tool", "tool_call_id": "c1", "content": output},
                {"role": "assistant", "content": "Done."}]
    return json.dumps({"messages": messages}) + "\n"


def claude_code(form: str, code: str) -> str:
    calls = {"write": ("Write", {"file_path": "/w/solution.py", "content": code}),
             "edit": ("Edit", {"file_path": "/w/solution.py", "old_string": "    pass\n", "new_string": code}),
             "read": ("Read", {"file_path": "/w/solution.py"})}
    name, arguments = calls[form]
    output = numbered(code, "cat-n") if form == "read" else "ok"
    base = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": "s1", "version": "1.0.98"}
    lines = [{**base, "parentUuid": None, "uuid": "u1", "type": "user", "timestamp": "2026-05-01T10:00:01Z",
              "message": {"role": "user", "content": "Solve the task in solution.py."}},
             {**base, "parentUuid": "u1", "uuid": "a1", "type": "assistant", "timestamp": "2026-05-01T10:00:02Z",
              "message": {"id": "m1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                          "content": [{"type": "tool_use", "id": "t1", "name": name, "input": arguments}]}},
             {**base, "parentUuid": "a1", "uuid": "u2", "type": "user", "timestamp": "2026-05-01T10:00:03Z",
              "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": output}]}},
             {**base, "parentUuid": "u2", "uuid": "a2", "type": "assistant", "timestamp": "2026-05-01T10:00:04Z",
              "message": {"id": "m2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                          "content": [{"type": "text", "text": "Done."}]}}]
    return "".join(json.dumps(line) + "\n" for line in lines)


def swe_agent(form: str, code: str) -> str:
    calls = {"create": {"command": "create", "path": "/repo/solution.py", "file_text": code},
             "view": {"command": "view", "path": "/repo/solution.py"}}
    output = {"create": "File created successfully at: /repo/solution.py",
              "view": "Here's the result of running `cat -n` on /repo/solution.py:\n" + numbered(code, "cat-n"),
              "open": "[File: /repo/solution.py (20 lines total)]\n" + numbered(code, "colon")}[form]
    arguments = calls.get(form, {"command": "open /repo/solution.py"})
    name = "bash" if form == "open" else "str_replace_editor"
    history = [{"role": "system", "content": "SETTING: an autonomous programmer.", "agent": "main",
                "message_type": "system_prompt"},
               {"role": "user", "content": "Solve the task in solution.py.", "agent": "main", "message_type": "observation"},
               {"role": "assistant", "content": "", "thought": "", "action": name, "agent": "main", "message_type": "action",
                "tool_calls": [{"id": "c1", "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)}}]},
               {"role": "tool", "content": [{"type": "text", "text": output}], "agent": "main",
                "message_type": "observation", "tool_call_ids": ["c1"]}]
    return json.dumps({"history": history, "trajectory": [], "info": {"exit_status": "submitted"}})


FORMS = [("openai-chat", "runs.jsonl", openai_chat, form) for form in ("write", "patch", "heredoc", "cat")]
FORMS += [("claude-code", "session.jsonl", claude_code, form) for form in ("write", "edit", "read")]
FORMS += [("swe-agent", "run.traj", swe_agent, form) for form in ("create", "view", "open")]
ITEMS = [("humaneval", "HumanEval/0", HUMANEVAL["HumanEval/0"]), ("mbpp_1-54", "31", MBPP["31"])]


@pytest.fixture(scope="module")
def judge():
    config = FiltersConfig(decontamination=DecontaminationConfig(benchmarks=[str(MBPP_SAMPLE)]))
    return DocumentFilter(config, language_of=path_language)


def read_transcript(tmp_path: Path, name: str, text: str) -> Document:
    path = tmp_path / name
    path.write_text(text)
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], license="MIT")
    source.validate("sources[0]")
    [doc] = [d for d in read_location(source, str(path)) if isinstance(d, Document)]
    return doc


@pytest.mark.parametrize(("benchmark", "item_id", "code"), ITEMS, ids=[i for _, i, _ in ITEMS])
@pytest.mark.parametrize(("fmt", "name", "render", "form"), FORMS, ids=[f"{f}-{form}" for f, _, _, form in FORMS])
def test_a_solution_a_tool_carried_is_found(tmp_path, judge, fmt, name, render, form, benchmark, item_id, code):
    doc = read_transcript(tmp_path, name, render(form, code))
    assert doc.metadata["format"] == fmt  # guard: read as the format it was written in
    verdict = judge.judge(doc)
    assert verdict.reason == "contaminated" and (benchmark, item_id) in {(h.benchmark, h.item_id) for h in verdict.hits}


@pytest.mark.parametrize(("fmt", "name", "render", "form"), FORMS, ids=[f"{f}-{form}" for f, _, _, form in FORMS])
def test_unrelated_code_in_the_same_places_is_kept(tmp_path, judge, fmt, name, render, form):
    doc = read_transcript(tmp_path, name, render(form, CLEAN))
    assert CLEAN.split("\n")[1] in json.dumps(doc.metadata["messages"])  # guard: the code is in the transcript
    assert judge.judge(doc).reason is None
