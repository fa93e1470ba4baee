"""Transcripts are redacted at crawl part by part: what the model thought, tool-call arguments in the language
of what they carry (JSON escapes decoded), tool output as the file it shows, fenced code by its fence."""

from __future__ import annotations

import dataclasses
import json
import re
import sysconfig
from pathlib import Path

import pytest

from bench.redaction import code_tokens, python_tokens
from bench.transcript_redaction import carried, read_back
from codemix.document import Document
from codemix.filters.secrets import RedactionConfig, redact_document
from codemix.mixtures.chat import render_messages
from codemix.pipelines.crawl import RedactWith
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "anthropic" / "messages.json"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_reasoning_is_redacted_in_the_messages_as_in_the_text() -> None:
    doc = next(read_location(SourceConfig(name="runs", type="transcripts", paths=["unused"]), str(FIXTURE)))
    messages = [dict(m) for m in doc.metadata["messages"]]
    thinking = next(m for m in messages if m["reasoning"])
    thinking["reasoning"] += f" The deploy key is {TOKEN}."
    planted = dataclasses.replace(doc, text=render_messages(messages), metadata={**doc.metadata, "messages": messages})
    (*records, redacted) = RedactWith(RedactionConfig())(planted)
    assert isinstance(redacted, Document) and records, "guard: the secret was found"
    assert TOKEN not in redacted.text and TOKEN not in json.dumps(redacted.metadata)
    assert render_messages(redacted.metadata["messages"]) == redacted.text
    assert planted.metadata["messages"][2]["reasoning"].endswith(f"{TOKEN}."), "the input is not modified"


# --- each part of a trace in its own language (issue 25) -------------------------------------------

STDLIB = Path(sysconfig.get_path("stdlib"))
# Real modules whose code the language-less path rewrote inside a trace (``authkey=self._authkey``,
# ``credentials=credentials,``): bench/transcript_redaction.py found them on the standard library.
REWRITTEN_BEFORE = ["multiprocessing/managers.py", "multiprocessing/resource_sharer.py", "multiprocessing/spawn.py"]


def _carried(path: str, code: str) -> Document:
    messages = carried(path, code)
    return Document(id=path, text=render_messages(messages), source="runs", kind="transcript",
                    metadata={"messages": messages})


@pytest.mark.parametrize("name", REWRITTEN_BEFORE)
def test_code_in_a_trace_keeps_its_tokens_in_every_part(name: str) -> None:
    """Tool-call argument, tool output and fenced block: the standard tokenizer sees the same code."""
    code = (STDLIB / name).read_text(encoding="utf-8")
    doc = _carried(str(STDLIB / name), code)  # an absolute path, as an agent's ``cat`` names it
    # guard: the file holds what the language-less path once rewrote, a secret-named keyword argument
    # whose value is code (``authkey=process.current_process().authkey``); since issue 47 neither path
    # rewrites it (an unquoted value in code is an expression), and both must keep its tokens
    assert re.search(r"\b\w*(?:key|credentials)\s*=\s*[A-Za-z_][\w.]*\(", code), "guard: a secret name given code"
    old, _ = redact_document(doc, RedactionConfig())
    assert all(code_tokens(python_tokens(t)) == code_tokens(python_tokens(code))
               for t in read_back(old.metadata["messages"]).values())
    (*_, redacted) = RedactWith(RedactionConfig())(doc)
    copies = read_back(redacted.metadata["messages"])
    assert set(copies) == {"tool_call", "tool_output", "fenced"} and all(copies.values())
    for part, text in copies.items():
        assert code_tokens(python_tokens(text)) == code_tokens(python_tokens(code)), part
    assert redacted.text == render_messages(redacted.metadata["messages"])


def test_json_escaped_password_in_a_tool_call_is_found_and_the_arguments_still_parse() -> None:
    """``ADMIN_PASSWORD = \\"...\\"`` inside JSON: escapes decoded before matching, spans mapped back."""
    secret = "Vq7" + "#pLm2Xz9Tk4"
    code = f'import os\n\nADMIN_PASSWORD = "{secret}"\nDEBUG = False\n'
    doc = _carried("settings.py", code)
    arguments = doc.metadata["messages"][1]["tool_calls"][0]["arguments"]
    assert f'ADMIN_PASSWORD = \\"{secret}\\"' in arguments, "guard: the quotes are JSON-escaped"
    (*records, redacted) = RedactWith(RedactionConfig())(doc)
    assert secret not in redacted.text and secret not in json.dumps(redacted.metadata)
    written = json.loads(redacted.metadata["messages"][1]["tool_calls"][0]["arguments"])["file_text"]
    assert written == code.replace(secret, "<SECRET_PASSWORD>")
    assert [(r.type, r.count) for r in records] == [("SECRET_PASSWORD", 3)]  # written, shown, quoted


def test_a_secret_in_a_real_swe_agent_command_is_redacted_in_the_output_too(shared_transcripts: Path) -> None:
    """A real SWE-agent run with a token exported in a bash call and echoed in its output."""
    doc = next(read_location(SourceConfig(name="runs", type="transcripts", paths=["unused"]),
                             str(shared_transcripts / "swe-agent" / "function_calling_simple.traj")))
    messages = [dict(m) for m in doc.metadata["messages"]]
    call_at = next(i for i, m in enumerate(messages) if m["tool_calls"])
    call = dict(messages[call_at]["tool_calls"][0])
    call["arguments"] = json.dumps({"command": f"export GITHUB_TOKEN={TOKEN} && env | grep TOKEN"})
    messages[call_at] = {**messages[call_at], "tool_calls": [call]}
    messages.insert(call_at + 1, {**messages[call_at + 1], "content": f"GITHUB_TOKEN={TOKEN}\n"})
    planted = dataclasses.replace(doc, text=render_messages(messages), metadata={**doc.metadata, "messages": messages})
    assert planted.text.count(TOKEN) == 2, "guard: planted in the call and in its output"
    (*records, redacted) = RedactWith(RedactionConfig())(planted)
    assert TOKEN not in redacted.text and TOKEN not in json.dumps(redacted.metadata)
    assert [(r.type, r.count) for r in records] == [("SECRET_GITHUB_TOKEN", 2)]
    assert redacted.text == render_messages(redacted.metadata["messages"])
