"""Conversations exported as HTML pages (``html-messages``): each message an element whose attributes say
who wrote it (``<div class='message user'>``, ``<div data-message-author-role="assistant">``,
``<li class="chat-message--tool_result">``), as chat exporters and transcript viewers render them.

A message element is one whose ``class`` tokens or ``data-*role``/``data-*author`` values name exactly one
role (a role alias, a call block ``tool_use``/``tool_call``, a result block ``tool_result``), not inside
another message element. Its text is that of its descendants whose class says content (``content``,
``text``, ``body``, ``markdown``), else all its text, without ``<script>``/``<style>``, without a ``<summary>``
(a collapsed block's caption or preview) and without the parts whose class says header, timestamp,
metadata or preview. A page is a conversation when it holds two message elements
or more, a person's and the model's among them, mostly prose. One pass of the standard library's
``html.parser`` (nothing runs, no network).

A page whose elements name no writer (a chat saved from a web UI labels its turns in words: ``You said:`` in a
screen-reader span, ``<strong>User:</strong>``) is read as its text (``page_text``: block elements as lines,
scripts, styles and the head left out) by the text formats that read labelled turns.
"""

from __future__ import annotations

import html.parser
import itertools
import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import exported_call, flag_text_observations, is_spoken, message
from codemix.mixtures.transcript_formats.markers import MODEL_WORDS
from codemix.mixtures.transcript_formats.turns import CALL_BLOCK_TYPES, RESULT_BLOCK_TYPES, ROLE_ALIASES, key_words

TAG = re.compile(r"<(?:div|li|article|section|p|span|tr|td|pre)\b[^>]*\b(?:class|data-[\w-]*(?:role|author)[\w-]*)\s*=",
                 re.IGNORECASE)
