"""A transcript's messages cut into the parts a secret scanner must read differently, each with its language.

A trace carries code, shell and prose side by side. Read as one language-less text, code in it is
judged as prose (``credentials=credentials,`` looks like a literal), and a tool call's arguments hide
quotes behind JSON escapes (``PASSWORD = \\"...\\"``). Here each string becomes ``Part``s:

  * prose (contents, reasoning): fenced blocks by their fence's language, the rest as prose;
  * tool-call arguments: each JSON string value decoded, in the language of what it carries (a
    ``command`` is shell, or the code file it writes; ``file_text``/``new_str``... the language of
    the call's ``path``), with ``offsets`` mapping decoded characters back to the raw JSON;
  * observations (tool output): the file the call showed (``path``, ``cat x.py``, SWE-agent's
    ``[File: x.py ...]``/``(Open file: x.py)``), else shell output read as prose.

``language_of(path)`` is the caller's (the crawl passes ``pipelines.readers.language.detect_language``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

LanguageOf = Callable[[str], str]
PROSE = ""  # no language: free text, where ``NAME=value`` is a literal unless it reads as code
SHELL = "shell"


class Part(NamedTuple):
    """``text`` (decoded) in ``language``; ``offsets[i]`` is where its character ``i`` starts in the
    raw string (``offsets[len(text)]`` is where it ends), or None when the part is the raw text itself."""

    start: int  # in the raw string, when offsets is None
    text: str
    language: str
    offsets: tuple[int, ...] | None = None
    breaks: tuple[int, ...] = ()  # decoded positions where the next JSON string of a list begins (notebooks)


# --- prose and fences ------------------------------------------------------------------------------

FENCE = re.compile(r"^(?P<indent>[ \t]{0,3})(?P<mark>```+|~~~+)[ \t]*(?P<info>[^\s`]*)[^\n]*\n", re.MULTILINE)
FENCE_ALIASES = {
    "py": "python", "python3": "python", "py3": "python", "ipython": "python", "pycon": "python", "sh": SHELL,
    "bash": SHELL, "zsh": SHELL, "console": SHELL, "shell-session": SHELL, "shellsession": SHELL, "terminal": SHELL,
    "js": "javascript", "jsx": "javascript", "node": "javascript", "ts": "typescript", "yml": "yaml", "rb": "ruby",
    "rs": "rust", "golang": "go", "c++": "cpp", "cxx": "cpp", "cs": "c#", "csharp": "c#", "kt": "kotlin",
    "env": "dotenv", ".env": "dotenv", "patch": "diff", "text": PROSE, "txt": PROSE, "plaintext": PROSE,
    "md": "markdown", "docker": "dockerfile", "tf": "hcl", "terraform": "hcl", "cfg": "ini", "conf": "ini",
}
DIFF_PATH = re.compile(r"^(?:\+\+\+ (?:b/)?|diff --git a/\S+ b/|\*\*\* (?:Update|Add) File: )(?P<path>\S+)", re.MULTILINE)


def fence_language(info: str, body: str, language_of: LanguageOf) -> str:
    """The language a fence's info string names (``py``, ``bash``...); a diff is its file's language."""
    name = FENCE_ALIASES.get(info.lower(), info.lower())
    if name == "diff":
        return diff_language(body, language_of)
    return name


def diff_language(body: str, language_of: LanguageOf) -> str:
    """A patch's lines are its file's code with a ``+``/``-`` in front."""
    match = DIFF_PATH.search(body)
    return language_of(match.group("path")) if match else PROSE


def prose_parts(text: str, language_of: LanguageOf, default: str = PROSE, start: int = 0) -> Iterator[Part]:
    """``text`` (found at ``start`` in its string) as prose in ``default`` and fenced blocks in theirs."""
    position = 0
    for opening in FENCE.finditer(text):
        if opening.start() < position:
            continue
        mark = opening.group("mark")
        closing = re.compile(rf"^[ \t]{{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$", re.MULTILINE)
        end = closing.search(text, opening.end())
        body_end = end.start() if end else len(text)
        body = text[opening.end():body_end]
        if opening.start() > position:
            yield Part(start + position, text[position:opening.start()], default)
        yield Part(start + opening.start(), text[opening.start():opening.end()], PROSE)
        yield Part(start + opening.end(), body, fence_language(opening.group("info"), body, language_of) or default)
        position = body_end
    if position < len(text):
        yield Part(start + position, text[position:], default)


# --- tool calls ------------------------------------------------------------------------------------

# Argument keys whose value is the contents of the file the call names.
FILE_CONTENT_KEYS = frozenset({
    "file_text", "content", "contents", "new_str", "old_str", "new_string", "old_string", "insert_text", "text",
    "code", "new_content", "old_content", "replacement", "search", "replace", "new_source", "source"})
PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path", "file_name")
COMMAND_KEYS = frozenset({"command", "cmd", "script", "shell", "bash", "commands", "input", "args"})
PATCH_KEYS = frozenset({"patch", "diff", "input_patch"})
# A file named on a command line: ``cat > app.py``, ``python -m x tests/test_a.py``, ``sed -n 1p a.go``.
COMMAND_PATH = re.compile(r"(?<![\w./-])((?:~?/)?(?:[\w.~-]+/)*[\w.-]+\.[A-Za-z0-9+]{1,8})(?![\w/])")
INTERPRETERS = {"python": "python", "python3": "python", "node": "javascript", "ruby": "ruby", "php": "php",
                "perl": "perl"}
# SWE-agent commands that edit or show the open file; their body is the open file's language.
OPEN_FILE_COMMANDS = frozenset({"edit", "insert", "append", "goto", "scroll_up", "scroll_down", "open", "create"})


def command_language(command: str, language_of: LanguageOf, open_path: str = "") -> str:
    """A command's language: the code it carries (``python -c``, a heredoc into ``x.py``, SWE-agent's
    ``edit`` of the open file) or shell. Code named but not carried (``pytest a.py``) keeps it shell."""
    words = command.split(None, 1)
    first = words[0].rsplit("/", 1)[-1] if words else ""
    if first in OPEN_FILE_COMMANDS and open_path:
        return language_of(open_path) or SHELL
    if first in INTERPRETERS and re.search(r"\s-[ce]\s", command):
        return INTERPRETERS[first]
    if "<<" in command or re.search(r"(?:^|\s)(?:>|>>|tee)\s", command):
        for path in COMMAND_PATH.findall(command):
            language = language_of(path)
            if language and language not in (SHELL, "markdown"):
                return language
    return SHELL


def shown_path(command: str, language_of: LanguageOf) -> str:
    """The file a command prints (``cat a.py``, ``sed -n 1,9p a.py``, ``open a.py``), or ""."""
    words = command.split()
    if not words or words[0] not in ("cat", "head", "tail", "sed", "nl", "less", "more", "open", "view", "bat"):
        return ""
    paths = [p for p in COMMAND_PATH.findall(command) if language_of(p)]
    return paths[-1] if len(paths) == 1 else ""


def call_path(arguments: dict[str, Any]) -> str:
    return next((arguments[k] for k in PATH_KEYS if isinstance(arguments.get(k), str)), "")


def value_language(key: str, call_name: str, arguments: dict[str, Any], language_of: LanguageOf,
                   open_path: str) -> str:
    """The language of one argument value of a tool call."""
    name = call_name.lower()
    path = call_path(arguments) or (open_path if name in OPEN_FILE_COMMANDS else "")
    if key in PATCH_KEYS or name in ("apply_patch", "patch"):
        return "diff"
    if key in FILE_CONTENT_KEYS:
        if path:
            return language_of(path) or PROSE
        if "python" in name or "jupyter" in name or key == "code":
            return "python"
        return PROSE
    if key in COMMAND_KEYS:
        return command_language(arguments[key] if isinstance(arguments.get(key), str) else "", language_of, open_path)
    return PROSE


JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
KEY_COLON = re.compile(r"\s*:")  # after a string: it was a key (matched in place, not on a copy of the rest)
HEX4 = re.compile(r"[0-9a-fA-F]{4}")
ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def decode_json_string(raw: str, start: int, end: int) -> tuple[str, tuple[int, ...]] | None:
    """The JSON string literal ``raw[start:end]`` (quotes included) decoded, with each decoded
    character's offset in ``raw`` (and the closing quote's last). None if it is not valid JSON."""
    chars: list[str] = []
    offsets: list[int] = []
    i, stop = start + 1, end - 1
    while i < stop:
        backslash = raw.find("\\", i, stop)
        run_end = stop if backslash < 0 else backslash
        if run_end > i:  # a run of plain characters: one slice, not one step per character
            chars.append(raw[i:run_end])
            offsets.extend(range(i, run_end))
            i = run_end
            continue
        kind = raw[i + 1] if i + 1 < stop else ""
        if kind in ESCAPES:
            chars.append(ESCAPES[kind])
            offsets.append(i)
            i += 2
        elif kind == "u" and HEX4.fullmatch(raw, i + 2, i + 6):
            chars.append(chr(int(raw[i + 2:i + 6], 16)))  # surrogates stay halves: only offsets matter
            offsets.append(i)
            i += 6
        else:
            return None
    offsets.append(stop)
    return "".join(chars), tuple(offsets)


def json_value_parts(raw: str, call_name: str, language_of: LanguageOf, open_path: str) -> Iterator[Part]:
    """Every string value of a JSON object's text, decoded, in the language of what it carries."""
    try:
        arguments = json.loads(raw)
    except (ValueError, RecursionError):
        arguments = None
    if not isinstance(arguments, dict):
        yield from prose_parts(raw, language_of)
        return
    key = ""
    for match in JSON_STRING.finditer(raw):
        decoded = decode_json_string(raw, match.start(), match.end())
        if decoded is None:
            continue
        text, offsets = decoded
        if KEY_COLON.match(raw, match.end()):
            key = text
            yield Part(0, text, PROSE, offsets)  # a key is text too (a secret can be a dict key)
            continue
        language = value_language(key, call_name, arguments, language_of, open_path)
        if language in (PROSE, "markdown"):
            yield from split_decoded(text, offsets, language_of)
        else:
            yield Part(0, text, language, offsets)


