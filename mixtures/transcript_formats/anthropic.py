"""Anthropic Messages (``anthropic``) and Claude Code session files (``claude-code``).

Field names: Anthropic Messages API; Claude Code's session JSONL as described by community specs built
from real sessions (see docs/transcript-formats.md; Anthropic publishes no schema).
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, compaction, declared_tools
from codemix.mixtures.transcript_formats.canonical import (
    TranscriptShapeError,
    block_type,
    content_text,
    message,
    string,
    tool_call,
)
from codemix.mixtures.transcript_formats.openai import chat_messages_of, container_facts

ANTHROPIC_ONLY_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"})
CALL_BLOCKS = frozenset({"tool_use", "server_tool_use"})


# --- Anthropic Messages ---------------------------------------------------------------------------


def anthropic_messages(raw: Any, index: int, call_names: dict[str, str]) -> list[dict[str, Any]]:
    """One Anthropic message -> canonical messages: an assistant turn (thinking -> reasoning, text,
    tool_use -> calls), or for a user message one ``tool`` observation per ``tool_result`` then the
    user's own text, if any. ``call_names`` maps tool_use ids to names, to name the results."""
    where = f"message {index}"
    if not isinstance(raw, dict) or raw.get("role") not in ("user", "assistant", "system"):
        raise TranscriptShapeError(f"{where} is not a user or assistant message")
    content = raw.get("content")
    blocks = content if isinstance(content, list) else [content]
    text = content_text([b for b in blocks if block_type(b) not in ANTHROPIC_ONLY_BLOCKS], where)
    if raw["role"] != "user":
        thinking = [b.get("thinking") for b in blocks if block_type(b) == "thinking"]
        calls = [tool_call(b.get("id"), b.get("name"), b.get("input"), where=where)
                 for b in blocks if block_type(b) in CALL_BLOCKS]
        call_names.update({call["id"]: call["name"] for call in calls})
        return [message(raw["role"], text, reasoning="\n\n".join(t for t in thinking if isinstance(t, str)),
                        tool_calls=calls)]
    results = [tool_result(b, where, call_names) for b in blocks if block_type(b) == "tool_result"]
    return results + ([message("user", text)] if text or not results else [])


def tool_result(block: dict[str, Any], where: str, call_names: dict[str, str]) -> dict[str, Any]:
    call_id = str(block.get("tool_use_id") or "")
    return message("tool", content_text(block.get("content"), f"{where} tool_result"), tool_call_id=call_id,
                   name=call_names.get(call_id, ""), observation=True)


def uses_anthropic_blocks(messages: Any) -> bool:
    return isinstance(messages, list) and any(
        isinstance(m, dict) and isinstance(m.get("content"), list)
        and any(block_type(b) in ANTHROPIC_ONLY_BLOCKS for b in m["content"]) for m in messages[:200])


def detect_anthropic(value: Any) -> bool:
    messages = chat_messages_of(value)
    system_beside = isinstance(value, dict) and "system" in value and isinstance(value.get("messages"), list)
    return bool(messages) and (system_beside or uses_anthropic_blocks(messages))


def parse_anthropic(value: Any) -> list[Transcript]:
    raw = chat_messages_of(value)
    if not raw:
        raise TranscriptShapeError("no messages")
    system = value.get("system") if isinstance(value, dict) else None
    messages = [message("system", content_text(system, "system"))] if system else []
    call_names: dict[str, str] = {}
    for index, item in enumerate(raw):
        messages += anthropic_messages(item, index, call_names)
    return [Transcript(format="anthropic", messages=messages, facts=container_facts(value),
                       tools=declared_tools(value.get("tools")) if isinstance(value, dict) else [])]


ANTHROPIC = Format(name="anthropic", container="json", detect=detect_anthropic, parse=parse_anthropic)


# --- Claude Code sessions -------------------------------------------------------------------------

CLAUDE_ENTRY_TYPES = frozenset({"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation",
                                "progress", "attachment", "custom-title", "ai-title"})
# Harness text around the model's compaction summary (first and last paragraph of the injected turn).
COMPACT_OPENING = "This session is being continued from a previous conversation"
COMPACT_CLOSING = "Please continue the conversation from where we left it off"
# User turns Claude Code writes itself: slash commands and their local output.
COMMAND_MARKUP = ("<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>")


