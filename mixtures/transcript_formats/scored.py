"""Conversations recognised by score (``scored``): the fallback when no named format and no ``shape`` rule
reads a value.

Every list (and every object of speaker-named columns, every matrix of utterances) in the value is a
candidate sequence; for each, the fields of its elements are mapped by their statistics, not their names:
the *speaker* field holds short one-line labels that repeat and change between elements, the *text* field
the longest strings. Names are one signal among others (a speaker key that says so, labels that are role
aliases). Each candidate is scored by the text it maps (at least two turns, two speakers, a fair share of
its elements) and the best one is the run; the turns then become messages as any turn list does
(``turns.turn_messages``: role aliases, a name that calls tools is the model, else by position).
docs/transcript-formats.md (``shape``, "Scored candidates") says what is read.
"""

from __future__ import annotations

import collections
import itertools
import json
import re
from typing import Any, NamedTuple

from codemix.mixtures.transcript_formats.base import Transcript
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, is_spoken, text_length
from codemix.mixtures.transcript_formats.turns import (
    CALL_ARGUMENT_KEYS,
    CONTENT_KEYS,
    ROLE_ALIASES,
    ROLE_KEYS,
    SPEAKER_KEY_WORDS,
    call_name,
    indexed_items,
    is_tool_event,
    key_words,
    speaker_of,
    turn_text,
)

# A walk visits at most this many nodes; a string is decoded as JSON up to this size.
MAX_NODES = 100_000
MAX_EMBEDDED = 5_000_000
# A speaker label: short and on one line. A text: at least this long on average.
MAX_LABEL = 60
MIN_MEAN_TEXT = 15
# A candidate's turns must be at least this share of its elements (a log keeps other events beside them).
MIN_TURN_SHARE = 0.25


class Candidate(NamedTuple):
    """One sequence read as turns: where it sits, the turns (``speaker``/``content``), the elements left out,
    and the record (the object holding it) with its ancestors."""

    path: str
    turns: list[dict]
    left_out: int
    record: dict | None
    ancestors: tuple

    @property
    def mass(self) -> int:
        return sum(len(turn_text(t.get("content"))) for t in self.turns)


# --- embedded JSON --------------------------------------------------------------------------------


