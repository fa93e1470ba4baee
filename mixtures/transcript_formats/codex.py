"""OpenAI Codex CLI rollouts (``codex``): ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Each line is a ``RolloutLine {timestamp, type, payload}`` (``openai/codex``
``codex-rs/protocol/src/protocol.rs``); the conversation is in the ``response_item`` payloads, which are
Responses API items. Rollouts from before the wrapper existed hold a first line of session metadata
(``id``, ``timestamp``, ``instructions``) and then bare items; both are read.
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, compaction
from codemix.mixtures.transcript_formats.canonical import content_text, message, string
from codemix.mixtures.transcript_formats.openai import RESPONSE_ITEM_TYPES, ResponseItems

ROLLOUT_TYPES = frozenset({"session_meta", "response_item", "compacted", "turn_context", "event_msg"})
LEGACY_META_KEYS = frozenset({"id", "timestamp", "instructions", "git"})
# User turns Codex writes itself: project instructions and the sandbox description.
HARNESS_USER_PREFIXES = ("<user_instructions>", "<environment_context>", "# AGENTS.md instructions")
# The first line of Codex's compaction hand-off (core/templates/compact/summary_prefix.md); the model's
# summary follows on the next line.
SUMMARY_OPENING = "Another language model started to solve this problem and produced a summary"


def detect_rollout_entry(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    wrapped = isinstance(entry.get("type"), str) and entry["type"] in ROLLOUT_TYPES and isinstance(entry.get("payload"), dict)
    legacy_meta = {"id", "timestamp"} <= set(entry) <= LEGACY_META_KEYS
    return wrapped or legacy_meta


class Rollout:
    """Folds rollout lines into one transcript."""

    def __init__(self) -> None:
        self.items = ResponseItems()
        self.compactions: list[dict[str, Any]] = []
        self.extra: dict[str, Any] = {}
        self.repo = ""

    def add(self, entry: Any, where: str) -> None:
        if not isinstance(entry, dict):
            return
        kind, payload = entry.get("type"), entry.get("payload")
        if not isinstance(payload, dict):  # a legacy line: metadata first, then bare items
            if (isinstance(entry.get("type"), str) and entry["type"] in RESPONSE_ITEM_TYPES) or "role" in entry:
                self.item(entry, where)
            elif {"id", "timestamp"} <= set(entry):
                self.session_meta(entry)
        elif kind == "session_meta":
            self.session_meta(payload)
        elif kind == "response_item":
            self.item(payload, where)
        elif kind == "compacted":
            self.compacted(payload)
        # turn_context and event_msg repeat, for the UI, what the items already hold.

    def session_meta(self, meta: dict[str, Any]) -> None:
        self.extra |= {key: meta[key] for key in ("id", "cli_version", "originator") if isinstance(meta.get(key), str)}
        git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
        self.repo = self.repo or string(git.get("repository_url"))
        if string(meta.get("instructions")):
            self.items.append(message("system", meta["instructions"]))

    def item(self, item: dict[str, Any], where: str) -> None:
        before = len(self.items.messages)
        self.items.add(item, where)
        for turn in self.items.messages[before:]:
            if turn["role"] == "user" and turn["content"].lstrip().startswith(HARNESS_USER_PREFIXES):
                turn["observation"] = True

    def compacted(self, payload: dict[str, Any]) -> None:
        """Local compaction writes ``message`` (the hand-off line + the model's summary), which the model
        then sees as a user turn; remote compaction leaves it empty (the summary is encrypted), which
        still marks where the context was reset."""
        text = string(payload.get("message")) or replacement_summary(payload.get("replacement_history"))
        at = len(self.items.messages)
        if text:
            self.items.append(message("user", text, observation=True))
        self.compactions.append(compaction(at, "codex", text=text, summary=handoff_summary(text)))

    def transcript(self) -> Transcript:
        return Transcript(format="codex", messages=self.items.finish(), compactions=self.compactions,
                          repo=self.repo, extra=self.extra)


def replacement_summary(history: Any) -> str:
    """The summary turn a ``replacement_history`` carries (a user message opening with the hand-off line)."""
    for item in history if isinstance(history, list) else []:
        if isinstance(item, dict) and item.get("role") == "user":
            text = content_text(item.get("content"), "replacement_history") if isinstance(
                item.get("content"), (list, str)) else ""
            if text.startswith(SUMMARY_OPENING):
                return text
    return ""


def handoff_summary(text: str) -> str:
    """The model's summary without the hand-off line Codex puts before it."""
    first, _, rest = text.partition("\n")
    return (rest if first.startswith(SUMMARY_OPENING) else text).strip()


def parse_rollout(entries: list[Any]) -> list[Transcript]:
    rollout = Rollout()
    for lineno, entry in enumerate(entries, 1):
        rollout.add(entry, f"line {lineno}")
    return [rollout.transcript()]


CODEX = Format(name="codex", container="session", detect=detect_rollout_entry, parse=parse_rollout)
