"""Runs an agent framework printed as console text (``console-log``): actor headers found by their shape and
repetition, sides by who opens and whose words are delivered, framing counted.

Fixtures (tests/fixtures/transcripts/README.md names source, commit and licence): TinyTroupe's
``Simple Chat.ipynb`` (its run cells) and CAMEL's ``workforce_judge_committee.ipynb``. Expectations come from
the raw files with ``json`` and ``re`` only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codemix.mixtures.transcript_formats import parse_json_value, parse_text
from codemix.mixtures.transcript_formats.consolelog import MAX_LINES, console_views, record_prefix

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CONSOLE = FIXTURES / "transcripts" / "console-log"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
pytestmark = pytest.mark.timeout(120)


def cell_outputs(path: Path) -> list[tuple[str, str]]:
    """``(source, printed text)`` of each code cell, colours removed (the reference reading of a notebook)."""
    cells = json.loads(path.read_text())["cells"]
    return [("".join(c["source"]), ANSI.sub("", "".join("".join(o.get("text", [])) or "".join(
        o.get("data", {}).get("text/plain", [])) for o in c.get("outputs", [])))) for c in cells if c["cell_type"] == "code"]


def squeeze(text: str) -> str:
    return " ".join(text.split())


def quoted_blocks(text: str, header: str) -> list[str]:
    """The quoted lines (``   > ...``) under each line matching ``header``, joined."""
    return [squeeze(" ".join(re.findall(r"^[ \t]*> ?(.*)$", m.group("quoted"), re.MULTILINE)))
            for m in re.finditer(header + r"[^\n]*\n(?P<quoted>(?:[ \t]*>.*\n?)*)", text, re.MULTILINE)]


def test_tinytroupe_run_reads_its_people_not_the_copies_delivered():
    """TinyTroupe prints each act (``Name acts: [TALK]``) and again each delivery of it (``Name --> Other:
    [CONVERSATION]``): one transcript, the person's message a user turn, every TALK inside its speaker's model
    turn, no delivered copy a message, and the agents' views printed again by later cells no second run."""
    path = CONSOLE / "tinytroupe.simple-chat.run-cells.ipynb"
    run = next(text for source, text in cell_outputs(path) if "world.run" in source)
    talks = quoted_blocks(run, r"^\S[^\n]*? acts: \[TALK\]")
    acts = set(quoted_blocks(run, r"^\S[^\n]*? acts: \[[A-Z_]+\]"))
    asked = quoted_blocks(run, r"^USER --> [^\n]*: \[CONVERSATION\]")
    delivered = quoted_blocks(run, r"^\S[^\n]*? --> [^\n]*: \[[A-Z_]+\]")
    assert len(talks) == 8 and len(asked) == 1  # the fixture holds the run this test is about
    transcripts = parse_json_value(json.loads(path.read_text()))
    assert len(transcripts) == 1 and transcripts[0].format == "console-log"
    messages = transcripts[0].messages
    assert messages[0]["role"] == "user" and squeeze(messages[0]["content"]) == asked[0]
    model = [squeeze(m["content"]) for m in messages if m["role"] == "assistant"]
    assert all(any(talk in turn for turn in model) for talk in talks)
    # what reaches a person from outside (the user, the room) is context; a delivered act is no turn again
    outside = [d for d in dict.fromkeys(delivered) if d and d not in acts]
    assert [squeeze(m["content"]) for m in messages if m["role"] == "user"] == outside
    assert {m["name"] for m in messages if m["role"] == "assistant"} == {"Lisa Carter acts", "Oscar acts"}


def test_tinytroupe_log_records_are_framing_counted_by_the_prefix_the_file_shares():
    """The run's cell interleaves Python logging records (``2025-08-09 13:50:53,470 - tinytroupe - INFO -
    ...``): the prefix is found from the file itself, and every record is counted as framing, none a turn."""
    path = CONSOLE / "tinytroupe.simple-chat.run-cells.ipynb"
    run = next(text for source, text in cell_outputs(path) if "world.run" in source)
    records = re.findall(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - \w+ - [A-Z]+ - .*$", run, re.MULTILINE)
    assert len(records) >= 3
    assert record_prefix([line for line in run.split("\n") if line.strip()]) is not None
    transcript = parse_json_value(json.loads(path.read_text()))[0]
    assert transcript.extra["console"]["framing"]["log_record"] == len(records)
    assert not any("Running world simulation" in m["content"] for m in transcript.messages)


def test_camel_workforce_tasks_are_asked_and_replies_answer():
    """CAMEL's Workforce prints ``Worker node N (role) get task T: ...`` and ``Reply from Worker node N
    (role):`` between rules: the shape that opens gives the tasks (user turns), the other the replies."""
    path = CONSOLE / "camel.workforce_judge_committee.ipynb"
    text = next(text for _, text in cell_outputs(path) if "Reply from Worker node" in text)
    tasks = re.findall(r"^=*Worker node \d+ \(.*\) get task [\d.]+: (.*)$", text, re.MULTILINE)
    replies = re.findall(r"^=*Reply from Worker node \d+ \((.*)\):$", text, re.MULTILINE)
    assert len(tasks) == len(replies) == 6
    transcripts = parse_json_value(json.loads(path.read_text()))
    assert len(transcripts) == 1
    messages = transcripts[0].messages
    assert [m["role"] for m in messages] == ["user", "assistant"] * 6
    assert [squeeze(m["content"]) for m in messages[::2]] == [squeeze(t) for t in tasks]
    assert all(m["name"].startswith("Reply from Worker node") for m in messages[1::2])
    assert transcripts[0].extra["console"]["framing"]["rule"] == len(re.findall(r"^=+", text, re.MULTILINE))


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "transcript_inputs").glob("not-*")))
def test_files_of_no_conversation_are_no_console_log(name):
    """Control: the fixtures of no conversation are not read as a console log (nor by any text format)."""
    text = (FIXTURES / "transcript_inputs" / name).read_bytes().decode("utf-8", "replace")
    assert parse_text(text, forced="console-log") is None