def holds_records(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds, at any depth, a list of objects (the only JSON worth decoding from a string:
    messages, a completion's ``choices``; a list of strings is not)."""
    if depth > 20:
        return False
    if isinstance(value, list):
        return any(isinstance(v, dict) for v in value) or any(holds_records(v, depth + 1) for v in value)
    return isinstance(value, dict) and any(holds_records(v, depth + 1) for v in value.values())


def decode_embedded(value: Any) -> Any:
    """``value`` with every string that is itself a JSON object or array holding a list of objects (an HTTP
    body kept as text, a prompt written as JSON) replaced by its value; the same object when none was."""
    changed = False

    def walk(node: Any, depth: int) -> Any:
        nonlocal changed
        if depth > 40:
            return node
        if isinstance(node, str):
            text = node.strip()
            if 2 <= len(text) <= MAX_EMBEDDED and text[0] + text[-1] in ("{}", "[]"):
                try:
                    parsed = json.loads(text)
                except ValueError:
                    return node
                if not holds_records(parsed):
                    return node
                changed = True
                return walk(parsed, depth + 1)
            return node
        if isinstance(node, dict):
            return {k: walk(v, depth + 1) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, depth + 1) for v in node]
        return node

    out = walk(value, 0)
    return out if changed else value


# --- HTTP recordings ------------------------------------------------------------------------------


BODY_KEYS = ("parsed_body", "body", "json", "string")


def http_body(side: Any) -> Any:
    """What one side of a recorded HTTP exchange carried: its body (``parsed_body``, ``body``, ``{string:
    ...}``), a server-sent event stream assembled into the message it streams."""
    for _ in range(3):
        if isinstance(side, dict) and (key := next((k for k in BODY_KEYS if k in side), None)) is not None:
            side = side[key]
    return sse_message(side) if isinstance(side, str) and side.lstrip().startswith(("data:", "event:")) else side


def sse_message(stream: str) -> dict | None:
    """A streamed reply as one message: the text deltas of its ``data:`` events in order (OpenAI's
    ``choices[0].delta.content``, Anthropic's ``delta.text``); None when it streams no text."""
    parts = []
    for line in stream.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            event = json.loads(line[5:])
        except ValueError:
            continue
        choice = (event.get("choices") or [{}])[0] if isinstance(event, dict) else {}
        delta = choice.get("delta") if isinstance(choice, dict) else None
        text = (delta or {}).get("content") if isinstance(delta, dict) else None
        text = text if isinstance(text, str) else ((event.get("delta") or {}).get("text") if isinstance(event, dict)
                                                  and isinstance(event.get("delta"), dict) else None)
        if isinstance(text, str):
            parts.append(text)
    return {"role": "assistant", "content": "".join(parts)} if "".join(parts).strip() else None


def is_http_recording(value: Any) -> bool:
    """A list of recorded HTTP exchanges (``{request: {...}, response: {...}}``), or an object holding one
    under ``interactions``."""
    exchanges = value.get("interactions") if isinstance(value, dict) else value
    return isinstance(exchanges, list) and bool(exchanges) and all(
        isinstance(e, dict) and isinstance(e.get("request"), dict) and isinstance(e.get("response"), dict)
        for e in exchanges[:50])


def sent_messages(sent: Any, answered: dict[str, dict]) -> list:
    """The turns one recorded request sent: its ``messages`` (a ``system`` beside them first), or a Responses
    API request's ``input`` items (``instructions`` first). A request that names the stored response it
    continues (``previous_response_id``) sends only what is new: that call's turns and the items its response
    returned come first."""
    if not isinstance(sent, dict):
        return []
    if isinstance(sent.get("messages"), list) and sent["messages"]:
        system = [{"role": "system", "content": sent["system"]}] if isinstance(sent.get("system"), str) else []
        return system + list(sent["messages"])
    items = sent.get("input")
    items = [{"role": "user", "content": items}] if isinstance(items, str) and items.strip() else items
    if not (isinstance(items, list) and items and all(isinstance(i, dict) for i in items)):
        return []
    earlier = answered.get(sent.get("previous_response_id") or "")
    if earlier is not None:
        returned = earlier["response"].get("output") if isinstance(earlier["response"], dict) else None
        return earlier["messages"] + (returned if isinstance(returned, list) else []) + items
    system = [{"role": "system", "content": sent["instructions"]}] if isinstance(sent.get("instructions"), str) else []
    return system + items


def http_calls(value: Any) -> list[list[dict]]:
    """The model calls a recording of HTTP exchanges holds (``interactions: [{request, response}]``, as VCR
    cassettes keep them), as runs: a call whose messages begin with all of an earlier call's messages (and add
    more), or that names the stored response it continues, continues that run, and a run is its last call
    (``{messages, response}``, whose messages are the whole history); none when the value records no such
    exchange."""
    if not is_http_recording(value):
        return []
    exchanges = decode_embedded(value.get("interactions") if isinstance(value, dict) else value)
    runs: list[dict] = []
    answered: dict[str, dict] = {}  # a stored response's id -> the call that returned it
    for exchange in exchanges:
        sent, got = http_body(exchange["request"]), http_body(exchange["response"])
        messages = sent_messages(sent, answered)
        if not (messages and got):
            continue
        call = {"messages": messages, "response": got}
        if isinstance(got, dict) and isinstance(got.get("id"), str):
            answered[got["id"]] = call
        before = next((i for i, run in enumerate(runs) if len(run["messages"]) < len(messages)
                       and messages[:len(run["messages"])] == run["messages"]), None)
        if before is None:
            runs.append(call)
        else:
            runs[before] = call
    return [[run] for run in runs]


# --- fields by their statistics ------------------------------------------------------------------


def is_label(value: Any) -> bool:
    return (isinstance(value, str) and 0 < len(value.strip()) <= MAX_LABEL and "\n" not in value.strip()) or (
        isinstance(value, int) and not isinstance(value, bool))


def speaker_prior(key: str) -> bool:
    """Whether a key's name says it holds speakers (``player_id``, ``agentName``, ``from``); an event's
    ``type`` or ``kind`` does not."""
    words = key_words(re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key))
    if str(key).lower() in ("type", "kind", "event"):
        return False
    return str(key).lower() in ROLE_KEYS or any(word.startswith(w) for word in words for w in SPEAKER_KEY_WORDS)


def repeats(labels: list[str]) -> bool:
    """Few distinct labels (names at most a third as many as the elements), at least two of them repeating,
    changing at least every third element."""
    counts = {label: labels.count(label) for label in set(labels)}
    if len(counts) < 2 or sum(n >= 2 for n in counts.values()) < min(2, len(labels) - len(counts) + 1):
        return False
    if len(labels) >= 4 and len(counts) * 2 > len(labels):
        return False
    if len(labels) >= 6 and len(counts) * 3 > len(labels) and any(label.lower() not in ROLE_ALIASES for label in counts) \
            and not nested(list(counts)):
        return False  # named speakers speak three times each on average (a table's authors do not)
    changes = sum(a != b for a, b in itertools.pairwise(labels))
    return changes * 3 >= len(labels) - 1


def nested(names: list[str]) -> bool:
    """Whether the names are a hierarchy of agents (``Initiator/Manager/Coder``): most of them extend another
    name by a path separator, as a multi-agent framework names its sub-agents (a table's authors do not)."""
    extending = sum(any(name.startswith(other + sep) for other in names for sep in "/.>:") for name in names)
    return len(names) >= 3 and extending * 2 >= len(names)


def prose(value: Any) -> str:
    """The text a field holds when it is prose (``canonical.is_spoken``: a string or content blocks with a
    space in it, or enough letters of a script written without spaces), else ''."""
    text = turn_text(value) if isinstance(value, (str, list)) else ""
    return text if is_spoken(text) else ""


def text_field(items: list[dict], keys: list[str]) -> str | None:
    """The key holding the turns' text: prose in at least a quarter of the elements, the longest on average
    (at least ``MIN_MEAN_TEXT`` characters; a content key's name breaks ties); a key whose texts mostly
    repeat one another (a table's situation column beside its utterances) only when no other key qualifies."""
    qualified = []
    for key in keys:
        present = [t for item in items if (t := prose(item.get(key)))]
        if len(present) < MIN_TURN_SHARE * len(items) or len(present) < 2:
            continue
        mean = sum(text_length(t) for t in present) / len(present) + (5 if key in CONTENT_KEYS else 0)
        if mean > MIN_MEAN_TEXT:
            qualified.append((len(present) >= 3 and len(set(present)) * 2 < len(present), -mean, key))
    return min(qualified)[2] if qualified else None


