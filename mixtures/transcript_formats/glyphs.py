"""Runs a terminal agent drew with glyphs (``console-log``'s ``glyphs`` layout): a screen capture whose turns open
with a symbol at a line's start, as coding-agent CLIs draw them (``> make it longer``, ``⏺ I'll read the file``,
``⏺ Read(demo.md)``, then ``  ⎿  Read 21 lines`` under it).

Sides by structure: a block opened by a prompt sign (``>``, ``❯``, ``›``) is what the person typed; the other
glyphs that open blocks at a line's start, recurring, are the model's (its text, its calls ``Name(args)``, its
thinking), its consecutive blocks one turn; an indented glyph line under a block (``⎿``) and the lines indented
below it are what running the call gave (the tool's output, never trained). Unglyphed lines continue the block
they follow. Panels, rules and status lines before the first block are framing, counted.
"""

from __future__ import annotations

import collections
import re
import unicodedata
from typing import Any

from codemix.mixtures.transcript_formats.banners import is_code
from codemix.mixtures.transcript_formats.canonical import is_spoken

PROMPT_SIGNS = frozenset(">❯›»")  # what a terminal prints before the line a person types
# (a no-break space may follow a glyph; an emoji may carry a variation selector, a skin tone, joined parts, a colon)
OPENER = re.compile(r"^(?P<indent>[ \t]*)(?P<glyph>\S)(?:[\ufe0f\U0001F3FB-\U0001F3FF]|\u200d\S)*:?[^\S\n]+(?P<text>\S.*)$")
# What an emoji's own Unicode name says it draws: a robot (the model) or a person (who types).
MODEL_GLYPH_WORDS = frozenset({"ROBOT"})
PERSON_GLYPH_WORDS = frozenset({"BUST", "SILHOUETTE", "ADULT", "PERSON", "MAN", "WOMAN", "BOY", "GIRL", "HUMAN"})
CALL = re.compile(r"^[A-Z][\w.-]*(?:[ \t]+-[ \t]+[\w .-]+)?\(.*\)[ \t]*$")  # ``Read(demo.md)``, ``Bash(pnpm test)``
MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
FRAME = re.compile(r"^[ \t]*[│├└┌┐┘┤┬┴┼╭╮╯╰─━═]")
MAX_LINES = 200_000


def is_glyph(char: str) -> bool:
    """A symbol that can open a turn: not a letter, digit or the marks of Markdown and code."""
    return (unicodedata.category(char)[0] in "SP" and char not in "#-*+|`'\"([{<_=~.,;:!?/\\@%&$^"
            and not FRAME.match(char))  # a tree's or a panel's line is no turn


def glyph_side(glyph: str) -> str | None:
    """``assistant`` for an emoji named for a robot, ``user`` for one named for a person, else None."""
    words = set(unicodedata.name(glyph, "").split())
    return "assistant" if words & MODEL_GLYPH_WORDS else "user" if words & PERSON_GLYPH_WORDS else None


def glyph_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """The turns of a glyph-drawn terminal capture (see the module docstring) and its framing counts, or None.
    A chat whose turns open with emoji that draw who speaks (``👤 question``, ``🤖 answer``) is read the same
    way: the person's emoji stands for the prompt sign and nothing need run."""
    if not isinstance(text, str) or is_code(text):
        return None
    lines = text.split("\n")[:MAX_LINES]
    top = collections.Counter(m.group("glyph") for line in lines if (m := OPENER.match(line)) and not m.group("indent")
                              and is_glyph(m.group("glyph")))
    named = {g: side for g in top if top[g] >= 2 and (side := glyph_side(g))}
    chat = {"user", "assistant"} <= set(named.values())
    if MARKDOWN_HEADING.search(text) and not chat:
        return None  # a Markdown page's ``>`` are quotes; a capture pasted into it is read from its fence
    prompts = PROMPT_SIGNS | {g for g, side in named.items() if side == "user"} if chat else PROMPT_SIGNS
    model_glyphs = {g for g, n in top.items() if g not in prompts and n >= 2}
    if chat:
        model_glyphs = {g for g, side in named.items() if side == "assistant"}
    if not model_glyphs or not any(top[g] for g in prompts):
        return None
    blocks: list[dict[str, Any]] = []
    framing: collections.Counter[str] = collections.Counter()
    for line in lines:
        match = OPENER.match(line)
        glyph = match.group("glyph") if match and is_glyph(match.group("glyph")) else None
        if glyph and not match.group("indent") and (glyph in prompts or glyph in model_glyphs):
            side = "user" if glyph in prompts else "assistant"
            blocks.append({"speaker": side, "lines": [match.group("text")], "glyph": glyph})
        elif (glyph and match.group("indent") and blocks and blocks[-1]["speaker"] != "tool"
              and glyph not in prompts and glyph not in model_glyphs):
            blocks.append({"speaker": "tool", "lines": [match.group("text")], "glyph": glyph})
        elif not blocks or (FRAME.match(line) and blocks[-1]["speaker"] != "tool"):
            framing["before_first_block" if not blocks else "frame_line"] += bool(line.strip())
        else:
            blocks[-1]["lines"].append(line.strip() if blocks[-1]["speaker"] != "tool" else line.rstrip())
    return joined(blocks, framing, chat)


def joined(blocks: list[dict[str, Any]], framing: collections.Counter,
           chat: bool = False) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """Blocks as turns (the model's consecutive blocks one turn), or None when they are no run: the model's
    blocks must write words and act (a call, or a tool's output under a block; not in a ``chat`` whose emoji
    name both sides), a person's prompt must be there."""
    turns: list[dict[str, Any]] = []
    calls = 0
    for block in blocks:
        content = "\n".join(block["lines"]).strip()
        if not content:
            framing["empty_block"] += 1
            continue
        calls += block["speaker"] == "assistant" and CALL.match(block["lines"][0]) is not None
        if turns and turns[-1]["speaker"] == block["speaker"] == "assistant":
            turns[-1]["content"] += "\n\n" + content
            continue
        turns.append({"speaker": block["speaker"], "content": content, "name": block["glyph"]})
    model = [t for t in turns if t["speaker"] == "assistant"]
    if not model or not any(t["speaker"] == "user" for t in turns):
        return None
    ran = any(t["speaker"] == "tool" and i and turns[i - 1]["speaker"] == "assistant" for i, t in enumerate(turns))
    if not calls and not ran and not chat:
        return None  # bullets and quotes on a page: the model's blocks ran nothing
    if sum(is_spoken(t["content"]) for t in model) * 2 < len(model):
        return None
    return turns, dict(+framing)
