"""Terminal recordings (asciinema's asciicast v2 and v3, ``.cast``): a header object on the first line, then one
``[time, code, data]`` event a line, ``"o"`` the bytes the program wrote to the terminal. What the session showed is
the screen those bytes draw, not the bytes: keystrokes echoed one by one, a spinner redrawn in place with ``\\r``,
colours and cursor moves. ``cast_screen`` replays the output on a small screen model (lines that scroll, never
cleared, so the whole session stays) and the text formats read that screen as any console capture (a chat CLI's
``You :`` prompts and the agent's Rich panels: ``console-log``).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_EVENTS = 2_000_000
# A control sequence: CSI (``ESC [`` parameters, a final letter), OSC (``ESC ]`` ... BEL or ``ESC \\``), or a two-byte
# escape (charset selection, keypad modes).
ESCAPE = re.compile(r"\x1b\[(?P<params>[0-9;?<=>]*)(?P<final>[A-Za-z@`])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>78cDEM]")


def cast_events(text: str) -> list[str] | None:
    """The output written in an asciicast (``"o"`` events, in order), or None when the text is no asciicast: its first
    line is an object with ``version`` 2 or 3 and a terminal size (``width`` or ``term``), the others events."""
    head, _, rest = text.partition("\n")
    try:
        header = json.loads(head)
    except ValueError:
        return None
    if not (isinstance(header, dict) and header.get("version") in (2, 3) and ("width" in header or "term" in header)):
        return None
    out = []
    for line in rest.splitlines()[:MAX_EVENTS]:
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            return None
        if not (isinstance(event, list) and len(event) >= 3 and isinstance(event[2], str)):
            return None
        if event[1] == "o":
            out.append(event[2])
    return out


class Screen:
    """Lines and a cursor: characters overwrite at the cursor, ``\\r`` returns to the line's start, ``\\n`` goes down
    (a new line at the bottom), ``\\b`` back; cursor moves and line erasing as CSI sequences give them. Clearing the
    screen starts a fresh page below the old one (the session's history is kept)."""

    def __init__(self) -> None:
        self.lines: list[list[str]] = [[]]
        self.row = self.col = 0
        self.top = 0  # the first line of the current page (cursor positions count from it)

    def write(self, data: str) -> None:
        at = 0
        for escape in ESCAPE.finditer(data):
            self.text(data[at:escape.start()])
            if escape.group("final"):
                self.control(escape.group("params"), escape.group("final"))
            at = escape.end()
        self.text(data[at:])

    def text(self, chunk: str) -> None:
        for char in chunk:
            if char == "\n":
                self.row += 1
                self.col = 0  # (a terminal in raw mode writes ``\r\n``; a lone ``\n`` is read the same)
                while len(self.lines) <= self.row:
                    self.lines.append([])
            elif char == "\r":
                self.col = 0
            elif char == "\b":
                self.col = max(self.col - 1, 0)
            elif char == "\t":
                self.col = (self.col // 8 + 1) * 8
            elif char >= " ":
                line = self.lines[self.row]
                line.extend(" " * (self.col - len(line) + 1)) if len(line) <= self.col else None
                line[self.col] = char
                self.col += 1

    def control(self, params: str, final: str) -> None:
        numbers = [int(p) for p in params.lstrip("?").split(";") if p.isdigit()]
        count = numbers[0] if numbers else 1
        line = self.lines[self.row]
        if final == "A":
            self.row = max(self.row - count, self.top)
        elif final in "BE":
            self.row += count
            while len(self.lines) <= self.row:
                self.lines.append([])
        elif final == "C":
            self.col += count
        elif final == "D":
            self.col = max(self.col - count, 0)
        elif final == "G":
            self.col = count - 1
        elif final in "Hf":
            self.row = self.top + (numbers[0] - 1 if numbers else 0)
            self.col = numbers[1] - 1 if len(numbers) > 1 else 0
            while len(self.lines) <= self.row:
                self.lines.append([])
        elif final == "K":
            mode = numbers[0] if numbers else 0
            self.lines[self.row] = line[:self.col] if mode == 0 else [] if mode == 2 else \
                [" "] * min(self.col + 1, len(line)) + line[self.col + 1:]
        elif final == "J" and (numbers[0] if numbers else 0) in (2, 3):
            self.top = self.row = len(self.lines)  # a cleared screen: a fresh page below, history kept
            self.lines.append([])
            self.col = 0
        elif final == "J":
            self.lines[self.row] = line[:self.col]
            del self.lines[self.row + 1:]

    def rendered(self) -> str:
        return "\n".join("".join(line).rstrip() for line in self.lines).strip("\n") + "\n"


def cast_screen(text: Any) -> str | None:
    """The text an asciicast's session showed (see the module docstring), or None when ``text`` is no asciicast."""
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return None
    events = cast_events(text.lstrip())
    if events is None:
        return None
    screen = Screen()
    for data in events:
        screen.write(data)
    return screen.rendered()