def speaker_fields(items: list[dict], text: str) -> list[str]:
    """The keys naming who wrote each text, most used first: labels that are role aliases, or under keys
    whose names say speaker (an event log may name its speaker differently per kind of event:
    ``player_id`` for public messages, ``speaker_id`` for private ones)."""
    keys = [k for k in shared_keys(items, 0) if k != text]
    found = []
    for key in keys:
        labels = [str(item[key]).strip() for item in items if is_label(item.get(key))]
        if len(labels) < 2:
            continue
        if sum(label.lower() in ROLE_ALIASES for label in labels) * 2 >= len(labels) or speaker_prior(key):
            found.append((len(labels), key))
    return [key for _, key in sorted(found, key=lambda pair: -pair[0])]


def exclusive(items: list[dict], keys: list[str]) -> list[str]:
    """Of ``keys`` (most used first), those never present together in one element: one speaker field
    named differently per kind of event."""
    chosen: list[str] = []
    for key in keys:
        if not any(key in item and any(k in item for k in chosen) for item in items):
            chosen.append(key)
    return chosen if len(chosen) >= 2 else []


def shared_keys(items: list[dict], share: float = 0.25) -> list[str]:
    """Keys present in at least ``share`` of the elements, in first-seen order."""
    seen: dict[str, int] = {}
    for item in items:
        for key in item:
            seen[key] = seen.get(key, 0) + 1
    return [k for k, n in seen.items() if n >= share * len(items) and isinstance(k, str)]


def flat(item: dict) -> dict:
    """An element with the fields of the objects it holds beside its own (``metadata.agent``): a speaker or
    a text may sit one object down."""
    inner = {f"{k}.{sub}": v for k, value in item.items() if isinstance(value, dict) and isinstance(k, str)
             for sub, v in value.items() if isinstance(sub, str) and not isinstance(v, (dict, list))}
    return {**item, **inner} if inner else item


def mapped_turns(items: list) -> tuple[list[dict], int] | None:
    """A list of objects as turns, by their fields' statistics (the text field first, then who wrote the
    elements holding it; fields one object down count too): ``(turns, elements left out)`` or None."""
    if len(items) < 2 or not all(isinstance(item, dict) for item in items[:500]):
        return None
    items = [flat(item) if isinstance(item, dict) else item for item in items]
    sample = items[:500]
    text = text_field(sample, shared_keys(sample))
    if text is None:
        return None
    speaking = [item for item in items if isinstance(item, dict) and prose(item.get(text))]
    speakers = speaker_fields(speaking[:500], text)
    options = []
    for chosen in [[k] for k in speakers] + [exclusive(speaking, speakers)]:
        labelled = [(next((str(item[k]).strip() for k in chosen if is_label(item.get(k))), None), item)
                    for item in speaking]
        labels = [label for label, _ in labelled if label is not None]
        if chosen and len(labels) * 2 >= len(speaking) and repeats(labels):
            options.append((len(labels), chosen, labelled))
    if not options:
        return None
    _, speakers, labelled = max(options, key=lambda option: option[0])
    turns = [{**{k: v for k, v in item.items() if k not in (*ROLE_KEYS, *CONTENT_KEYS, *speakers, text) and "." not in k},
              "speaker": label, "content": item[text]} for label, item in labelled if label is not None]
    if usable(turns, len(items)) is None:
        return None
    turns = with_events(items, labelled, turns, speakers)
    # a text passed on as it was said (a manager broadcasting a sub-agent's reply) is said once
    said = [t for i, t in enumerate(turns) if i == 0 or turn_text(t["content"]) != turn_text(turns[i - 1]["content"])]
    return said, len(items) - len(said)


# Words of an event's own key saying it is the model's call (its code, its command) or a tool's output.
EVENT_CALL_WORDS = frozenset({"code", "command", "commands", "call", "calls", "action", "actions"})
EVENT_RESULT_WORDS = frozenset({"result", "results", "observation", "observations", "output", "outputs"})


