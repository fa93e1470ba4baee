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
from codemix.mixtures.transcript_formats.canonical import exported_call, is_spoken
from codemix.mixtures.transcript_formats.text_turns import CODE_LINE

PROMPT_SIGNS = frozenset(">❯›»")  # what a terminal prints before the line a person types
# (a no-break space may follow a glyph; an emoji may carry a variation selector, a skin tone, joined parts, a colon)
OPENER = re.compile(r"^(?P<indent>[ \t]*)(?P<glyph>\S)(?:[\ufe0f\U0001F3FB-\U0001F3FF]|\u200d\S)*:?[^\S\n]+(?P<text>\S.*)$")
# What an emoji's own Unicode name says it draws: a robot (the model) or a person (who types).
MODEL_GLYPH_WORDS = frozenset({"ROBOT"})
PERSON_GLYPH_WORDS = frozenset({"BUST", "SILHOUETTE", "ADULT", "PERSON", "MAN", "WOMAN", "BOY", "GIRL", "HUMAN"})
CALL = re.compile(r"^[A-Z][\w.-]*(?:[ \t]+-[ \t]+[\w .-]+)?\(.*\)[ \t]*$")  # ``Read(demo.md)``, ``Bash(pnpm test)``
MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
FRAME = re.compile(r"^[ \t]*[│├└┌┐┘┤┬┴┼╭╮╯╰─━═]")
TREE_LINE = re.compile(r"^[ \t]+[└├][ \t]+\S")  # (``  └ List ls``: a branch with words, indented under a block)
MAX_LINES = 200_000
SLASH_COMMAND = re.compile(r"^/[a-z][\w-]*[ \t]*$")  # a CLI's own command typed at its prompt (``/quit``)


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
    if not isinstance(text, str):
        return None
    lines = text.split("\n")[:MAX_LINES]
    top = collections.Counter(m.group("glyph") for line in lines if (m := OPENER.match(line)) and not m.group("indent")
                              and is_glyph(m.group("glyph")))
    bar = input_bar(lines, top)
    if bar is None and is_code(text):
        return None
    named = {g: side for g in top if top[g] >= 2 and (side := glyph_side(g))}
    chat = {"user", "assistant"} <= set(named.values())
    if MARKDOWN_HEADING.search(text) and not chat and bar is None:
        return None  # a Markdown page's ``>`` are quotes; a capture pasted into it is read from its fence
    prompts = PROMPT_SIGNS | {g for g, side in named.items() if side == "user"} if chat else PROMPT_SIGNS
    if bar is not None:  # the person's input drawn beside a bar: the other glyphs (``>`` too) are the model's
        prompts, chat = {bar}, True
    model_glyphs = {g for g, n in top.items() if g not in prompts and n >= 2}
    if chat and bar is None:
        model_glyphs = {g for g, side in named.items() if side == "assistant"}
    if not model_glyphs or not any(top[g] for g in prompts):
        return None
    blocks: list[dict[str, Any]] = []
    framing: collections.Counter[str] = collections.Counter()
    for line in lines:
        match = OPENER.match(line)
        glyph = match.group("glyph") if match and is_glyph(match.group("glyph")) else None
        if line.startswith(bar or "\x00") and blocks and blocks[-1]["glyph"] == bar:
            blocks[-1]["lines"].append(line[len(bar):].strip())  # the bar goes on beside every line the person typed
        elif glyph and not match.group("indent") and (glyph in prompts or glyph in model_glyphs):
            side = "user" if glyph in prompts else "assistant"
            if side == "user" and SLASH_COMMAND.match(match.group("text")):
                side = "command"  # (``> /quit``: the CLI's command, and what the CLI prints for it, no one's words)
            blocks.append({"speaker": side, "lines": [match.group("text")], "glyph": glyph})
        elif (glyph and match.group("indent") and blocks and blocks[-1]["speaker"] != "tool"
              and glyph not in prompts and glyph not in model_glyphs):
            blocks.append({"speaker": "tool", "lines": [match.group("text")], "glyph": glyph})
        elif blocks and blocks[-1]["speaker"] == "assistant" and TREE_LINE.match(line):
            blocks[-1]["lines"].append(line.strip())  # an action's details drawn as a tree under it: its text
        elif not blocks or (FRAME.match(line) and blocks[-1]["speaker"] != "tool"):
            framing["before_first_block" if not blocks else "frame_line"] += bool(line.strip())
        else:
            blocks[-1]["lines"].append(line.strip() if blocks[-1]["speaker"] != "tool" else line.rstrip())
    return joined(blocks, framing, chat)