def test_a_page_s_fenced_console_run_of_a_task_panel_and_titled_steps():
    """smolagents' guided tour pastes a run's console into a fence: a task panel (``╭── New run ──╮``), titled
    steps (``━━━ Step 0 ━━━``) holding the code the model wrote in a panel, then what running it gave
    (``Execution logs:``, ``Out:``). The task is the person's, each step's code the model's, the rest the
    tool's output; borders, rules and the steps' footers are framing."""
    text = (FIXTURES / "transcript_inputs" / "smolagents.guided_tour.md").read_text()
    block = next(b for b in re.findall(r"^```text\n(.*?)^```", text, re.MULTILINE | re.DOTALL) if "New run" in b)
    task = squeeze(" ".join(re.findall(r"^│ (.*?)\s*│$", block.split("╰")[0], re.MULTILINE)))
    code = [squeeze(" ".join(re.findall(r"^│\s+(\d+ .*?)\s*│$", panel, re.MULTILINE)))
            for panel in re.findall(r"╭─ Executing this code.*?╰", block, re.DOTALL)]
    assert task.startswith("Can you give me") and len(code) == 2  # the fixture holds the run this test is about
    transcripts = parse_text(text, forced="console-log")
    assert transcripts is not None and len(transcripts) == 1
    messages = transcripts[0].messages
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("user", False), ("assistant", False), ("tool", True), ("assistant", False), ("tool", True)]
    assert squeeze(messages[0]["content"]) == task
    assert [squeeze(m["content"]) for m in messages if m["role"] == "assistant"] == code
    assert transcripts[0].extra["console"]["framing"]["step_footer"] == len(re.findall(r"^\[Step \d+:", block, re.MULTILINE))


def test_a_framework_log_of_the_model_s_steps_is_one_model_turn_per_step():
    """LaVague logs each World Model step as a record (``2024-06-10 14:00:10,889 - INFO - Thoughts:``) whose
    message goes on over unprefixed lines (``Next engine:``, ``Instruction:``): after the records' prefix
    (found from the file) is cut, each record that opens a step is one model turn holding the whole step; the
    other records (``Screenshot folder cleared``) are no turn. The task is not in the log: the notebook showed
    it (``!cat demo_wikipedia.feature``, the file the run's cell names), the one user turn before the steps."""
    path = FIXTURES / "transcript_inputs" / "lavague.demo_lavague_QA.ipynb"
    run = next(text for _, text in cell_outputs(path) if " - INFO - Thoughts:" in text)
    steps = re.findall(r"^\d{4}-\d\d-\d\d [\d:,]+ - INFO - Thoughts:\n(.*?)(?=^\d{4}-\d\d-\d\d |\Z)", run,
                       re.MULTILINE | re.DOTALL)
    instructions = re.findall(r"^Instruction: (.*)$", run, re.MULTILINE)
    assert len(steps) == len(instructions) >= 4  # the fixture holds the log this test is about
    transcripts = parse_json_value(json.loads(path.read_text()))
    assert len(transcripts) == 1 and transcripts[0].extra["layout"] == "logged-steps"
    task, *messages = transcripts[0].messages
    assert task["role"] == "user" and task["content"].startswith("Feature: Wikipedia Login")
    assert [m["role"] for m in messages] == ["assistant"] * len(steps)
    assert all(squeeze(step) in squeeze(m["content"]) for step, m in zip(steps, messages))
    assert not any("Screenshot folder cleared" in m["content"] for m in messages)


def test_dated_lines_whose_shared_part_ends_in_a_label_have_no_record_prefix():
    """Lines that share a date and then a speaker's label (``2024-01-01 12:00 Alice: ...``, a chat export):
    the shared part ends in a label, so no record prefix is cut (and reading does not fail)."""
    lines = [f"2024-01-0{d} 12:0{d} {who}: message number {d} from {who}" for d in range(1, 8)
             for who in ("Alice", "Bob")]
    assert record_prefix(lines) == "9-9-9 9:9 "
    assert record_prefix([line.replace(" 12:0", "") for line in lines]) == "9-9-9 "


def test_a_text_past_the_line_cap_with_no_frame_is_no_second_view():
    """A text longer than the readers' line cap, drawn with no panel or rule, has no view of its own to try: cut at
    the cap it differed from the text and every format read it a second time (the hostile-labels test's doubled
    time just past the cap). A framed text past the cap still has its unframed view."""
    plain = "甲：\n乙：\n" * (MAX_LINES // 2 + 10)
    assert plain.count("\n") > MAX_LINES, "guard: past the cap"
    assert console_views(plain) == []
    framed = "╭─ Agent ─╮\n│ hello │\n╰─────────╯\n" + plain
    assert [framing for _, framing in console_views(framed)] == [{"panel_border": 1}]
