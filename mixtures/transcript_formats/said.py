"""Chats saved from a web UI or a program's dialogue log whose turns are labelled in words (``speaker-turns``,
its ``said`` layout): ``You said:`` / ``ChatGPT said:`` (a page copied or saved from a chat UI, whose screen-reader labels say who
wrote each message), ``Claude responded:``, ``[0] Claude says:`` / ``[1] Gemini says:`` (two agents talking).

A label is a line that opens with a writer and a verb of speech and a colon, optionally as a heading, in bold or
after a bracketed index; the text after it, to the next label, is the turn. Sides by structure: the person the
page addresses (``You``, ``I``) or a role alias of a person is the person; a model's role alias the model;
any other writer is a name. Where a person writes, every name is the model. Where no person writes (agents
talking), the one that acts is the model (``markers.acting_speaker``), else the one who answers, and the first
turn states the task (context, never trained). What comes before the first label
(a page's title, the UI's chrome) is framing, counted.
"""

from __future__ import annotations

import collections
import itertools
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import flag_text_observations, is_spoken, message
from codemix.mixtures.transcript_formats.markdown import headings
from codemix.mixtures.transcript_formats.markers import acting_speaker
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES

VERBS = "said|says|wrote|writes|responded|responds|replied|replies|asked|asks|answered|answers"
SAID = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+)?(?:\[\d{1,5}\][ \t]*)?(?:\*\*|__)?(?P<who>[^\W\d_][\w.+'-]*(?:[ \t][\w.+'-]+){0,2}?)"
    rf"[ \t]+(?:{VERBS})(?:\*\*|__)?(?:[ \t]*:(?:\*\*|__)?[ \t]*(?P<rest>.*)|[ \t]+(?P<glued>(?-i:[A-Z\"“‘'\d])\S*(?:[ \t].*)?)"
    r"|[ \t]*)$", re.MULTILINE | re.IGNORECASE)
# (without a colon the label is alone on its line: ``You said`` over the message, as some chat pages print it, or glued
# to the message's first line, a capital opening it: ``You said I have an idea...``, a Gemini page copied as text)
ADDRESSED = frozenset({"you", "i", "me"})  # the person a chat page addresses, or who wrote it in the first person
PRONOUNS = frozenset({"he", "she", "they", "it", "we", "someone", "everyone", "nobody", "who", "one"})
# A writer opening with a determiner is a phrase a reply quotes (``Your code currently says:``, ``The human just
# said:``), not a name or a pronoun.
DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "your", "my", "our", "his", "her", "their",
                         "its", "every", "each", "some", "any", "no"})
MIN_TURNS = 2


def side_of(who: str) -> str | None:
    """``user``/``assistant`` for a writer a page's words place, None for a name."""
    key = who.lower()
    if key in ADDRESSED:
        return "user"
    role = ROLE_ALIASES.get(key)
    return role if role in ("user", "assistant") else None


