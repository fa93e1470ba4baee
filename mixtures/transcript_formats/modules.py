"""Data a JavaScript or TypeScript module assigns, read as the JSON value it writes.

A run saved by a front end or a test often sits in a source file: ``export const dialogData = {...}``, two
``const`` statements each holding a list of serialised messages, a literal written the way JavaScript allows
(keys unquoted, strings in single quotes or backticks, trailing commas, comments, ``as const``). ``module_values``
reads a module that is nothing but such statements (imports and type-only lines aside) and returns what each
statement assigns; a module that also runs code (a call, a function, a class) is a program, not data: None.
Nothing is evaluated: the literal is parsed by the small grammar below (objects, arrays, strings, numbers,
``true``/``false``/``null``/``undefined``), and anything else (a variable, a call, a spread, ``${}`` in a template)
makes the statement no data. docs/transcript-formats.md ("JSON inside other containers").
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from typing import Any

# A statement that assigns a value: ``export const name =``, ``const name: Type =``, ``var``/``let``,
# ``module.exports =``, ``export default``, ``window.name =``, ``exports.name =``.
ASSIGNMENT = re.compile(r"(?:(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=\n]+)?=|module\.exports\s*=|"
                        r"export\s+default\b|(?:window|globalThis|exports)\.([\w$]+)\s*=)\s*")
# Lines a data module may hold besides its assignments: imports, type declarations, a directive.
QUIET = re.compile(r"(?:import\s[^;\n]*;?|export\s+(?:type|interface)\s[^\n]*|(?:type|interface)\s[^\n]*|"
                   r"['\"]use strict['\"];?)")
NUMBER = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)")
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
WORDS = {"true": True, "false": False, "null": None, "undefined": None}
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
MAX_DEPTH = 200


class NotData(ValueError):
    """The text at this point is no literal (code, an expression, a syntax this grammar does not read)."""


class Literal:
    """A recursive-descent reader of one JavaScript literal from ``text[at:]``."""

    def __init__(self, text: str, at: int) -> None:
        self.text, self.at = text, at

    def skip(self) -> None:
        """Past whitespace and comments."""
        text = self.text
        while self.at < len(text):
            if text[self.at].isspace():
                self.at += 1
            elif text.startswith("//", self.at):
                end = text.find("\n", self.at)
                self.at = len(text) if end < 0 else end
            elif text.startswith("/*", self.at):
                end = text.find("*/", self.at + 2)
                self.at = len(text) if end < 0 else end + 2
            else:
                return

    def value(self, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise NotData("nested too deep")
        self.skip()
        char = self.text[self.at:self.at + 1]
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        if char in ("'", '"', "`"):
            return self.string(char)
        if match := NUMBER.match(self.text, self.at):
            self.at = match.end()
            literal = match.group()
            return int(literal, 16) if literal.lower().lstrip("-").startswith("0x") else (
                float(literal) if any(c in literal for c in ".eE") else int(literal))
        if (match := IDENTIFIER.match(self.text, self.at)) and match.group() in WORDS:
            self.at = match.end()
            return WORDS[match.group()]
        raise NotData(f"no literal at {self.at}")

    def object(self, depth: int) -> dict:
        self.at += 1
        out: dict = {}
        while True:
            self.skip()
            if self.text.startswith("}", self.at):
                self.at += 1
                return out
            char = self.text[self.at:self.at + 1]
            if char in ("'", '"'):
                key = self.string(char)
            elif match := (IDENTIFIER.match(self.text, self.at) or NUMBER.match(self.text, self.at)):
                key, self.at = match.group(), match.end()
            else:
                raise NotData(f"no key at {self.at}")  # a spread, a computed key
            self.skip()
            if not self.text.startswith(":", self.at):
                raise NotData(f"no ':' at {self.at}")  # shorthand ``{a}``, a method
            self.at += 1
            out[key] = self.value(depth + 1)
            if not self.separator("}"):
                raise NotData(f"no ',' at {self.at}")

    def array(self, depth: int) -> list:
        self.at += 1
        out: list = []
        while True:
            self.skip()
            if self.text.startswith("]", self.at):
                self.at += 1
                return out
            out.append(self.value(depth + 1))
            if not self.separator("]"):
                raise NotData(f"no ',' at {self.at}")

    def separator(self, closing: str) -> bool:
        """Past a comma (a trailing one allowed), or at the closing bracket."""
        self.skip()
        if self.text.startswith(",", self.at):
            self.at += 1
            return True
        return self.text.startswith(closing, self.at)

    def string(self, quote: str) -> str:
        out, at, text = [], self.at + 1, self.text
        while at < len(text):
            char = text[at]
            if char == quote:
                self.at = at + 1
                return "".join(out)
            if char == "\\":
                at += 1
                escaped = text[at:at + 1]
                if escaped == "u":
                    code = text[at + 2:text.find("}", at)] if text.startswith("{", at + 1) else text[at + 1:at + 5]
                    try:
                        out.append(chr(int(code, 16)))
                    except ValueError:
                        raise NotData(f"a bad escape at {at}") from None
                    at += len(code) + (3 if text.startswith("{", at + 1) else 1)
                    continue
                if escaped == "x":
                    out.append(chr(int(text[at + 1:at + 3], 16)))
                    at += 3
                    continue
                if escaped != "\n":  # a backslash before a newline continues the line
                    out.append(ESCAPES.get(escaped, escaped))
                at += 1
                continue
            if quote == "`" and text.startswith("${", at):
                raise NotData("a template that interpolates")
            if char == "\n" and quote != "`":
                raise NotData("a string that breaks its line")
            out.append(char)
            at += 1
        raise NotData("a string left open")


def module_values(text: str) -> list[tuple[str, Any]] | None:
    """What each statement of a data module assigns, as (its name, or ``""``, its value), in order; None when the
    text is no module of data (no assignment of an object or a list, or anything else that runs)."""
    values, reader = [], Literal(text, 0)
    while True:
        reader.skip()
        if reader.at >= len(text):
            break
        if text.startswith(";", reader.at):
            reader.at += 1
            continue
        if (quiet := QUIET.match(text, reader.at)) is not None:
            reader.at = quiet.end()
            continue
        if (match := ASSIGNMENT.match(text, reader.at)) is None:
            return None  # code: a call, a function, a class
        reader.at = match.end()
        try:
            value = reader.value()
        except (NotData, IndexError, ValueError, RecursionError):
            return None
        reader.skip()
        if text.startswith("as const", reader.at):
            reader.at += len("as const")
        values.append((match.group(1) or match.group(2) or "", value))
    return values if any(isinstance(value, (dict, list)) and value for _, value in values) else None


def module_value(text: str) -> Any:
    """The value a data module writes: its one statement's value, or, for several, the list of their values (each
    statement a record of its own, as JSON values written back to back are); None when the text is no module of
    data."""
    values = module_values(text)
    if values is None:
        return None
    return values[0][1] if len(values) == 1 else [value for _, value in values]


# A page's script element and its body (``<script type="application/json" id="__NEXT_DATA__">{...}</script>``).
SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script\s*>", re.DOTALL | re.IGNORECASE)
MAX_SCRIPTS = 200


def script_values(page: str) -> list[Any]:
    """The data a web page's script elements hold: a body that is JSON (a JSON data island, Next.js's
    ``__NEXT_DATA__``), or a script of data statements (``window.__CHAT__ = {...}``, ``module_value``); scripts
    that run code hold none."""
    values = []
    for match in itertools.islice(SCRIPT.finditer(page), MAX_SCRIPTS):
        body = match.group(1).strip()
        if not body or body[0] not in "{[" and not ASSIGNMENT.match(body):
            continue
        try:
            value = json.loads(body)
        except ValueError:
            value = module_value(body)
        if isinstance(value, (dict, list)) and value:
            values.append(value)
    return values


MAX_SOURCE_CHARS = 5_000_000


def string_values(source: str) -> list[Any]:
    """The JSON a Python module keeps in its string literals (a run pasted into a test module between triple
    quotes): each string whose whole text is a JSON object or list, in order; [] for text that is no Python."""
    if len(source) > MAX_SOURCE_CHARS or ('"""' not in source and "\'\'\'" not in source and "= " not in source):
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            for value in leading_json(written(source, node)) or leading_json(node.value)]


def written(source: str, node: ast.Constant) -> str:
    """A string literal's text as written between its quotes: JSON pasted into a docstring keeps its ``\\"``
    escapes there, which Python's reading of the literal undoes."""
    segment = ast.get_source_segment(source, node) or ""
    body = segment.lstrip("rRuUbBfF")
    quote = next((q for q in ('"""', "'''", '"', "'") if body.startswith(q) and body.endswith(q) and len(body) >= 2 * len(q)), "")
    return body[len(quote):len(body) - len(quote)] if quote else ""


def leading_json(text: str) -> list[Any]:
    """The JSON objects and lists a string opens with, back to back (two triple-quoted strings side by side are one
    string to Python), up to the first text that is none."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text) or text[at] not in "{[":
            return values
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            return values
        if isinstance(value, (dict, list)) and value:
            values.append(value)