def input_bar(lines: list[str], top: collections.Counter) -> str | None:
    """The glyph a terminal agent draws beside every line the person typed (Codex CLI's ``▌``), or None: it opens
    runs of lines three lines long on average, two runs or more, and stands alone beside the typed text's blank
    lines (a bullet never does)."""
    runs: collections.Counter[str] = collections.Counter()
    alone: collections.Counter[str] = collections.Counter()
    previous = None
    for line in lines:
        glyph = line[:1] if line[:1] in top and top[line[:1]] >= 4 else None
        runs[glyph] += glyph is not None and glyph != previous
        alone[glyph] += glyph is not None and not line[1:].strip()
        previous = glyph
    found = [g for g in runs if g is not None and g not in PROMPT_SIGNS and runs[g] >= 2 and top[g] >= 3 * runs[g]
             and alone[g]]
    return found[0] if len(found) == 1 else None


def described_action(block: dict[str, Any]) -> dict[str, Any] | None:
    """A model's block the CLI draws as an action with its details in a tree under it (Codex CLI's ``• Explored`` over
    ``└ List ls`` / ``Read README.md``, ``• Ran git status`` over ``└ On branch main``): a call the screen describes
    (its first word the call, the rest what the CLI wrote of it), not the model's words. None for any other block."""
    lines = [line for line in block["lines"] if line.strip()]
    if len(lines) < 2 or not lines[1].startswith("└"):
        return None
    name, _, rest = lines[0].partition(" ")
    details = "\n".join([rest.strip(), *(line.lstrip("└").strip() for line in lines[1:])]).strip()
    return exported_call(None, name, details)


def joined(blocks: list[dict[str, Any]], framing: collections.Counter,
           chat: bool = False) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """Blocks as turns (the model's consecutive blocks one turn), or None when they are no run: the model's
    blocks must write words and act (a call, or a tool's output under a block; not in a ``chat`` whose emoji
    name both sides), a person's prompt must be there."""
    turns: list[dict[str, Any]] = []
    calls = 0
    for block in blocks:
        content = "\n".join(block["lines"]).strip()
        if block["speaker"] == "command":
            framing["command"] += len([line for line in block["lines"] if line.strip()])
            continue
        if not content:
            framing["empty_block"] += 1
            continue
        calls += block["speaker"] == "assistant" and CALL.match(block["lines"][0]) is not None
        action = described_action(block) if block["speaker"] == "assistant" else None
        calls += action is not None
        if turns and turns[-1]["speaker"] == block["speaker"] == "assistant":
            turns[-1]["content"] = "\n\n".join(filter(None, [turns[-1]["content"], "" if action else content]))
            turns[-1]["calls"] = [*turns[-1].get("calls", []), *([action] if action else [])]
            continue
        turns.append({"speaker": block["speaker"], "content": "" if action else content, "name": block["glyph"],
                      "calls": [action] if action else []})
    model = [t for t in turns if t["speaker"] == "assistant"]
    if not model or not any(t["speaker"] == "user" for t in turns):
        return None
    ran = any(t["speaker"] == "tool" and i and turns[i - 1]["speaker"] == "assistant" for i, t in enumerate(turns))
    if not calls and not ran and not chat:
        return None  # bullets and quotes on a page: the model's blocks ran nothing
    said = [t for t in model if t["content"]]  # (a turn of actions alone says nothing, and is no bullet either)
    if sum(is_spoken(t["content"]) for t in said) * 2 < len(said):
        return None
    return turns, dict(+framing)