def said_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int], dict[str, str]] | None:
    """The turns of a text of said-labels (see the module docstring), its framing counts and the writers'
    roles, or None when it is no such text."""
    if not isinstance(text, str):
        return None
    labels = [m for m in SAID.finditer(text) if m.group("who").lower() not in PRONOUNS
              and m.group("who").split()[0].lower() not in DETERMINERS]
    if len(labels) < MIN_TURNS or len(text[:labels[0].start()].strip()) * 2 > len(text.strip()):
        return None  # the turns hold the text: labels quoted late in a page of another layout are no turns
    marks = headings(text)
    if {"user", "assistant"} <= {role for *_, role in marks} and marks[0][0] < labels[0].start() and len(marks) > len(labels):
        return None  # turn headings open the text and outnumber the labels: the labels are quoted inside their turns
    writers = collections.Counter(m.group("who") for m in labels)
    if len(labels) > MIN_TURNS and sum(n for n in writers.values() if n >= 2) * 10 < len(labels) * 9:
        return None  # writers who recur hold nine in ten labels (``The scan says:`` once in prose is no writer)
    sides = {w: side_of(w) for w in writers}
    person = any(s == "user" for s in sides.values())
    if not person and len(writers) < 2:
        return None  # no person: two names or more that take turns (agents)
    if person and not any(s != "user" for s in sides.values()):
        return None
    turns = []
    for index, match in enumerate(labels):
        stop = labels[index + 1].start() if index + 1 < len(labels) else len(text)
        rest, after = (match.group("rest") or match.group("glued") or "").strip(), text[match.end():stop].strip()
        # a screen-reader label carries a preview of the message it heads (``Claude responded: <first line>``)
        body = after if rest and after.startswith(rest.rstrip(".…")) else f"{rest}\n{after}".strip()
        turns.append({"speaker": match.group("who"), "content": body})
    if sum(a["speaker"] != b["speaker"] for a, b in itertools.pairwise(turns)) * 10 < (len(turns) - 1) * 7:
        return None  # turns change writer (a quoted ``you said:`` in prose does not)
    spoken = [t for t in turns if t["content"]]
    if len(spoken) < MIN_TURNS or sum(is_spoken(t["content"]) for t in spoken) * 2 < len(spoken):
        return None
    if person:
        roles = {w: s or "assistant" for w, s in sides.items()}
    else:
        actor = acting_speaker(spoken)
        first = spoken[0]["speaker"]
        roles = {w: ("assistant" if w == actor else "user") if actor else ("user" if w == first else "assistant")
                 for w in writers}
    framing = {"before_first_label": sum(1 for line in text[:labels[0].start()].split("\n") if line.strip())}
    return spoken, framing, roles


def detect_said_turns(text: Any) -> bool:
    return said_turns(text) is not None


def parse_said_turns(text: str) -> list[Transcript]:
    turns, framing, roles = said_turns(text) or ([], {}, {})
    messages = [message(roles[t["speaker"]], t["content"], name=t["speaker"]) for t in turns]
    extra: dict[str, Any] = {"layout": "said", "speakers": roles, "framing": framing}
    if messages and not any(side_of(writer) == "user" for writer in roles):
        # agents talking, no person: the opening turn states the task (context, whoever wrote it)
        messages[0] = {**messages[0], "role": "user"}
        extra["task_from"] = "opening"
    elif messages and messages[0]["role"] == "assistant":
        # a page saved in mid-conversation opens with a reply whose request scrolled away: the replies before
        # the person's first message are the context that message answers (never trained)
        first = next((i for i, m in enumerate(messages) if m["role"] == "user"), len(messages))
        messages[:first] = [{**m, "role": "user"} for m in messages[:first]]
        extra["task_from"] = "earlier_reply"
    return [Transcript(format="speaker-turns", extra=extra, messages=flag_text_observations(messages))]


SAID_TURNS = Format(name="speaker-turns", container="text", detect=detect_said_turns, parse=parse_said_turns)


# --- answers a reasoning model's work line opens ---------------------------------------------------------------------

# A short line that says how long the model worked before it answered (ChatGPT's ``Worked for 21s``, ``Thought for 12
# seconds``, DeepSeek's ``已深度思考（用时 32 秒）``): a duration, a few words around it.
DURATION_LINE = re.compile(r"^[ \t]*(?:[^\W\d_]+(?:[ \t]+[^\W\d_]+){0,3}|[^\x00-\x7f]{1,12}[（(][^\W\d_]*)[ \t]*\d+(?:\.\d+)?[ \t]*"
                           r"(?:s|sec|secs|seconds?|m|mins?|minutes?|h|秒|分钟?)[)）]?[ \t]*$", re.MULTILINE)
# (words and a duration alone: no label's colon, no list mark or emphasis, ``**Duration:** 189.37 seconds``,
# ``*55 minutes ago*``, ``- every **30 minutes**``: a page's facts, not a work line)
MIN_WORKED = 2