def split_decoded(text: str, offsets: tuple[int, ...], language_of: LanguageOf,
                   breaks: tuple[int, ...] = ()) -> Iterator[Part]:
    """Prose and fences of a decoded string, each keeping its slice of the raw offsets (and breaks)."""
    for part in prose_parts(text, language_of):
        end = part.start + len(part.text)
        inner = tuple(b - part.start for b in breaks if part.start < b < end)
        yield Part(0, part.text, part.language, offsets[part.start:end + 1], inner)


# --- whole messages --------------------------------------------------------------------------------

SWE_AGENT_FILE = re.compile(r"^\[File: (?P<path>[^\s\]]+)|\(Open file: (?P<open>[^\s)]+)\)", re.MULTILINE)


class TraceState:
    """What earlier turns tell about later ones: the open file (SWE-agent) and what each call showed."""

    def __init__(self, language_of: LanguageOf):
        self.language_of = language_of
        self.open_path = ""
        self.output_language: dict[str, str] = {}  # call id -> language of its output
        self.last_output = PROSE

    def call_parts(self, call: dict[str, Any]) -> Iterator[Part]:
        raw = call.get("arguments")
        name = str(call.get("name", ""))
        if not isinstance(raw, str):
            return
        if call.get("kind", "function") != "function":
            yield Part(0, raw, diff_language(raw, self.language_of) if "patch" in name else SHELL)
            return
        yield from json_value_parts(raw, name, self.language_of, self.open_path)
        self._note_call(call, raw, name)

    def _note_call(self, call: dict[str, Any], raw: str, name: str) -> None:
        try:
            arguments = json.loads(raw)
        except (ValueError, RecursionError):
            arguments = {}
        arguments = arguments if isinstance(arguments, dict) else {}
        command = next((arguments[k] for k in COMMAND_KEYS if isinstance(arguments.get(k), str)), "")
        path = call_path(arguments) or shown_path(command, self.language_of)
        if name.lower() in ("open", "create") and not path and command:
            path = command.split()[0]
        if path:
            self.open_path = path
        shown = self.language_of(path) if path else PROSE
        self.last_output = shown
        if call.get("id"):
            self.output_language[str(call["id"])] = shown

    def prose(self, text: str) -> Iterator[Part]:
        """A person's or the model's text; an unlabelled fence in it is a command (SWE-agent's actions)."""
        for part in prose_parts(text, self.language_of):
            if part.language == PROSE and part.start > 0 and text[part.start - 1] == "\n" and \
                    FENCE.match(text, text.rfind("\n", 0, part.start - 1) + 1):
                command = part.text.strip()
                language = command_language(command, self.language_of, self.open_path)
                self._note_command(command)
                yield part._replace(language=language)
            else:
                yield part

    def _note_command(self, command: str) -> None:
        words = command.split()
        if words and words[0] in ("open", "create") and len(words) > 1:
            self.open_path = words[1]
        shown = shown_path(command, self.language_of)
        self.last_output = self.language_of(shown) if shown else (
            self.language_of(self.open_path) if words and words[0] in OPEN_FILE_COMMANDS and self.open_path else PROSE)

    def observation(self, message: dict[str, Any], text: str) -> Iterator[Part]:
        """Tool output: the file it shows, in that file's language; anything else as prose."""
        language = self.output_language.get(str(message.get("tool_call_id") or ""), self.last_output)
        for shown in SWE_AGENT_FILE.finditer(text):  # a header shows the file; a footer only names the open one
            if shown.group("path"):
                self.open_path, language = shown.group("path"), self.language_of(shown.group("path"))
            elif shown.group("open") != "n/a":
                self.open_path = shown.group("open")
        yield from prose_parts(text, self.language_of, language or PROSE)