def detect_claude_entry(entry: Any) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("type"), str) and entry["type"] in CLAUDE_ENTRY_TYPES
            and any(key in entry for key in ("uuid", "sessionId", "session_id", "leafUuid", "messageId")))


def parse_claude_code(entries: list[Any]) -> list[Transcript]:
    """The main chain as one transcript, and each sidechain (a Task sub-agent) as its own.

    Entries link to their parent by ``parentUuid``. A file whose entries carry no ``parentUuid`` at all
    (exporters, older versions) is one chain in file order; a chain whose walk back stops at a parent the
    file does not hold is broken: every entry of it is kept, in file order, and the transcript says
    ``broken_chain`` rather than keep only the tail after the break."""
    entries = [e for e in entries if isinstance(e, dict)]
    sessions = appended_sessions(entries)
    if len(sessions) > 1:  # headless runs appended to one file: each session its own transcript(s)
        return [t for session in sessions for t in parse_claude_code(session)]
    by_uuid = {e["uuid"]: e for e in entries if isinstance(e.get("uuid"), str)}
    session = next((string(e.get("sessionId")) or string(e.get("session_id")) for e in entries
                    if string(e.get("sessionId")) or string(e.get("session_id"))), "")
    # The picker's title (a ``summary`` entry) is not kept: text outside the messages escapes redaction.
    extra = {"session_id": session}
    linked = any("parentUuid" in e for e in entries if is_message_entry(e))
    chains = [(*linked_chain(entries, leaf, by_uuid, linked), False) for leaf in main_leaf(entries)]
    chains += [(*linked_chain(entries, leaf, by_uuid, linked), True) for leaf in sidechain_leaves(entries, linked)]
    transcripts = [claude_transcript(chain, extra | ({"sidechain": True} if side else {})
                                     | ({"broken_chain": True} if broken else {}))
                   for chain, broken, side in chains]
    transcripts = [t for t in transcripts if t.messages]
    if not transcripts:
        raise TranscriptShapeError("a Claude Code session with no user or assistant entries")
    return transcripts


