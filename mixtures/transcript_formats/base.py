"""What a format parser returns, and the facts every container may record about a run's outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from codemix.mixtures.transcript_formats.canonical import string

Container = Literal["json", "session", "text"]


@dataclass(slots=True, kw_only=True)
class Transcript:
    """One conversation in canonical form (see ``canonical``).

    ``facts``: outcome facts the file *recorded* (``exit_status``, ``submitted``, ``resolved``,
    ``tests_passed``); facts inferred from the messages are added later, by ``outcome_facts``.
    ``compactions``: one ``compaction`` record per real compaction: the messages from ``at`` on were
    written after it; ``summary_message`` says ``messages[at]`` is the summary the harness injected
    (shown to the model as a turn), which a continuation replaces (``compaction_summary``).
    ``extra``: format-specific metadata kept on the document (session id, title, sidechain...).
    ``stated_roles``: the format names every turn's speaker in its own terms and gives a tool's results turns
    of their own (OpenTelemetry GenAI spans: results are role ``tool``), so no user turn is taken for a
    tool's output by where it sits (``canonical.flag_text_observations``): a person's prompt after a call
    whose result the log never kept stays the person's words.
    """

    format: str
    messages: list[dict[str, Any]]
    facts: dict[str, Any] = field(default_factory=dict)
    compactions: list[dict[str, Any]] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    repo: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    stated_roles: bool = False


@dataclass(slots=True, frozen=True, kw_only=True)
class Format:
    """A transcript format: how to recognise one value of it and how to parse it.

    ``container``: ``json`` (a whole JSON file, or one JSONL line, is one value), ``session`` (every
    line of a JSONL file is one entry; the entries together are the value) or ``text`` (the file's
    text is the value). ``detect`` sees the value (for ``session``, the first entry).
    """

    name: str
    container: Container
    detect: Callable[[Any], bool]
    parse: Callable[[Any], list[Transcript]]


def compaction(at: int, origin: str, *, text: str = "", summary: str = "") -> dict[str, Any]:
    """A compaction record. ``text``: the summary turn the harness injected at ``at`` ("" when there is
    none); ``summary``: the model's own words inside it. The record keeps where they sit in the turn
    (``trim``: characters of harness wrapping before and after), not a copy: secrets are redacted in
    the messages, and a copy elsewhere in the metadata would keep them."""
    if not text:
        return {"at": at, "origin": origin, "summary_message": False}
    head = text.find(summary) if summary else -1
    head, length = (head, len(summary)) if head >= 0 else (0, len(text))
    return {"at": at, "origin": origin, "summary_message": True, "trim": [head, len(text) - head - length]}


def compaction_summary(messages: list[dict[str, Any]], record: dict[str, Any]) -> str:
    """The model-written summary of a compaction record, read from its (redacted) summary turn."""
    if not record.get("summary_message") or not 0 <= record["at"] < len(messages):
        return ""
    content = messages[record["at"]]["content"]
    head, tail = record.get("trim", [0, 0])
    return content[head:len(content) - tail].strip()


def recorded_facts(holders: list[Any]) -> dict[str, Any]:
    """Outcome facts from the first holder (``info``, then the top level) that records each one.

    ``submitted``: a ``submission``/``model_patch``/``generated_patch`` field (present = the run
    produced one; empty = it did not), else an ``exit_status`` starting with "submit" (SWE-agent
    "submitted", "submitted (exit_cost)"; mini-swe-agent "Submitted"; OpenHands rows "submit").
    ``resolved``: SWE-bench's harness verdict, a bool or 0/1. ``tests_passed``: a recorded bool.
    """
    dicts = [h for h in holders if isinstance(h, dict)]
    facts: dict[str, Any] = {}
    status = next((string(h.get("exit_status")) for h in dicts if string(h.get("exit_status"))), "")
    if status:
        facts["exit_status"] = status
    patch_key = next(((h, k) for h in dicts for k in ("submission", "model_patch", "generated_patch") if k in h), None)
    if patch_key is not None:
        facts["submitted"] = bool(patch_key[0][patch_key[1]])
    elif status:
        facts["submitted"] = status.lower().startswith("submit")
    for key in ("resolved", "tests_passed"):
        value = next((h[key] for h in dicts if is_verdict(h.get(key))), None)
        if value is not None:
            facts[key] = bool(value)
    return facts


def is_verdict(value: Any) -> bool:
    """A recorded pass/fail: a bool, or 0/1 as the nebius rows store ``resolved`` (an int64 column)."""
    return isinstance(value, bool) or (isinstance(value, int) and value in (0, 1))


def declared_tools(tools: Any) -> list[str]:
    """Names in a ``tools`` list: OpenAI ``{function: {name}}``, Responses/Anthropic ``{name}``."""
    names = []
    for tool in tools if isinstance(tools, list) else []:
        spec = tool.get("function") if isinstance(tool, dict) and isinstance(tool.get("function"), dict) else tool
        if isinstance(spec, dict) and isinstance(spec.get("name"), str) and spec["name"]:
            names.append(spec["name"])
    return sorted(set(names))