# A chat REPL's prompt (``ollama run``'s ``>>> ``, ``›``, ``»``): a sign of its own at a line's start, the person's words
# after it. A lone ``>`` is a quote (the glyph layout above reads it beside the model's glyphs).
# (goose draws its prompt as a face, ``( O)> ``)
REPL_PROMPT = re.compile(r"^(?P<sign>>{1,3}|[❯›»]|\([ \t]?[^\s()]{1,2}\)>|[\[(]?[A-Za-z][\w.-]{0,15}[\])]?[ \t]?(?:>{1,3}|[$❯›»]))"
                         r"[ \t]+(?P<text>\S.*)$")
QUOTE_SIGN = ">"  # a lone ``>`` quotes on a page: a REPL's sign only where the shell line that started the program shows
# A line alone naming who answers (``gemma3:12b:``, ``Assistant:``): the program's label over the reply it prints, which
# may open behind the prompt's sign again (``> Okay, let's break down...``).
REPLY_LABEL = re.compile(r"^[A-Za-z][\w.:-]{0,40}:[ \t]*$")
MULTILINE_INPUT = '"""'
# A call the CLI draws in the answer as a rule titled with the tool and its extension, its arguments under it as
# ``key: value`` lines (goose's ``─── shell | developer ───`` / ``command: ls``, the rule read as its title line):
# described, as the screen writes it.
TOOL_TITLE = re.compile(r"^(?P<name>[A-Za-z_][\w.-]*) \| [\w.-]+:\n(?P<args>(?:[a-z_]+:[^\n]*(?:\n|$))*)", re.MULTILINE)  # (``ollama run``: a prompt of several lines between triple quotes)
MIN_PROMPTS = 2
CONTINUED = "... "  # a REPL's sign for a typed line it wrapped or continued
THINK_CLOSE = re.compile(r"</think>")
# A shell's prompt and a command starting the chat REPL, just before its first prompt (``C:\\Users\\Ada>ollama run
# glm47``, ``$ ollama run llama3``): a command naming a model to run (``run``, ``chat``).
LAUNCH = re.compile(r"^(?:[A-Za-z]:\\[^>\n]*>|[^\n]{0,60}[$%#][ \t]+)[ \t]*[\w.-]+[ \t]+(?:run|chat)[ \t]+\S+", re.MULTILINE)
# Any program started from a shell prompt (``michael@Main-PC:~/agent$ python3 main.py``): enough for a lone ``>`` to be
# that program's prompt.
STARTED = re.compile(r"^[^\n]{0,80}[$%#❯][ \t]+(?:python3?|node|npx|uv|bun|deno|go|cargo|java|ruby|\./)[^\n]*$", re.MULTILINE)


def is_prose_prompt(text: str) -> bool:
    """What a person types to a chat model: words (three or more, three in four of letters alone), no code (``import os``,
    ``x = [1, 2]``, ``len(x)``: a Python session's ``>>>`` lines)."""
    words = text.split()
    wordy = sum(1 for w in words if w.strip("`'\"?!.,:;()").isalpha())  # (``llama3.2:1b``: a name, no word)
    return len(words) >= 3 and wordy * 4 >= len(words) * 3 and not is_code_prompt(text)


def is_code_prompt(text: str) -> bool:
    """A line of code typed at a prompt (``import os``, ``x = [1, 2]``, ``len(x)``)."""
    return CODE_LINE.match(text) is not None or re.search(r"(?<![=!<>])=(?!=)|\)\s*$", text) is not None