def appended_sessions(entries: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The sessions of a file that several unlinked runs were appended to (``claude -p --output-format
    stream-json`` in a loop: each run opens with its ``system``/``init`` record and names its ``session_id``),
    each in file order; one group when the entries are linked by ``parentUuid`` or name one session."""
    if any("parentUuid" in e for e in entries):
        return [entries]
    groups: dict[str, list[dict[str, Any]]] = {}
    current = ""
    for entry in entries:
        current = string(entry.get("sessionId")) or string(entry.get("session_id")) or current
        groups.setdefault(current, []).append(entry)
    return list(groups.values()) if len(groups) > 1 and "" not in groups else [entries]


def linked_chain(entries: list[dict[str, Any]], leaf: dict[str, Any], by_uuid: dict[str, Any],
                 linked: bool) -> tuple[list[dict[str, Any]], bool]:
    """``(root-to-leaf entries, whether the chain is broken)`` for the chain ending at ``leaf``: by
    ``parentUuid`` when the file links its entries, else (and when the links break) its side's message
    entries in file order, up to the leaf."""
    chain = chain_to(leaf, by_uuid) if linked else []
    parent = chain[0].get("parentUuid") or chain[0].get("logicalParentUuid") if chain else None
    broken = linked and isinstance(parent, str) and parent not in by_uuid
    if linked and not broken:
        return chain, False
    side = bool(leaf.get("isSidechain"))
    end = next(i for i, e in enumerate(entries) if e is leaf) + 1
    in_order = [e for e in entries[:end] if bool(e.get("isSidechain")) == side]
    return in_order, broken


def is_message_entry(entry: dict[str, Any]) -> bool:
    return entry.get("type") in ("user", "assistant") and isinstance(entry.get("message"), dict)


def main_leaf(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last message entry off the sidechains: the conversation as it ended (a redo's abandoned
    branch ends earlier in the file, so it is not on the chain back from here)."""
    leaf = next((e for e in reversed(entries) if is_message_entry(e) and not e.get("isSidechain")), None)
    return [leaf] if leaf is not None else []


def sidechain_leaves(entries: list[dict[str, Any]], linked: bool = True) -> list[dict[str, Any]]:
    """Sidechain message entries no other sidechain entry continues from, in file order (without
    links, the last sidechain entry ends the one sidechain the file can tell apart)."""
    side = [e for e in entries if e.get("isSidechain") and is_message_entry(e)]
    if not linked:
        return side[-1:]
    parents = {e.get("parentUuid") for e in entries if e.get("isSidechain")}
    return [e for e in side if e.get("uuid") not in parents]


def chain_to(leaf: dict[str, Any], by_uuid: dict[str, Any]) -> list[dict[str, Any]]:
    """Root-to-leaf entries: back through ``parentUuid``, and through a compaction boundary's
    ``logicalParentUuid`` (the boundary is a new root that points at the last entry before it).
    A sidechain stops where it meets the main chain; a missing parent or a cycle ends the walk."""
    chain, seen, entry = [], set(), leaf
    side = bool(leaf.get("isSidechain"))
    while entry is not None and id(entry) not in seen and bool(entry.get("isSidechain")) == side:
        seen.add(id(entry))
        chain.append(entry)
        parent = entry.get("parentUuid") or entry.get("logicalParentUuid")
        entry = by_uuid.get(parent) if isinstance(parent, str) else None
    return chain[::-1]


def claude_transcript(chain: list[dict[str, Any]], extra: dict[str, Any]) -> Transcript:
    messages: list[dict[str, Any]] = []
    compactions: list[dict[str, Any]] = []
    call_names: dict[str, str] = {}
    for index, group in enumerate(merged_replies(chain)):
        if group[0].get("type") == "system":
            continue  # compact_boundary and other harness events; the summary entry after it is the record
        entry = group[0]
        raw = {"role": entry["message"].get("role", entry["type"]),
               "content": [b for e in group for b in blocks_of(e["message"].get("content"))]}
        produced = anthropic_messages(raw, index, call_names)
        if entry.get("isCompactSummary"):
            text = produced[-1]["content"]
            compactions.append(compaction(len(messages), "claude_code", text=text, summary=compact_summary(text)))
            produced = [dict(produced[-1], observation=True)]
        elif entry["type"] == "user" and (entry.get("isMeta") or entry.get("isSynthetic")  # the harness wrote it
                                          or produced[-1]["content"].startswith(COMMAND_MARKUP)):
            produced = [dict(m, observation=True) for m in produced]
        messages += produced
    return Transcript(format="claude-code", messages=messages, compactions=compactions, extra=extra)


def merged_replies(chain: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Chain entries grouped so that the assistant entries of one API reply (one content block each,
    sharing ``message.id``) form one group; other message and system entries are groups of one."""
    groups: list[list[dict[str, Any]]] = []
    for entry in chain:
        if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
            groups.append([entry])
        elif is_message_entry(entry):
            reply_id = entry["message"].get("id") if entry["type"] == "assistant" else None
            previous = groups[-1][-1] if groups else None
            if reply_id and previous is not None and previous.get("type") == "assistant" \
                    and previous["message"].get("id") == reply_id:
                groups[-1].append(entry)
            else:
                groups.append([entry])
    return groups


def blocks_of(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if isinstance(content, str) else []


def compact_summary(text: str) -> str:
    """The model's summary without the harness's opening line and closing request."""
    paragraphs = text.strip().split("\n")
    if paragraphs and paragraphs[0].startswith(COMPACT_OPENING):
        paragraphs = paragraphs[1:]
    if paragraphs and paragraphs[-1].startswith(COMPACT_CLOSING):
        paragraphs = paragraphs[:-1]
    return "\n".join(paragraphs).strip()


CLAUDE_CODE = Format(name="claude-code", container="session", detect=detect_claude_entry, parse=parse_claude_code)


def detect_claude_export(value: Any) -> bool:
    """A session exported as one JSON object: ``{"loglines": [entry, ...]}`` (the entries a session viewer
    or exporter keeps, often without ``uuid`` or ``sessionId``)."""
    lines = value.get("loglines") if isinstance(value, dict) else None
    return isinstance(lines, list) and any(
        isinstance(e, dict) and isinstance(e.get("type"), str) and e["type"] in CLAUDE_ENTRY_TYPES and is_message_entry(e) for e in lines[:50])


def parse_claude_export(value: dict[str, Any]) -> list[Transcript]:
    return parse_claude_code(value["loglines"])


CLAUDE_CODE_EXPORT = Format(name="claude-code", container="json", detect=detect_claude_export,
                            parse=parse_claude_export)