def is_observation(message: dict[str, Any]) -> bool:
    return bool(message.get("observation")) or message.get("role") == "tool"


# --- what a transcript's tools carried, as code ----------------------------------------------------

# Line-number gutters tools put in front of a file's lines: ``cat -n`` ("     1\t"), SWE-agent's
# ``open`` ("12:"), Claude Code's ``Read`` ("    12→"); removed before the lines are read as code.
GUTTER = re.compile(r"^[ \t]*\d+(?:\t|:[ \t]?|→|[ \t]\|[ \t])", re.MULTILINE)
NOT_CODE = frozenset({PROSE, SHELL, "markdown", "diff"})


def tool_code(messages: list[Any], language_of: LanguageOf) -> list[tuple[str, str]]:
    """``(code, language)`` per language of everything a transcript's tools carried as code: decoded
    tool-call arguments (files written, edits, a patch's added lines, code in a command) and tool
    output that shows a file, its line numbers removed; the pieces of one language joined by blank lines."""
    state, pieces = TraceState(language_of), {}
    for message in messages:
        if not isinstance(message, dict):
            continue
        for field_name in ("reasoning", "content"):
            raw = message.get(field_name)
            if isinstance(raw, str) and raw:
                parts = state.observation(message, raw) if field_name == "content" and is_observation(message) \
                    else state.prose(raw)
                for part in parts:
                    _add_code(pieces, part, language_of, strip=field_name == "content" and is_observation(message))
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict) and isinstance(call.get("arguments"), str):
                for part in state.call_parts(call):
                    _add_code(pieces, part, language_of)
    return [("\n\n".join(texts), language) for language, texts in pieces.items()]


def _add_code(pieces: dict[str, list[str]], part: Part, language_of: LanguageOf, strip: bool = False) -> None:
    text, language = part.text, part.language
    if language == "diff":
        text = "\n".join(line[1:] for line in text.split("\n") if line.startswith("+") and not line.startswith("+++"))
        language = diff_language(part.text, language_of)
    if language in NOT_CODE or not text.strip():
        return
    if strip:
        text = without_gutter(text)
    pieces.setdefault(language, []).append(text)


def without_gutter(text: str) -> str:
    """``text`` without line-number gutters, when most of its lines have one (a file view)."""
    lines = [line for line in text.split("\n") if line.strip()]
    numbered = sum(bool(GUTTER.match(line)) for line in lines)
    return GUTTER.sub("", text) if lines and numbered * 5 >= len(lines) * 4 else text