def event_text(value: Any) -> str:
    """An event field's text: a string, an object's text/code/output string, or those of a list joined."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return next((v.strip() for k, v in value.items() if key_words(k) & (TEXT_WORDS | {"code", "output", "stdout"})
                     and isinstance(v, str) and v.strip()), "")
    if isinstance(value, list):
        return "\n\n".join(t for x in value if (t := event_text(x)))
    return ""


def event_turn(item: dict, label: str | None, speakers: list[str]) -> dict | None:
    """An element with no text that is the model's call or a tool's output by its own keys' words
    (``{kind: execute_code, code: [{code, language}]}``, ``{result: {exit_code, output}}``), else None."""
    for key, value in item.items():
        if not isinstance(key, str) or "." in key or key in speakers or key in ROLE_KEYS:
            continue
        words, body = key_words(key), event_text(value)
        if not re.search(r"\s", body):
            continue  # a bare name (``query``) is an event's label, not what the model ran or a tool printed
        if words & EVENT_CALL_WORDS:
            return {"speaker": label or "assistant", "content": body}
        if words & EVENT_RESULT_WORDS:
            return {"speaker": "tool", "content": body}
    return None


def with_events(items: list, labelled: list[tuple[str | None, dict]], turns: list[dict], speakers: list[str]) -> list[dict]:
    """The turns with the calls and tool outputs logged as events between them (a tape's code runs) in
    their place: only between the first and the last turn."""
    spoken = {id(item): turn for (label, item), turn in zip([p for p in labelled if p[0] is not None], turns)}
    order = [i for i, item in enumerate(items) if id(item) in spoken]
    if not order:
        return turns
    out = []
    for item in items[order[0]:order[-1] + 1]:
        if id(item) in spoken:
            out.append(spoken[id(item)])
        elif isinstance(item, dict) and (event := event_turn(item, next(
                (str(item[k]).strip() for k in speakers if is_label(item.get(k))), None), speakers)) is not None:
            out.append(event)
    return out


def is_turn_object(value: Any) -> bool:
    """An object that is one turn: a role alias under ``role`` and text in its content (blocks or parts)."""
    return (isinstance(value, dict) and isinstance(value.get("role"), str) and value["role"].lower() in ROLE_ALIASES
            and bool(turn_text(next((value[k] for k in CONTENT_KEYS if k in value), None)).strip()))


def field_turns(items: list) -> tuple[list[dict], int] | None:
    """Exchanges whose fields are whole turns (``[{user_content: {role: user, parts}, final_response: {role:
    model, parts}}]``, as ADK's eval sets keep invocations): each such field a turn, in the fields' order,
    and the tool calls the exchange logs (``logged_calls``) a model turn before its last turn."""
    if not items or not all(isinstance(item, dict) for item in items[:500]):
        return None
    if not all(sum(is_turn_object(v) for v in item.values()) >= 2 for item in items[:500]):
        return None
    turns: list[dict] = []
    for item in items:
        said = [{**v, "speaker": v["role"], "content": next(v[k] for k in CONTENT_KEYS if k in v)}
                for v in item.values() if is_turn_object(v)]
        calls = logged_calls(item)
        # the calls the exchange logs (``intermediate_data.tool_uses``) were made before its last turn
        turns += said[:-1] + ([{"speaker": said[-1]["speaker"], "content": "", "tool_calls": calls}] if calls else [])
        turns += said[-1:]
    spoken = [t for t in turns if turn_text(t["content"]).strip()]  # the call turns carry no text
    return (turns, 0) if usable(spoken, len(spoken)) else None


def logged_calls(item: dict) -> list[dict]:
    """The tool calls an exchange logs beside its turns, in a list of ``{name, args}`` events at most one
    object down."""
    lists = [v for v in item.values() if isinstance(v, list)]
    lists += [w for v in item.values() if isinstance(v, dict) for w in v.values() if isinstance(w, list)]
    events = next((events for events in lists if events and all(is_tool_event(e) for e in events)), [])
    return [{"id": e.get("id"), "name": call_name(e), "arguments": next((e[k] for k in CALL_ARGUMENT_KEYS if k in e), {})}
            for e in events]


def exchange_turns(items: list) -> tuple[list[dict], int] | None:
    """Exchanges whose fields are named by their speakers (``[{round, agent_a: text, agent_b: text}]``): in
    each, one turn per speaker-named field with text, in the fields' order."""
    if len(items) < 1 or not all(isinstance(item, dict) for item in items[:500]):
        return None
    keys = [k for k in shared_keys(items[:500]) if (speaker_prior(k) or k.lower() in ROLE_ALIASES)
            and sum(isinstance(i.get(k), str) and len(i[k]) >= MIN_MEAN_TEXT for i in items) * 2 >= len(items)]
    if len(keys) < 2:
        return None
    turns = [{"speaker": k, "content": item[k]} for item in items for k in keys
             if isinstance(item.get(k), str) and item[k].strip()]
    return usable(turns, len(items) * len(keys))


IN_WORDS = frozenset({"input", "inputs", "prompt", "request", "query", "question", "instruction", "ask"})
OUT_WORDS = frozenset({"output", "outputs", "response", "answer", "completion", "reply", "generation"})
TEXT_WORDS = frozenset({"text", "content", "message", "utterance"})


def side_text(value: Any) -> str:
    """The text of one side of an exchange: a string, or an object's text under a key that says what it is
    (``question``, ``user_input``, ``answer``, ``text``), never its names and ids."""
    if isinstance(value, dict):
        return next((t for k, v in value.items() if key_words(k) & (IN_WORDS | OUT_WORDS | TEXT_WORDS)
                     and isinstance(v, str) and (t := v.strip())), "")
    return turn_text(value).strip() if isinstance(value, (str, list)) else ""


def direction_turns(items: list) -> tuple[list[dict], int] | None:
    """Exchanges kept as what went in and what came out (``[{inputs: {question}, outputs: {answer}}]``,
    ``{instruction, output}``): one key whose words say input, one whose words say output, in every element;
    each exchange a user turn then a model turn."""
    if not items or not all(isinstance(item, dict) for item in items[:500]):
        return None
    def side(item: dict, words: frozenset) -> list[str]:
        return [k for k in item if isinstance(k, str) and key_words(k) & words and not key_words(k) & {"id", "type"}]
    pairs = [(side(item, IN_WORDS), side(item, OUT_WORDS)) for item in items]
    if not all(len(i) == 1 and len(o) == 1 for i, o in pairs):
        return None
    turns = []
    for item, (i, o) in zip(items, pairs):
        asked, said = side_text(item[i[0]]), side_text(item[o[0]])
        if asked and said:
            turns += [{"speaker": "user", "content": asked}, {"speaker": "assistant", "content": said}]
    for side_turns in (turns[0::2], turns[1::2]):  # each side speaks: most of its texts are prose
        if sum(bool(prose(t["content"])) for t in side_turns) * 2 < len(side_turns):
            return None
    return usable(turns, 2 * len(items))


# Words of a keyed turn's field that say which part of a turn it holds (``Inner Thoughts``, ``Commands``,
# ``Tool Responses``), and the words that make a field one side of an exchange (``user utterance``).
THOUGHT_WORDS = frozenset({"thought", "thoughts", "thinking", "reasoning", "reflection", "plan", "rationale"})
CALL_WORDS = frozenset({"command", "commands", "action", "actions", "call", "calls", "code"})
TOOL_WORDS = frozenset({"tool", "tools", "observation", "observations", "result", "results", "execution",
                        "feedback", "env", "environment"})
SIDE_WORDS = TEXT_WORDS | OUT_WORDS | IN_WORDS | {"turn", "said", "says", "speech", "line", "side"}


# Speakers' names as dialogue corpora abbreviate them (``usr``/``sys``, MultiWOZ-style).
ABBREVIATED = {"usr": "user", "sys": "system"}


# A field that says nothing: its own label, markup and a null word (``<|Commands|>: None<eoc>``).
NULL_TEXT = re.compile(r"^\s*(?:<[^<>\n]{1,40}>:?\s*|\w[\w ]{0,30}:)*\s*(?:none|null|n/?a|nil|-)?\s*(?:<[^<>\n]{1,40}>\s*)*$",
                       re.IGNORECASE)


def field_text(value: Any) -> str:
    """The text of one keyed field: a string, or an object's text (``{"transcript": ...}``, ``{"text": ...}``);
    '' for a field that says nothing (only its label, markup and ``None``)."""
    if isinstance(value, dict):
        value = next((v for k, v in value.items() if key_words(k) & (TEXT_WORDS | {"transcript", "sent", "sentence"})
                      and isinstance(v, str) and v.strip()), "")
    return value if isinstance(value, str) and not NULL_TEXT.match(value) else ""


# A value that is an identifier (``81_0``, ``42``, a uuid, ``turn-3``): one token with a digit, never an utterance.
ID_TEXT = re.compile(r"^(?=[^\s]*\d)[\w.:/#-]{1,64}$")


def id_field(sample: list[dict], key: str) -> bool:
    """Whether a field holds identifiers or stamps in every element that has it (an exchange's ``id``, its
    ``timestamp`` ``2026-04-07 15:01:20``: no word in it): no speaker, no turn."""
    values = [i[key].strip() for i in sample if isinstance(i.get(key), str)]
    return bool(values) and all(ID_TEXT.match(v) or not any(c.isalpha() for c in DATE_TIME.sub("", v)) for v in values)


# An ISO date-time's letters (``T`` between date and time, ``Z`` for UTC): no word.
DATE_TIME = re.compile(r"(?<=\d)[TZ](?=\d|\b)")


def field_role(key: str) -> str | None:
    """What one text field of a keyed turn holds, by its words: ``user``, ``assistant`` (the model's text),
    ``thought`` or ``call`` (parts of the model's turn), ``tool``, ``system``, ``side`` (one side of an
    exchange named by a text word only), or None (a name: a speaker by position)."""
    words = key_words(key)
    if words & TOOL_WORDS:
        return "tool"
    if words & THOUGHT_WORDS:
        return "thought"
    if words & CALL_WORDS:
        return "call"
    if words & OUT_WORDS:
        return "assistant"  # ``system response``: the dialogue system's side of an exchange
    aliases = {ROLE_ALIASES.get(w) or ABBREVIATED[w] for w in words if w in ROLE_ALIASES or w in ABBREVIATED}
    if len(aliases) == 1:
        return aliases.pop()
    if words & IN_WORDS:
        return "user"
    return "side" if words & SIDE_WORDS else None


def history_keys(items: list[dict], keys: list[str]) -> set[str]:
    """Text fields that repeat what the other fields said before (``dialog history``): in most elements
    after the first, the text holds the previous element's text of another field."""
    found = set()
    for key in keys:
        later = [(a, b) for a, b in itertools.pairwise(items) if isinstance(b.get(key), str) and b[key].strip()]
        repeating = sum(any(isinstance(a.get(k), str) and len(a[k].strip()) >= 8 and a[k].strip() in b[key]
                            for k in keys if k != key) for a, b in later)
        if later and repeating * 2 >= len(later):
            found.add(key)
    return found


ASKS = re.compile(r"[?\uff1f\u061f\u037e\u2e2e]")  # a question mark of any script (Latin, full-width, Arabic, Greek)


def asked_and_answered(sample: list[dict], keys: list[str], roles: dict[str, str | None], under: str = ""
                       ) -> dict[str, str] | None:
    """Two prose fields named by neither a role nor a part of a turn (speakers' names, ``咨询者``/``ChatLAW``;
    domain words, ``medical_case``/``doctor_diagnosis``) are an exchange by shape: the field that opens the
    record asks (a question mark in a quarter of the records or more) and the other answers (asks at most a
    third as often), or, where the records are a dialogue's (under a key whose words say so, ``chat``, or
    numbered as rounds, ``轮数``), the other writes the longer text in three of four (a model's replies
    outgrow the person's lines; a record's ``title`` beside its ``body`` is no exchange). The opener is the
    person, the other the model; any other field (a label) is no turn."""
    spoken = [k for k in keys if roles.get(k) in (None, "side")
              and sum(bool(prose(i.get(k))) for i in sample) * 10 >= 9 * len(sample)]
    if len(spoken) != 2 or any(roles.get(k) not in (None, "side") for k in keys if k not in spoken and any(
            prose(i.get(k)) for i in sample)):
        return None
    order = list(sample[0])
    opener, other = sorted(spoken, key=lambda k: order.index(k) if k in order else len(order))
    asks = {k: sum(bool(ASKS.search(i.get(k) or "")) for i in sample) for k in spoken}
    asked = asks[opener] * 4 >= len(sample) and asks[other] * 3 <= asks[opener]
    longer = sum(text_length(i.get(other) or "") > text_length(i.get(opener) or "") for i in sample)
    dialogue = bool(key_words(under) & DIALOGUE_WORDS) or numbers_rounds(sample)
    if not asked and (not dialogue or longer * 4 < len(sample) * 3):
        return None
    return {opener: "user", other: "assistant"}


def verdict_field(sample: list[dict], key: str) -> bool:
    """Whether a field says the same text in most of four or more records (a judge's ``Overall label: Not
    Hallucinating`` beside each answer, a grade): a label of the records, never a turn, which a conversation
    does not say again record after record."""
    texts = [i[key] for i in sample if isinstance(i.get(key), str) and i[key].strip()]
    return len(texts) >= 4 and collections.Counter(texts).most_common(1)[0][1] * 2 > len(texts)


def keyed_turns(items: list, under: str = "") -> tuple[list[dict], int] | None:
    """Turns kept as objects whose text fields are the speakers or the parts of one exchange: ``{"user
    utterance", "system response"}`` per record of a dialogue, ``{Human, Inner Thoughts, Commands, Tool
    Responses, MOSS}`` per round. Each field a turn in the fields' order; the model's thoughts and calls
    one model turn (reasoning and text); a field repeating the others (a dialogue history) left out. A
    conversation only when the fields' names say so: one of them names a person or a role (a role alias
    word), and every other one a role, a part of a turn, a side of an exchange, or a name by position."""
    if not items or not all(isinstance(item, dict) for item in items[:500]):
        return None
    sample = items[:500]
    sample = [{k: text for k, v in item.items() if (text := field_text(v))} for item in sample]
    keys = [k for k in shared_keys(sample, 0.5) if sum(k in i for i in sample) * 2 >= len(sample)
            and not all(i.get(k) == sample[0].get(k) for i in sample[1:] or [{}])]
    keys = [k for k in keys if k not in history_keys(sample, keys) and not id_field(sample, k)]
    roles = {k: field_role(k) for k in keys}
    lowered = {k.strip().lower(): k for k in keys}
    if {"q", "a"} <= set(lowered):  # a question and its answer, abbreviated together (``Q,A,label`` chatbot tables)
        roles.update({lowered["q"]: "user", lowered["a"]: "assistant"})
    if "system" in roles.values() and "assistant" not in roles.values():
        roles = {k: "assistant" if r == "system" else r for k, r in roles.items()}  # the dialogue system answers
    if not any(r in ("user", "assistant") for r in roles.values()) and (
            pair := asked_and_answered(sample, keys, roles, under)):
        keys, roles = list(pair), pair
    if len(keys) < 2 or sum(r in ("user", "assistant") for r in roles.values()) < 1 or (
            sum(r is None for r in roles.values()) > 1) or not any(r == "user" or r is None for r in roles.values()):
        return None
    spoken = [[k for k in keys if prose(i.get(k)) and i[k].strip()[:1] not in "{["] for i in sample]  # ``sample``: texts
    if sum(map(len, spoken)) * 2 < len(sample) * len(keys) or sum(len(s) >= 2 for s in spoken) * 2 < len(sample):
        return None  # names, ids, JSON and single fields are no exchange
    labels = {k for k in keys if roles[k] is None and verdict_field(sample, k)}  # a judge's verdict: no turn
    turns: list[dict] = []
    for item in items:
        for key in [k for k in item if k in roles and k not in labels]:  # each element's own order of its fields
            text = field_text(item.get(key))
            if not text.strip():
                continue
            role = roles[key]
            speaker = key if role in (None, "side") else ("assistant" if role in ("thought", "call") else role)
            last = turns[-1] if turns else None
            if role == "thought" or (last is not None and last.get("part") == "thought" and (
                    role == "call" or speaker == "assistant" or (role is None and speaker != turns[0]["speaker"]))):
                if role == "thought" or last is None:  # thoughts, then the call or the text they lead to
                    turns.append({"speaker": "assistant", "content": "", "reasoning": text, "part": "thought"})
                else:
                    last.update(content=text, part=role, speaker=speaker)
                continue
            turns.append({"speaker": speaker, "content": text, "part": role})
    for turn in turns:
        turn.pop("part", None)
    return usable([t for t in turns if t["content"].strip()], len(items) * len(keys)) and (turns, 0)


def column_turns(node: dict) -> tuple[list[dict], int] | None:
    """An object of speaker-named columns (``{agent_a: [texts], agent_b: [texts]}``), read round by round."""
    columns = {k: v for k, v in node.items() if isinstance(k, str) and (speaker_prior(k) or k.lower() in ROLE_ALIASES)
               and isinstance(v, list) and v and all(isinstance(x, str) or x is None for x in v)}
    if len(columns) < 2 or max(map(len, columns.values())) - min(map(len, columns.values())) > 1:
        return None
    turns = [{"speaker": k, "content": col[r]} for r in range(max(map(len, columns.values())))
             for k, col in columns.items() if r < len(col) and isinstance(col[r], str) and col[r].strip()]
    return usable(turns, sum(map(len, columns.values())))


# Keys whose words say the list under them is one conversation's utterances in order.
DIALOGUE_WORDS = frozenset({"dialog", "dialogue", "dialogs", "dialogues", "conversation", "conversations", "turns",
                            "utterances", "log", "chat", "exchanges", "messages"})


def alternating_turns(items: list, key: str) -> tuple[list[dict], int] | None:
    """Utterances with no speaker under a key whose words say dialogue (``log: [{text}, ...]``, ``turns:
    ["...", "..."]``): two speakers taking turns, by position (the first sets the task, the second is the
    model). Strings, or objects with one text field and no speaker field; four or more, mostly prose, and
    questions among them (an event log's or a list of sample sentences' entries ask nothing)."""
    if not key_words(key) & DIALOGUE_WORDS or len(items) < 4:
        return None
    if all(isinstance(item, str) for item in items):
        texts = list(items)
    elif all(isinstance(item, dict) and speaker_of(item) is None for item in items):
        strings = [k for k in shared_keys(items[:500], 0.9) if all(isinstance(i.get(k), str) for i in items[:500])]
        text = text_field(items[:500], strings)
        texts = [item.get(text) if isinstance(item.get(text), str) else "" for item in items] if text else []
    else:
        return None
    if not texts or sum(bool(prose(t)) for t in texts) * 4 < len(texts) * 3:
        return None
    if sum("?" in t or "？" in t for t in texts) * 8 < len(texts):
        return None  # no one asks anything: an event log, a list of sample sentences, not two people talking
    turns = [{"speaker": ("user", "assistant")[i % 2], "content": t} for i, t in enumerate(texts)]
    return usable([t for t in turns if t["content"].strip()], len(items))


def table_rows(node: dict) -> list[dict] | None:
    """A table kept by columns (``{conv_id: [...], speaker_idx: [...], utterance: [...]}``, as a dataset's
    ``to_dict()`` writes it) as its rows: three columns or more of one length (at least two rows), their
    cells strings, numbers or nulls."""
    columns = {k: v for k, v in node.items() if isinstance(v, list)}
    lengths = {len(v) for v in columns.values()}
    if len(columns) < 3 or len(columns) < len(node) or len(lengths) != 1 or lengths.pop() < 2:
        return None
    if not all(x is None or isinstance(x, (str, int, float)) for v in columns.values() for x in v):
        return None
    return [dict(zip(columns, row)) for row in zip(*columns.values())]


def matrix_turns(node: list) -> tuple[list[dict], int] | None:
    """A matrix of utterances, one row per speaker and one column per round (``[[a0, a1], [b0, b1]]``, as a
    debate keeps each agent's answers), read round by round; speakers named ``speaker N``."""
    if len(node) < 2 or not all(isinstance(row, list) and row for row in node):
        return None
    if not all(isinstance(x, str) or x is None for row in node for x in row):
        return None
    turns = [{"speaker": f"speaker {a}", "content": row[r]} for r in range(max(map(len, node)))
             for a, row in enumerate(node) if r < len(row) and isinstance(row[r], str) and row[r].strip()]
    return usable(turns, sum(map(len, node)))


def usable(turns: list[dict], elements: int) -> tuple[list[dict], int] | None:
    """Turns worth a candidate: two or more, two speakers or more, enough text, a fair share of the elements."""
    if len(turns) < 2 or len({t["speaker"] for t in turns}) < 2:
        return None
    texts = [turn_text(t["content"]) for t in turns]
    if sum(map(text_length, texts)) / len(texts) < MIN_MEAN_TEXT or len(turns) < MIN_TURN_SHARE * elements:
        return None
    if sum(bool(prose(text)) for text in texts) * 2 < len(texts):  # names, ids and paths are no speech
        return None
    return turns, max(0, elements - len(turns))


# --- candidates and the best one -----------------------------------------------------------------


def sequence_turns(items: list, key: str = "") -> tuple[list[dict], int] | None:
    """A list's turns by the first reading that maps it (fields by statistics, speaker-named exchanges,
    whole-turn fields, input/output pairs, a matrix of utterances), or None. ``key``: the key the list sits
    under (its words may say it is a dialogue)."""
    for read in (mapped_turns, exchange_turns, field_turns, direction_turns, keyed_turns, matrix_turns):
        if (got := (read(items, key) if read is keyed_turns else read(items))) is not None:
            return got
    return None


def candidates(value: Any) -> list[Candidate]:
    """Every sequence in ``value`` that maps to turns (see the module docstring), with where it sits."""
    found: list[Candidate] = []
    stack: list[tuple[Any, str, tuple]] = [(value, "$", ())]
    nodes = 0
    while stack and nodes < MAX_NODES:
        node, path, chain = stack.pop()
        nodes += 1
        record = chain[0] if chain else None
        if isinstance(node, list):
            key = path.rsplit(".", 1)[-1] if path.endswith(tuple("abcdefghijklmnopqrstuvwxyz_")) else ""
            got = sequence_turns(node, key) or alternating_turns(node, key)
            if got is not None:
                found.append(Candidate(path, got[0], got[1], record, chain[1:]))
            children = [(f"{path}[{i}]", child, chain) for i, child in enumerate(node)]
        elif isinstance(node, dict):
            indexed = indexed_items(node) if len(node) >= 2 else None  # {"round_1": {...}, "round_2": {...}}
            indexed = indexed if indexed is not None else table_rows(node)
            got = column_turns(node) or (direction_turns([node]) if path == "$" else None) or (
                sequence_turns(indexed) if indexed is not None else None)
            if got is not None:
                found.append(Candidate(path, got[0], got[1], node, chain))
            children = [(f"{path}.{k}", child, (node, *chain)) for k, child in node.items()]
        else:
            continue
        stack += [(child, p, c) for p, child, c in reversed(children) if isinstance(child, (dict, list))]
    return found


def best_candidates(value: Any) -> list[Candidate]:
    """The run of ``value``: the candidate with the most text; for a list of records of which two or more
    hold a candidate, the best of each record (a dataset, one run per record)."""
    found = candidates(value)
    if not found:
        return []
    if isinstance(value, list) or (isinstance(value, dict) and len(value) >= 2 and all(
            isinstance(v, dict) for v in value.values())):
        per_row: dict[str, Candidate] = {}
        for cand in found:
            row = record_of(cand.path, value)
            if row is not None and (row not in per_row or cand.mass > per_row[row].mass):
                per_row[row] = cand
        whole = max((c for c in found if c.path == "$"), key=lambda c: c.mass, default=None)
        if len(per_row) >= 2 and (whole is None or sum(c.mass for c in per_row.values()) >= whole.mass):
            return list(per_row.values())
    best = max(found, key=lambda c: (c.mass, len(c.turns)))
    if best.path == "$" and isinstance(value, list) and len(value) >= 2 and len(best.turns) == 2 * len(value) and all(
            isinstance(row, dict) and all(isinstance(v, (str, int, float)) or v is None for v in row.values()) for row in value
    ) and all((a["speaker"], b["speaker"]) == ("user", "assistant") for a, b in zip(best.turns[::2], best.turns[1::2])
              ) and not numbers_rounds(value):
        # a table whose every row is a question and its answer (``Q,A,label``): a dataset of exchanges, one run
        # per row (a chat history keeps each exchange's sides in nested objects, ``{inputs, outputs}``)
        return [Candidate(f"$[{i}]", best.turns[2 * i:2 * i + 2], 0, row, ()) for i, row in enumerate(value)]
    return [best]


def numbers_rounds(rows: list[dict]) -> bool:
    """Whether a column numbers the rows as the rounds of one conversation (``轮数``: 1, 2, 3, ...): its cells
    the integers from 0 or 1 up, in order. A column named after another field numbers that field's items
    (``question_number`` beside ``question``: the questions of a data set, each its own run), no rounds."""
    for key in rows[0]:
        if any(other != key and key_words(other) and key_words(other) < key_words(key) for other in rows[0]):
            continue
        cells = [str(row.get(key, "")).strip() for row in rows]
        if all(c.isdigit() for c in cells) and [int(c) for c in cells] in (list(range(len(rows))),
                                                                           list(range(1, len(rows) + 1))):
            return True
    return False


def record_of(path: str, value: Any) -> str | None:
    """The top-level record a candidate's path lies in: ``$[3]`` of a list, ``$.<key>`` of an object of
    records (dialogues keyed by their ids); None for the whole value."""
    if isinstance(value, list):
        head = path.removeprefix("$[").split("]", 1)[0]
        return head if path.startswith("$[") and head.isdigit() else None
    return next((key for key in value if path == f"$.{key}" or path.startswith((f"$.{key}.", f"$.{key}["))), None)


def scored_candidates(value: Any) -> list[Candidate]:
    """The candidates read (``best_candidates``); a TranscriptShapeError naming the best refused one when none."""
    chosen = best_candidates(value)
    if not chosen:
        raise TranscriptShapeError("no sequence maps to turns (no field of repeating speaker labels beside text)")
    return chosen


def transcript_extra(candidate: Candidate) -> dict[str, Any]:
    extra: dict[str, Any] = {"path": candidate.path, "layout": "scored"}
    if candidate.left_out:
        extra["entries_left_out"] = candidate.left_out
    return extra


__all__ = ["Candidate", "Transcript", "decode_embedded", "http_calls", "scored_candidates", "transcript_extra"]