def repl_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """A chat REPL copied from a terminal (issue 45, round 15: ``ollama run llama3.2:1b`` then ``>>> How to use the
    fsck command?`` and the answer printed below it): the lines a prompt sign opens are what the person typed (a
    prompt in triple quotes runs to the closing quotes), what the REPL prints until the next prompt is the model's
    answer. The sign is the file's most frequent one; two prompts or more, two in three of them the person's words and
    none code (a Python session's ``>>> x = 1``), and most answered in words. A prompt that is a REPL command (``/bye``) and what
    follows it, and the lines before the first prompt, are framing, counted."""
    if not isinstance(text, str) or ">" not in text and not any(sign in text for sign in "❯›»"):
        return None
    lines = text.split("\n")[:MAX_LINES]
    # the sign before the person's words (a shell's ``❯ ollama run llama3.2:1b`` before them is a command)
    signs = collections.Counter(m.group("sign") for line in lines if (m := REPL_PROMPT.match(line))
                                and is_prose_prompt(m.group("text")))
    if not signs:
        return None
    sign = next((s for s, _ in signs.most_common() if s != QUOTE_SIGN), QUOTE_SIGN)
    if sign == QUOTE_SIGN and not STARTED.search("\n".join(lines[:next(i for i, line in enumerate(lines)
                                                                         if REPL_PROMPT.match(line))])):
        return None  # a page's quotes, no program started in view
    turns: list[dict[str, Any]] = []
    framing: collections.Counter[str] = collections.Counter()
    quoted = False  # inside a prompt of several lines
    labelled = False  # the program's label over the reply was the line before
    for index, line in enumerate(lines):
        match = REPL_PROMPT.match(line)
        if labelled and match and match.group("sign") == sign:
            turns[-1]["lines"].append(match.group("text"))  # the reply printed behind the prompt's sign again
            labelled = False
            continue
        labelled = False
        if turns and turns[-1]["speaker"] == "assistant" and not turns[-1]["lines"] and REPLY_LABEL.match(line):
            turns[-1]["name"] = line.strip().removesuffix(":")
            framing["reply_label"] += 1
            labelled = True
        elif quoted:
            turns[-2]["lines"].append(line)  # (the person's turn, before the answer it opened)
            quoted = not line.rstrip().endswith(MULTILINE_INPUT)
        elif turns and turns[-1]["speaker"] == "assistant" and not turns[-1]["lines"] and line.startswith(CONTINUED):
            turns[-2]["lines"][-1] += line[len(CONTINUED):]  # the terminal wrapped the typed line (``... n history?``)
        elif match and match.group("sign") == sign and not any(rest.strip() for rest in lines[index + 1:]):
            framing["waiting_prompt"] += 1  # the REPL waiting for the next message (``>>> Send a message``)
        elif match and match.group("sign") == sign and match.group("text").startswith("/"):
            turns.append({"speaker": "command", "lines": []})  # a REPL command: no one's words
            framing["repl_command"] += 1
        elif match and match.group("sign") == sign:
            typed = match.group("text")
            quoted = typed.startswith(MULTILINE_INPUT) and not (len(typed) > 3 and typed.rstrip().endswith(MULTILINE_INPUT))
            turns.append({"speaker": "user", "lines": [typed.removeprefix(MULTILINE_INPUT)]})
            turns.append({"speaker": "assistant", "lines": []})
        elif not turns or turns[-1]["speaker"] == "command":
            framing["before_first_prompt" if not turns else "after_command"] += bool(line.strip())
        else:
            turns[-1]["lines"].append(line)
    read = [{"speaker": t["speaker"], "content": "\n".join(t["lines"]).strip().removesuffix(MULTILINE_INPUT).strip(),
             "name": sign if t["speaker"] == "user" else t.get("name", "")} for t in turns if t["speaker"] != "command"]
    for turn in read:
        if turn["speaker"] == "assistant" and (calls := [exported_call(None, m.group("name"), m.group("args").strip())
                                                         for m in TOOL_TITLE.finditer(turn["content"])]):
            turn["content"], turn["calls"] = TOOL_TITLE.sub("", turn["content"]).strip(), calls
    for turn in read:  # reasoning the model printed before its answer, closed by ``</think>``
        if turn["speaker"] == "assistant" and (closed := THINK_CLOSE.search(turn["content"])) and \
                "<think>" not in turn["content"][:closed.start()]:
            turn["reasoning"], turn["content"] = turn["content"][:closed.start()].strip(), turn["content"][closed.end():].strip()
    typed = [t for t in read if t["speaker"] == "user"]
    answers = [t for t in read if t["speaker"] == "assistant" and t["content"]]
    prose = sum(is_prose_prompt(" ".join(t["content"].split())) for t in typed)  # (``Thanks!`` among questions)
    before = "\n".join(lines[:next((i for i, line in enumerate(lines) if REPL_PROMPT.match(line)), 0)])
    launched = bool(LAUNCH.search(before) or sign == QUOTE_SIGN and STARTED.search(before))
    if prose < (1 if launched else MIN_PROMPTS) or prose * 3 < len(typed) * 2 or \
            any(is_code_prompt(t["content"]) for t in typed):
        return None  # (one exchange is a REPL's when the shell line that started it is shown before it)
    if len(answers) * 2 < len(typed) + 1 or sum(is_spoken(t["content"]) for t in answers) * 2 < len(answers) + 1:
        return None
    return [t for t in read if t["content"] or t.get("calls")], dict(+framing)


