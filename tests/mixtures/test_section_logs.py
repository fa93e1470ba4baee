"""Runs printed as labelled sections (``console-log``'s ``sections`` layout, ``sections.py``): each part of an
agent's cycle opens with a label whose words say what it is (the model's thought, plan or call; what running
it gave; what a person typed), the cycle recurs, the program's own prompts and counters are framing.

Fixture (tests/fixtures/transcript_inputs/README.md names source, commit and licence): AutoGPT's console of a
run pasted into a Markdown page (romanzubenko/agent-leaderboard). Expectations come from the raw file with
``re`` only.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemix.mixtures.transcript_formats import parse_text
from codemix.mixtures.transcript_formats.glyphs import glyph_turns
from codemix.mixtures.transcript_formats.sections import section_turns

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
AUTOGPT = INPUTS / "agent-leaderboard.raw_results.md"
pytestmark = pytest.mark.timeout(120)


def autogpt_reference(text: str) -> dict[str, list[str]]:
    """What the console holds, by ``re``: the person's request, each cycle's thought, each command's result,
    what the person typed, and the prompt lines the program prints after each action."""
    return {"task": re.findall(r"^I want Auto-GPT to:\s*(.+)$", text, re.MULTILINE),
            "thoughts": re.findall(r"^\S+ THOUGHTS:\s*(.+)$", text, re.MULTILINE),
            "actions": re.findall(r"^NEXT ACTION:\s*(.+)$", text, re.MULTILINE),
            "returned": re.findall(r"^SYSTEM:\s*(Command \S+ returned: .+)$", text, re.MULTILINE),
            "typed": re.findall(r"^Input:(.+)$", text, re.MULTILINE),
            "prompts": sorted(set(re.findall(r"^[ \t]+(Enter 'y' to authorise .+|Asking user via keyboard\.\.\.)$", text,
                                             re.MULTILINE)))}


def test_autogpt_console_reads_its_cycles_results_and_the_person_s_keyboard():
    """AutoGPT prints each cycle as ``NAME THOUGHTS:`` / ``REASONING:`` / ``PLAN:`` / ``NEXT ACTION:`` and each
    command's result as ``SYSTEM: Command x returned:``: the request is the person's turn, each cycle one model
    turn holding its thought and action, each result a tool's observation (never trained), each ``Input:`` the
    person's, and the program's prompts (``Enter 'y' to authorise ...``) in no turn."""
    text = AUTOGPT.read_text()
    ref = autogpt_reference(text)
    assert len(ref["task"]) == 1 and len(ref["thoughts"]) == 12 and len(ref["returned"]) == 10 and ref["prompts"]
    transcripts = parse_text(text)
    assert transcripts is not None and len(transcripts) == 1 and transcripts[0].format == "console-log"
    messages = transcripts[0].messages
    # the request, and the goals the program set from it before the first cycle (the person's side: context)
    assert messages[0]["role"] == "user" and messages[0]["content"].startswith(ref["task"][0].strip())
    model = [m["content"] for m in messages if m["role"] == "assistant"]
    assert len(model) == len(ref["thoughts"])
    assert all(thought.strip() in turn and action.strip() in turn
               for thought, action, turn in zip(ref["thoughts"], ref["actions"], model))
    tools = [m for m in messages if m["role"] == "tool"]
    assert [m["content"] for m in tools] == [r.strip() for r in ref["returned"]] and all(m["observation"] for m in tools)
    typed = [m["content"].split("\n")[0] for m in messages[1:] if m["role"] == "user"]
    assert typed == [t.strip() for t in ref["typed"]]
    assert not any(prompt in m["content"] for prompt in ref["prompts"] for m in messages)
    assert not any("returned:" in turn for turn in model)  # a result is never inside the model's turn


def test_labels_of_one_cycle_that_never_recurs_are_no_run():
    """One thought and one result (a page describing a cycle once) are no run: the model's part must recur."""
    page = "## Example\n\nThought: I should read the file.\nAction: read_file\nObservation: the file's text\n"
    assert section_turns(page) is None


@pytest.mark.parametrize("name", sorted(p.name for p in INPUTS.glob("not-*")))
def test_files_of_no_conversation_have_no_labelled_sections(name):
    """The controls of no conversation (API examples, a README, a bill of materials, a tutorial page) are no
    labelled-section run."""
    assert section_turns((INPUTS / name).read_text(errors="replace")) is None


@pytest.mark.timeout(60)  # a hang guard: a banner pattern once backtracked exponentially on rule-like lines
def test_long_rule_and_table_lines_are_read_in_linear_time():
    """Rule-like lines (a table's separator, a row of ``-=``) of thousands of characters are no banner and no
    label, and reading them does not backtrack without bound (the MOSS README took 42 s before the fix)."""
    page = "\n".join(["| a | b |", "|" + "-" * 20_000 + "|", "-=" * 10_000 + " x", "Thought: " + "a-" * 10_000] * 3)
    assert section_turns(page) is None


# the licensed capture of a coding agent's terminal among the inputs (Codex CLI's screen; its positive test is in
# test_text_exports.py, ``test_a_terminal_agent_s_input_bar_marks_the_person_s_lines``)
CAPTURES = frozenset({"agentic-mesh.codex-cli-transcript.lines-1-23-172-296.md"})


@pytest.mark.parametrize("name", sorted(p.name for p in INPUTS.glob("*.md") if p.name not in CAPTURES))
def test_pages_of_quotes_and_bullets_are_no_glyph_drawn_run(name):
    """Glyph-drawn captures (``glyphs.py``: ``> prompt``, ``⏺ text``, ``⏺ Read(x)`` and ``  ⎿  result``) need a
    prompt sign, a recurring model glyph and something run; Markdown pages of quotes and bullets (the AutoGPT
    page, a README, the smolagents and harmony docs) are none of them (the one capture among the inputs,
    ``CAPTURES``, is read by its own test)."""
    assert glyph_turns((INPUTS / name).read_text(errors="replace")) is None