SKIPPED = frozenset({"script", "style", "svg", "noscript", "template"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
CONTENT_WORDS = frozenset({"content", "text", "body", "markdown", "prose"})
META_WORDS = frozenset({"header", "timestamp", "time", "meta", "metadata", "avatar", "toolbar", "footer", "usage", "preview",
                        "token", "tokens", "date", "actions", "copy", "type"})  # (``part-type``: a part's kind named)
MIN_MESSAGES = 2
CONTAINER_WORDS = frozenset({"message", "msg", "turn", "chat", "bubble", "entry", "role", "author", "response"})


def writer_role(word: str) -> str | None:
    """The role a word of a class or ``data-*`` value names: a role alias, or a model's name (``claude``)."""
    if word in ("data", "api"):
        return None
    return ROLE_ALIASES.get(word) or ("assistant" if word in MODEL_WORDS else None)


def attribute_role(attrs: list[tuple[str, str | None]]) -> str | None:
    """The one role an element's attributes name, else None: a ``data-*role``/``data-*author`` value, or the
    ``class`` tokens (``message user``, ``chat-message--assistant``, ``tool_use``)."""
    found = set()
    for name, value in attrs:
        if not value:
            continue
        name = name.lower()
        named = name.startswith("data-") and ("role" in name or "author" in name)
        if named or name.startswith("data-"):  # (``data-testid="user-message"``: only with a container word)
            tokens = [value.strip().lower()]
        elif name == "class":
            tokens = value.lower().split()
        else:
            continue
        for token in tokens:
            if not (named or name == "class"):
                words = key_words(token)
                roles = {writer_role(w) for w in words} - {None}
                found |= roles if len(roles) == 1 and words & CONTAINER_WORDS and len(token) <= 40 else set()
            elif token in CALL_BLOCK_TYPES:
                found.add("assistant")
            elif token in RESULT_BLOCK_TYPES:
                found.add("tool")
            elif token in ROLE_ALIASES:
                found.add(ROLE_ALIASES[token])
            else:
                words = key_words(token)
                roles = {writer_role(w) for w in words} - {None}
                if len(roles) == 1 and words & CONTAINER_WORDS:
                    found |= roles  # ``message-user``, ``chat-bubble--assistant``, ``font-claude-response``
    if not found:  # ``class="author GPT-3"``: a container word in one token, the writer in another
        for name, value in attrs:
            tokens = value.lower().split() if name.lower() == "class" and value else []
            if CONTAINER_WORDS & set(tokens):
                found |= {role for t in tokens for w in key_words(t) if (role := writer_role(w))}
    return found.pop() if len(found) == 1 else None


CALL_WORDS = frozenset({"tool", "call", "use", "function", "invocation", "result", "output", "response"})


def nested_call(attrs: list[tuple[str, str | None]]) -> dict[str, Any] | None:
    """A call or a result an element inside a message stands for, by a ``class`` token naming a call block
    (``tool-call``, ``tool_use``) or a result block (``tool-result``), else None; the call's name is another
    token's word (``tool-bash``: ``bash``)."""
    tokens = next((v.lower().split() for n, v in attrs if n == "class" and v), [])
    kinds = {("call" if t.replace("-", "_") in CALL_BLOCK_TYPES else "result") for t in tokens
             if t.replace("-", "_") in CALL_BLOCK_TYPES | RESULT_BLOCK_TYPES}
    if len(kinds) != 1:
        return None
    names = [w for t in tokens for w in sorted(key_words(t) - CALL_WORDS) if t.replace("-", "_") not in
             CALL_BLOCK_TYPES | RESULT_BLOCK_TYPES]
    return {"kind": kinds.pop(), "name": names[0] if names else ""}


def text_part(found: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "text", "content": found["content"], "all": found["all"]}


def part_text(pieces: list[str]) -> str:
    return re.sub(r"\n{3,}", "\n\n", "".join(pieces).strip())


FLAT_OBJECT = re.compile(r"^[ \t]*\{[^{}]*\}[ \t]*$", re.MULTILINE)  # a JSON object on lines of its own, nothing nested
CAPTION = re.compile(r"[^\w]{0,4}[ \t]*\w[\w -]{0,30}:")  # a short label alone (``🔧 Tool Calls:``)


def says_nothing(body: str) -> bool:
    """A JSON object every field of which is empty (``{"function_call": null, "annotations": []}``: a page showing a
    message's raw fields beside its words)."""
    if not body.startswith("{"):
        return False
    try:
        value = json.loads(body)
    except ValueError:
        return False
    return isinstance(value, dict) and bool(value) and not any(value.values())


def message_turns(found: dict[str, Any], results_apart: bool = False) -> list[dict[str, Any]]:
    """The turns one message element holds: its words, and for each call element inside it (a page that renders a
    model's message with its calls: opencode-replay's ``<div class="tool-call tool-bash">``) the call as the page
    describes it (its header's words: shown, never trained, ``canonical.exported_call``) and its output a result;
    the model's words after a result a turn of their own. Where the page renders results as messages of their own
    (``results_apart``: claude-code-transcripts' ``message tool-reply``), a call element's body is what it was
    given (``whoami``, a JSON input: the model's arguments), never an output."""
    turns: list[dict[str, Any]] = []
    parts = [*found["parts"], text_part(found)]
    # the text of the elements whose class says content, where the message has any; else all its text
    # (a message holding call elements marks its parts: what is outside them and its content elements is the page's)
    key = "content" if found["parts"] or any(part_text(p["content"]) for p in parts if p["kind"] == "text") else "all"
    for index, part in enumerate(parts):
        if part["kind"] == "text":
            body = FLAT_OBJECT.sub(lambda m: "" if says_nothing(m.group()) else m.group(), part_text(part[key])).strip()
            following = parts[index + 1] if index + 1 < len(parts) else None
            if following is not None and following["kind"] == "call" and CAPTION.fullmatch(body):
                continue  # a caption over the calls (``🔧 Tool Calls:``), a dump of empty fields: the page's, no one's
            if body and results_apart and turns and turns[-1]["speaker"] == found["role"] and turns[-1]["calls"]:
                turns[-1]["content"] = "\n\n".join(filter(None, [turns[-1]["content"], body]))  # (no result between)
            elif body:
                turns.append({"speaker": found["role"], "content": body, "calls": []})
            continue
        head, body = " ".join("".join(part["head"]).split()), part_text(part["body"])
        if part["kind"] == "call" and (part["name"] or head):
            if not turns or turns[-1]["speaker"] != found["role"] or (len(turns) > 1 and turns[-2]["speaker"] == "tool"
                                                                      and turns[-1]["calls"]):
                turns.append({"speaker": found["role"], "content": "", "calls": []})
            given = body if results_apart and body else head
            turns[-1]["calls"].append(exported_call(None, part["name"] or head.split()[0], given))
            body = "" if results_apart else body
        if body:
            turns.append({"speaker": "tool", "content": body, "calls": []})
    return turns


class MessageElements(html.parser.HTMLParser):
    """Collects the message elements of a page: ``(role, content text, all text)`` in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None, bool, bool]] = []  # (tag, role, content part, meta part)
        self.messages: list[dict[str, Any]] = []
        self.open: dict[str, Any] | None = None
        self.depth_open = -1
        self.skipping = 0
        self.call: dict[str, Any] | None = None  # a call element inside the open message (``nested_call``)
        self.depth_call = -1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        if tag in SKIPPED:
            self.skipping += 1
        role = attribute_role(attrs) if self.open is None or self.open.get("around") else None
        if role is not None and self.open is not None:  # the next message inside the element an empty one marked
            self.messages.append(self.open)
            self.open, self.depth_open = None, -1
        words = set().union(*(key_words(v) for n, v in attrs if n == "class" and v)) if attrs else set()
        nested = nested_call(attrs) if self.open is not None and self.call is None and role is None else None
        # a ``<summary>`` captions or previews the ``<details>`` block that holds the text whole
        self.stack.append((tag, role, bool(words & CONTENT_WORDS), bool(words & META_WORDS) or tag == "summary"))
        if role is not None:
            self.open = {"role": role, "content": [], "all": [], "parts": []}
            self.depth_open = len(self.stack) - 1
        if nested is not None:  # the words so far are a part of their own; the call's follow it
            self.open["parts"].append(text_part(self.open))
            self.open["content"], self.open["all"] = [], []
            self.call, self.depth_call = {**nested, "head": [], "body": []}, len(self.stack) - 1
        if tag in ("br", "p", "div", "li", "pre", "tr") and self.open is not None:
            self.open["all"].append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if tag in SKIPPED and self.skipping:
            self.skipping -= 1
        index = next((i for i in range(len(self.stack) - 1, -1, -1) if self.stack[i][0] == tag), None)
        if index is None:
            return
        del self.stack[index:]
        if self.call is not None and index <= self.depth_call:
            self.open["parts"].append(self.call)
            self.call, self.depth_call = None, -1
        if self.open is not None and index <= self.depth_open:
            if index == self.depth_open and index > 0 and not "".join(self.open["all"]).strip():
                # an empty element naming the writer (an avatar, ``<div class="author user"><img/></div>``)
                # marks the element around it as the message: its text follows the avatar
                self.depth_open = index - 1
                self.open["around"] = True
                return
            self.messages.append(self.open)
            self.open, self.depth_open = None, -1

    def handle_data(self, data: str) -> None:
        if self.open is None or self.skipping:
            return
        inside = self.stack[self.depth_open + 1:]
        if self.call is not None:  # a call's header (its name and what it was given) and its output
            header = any(meta for _, _, _, meta in self.stack[self.depth_call + 1:])
            self.call["head" if header else "body"].append(data)
            return
        if any(meta for _, _, _, meta in inside):
            return
        self.open["all"].append(data)
        if any(content for _, _, content, _ in inside):
            self.open["content"].append(data)


def fed(parser, text: str):
    """``parser`` after reading the whole of ``text``, or None where the page is too broken for it to read."""
    try:
        parser.feed(text)
        parser.close()
    except (AssertionError, ValueError):
        return None
    return parser


def page_messages(text: str) -> list[dict[str, str]] | None:
    """The turns of an HTML page of message elements (see the module docstring), or None."""
    if len(TAG.findall(text[:2_000_000])) < MIN_MESSAGES:
        return None
    parser = fed(MessageElements(), text)
    if parser is None:
        return None
    results_apart = any(found["role"] == "tool" for found in parser.messages)
    turns = [turn for found in parser.messages for turn in message_turns(found, results_apart)]
    if len(turns) < MIN_MESSAGES or not {"user", "assistant"} <= {t["speaker"] for t in turns}:
        return None
    if sum(is_spoken(t["content"]) for t in turns if t["content"]) * 2 < sum(1 for t in turns if t["content"]):
        return None  # names and labels, not messages
    return turns


def detect_html_messages(text: Any) -> bool:
    return isinstance(text, str) and "<" in text[:5000] and page_messages(text) is not None


def parse_html_messages(text: str) -> list[Transcript]:
    turns = page_messages(text) or []
    return [Transcript(format="html-messages", extra={"layout": "html"}, messages=flag_text_observations(
        [message(t["speaker"], t["content"], tool_calls=t.get("calls"), observation=t["speaker"] == "tool")
         for t in turns]))]


HTML_MESSAGES = Format(name="html-messages", container="text", detect=detect_html_messages, parse=parse_html_messages)



BLOCK = frozenset({"p", "div", "li", "ul", "ol", "br", "h1", "h2", "h3", "h4", "h5", "h6", "article", "section",
                   "tr", "pre", "blockquote", "header", "footer", "main", "nav", "aside", "table", "hr", "details",
                   "summary", "figure", "dd", "dt", "dl", "form", "button"})
HIDDEN = SKIPPED | {"head", "title", "button", "nav", "footer"}  # what a reader of the page never sees as its text
HTML_PAGE = re.compile(r"<(?:html|body|article|main|div)\b", re.IGNORECASE)


HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
FOLDED = frozenset({"details", "summary"})
LABEL_CLASS_WORDS = frozenset({"speaker", "author", "sender", "role", "from", "username"})


class PageText(html.parser.HTMLParser):
    """A page's visible text, each block element on its own lines (``<pre>`` kept as written). An element whose
    class says it names the writer (``<div class="speaker">You</div>``) and holds a short name is written as a
    label (``You:``), as the text formats read a writer."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0
        self.pre = 0
        self.labels: list[tuple[str, int]] = []  # (tag, where its text starts in ``parts``) of writer elements

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN and tag not in VOID:
            self.hidden += 1
        self.pre += tag == "pre"
        if tag == "pre" and self.pre == 1 and not self.hidden:
            self.parts.append("\n````pre\n")  # preformatted text is shown as written: its lines open no turn
        if tag in BLOCK:
            self.parts.append("\n")
        if tag in HEADING_TAGS and not self.pre:  # a rendered export's ``<h2>👤 User</h2>``: the heading it was
            self.parts.append("#" * int(tag[1]) + " ")
        if tag in FOLDED and not self.pre:  # a folded tool call or output stays folded (the Markdown readers' own)
            self.parts.append(f"\n<{tag}>")
        words = set().union(*(key_words(v) for n, v in attrs if n == "class" and v)) if attrs else set()
        if words & LABEL_CLASS_WORDS and tag not in VOID:
            self.labels.append((tag, len(self.parts)))

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1
        if tag == "pre" and self.pre:
            self.pre -= 1
            if not self.pre and not self.hidden:
                self.parts.append("\n````\n")
        if self.labels and self.labels[-1][0] == tag:
            name = "".join(self.parts[self.labels.pop()[1]:]).strip()
            if name and len(name) <= 40 and len(name.split()) <= 4 and not name.endswith(":"):
                self.parts.append(":")
        if tag in FOLDED and not self.pre:
            self.parts.append(f"</{tag}>\n")
        if tag in BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data if self.pre else re.sub(r"[ \t\r\n]+", " ", data))


MARKDOWN_LINE = re.compile(r"^(?:#{1,6}[ \t]+\S|\*\*\w|```)", re.MULTILINE)


def page_text(text: str) -> str | None:
    """The visible text of an HTML page (see ``PageText``), blank lines collapsed; None for no HTML page: markup
    from its first character, with no Markdown lines (a Markdown log holding HTML blocks is read as Markdown)."""
    # a whole page (``<!DOCTYPE html>``, ``<html>``) is one though its ``<pre>`` shows Markdown
    page = isinstance(text, str) and text.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))
    if (not isinstance(text, str) or not text.lstrip().startswith("<") or (MARKDOWN_LINE.search(text) and not page)
            or len(HTML_PAGE.findall(text[:2_000_000])) < MIN_MESSAGES):
        return None
    parser = fed(PageText(), text)
    if parser is None:
        return None
    lines = [line.strip() for line in "".join(parser.parts).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() or None


# --- two kinds of one element taking turns ------------------------------------------------------------------------

MIN_ALTERNATING = 4
# Class words of rows told apart for the eye only (a table's zebra stripes), never a writer.
STRIPE_WORDS = frozenset({"odd", "even", "alt", "stripe", "striped", "zebra"})
MIN_MESSAGE_SHARE = 0.5  # the turns hold half the page's visible text or more (not a sidebar's list)
# What holds a message: a block of the page, never a code block's variants (a manual's ``<code class="language-js
# mjs">`` / ``cjs`` examples take turns too), an inline span or a table's cell.
MESSAGE_TAGS = frozenset({"div", "article", "section", "li", "main", "blockquote"})


class ClassedElements(html.parser.HTMLParser):
    """A page's visible text in one list of pieces, and every element with a ``class`` as ``(first class token, its
    class tokens, where its text starts and ends in the pieces)``: an element's text is a slice, held once."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[tuple[str, int | None]] = []
        self.elements: list[dict[str, Any]] = []
        self.hidden = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            if tag == "br":
                self.parts.append("\n")
            return
        self.hidden += tag in SKIPPED
        if tag == "pre" and not self.pre and not self.hidden:
            self.parts.append("\n```\n")  # a code block stays fenced: it is code, not the message's prose
        elif tag in BLOCK and not self.pre:
            self.parts.append("\n")
        self.pre += tag == "pre"
        tokens = next((v.split() for n, v in attrs if n == "class" and v and v.strip()), None)
        index = None
        if tokens and not self.hidden:
            index = len(self.elements)
            self.elements.append({"tag": tag, "stem": tokens[0], "tokens": frozenset(tokens), "start": len(self.parts),
                                  "end": None})
        self.stack.append((tag, index))

    def handle_endtag(self, tag: str) -> None:
        at = next((i for i in range(len(self.stack) - 1, -1, -1) if self.stack[i][0] == tag), None)
        if at is None:
            return
        for name, index in reversed(self.stack[at:]):
            self.hidden -= name in SKIPPED and self.hidden > 0
            if name == "pre" and self.pre:
                self.pre -= 1
                self.parts.append("\n```\n" if not self.pre and not self.hidden else "")
            if index is not None:
                self.elements[index]["end"] = len(self.parts)
        del self.stack[at:]
        if tag in BLOCK and not self.pre:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data if self.pre else re.sub(r"[ \t\r\n]+", " ", data))

    def text(self, start: int, end: int | None) -> str:
        """An element's text, each line stripped but a code block's (its indentation is the code's)."""
        lines, fenced = [], False
        for line in "".join(self.parts[start:end]).split("\n"):
            if line == "```" and fenced:
                while lines and not lines[-1]:
                    lines.pop()  # (the code's own last line end)
            fenced ^= line == "```"
            lines.append(line.rstrip() if fenced and line != "```" else line.strip())
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def alternating_messages(text: str) -> list[dict[str, str]] | None:
    """A chat page whose message elements name no writer (issue 45, round 18: ChatGPT's page saved whole in 2022, each
    message a ``ConversationItem__ConversationItemWrapper`` element, the person's with ``dark:bg-gray-800``, the
    model's with ``bg-gray-50``; only their avatars differ besides): one element, by its first class token, recurring
    four times or more outside one another, in exactly two kinds (its class tokens) that take turns nine times in ten,
    is the page's messages; the kind that opens is the person's (who brings the task), the other the model's. The
    messages hold half the page's visible text or more and are mostly prose, each a block of the page (a ``div``, an
    ``article``, a list item...); rows set apart by stripes (``odd`` / ``even``), table cells and a manual's code
    examples in two variants (``mjs`` / ``cjs``) are none. None for any other page."""
    if not isinstance(text, str) or "class" not in text[:2_000_000] or not text.lstrip().startswith("<"):
        return None
    parser = fed(ClassedElements(), text)
    if parser is None:
        return None
    outermost: dict[str, list[dict[str, Any]]] = {}
    for element in parser.elements:
        kept = outermost.setdefault(element["stem"], [])
        if element["end"] is not None and (not kept or element["start"] >= kept[-1]["end"]):
            kept.append(element)
    page = len(parser.text(0, None))
    best = None
    for elements in outermost.values():
        kinds = list(dict.fromkeys(e["tokens"] for e in elements))
        if len(elements) < MIN_ALTERNATING or len(kinds) != 2 or elements[0]["tag"] not in MESSAGE_TAGS:
            continue
        if set().union(*(key_words(t) for t in kinds[0] ^ kinds[1])) & STRIPE_WORDS:
            continue
        if sum(a["tokens"] != b["tokens"] for a, b in itertools.pairwise(elements)) * 10 < (len(elements) - 1) * 9:
            continue
        turns = [{"speaker": "user" if e["tokens"] == kinds[0] else "assistant", "content": parser.text(e["start"], e["end"])}
                 for e in elements]
        held = sum(len(t["content"]) for t in turns)
        if best is None or held > best[0]:
            best = (held, turns)
    if best is None or best[0] < MIN_MESSAGE_SHARE * page:
        return None
    turns = [t for t in best[1] if t["content"]]
    if len(turns) < MIN_ALTERNATING or sum(is_spoken(t["content"]) for t in turns) * 2 < len(turns):
        return None
    return turns


def parse_alternating_messages(text: str) -> list[Transcript]:
    turns = alternating_messages(text) or []
    return [Transcript(format="html-messages", extra={"layout": "alternating elements"},
                       messages=[message(t["speaker"], t["content"]) for t in turns])]