# A program's own prompt before what the person types on the same line (a retrieval agent's ``Enter a question (or
# 'quit' to exit): <question>``): a sentence of two words or more ending in ``:``, ``>`` or ``?``.
PROMPTED = re.compile(r"^(?P<prompt>[A-Z][^\n:>?]{2,80}?[:>?])[ \t]+(?P<text>\S.*)$")
SECTION_LABEL = re.compile(r"^(?P<label>[A-Z][\w'-]*(?:[ \t][\w'-]+){0,3}):[ \t]*$")
REPLY_WORDS = frozenset({"answer", "response", "reply", "result", "output"})
EXIT_WORDS = frozenset({"quit", "exit", "bye", "q"})


def prompted_turns(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """A program's console where its own prompt, a sentence that recurs at line starts, is followed on the same line
    by what the person typed (round 17 FIT: ``Enter a question (or 'quit' to exit): What is the monthly token
    budget?``): the typed text is the person's, what the program prints until its next prompt the model's answer. In
    the answers, section labels alone on a line that open nine in ten of them (``Answer:``, ``Sources used:``) are
    the program's: the section a label of a reply's words opens is the answer, the others (the sources it retrieved,
    listed with scores) are its prints, left out. The prompt recurs twice or more, with the person's words; a typed
    ``quit`` and the lines before the first prompt are framing."""
    if not isinstance(text, str) or ":" not in text and ">" not in text and "?" not in text:
        return None
    lines = text.split("\n")[:MAX_LINES]
    typed_after = [(m.group("prompt"), m.group("text")) for line in lines if (m := PROMPTED.match(line))
                   and len(m.group("prompt").split()) >= 2 and is_prose_prompt(m.group("text"))]
    prompts = collections.Counter(prompt for prompt, _ in typed_after)
    if not prompts or (prompt := prompts.most_common(1)[0])[1] < MIN_PROMPTS + 1 or prompt[1] * 5 < len(typed_after) * 4:
        return None  # one prompt, three times or more, four in five of such lines (not labels of a program's prints)
    prompt = prompt[0]
    if sum("?" in text for p, text in typed_after if p == prompt) * 2 < prompts[prompt]:
        return None  # what people type at a program's prompt asks (labels of its prints state)
    turns: list[dict[str, Any]] = []
    framing: collections.Counter[str] = collections.Counter()
    for line in lines:
        typed = line[len(prompt):].strip() if line.startswith(prompt) else None
        if typed is not None and typed.lower() in EXIT_WORDS and not answered(lines, line, prompt):
            turns.append({"speaker": "command", "lines": []})  # the program's exit word, nothing answered after it
            framing["repl_command"] += 1
        elif typed is not None:
            turns += [{"speaker": "user", "lines": [typed]}, {"speaker": "assistant", "lines": []}]
        elif not turns or turns[-1]["speaker"] == "command":
            framing["before_first_prompt" if not turns else "after_command"] += bool(line.strip())
        else:
            turns[-1]["lines"].append(line)
    answers = [t for t in turns if t["speaker"] == "assistant"]
    labels = collections.Counter(label for t in answers for label in section_labels(t["lines"]))
    sectioned = [label for label, n in labels.items() if n * 10 >= 9 * len(answers)] if len(answers) >= 2 else []
    kept = next((label for label in sectioned if set(label.lower().split()) & REPLY_WORDS), None)
    for turn in answers if kept else []:
        turn["lines"], dropped = answer_section(turn["lines"], kept, set(sectioned))
        framing["program_sections"] += dropped
    read = [{"speaker": t["speaker"], "content": "\n".join(t["lines"]).strip(), "name": ""}
            for t in turns if t["speaker"] != "command"]
    said = [t for t in read if t["speaker"] == "assistant" and t["content"]]
    if len(said) < MIN_PROMPTS or sum(is_spoken(t["content"]) for t in said) * 2 < len(said) + 1:
        return None
    return [t for t in read if t["content"]], dict(+framing)


def answered(lines: list[str], line: str, prompt: str) -> bool:
    """Whether the program printed anything after this prompt line before its next prompt (an exit word it did not
    know is answered as a question: the person's turn)."""
    after = lines[lines.index(line) + 1:]
    stop = next((i for i, other in enumerate(after) if other.startswith(prompt)), len(after))
    return any(other.strip() for other in after[:stop]) and stop < len(after)


def section_labels(lines: list[str]) -> set[str]:
    return {match.group("label") for line in lines if (match := SECTION_LABEL.match(line))}


def answer_section(lines: list[str], kept: str, labels: set[str]) -> tuple[list[str], int]:
    """The lines under the ``kept`` label (to the next of ``labels``), and how many other sections were left out."""
    out, keeping, dropped = [], False, 0
    for line in lines:
        match = SECTION_LABEL.match(line)
        if match and match.group("label") in labels:
            keeping = match.group("label") == kept
            dropped += not keeping
            continue
        if keeping:
            out.append(line)
    return out, dropped


# An agent's header in a console a program prints: a glyph and the agent's name alone on a line, a rule under it, its
# message, and a rule closing it (``💬 Orchestrator`` / ``-----`` / ``Round 1 of 3`` / ``-----``).
RULE_LINE = re.compile(r"^[ \t]*([-=\u2500\u2501])\1{9,}[ \t]*$")
RULED_HEADER = re.compile(r"^(?P<glyph>\S)(?:[\ufe0f\U0001F3FB-\U0001F3FF]|\u200d\S)*[ \t]+"
                          r"(?P<name>[A-Z][\w'-]*(?:[ \t][A-Z][\w'-]*){0,2})[ \t]*$")
MIN_RULED = 4


def ruled_headers(text: str) -> tuple[list[dict[str, Any]], dict[str, int]] | None:
    """Agents' messages a program printed between rules (FIT, fourteenth holdout: a Groq multi-agent workflow's
    console, ``💬 Orchestrator``, ``🤔 Coder``, ``💻 Coder``, ``⚙️ Executor``), or None: four headers or more, two
    names or more, each recurring, nine in ten of the messages closed by a rule (a page's setext headings are not).
    No person speaks: the opener's messages (it states the task) are the context, the other agents' the model's,
    each message keeping its agent's name; the code the coder prints does not make it a page of code."""
    if not isinstance(text, str):
        return None
    lines = text.split("\n")[:MAX_LINES]
    heads = [(i, m.group("name")) for i, line in enumerate(lines[:-1]) if (m := RULED_HEADER.match(line))
             and is_glyph(m.group("glyph")) and RULE_LINE.match(lines[i + 1])]
    names = collections.Counter(name for _, name in heads)
    if len(heads) < MIN_RULED or len(names) < 2 or min(names.values()) < 2:
        return None
    turns: list[dict[str, Any]] = []
    closed = 0
    for index, (start, name) in enumerate(heads):
        body = lines[start + 2:heads[index + 1][0] if index + 1 < len(heads) else len(lines)]
        while body and not body[-1].strip():
            body.pop()
        closed += bool(body) and RULE_LINE.match(body[-1]) is not None
        while body and (not body[-1].strip() or RULE_LINE.match(body[-1])):
            body.pop()
        if content := "\n".join(body).strip():
            turns.append({"speaker": "user" if name == heads[0][1] else "assistant", "content": content, "name": name})
    if closed * 10 < len(heads) * 9 or sum(is_spoken(t["content"]) for t in turns) * 2 < len(turns):
        return None
    if not any(t["speaker"] == "assistant" for t in turns):
        return None
    return turns, {"before_first_header": sum(1 for line in lines[:heads[0][0]] if line.strip())}
