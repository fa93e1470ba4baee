"""Secrets in what a transcript's model thought are redacted at crawl, like every other message text."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from codemix.document import Document
from codemix.filters.secrets import RedactionConfig
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