def worked_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """A chat copied from a page whose answers each open with the model's work line (issue 45, round 18 FIT: a shared
    ChatGPT conversation copied as text, ``Worked for 21s`` over each answer, the page's ``Sources`` line after it): the
    work line, of one shape (digits aside) twice or more, opens the model's answer; the answer runs to the line of one
    shape that closes every answer but the last (the page's furniture: ``Sources``), and what follows it to the next work
    line is the person's message. Before the first work line: the page's own lines (short, none asking) are framing, and
    the first answer then has no request (a shared copy leaves the first prompt out); else that text is the first
    message. None when no such closing line divides every answer from the next message."""
    if not isinstance(text, str) or not DURATION_LINE.search(text):
        return None
    lines = text.split("\n")
    marks = [i for i, line in enumerate(lines) if DURATION_LINE.match(line) and re.search(r"[^\W\d_]", line)]
    shapes = collections.Counter(re.sub(r"\d+(?:\.\d+)?", "#", lines[i].strip()) for i in marks)
    if not shapes or (shape := shapes.most_common(1)[0])[1] < MIN_WORKED:
        return None
    marks = [i for i in marks if re.sub(r"\d+(?:\.\d+)?", "#", lines[i].strip()) == shape[0]]
    gaps = [[line.strip() for line in lines[a + 1:b]] for a, b in itertools.pairwise(marks)]
    closers = [{line for line in gap if line and len(line.split()) <= 3} for gap in gaps]
    common = set.intersection(*closers) if closers else set()
    tail = {line.strip() for line in lines[marks[-1] + 1:]}
    # once in each gap, closing the last answer too, and the latest in the gaps (a reply's own short lines come before)
    candidates = [c for c in common if c in tail and all(sum(line == c for line in gap) == 1 for gap in gaps)]
    if not candidates:
        return None
    closer = max(candidates, key=lambda c: min(max(i for i, line in enumerate(gap) if line == c) for gap in gaps))
    head = [line.strip() for line in lines[:marks[0]] if line.strip()]
    framing = {"work_line": len(marks)}
    turns: list[dict[str, Any]] = []
    if head and (any("?" in line or len(line.split()) > 10 for line in head)):
        turns.append({"speaker": "user", "content": "\n".join(lines[:marks[0]]).strip()})
    else:
        framing["before_first_answer"] = len(head)
    for index, mark in enumerate(marks):
        end = marks[index + 1] if index + 1 < len(marks) else len(lines)
        body = lines[mark + 1:end]
        cut = next((i for i, line in enumerate(body) if line.strip() == closer), None)
        answer, asked = (body[:cut], body[cut + 1:]) if cut is not None else (body, [])
        turns.append({"speaker": "assistant", "content": "\n".join(answer).strip()})
        if cut is not None:
            framing["page_line"] = framing.get("page_line", 0) + 1
        if "\n".join(asked).strip():
            turns.append({"speaker": "user", "content": "\n".join(asked).strip()})
    said = [t for t in turns if t["content"]]
    if sum(is_spoken(t["content"]) for t in said) * 2 < len(said):
        return None
    return said, framing


def parse_worked_turns(text: str) -> list[Transcript]:
    """The turns of ``worked_turns``. Where the copy left out the first prompt (the page opens with its first answer), that
    answer is the context the next message follows up (never trained: the model answered a request no one can see)."""
    turns, framing = worked_turns(text) or ([], {})
    extra = {"layout": "work lines", "framing": framing}
    messages = [message(t["speaker"], t["content"]) for t in turns]
    if messages and messages[0]["role"] == "assistant" and len(messages) > 2:
        messages[0] = {**messages[0], "role": "user"}
        extra["task_from"] = "opening_answer"
    return [Transcript(format="speaker-turns", extra=extra, messages=messages)]


WORKED_TURNS = Format(name="speaker-turns", container="text", detect=lambda text: worked_turns(text) is not None,
                      parse=parse_worked_turns)
