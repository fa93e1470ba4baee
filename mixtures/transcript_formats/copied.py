"""Code blocks a chat page showed, copied as text: the page's block header (the language's name, then its copy
button's label, ``javascript`` / ``Copy code``) over the code, with no fence (ChatGPT's page copied and pasted).

The header is the page's, no one's words; the code is the turn's. Such a block is fenced again (```` ```javascript
````) so the code reads as code inside the turn, not as a source file's lines (which refuse the whole text): it runs to
the first line after a blank one that reads as prose (a capital letter, three words or more, no code's
punctuation at its end: ``In this script:``), else to the text's end.
"""

from __future__ import annotations

import re

from codemix.mixtures.transcript_formats.text_turns import CODE_LINE

HEADER = re.compile(r"^(?P<language>[A-Za-z][\w+#.-]{0,19})[ \t]*\n(?:Copy code|Copy|复制代码|コードをコピーする)[ \t]*\n",
                    re.MULTILINE)
PROSE = re.compile(r"[A-Z][A-Za-z'’]*(?:[ \t]+\S+){2,}")


def reads_as_prose(line: str) -> bool:
    return (PROSE.fullmatch(line.strip()) is not None and not CODE_LINE.match(line)
            and not line.rstrip().endswith((";", "{", "}", "(", ")", ",", "=")) and not line.startswith((" ", "\t")))


def block_end(lines: list[str], start: int) -> int:
    """The index of the first line after the block: a prose line after a blank one."""
    for index in range(start + 1, len(lines)):
        if lines[index].strip() and not lines[index - 1].strip() and reads_as_prose(lines[index]):
            end = index
            while end > start and not lines[end - 1].strip():
                end -= 1
            return end
    return len(lines)


def fenced_copies(text: str) -> str:
    """``text`` with each copied code block fenced again (the page's header taken off); unchanged without one."""
    if "Copy" not in text and "复制代码" not in text and "コードをコピー" not in text:
        return text
    out, at = [], 0
    for header in HEADER.finditer(text):
        if header.start() < at or (header.start() and text[header.start() - 1] != "\n"):
            continue
        rest = text[header.end():].split("\n")
        end = block_end(rest, 0) if rest and rest[0].strip() else 0
        if end == 0:
            continue
        code = "\n".join(rest[:end]).rstrip("\n")
        out += [text[at:header.start()], f"```{header.group('language')}\n{code}\n```\n"]
        at = header.end() + len("\n".join(rest[:end])) + (1 if end < len(rest) else 0)
    return "".join(out) + text[at:] if out else text
