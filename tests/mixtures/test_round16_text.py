"""Issue 45, round 16 (b45l): text exports and terminal copies found in the round's development set before any code
changed (bench/traces_dev_extra.tsv, "round 16"), each read as a class. Sources without a licence are rebuilt here
from their layout, quoting a few of their words; each names its repository and commit."""

from __future__ import annotations

import re
from pathlib import Path

from codemix.mixtures.transcript_formats import parse_text
from tests.mixtures.reading import read_split as read

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
GEMINI_SCREEN = INPUTS / "ai-cli-log.gemini-screen.lines-1-36-173-213.txt"
AMP_THREAD = INPUTS / "ai-jup.amp-thread-024.lines-1-62.md"


def roles(transcript) -> list[str]:
    return [m["role"] for m in transcript.messages]


def test_a_gemini_cli_screen_reads_its_boxed_prompts_replies_and_tool_boxes():
    """Gemini CLI's screen captured by ai-cli-log (ISC): the person's prompt drawn in a box (``│  > ...  │``), the
    model's ``✦`` blocks, each tool's box one column in (``│ ✔  ReadFile ...``) the
    tool's turn; ``> /quit`` and the summary box the CLI prints for it are no one's words."""
    text = GEMINI_SCREEN.read_text()
    assert re.search(r"^╭─+╮\n│  > ", text, re.MULTILINE), "guard: a prompt drawn in a box"
    assert "│  > /quit  │" in text and "Agent powering down" in text, "guard: the CLI's own command and its summary"
    [run] = parse_text(text)
    assert roles(run) == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    assert run.messages[0]["content"].startswith("我打算调整 prompt")
    assert run.messages[2]["content"] == "ReadFile src/index.ts" and run.messages[2]["observation"]
    assert run.messages[4]["content"] == "请你执行 npm run build"
    assert not any("/quit" in m["content"] or "powering down" in m["content"] for m in run.messages)


def test_each_tool_result_block_in_a_person_s_section_is_a_tool_turn():
    """An Amp thread exported as Markdown (AnswerDotAI/ai-jup 6842503, MIT): the model's two calls are answered in
    one ``## User`` section of two ``**Tool Result:** `<id>``` blocks, one tool turn each."""
    text = AMP_THREAD.read_text()
    assert text.count("**Tool Use:**") == 2 and text.count("**Tool Result:**") == 2, "guard: two calls, two results"
    [run] = parse_text(text)
    assert roles(run) == ["user", "assistant", "tool", "tool", "assistant"]
    assert len(run.messages[1]["tool_calls"]) == 2
    assert [m["content"].split("`")[1] for m in run.messages[2:4]] == ["toolu_vrtx_01Gb5KMHcnZk94bSTrf19BB5",
                                                                      "toolu_vrtx_01S1jFoaJQr75wFQLVsfEWww"]


# Flemma's chat buffer (Flemma-Dev/flemma.nvim bea5e56, tests/fixtures/tool_calling/conversation_parallel_tools.chat,
# AGPL-3.0: its layout rebuilt, not its text).
FLEMMA = """@System:
You are a helpful assistant with a lookup tool.

@You:
Which two rivers meet at Koblenz, and how long is each?

@Assistant:
Let me look both up.

**Tool Use:** `lookup` (`toolu_01AAA`)

```json
{"river": "Rhine"}
```

**Tool Use:** `lookup` (`toolu_01BBB`)

```json
{"river": "Moselle"}
```

@You:
**Tool Result:** `toolu_01AAA`

```
1,233 km
```

**Tool Result:** `toolu_01BBB`

```
544 km
```

@Assistant:
The Rhine (1,233 km) and the Moselle (544 km) meet at the Deutsches Eck in Koblenz.
"""


def test_a_flemma_chat_buffer_reads_its_at_labels():
    """Flemma's ``@System:`` / ``@You:`` / ``@Assistant:`` labels alone on their lines are the turns' labels (``@You`` the
    person: the other label of the model's); the results block by block."""
    [run] = parse_text(FLEMMA)
    assert roles(run) == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert run.messages[1]["content"].startswith("Which two rivers")
    assert [c["name"] for c in run.messages[2]["tool_calls"]] == ["lookup", "lookup"]


# Continue's session transcript (yzmninglang/Algorithm_cpp c86f1de, Note/20260312T164221_session.md, no licence:
# its layout rebuilt, a few of its words quoted).
CONTINUE = """### [Continue](https://continue.dev) session transcript
 Exported: 3/12/2026, 4:42:21 PM

#### _User_

> 析构函数是不是不能传递参数

#### _Assistant_

> 是的，你的理解非常准确。在 C++ 中，**析构函数本身确实不能带有任何参数**。
> 
> ```cpp
> ~Tree() { destroyTree(root); }
> ```

#### _User_

> 那为什么要先释放子节点？

#### _Assistant_

> 因为先释放当前节点就会丢失指向子节点的指针。
> 
> > 先子后父：后序遍历。
"""


def test_italic_role_headings_over_bodies_the_exporter_quotes_whole():
    """``#### _User_`` / ``#### _Assistant_``: a heading's label set in italics is the label; every line of every
    turn quoted (``> ``) is the exporter's quoting, taken off one level (a quote inside a reply stays a quote)."""
    [run] = parse_text(CONTINUE)
    assert roles(run) == ["user", "assistant", "user", "assistant"]
    assert run.messages[0]["content"] == "析构函数是不是不能传递参数"
    assert run.messages[1]["content"].endswith("```cpp\n~Tree() { destroyTree(root); }\n```")
    assert run.messages[3]["content"].endswith("> 先子后父：后序遍历。")


def test_a_reply_quoting_something_is_not_the_exporter_s_quoting():
    """Where a turn quotes what someone said and the others do not, the quote is the speaker's: kept."""
    text = CONTINUE.replace("> 那为什么要先释放子节点？", "那为什么要先释放子节点？").replace(
        "> 析构函数是不是不能传递参数", "析构函数是不是不能传递参数")
    [run] = parse_text(text)
    assert run.messages[1]["content"].startswith("> 是的")


# An evaluation harness's Markdown run log (lgonzalez876/AgentEvals ecef803,
# data/agent_eval/humans_no-super_ceo-reward/claude-sonnet-4-20250514_run_001.md, no licence: its layout rebuilt).
AGENT_EVAL = """# Agent Evaluation: claude-sonnet-4-20250514 - Run 1

**Scenario:** reactor_crisis
**Tool Calls:** 3

---

## Conversation Log

* Agent Message: I've been woken up due to reactor damage. I need to read the ship logs first.

* Human Message: === CURRENT MISSION PLAN ===
[1] Read ship logs (pending)

* Tool Call: read_ship_logs(), scan_system_health(system=Reactor)

* Tool Output: === ARGO SHIP SYSTEM LOG ===
[09:24] ERROR: Primary reactor coolant line breach detected

* Tool Output: === REACTOR SYSTEM HEALTH ===
Current Output: 85.0 TW
Total Power Output: 85.0 TW

* Agent Message: The reactor runs at a third of its capacity; I will repair it.

* Human Message: === CURRENT MISSION PLAN ===
[1] Repair the reactor (pending)

* Tool Call: repair(system=Reactor)

* Tool Output: === REACTOR AUTO-REPAIR SEQUENCE ===
Reactor repaired to 60% capacity
"""


def test_markers_the_file_writes_alike_and_calls_written_after_a_call_label():
    """The run's markers are the ``* `` bullets; ``Current Output:`` and ``Total Power Output:`` lines inside a tool's
    output, written without the bullet, are that output's text. A ``Tool Call:`` bullet of ``name(args)`` calls is
    the model's turn of calls (described, as the log writes them), not its words."""
    [run] = parse_text(AGENT_EVAL)
    assert roles(run) == ["assistant", "user", "assistant", "tool", "tool", "assistant", "user", "assistant", "tool"]
    assert run.messages[4]["content"].endswith("Total Power Output: 85.0 TW")
    calls = run.messages[2]["tool_calls"]
    assert [(c["name"], c["arguments"], c["kind"]) for c in calls] == [
        ("read_ship_logs", "", "described"), ("scan_system_health", "system=Reactor", "described")]
    assert run.messages[2]["content"] == ""


# A hand-written agent's printed runs shown in a course lab's Markdown (Jabrail-Atakishiyev/m9-04-lab-tool-use-function-
# calling, the spent fourteenth holdout's row, no licence: its layout rebuilt).
LAB = """# Transcript — Tool Use Lab

## 1. Two-tool question

```
======================================================================
QUESTION: For order B2002, what would four of them cost?
======================================================================
  [tool call] lookup_order({'order_id': 'B2002'})
  [tool result] {'found': True, 'item': 'lamp', 'price': 40}
  [tool call] calculate({'expression': '40 * 4'})
  [tool result] {'result': 160}

FINAL ANSWER: Four lamps of order B2002 would cost $160.
```

## 2. No-tool question

```
======================================================================
QUESTION: What can you do?
======================================================================

FINAL ANSWER: I can look up orders and do arithmetic.
```
"""


def test_a_program_s_printed_runs_read_by_the_place_of_their_labels():
    """``QUESTION:`` and ``FINAL ANSWER:`` name no side; one opens every run before any call, the other closes it
    after the last result, and the bracketed ``[tool call]`` / ``[tool result]`` steps between them say a model
    called and a tool answered: each fenced run its own transcript, the answer ending with its fence."""
    runs = parse_text(LAB)
    assert [roles(r) for r in runs] == [["user", "assistant", "tool", "assistant", "tool", "assistant"],
                                        ["user", "assistant"]]
    first, second = runs
    assert first.messages[0]["content"] == "For order B2002, what would four of them cost?"
    assert [c["name"] for m in first.messages for c in m["tool_calls"]] == ["lookup_order", "calculate"]
    assert first.messages[-1]["content"] == "Four lamps of order B2002 would cost $160."
    assert second.messages[-1]["content"] == "I can look up orders and do arithmetic."


def test_question_and_answer_labels_without_calls_are_a_page_not_a_run():
    """A FAQ's ``Question:`` / ``Answer:`` lines take turns too, but nothing between them says anything ran: none."""
    faq = "\n\n".join(f"Question: How do I reset setting {n}?\nAnswer: Open the menu and press reset {n}." for n in range(4))
    assert parse_text(faq) is None


def test_a_screen_s_actions_drawn_with_their_details_in_a_tree_are_described_calls():
    """Codex CLI's interactive screen (Hulupeep/agentic-mesh, MIT; the spent fourteenth holdout's row, FIT): a ``•``
    block whose details the CLI draws as a tree under it (``• Explored`` / ``  └ List ls`` / ``    Read README.md``)
    is a call the screen describes, not the model's words (shown, never trained); its other ``•`` blocks are its
    words. The person's next prompt, after calls that show no result, stays the person's."""
    text = (INPUTS / "agentic-mesh.codex-cli-transcript.lines-1-23-172-296.md").read_text()
    assert "• Explored\n  └ List ls\n    Read README.md" in text, "guard: an action and its tree"
    [run] = parse_text(text)
    assert roles(run) == ["user", "assistant", "user"]
    model = run.messages[1]
    assert [c["name"] for c in model["tool_calls"]] == ["Explored"] * 6
    assert model["tool_calls"][0]["arguments"] == "List ls\nRead README.md"
    assert {c["kind"] for c in model["tool_calls"]} == {"described"}
    assert "Explored" not in model["content"] and "List ls" not in model["content"]
    assert model["content"].startswith("I’m focusing on inspecting the kernel directory")
    assert not run.messages[2]["observation"]


# An agent-trace page (the spent fourteenth holdout's HTML row, no licence: its layout rebuilt, FIT): numbered cards
# with a data-role, a model's card holding its calls under a caption and a dump of its empty fields, results as
# cards of their own.
TRACE_PAGE = """<html><body><div id="traceContainer">
<div class="trace-item" data-role="user"><div class="trace-header"><span>#2 - USER</span></div>
<div class="trace-content"><div class="content-text">Can you look at the issues in my repo "pacman"?</div></div></div>
<div class="trace-item" data-role="assistant"><div class="trace-header"><span>#3 - ASSISTANT</span></div>
<div class="trace-content"><div class="tool-calls"><strong>🔧 Tool Calls:</strong>
<div class="tool-call"><div class="tool-call-header">Tool #1: github-list_issues</div>
<div class="json-content">{"repo": "pacman"}</div></div></div>
<div class="json-content">{ "function_call": null, "annotations": [] }</div></div></div>
<div class="trace-item" data-role="tool"><div class="trace-header"><span>#4 - TOOL</span></div>
<div class="trace-content"><div class="content-text">{"issues": [{"number": 42, "title": "Add a README"}]}</div></div></div>
<div class="trace-item" data-role="assistant"><div class="trace-header"><span>#5 - ASSISTANT</span></div>
<div class="trace-content"><div class="content-text">There is one open issue: #42, add a README.</div>
<div class="json-content">{ "function_call": null, "annotations": [] }</div></div></div>
</div></body></html>"""


def test_a_trace_page_s_card_is_one_turn_its_caption_and_empty_fields_no_one_s():
    """A model's card is one turn: its calls (results are cards of their own, so a call's body is what it was given),
    the caption the page writes over them and the dump of its empty fields no one's words."""
    [run] = parse_text(TRACE_PAGE)
    assert roles(run) == ["user", "assistant", "tool", "assistant"]
    assert run.messages[1]["content"] == "" and run.messages[1]["tool_calls"][0]["arguments"] == '{"repo": "pacman"}'
    assert run.messages[3]["content"] == "There is one open issue: #42, add a README."


# goose's interactive CLI copied from a terminal (its layout as goose prints it: the session banner, the ``( O)> ``
# prompt, a call drawn as a rule titled with the tool and its extension over its arguments; rebuilt, the words ours).
GOOSE = """starting session | provider: openai model: gpt-4o
    logging to /Users/someone/.local/share/goose/sessions/20250422_082219.jsonl
    working directory: /Users/someone/project

Goose is running! Enter your instructions, or try asking what goose can do.

( O)> tell me about this directory
I'll take a look at the directory structure first.
─── shell | developer ──────────────────────────
command: ls

This directory holds a monorepo with config, docs and packages.

( O)> what is in the docs folder?
─── shell | developer ──────────────────────────
command: ls docs

The docs folder holds the architecture notes and a getting-started guide.
"""


def test_goose_s_face_prompt_and_its_titled_tool_rules():
    """goose's ``( O)> `` prompt is a REPL's prompt sign; a rule titled ``shell | developer`` over ``command: ls`` is a
    call the screen describes, not the model's words."""
    [run] = parse_text(GOOSE)
    assert roles(run) == ["user", "assistant", "user", "assistant"]
    assert run.messages[0]["content"] == "tell me about this directory"
    assert [(c["name"], c["arguments"], c["kind"]) for c in run.messages[1]["tool_calls"]] == [
        ("shell", "command: ls", "described")]
    assert "command: ls" not in run.messages[1]["content"] and "shell | developer" not in run.messages[1]["content"]


def _headed(first: str, second: str, pairs: list[tuple[str, str]], level: str = "##") -> str:
    return "\n\n".join(f"{level} {first}\n\n{a}\n\n{level} {second}\n\n{b}" for a, b in pairs)


CHAT_ES = [("¿Cómo instalo el paquete en Linux?", "Con pip install paquete; después comprueba la versión."),
           ("¿Y cómo lo actualizo después?", "Usa pip install --upgrade paquete."),
           ("¿Puedo desinstalarlo sin perder la configuración?", "Sí: pip uninstall no borra tu archivo de configuración.")]


def test_ascii_turn_labels_in_another_language_learnt_from_the_file():
    """``## Usuario`` / ``## Asistente`` (a Spanish export; round 15 left ASCII labels to the role words): the only two
    headings of their form, taking turns three times, the opener's turns asking: a person's and a model's."""
    [run] = parse_text(_headed("Usuario", "Asistente", CHAT_ES))
    assert roles(run) == ["user", "assistant"] * 3
    assert run.messages[0]["content"] == "¿Cómo instalo el paquete en Linux?"


def test_a_page_of_problems_and_solutions_is_no_chat():
    """The same layout as a page's sections: a troubleshooting page's ``## Problem`` / ``## Solution`` states its
    problems (none asks), or sits under each item's own heading: none."""
    stated = [("The build fails with a missing header.", "Install the dev package first."),
              ("The service does not start after an upgrade.", "Clear the cache folder, then restart it."),
              ("Logs are empty.", "Set the log level to info?")]
    assert parse_text(_headed("Problem", "Solution", stated)) is None
    items = "\n\n".join(f"# Issue {n}\n\n" + _headed("Problem", "Solution", [pair]) for n, pair in enumerate(CHAT_ES))
    assert parse_text(items) is None


# An agent's step log under headings naming each step's part (kakaCat/manus-learn, the spent eighth holdout's row, no
# licence: its layout rebuilt, a few of its words quoted).
STEP_LOG = "".join(
    f"\n## [2026-01-25 20:39:1{n}] Execution Update\n\n### Step {n} - Thought\n\n{thought}\n\n"
    f"\n## [2026-01-25 20:39:1{n}] Execution Update\n\n### Step {n} - Tool Call\n\n**Tool**: `{tool}`\n**Args**: ```json\n{{}}\n```\n\n"
    f"\n## [2026-01-25 20:39:1{n}] Execution Update\n\n### Step {n} - Tool Result\n\n```\n{result}\n```\n"
    for n, thought, tool, result in [
        (1, "我将帮您规划哈尔滨7日游的每日行程。首先让我了解一下可用的资源。", "list_allowed_directories", "/root/shared/workspace"),
        (2, "", "list_directory", "[DIR] travel_plans"),
        (3, "现在我来读取旅行计划。", "read_file", "Day 1: Central Street")])


def test_a_step_log_under_part_headings_opened_by_a_statement_in_chinese(tmp_path: Path):
    """``### Step N - Thought`` / ``Tool Call`` / ``Tool Result``: the thought and the call one model turn, the result
    the tool's; the ``Execution Update`` headings the log repeats are its furniture. No request: the opening step
    says in eight letters or more of Chinese what it sets out to do (its runs of letters are clauses, not four words),
    so it is the run's context (an observation), not refused."""
    [run] = parse_text(STEP_LOG)
    assert roles(run) == ["assistant", "tool"] * 3
    assert [c["name"] for m in run.messages for c in m["tool_calls"]] == ["list_allowed_directories", "list_directory",
                                                                          "read_file"]
    assert not any("Execution Update" in (m["content"] + m["reasoning"]) for m in run.messages)
    path = tmp_path / "task_5_Agent-general.md"
    path.write_text(STEP_LOG)
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1
    assert docs[0].metadata["messages"][0]["observation"] and docs[0].metadata["messages"][0]["role"] == "assistant"


# FIT, fifteenth holdout (spent at b45p's 22:20 run): two of its text rows, their layouts rebuilt (no licence), a few
# of their words quoted.
WRITE_UP = "# AI Agent 協作開發對話紀錄\n\n---\n\n" + "\n\n---\n\n".join(
    f"### 💬 步驟{n}：{title}\n\n**【使用者 (User)】：**\n> {ask}\n\n**【AI Agent】：**\n> （{did}）"
    for n, title, ask, did in [("一", "建立基本網頁", "請寫一個網頁，內容包含我的姓名和現在時間", "自動撰寫並生成了 `index.html`"),
                               ("二", "建立 README", "請幫我寫一個README.md", "生成了第一版的 `README.md`"),
                               ("三", "匯出對話", "可以把我們的對話匯出成一個md嗎？", "建立了這份 `ai_conversation.md` 檔案")]) + "\n"


def test_bold_bracketed_labels_with_an_aside_over_quoted_turns():
    """``**【使用者 (User)】：**`` / ``**【AI Agent】：**``: a bracketed label set in bold with an aside and a colon; every
    turn quoted whole is the writer's quoting; the rule and the next step's title after a turn are the page's."""
    [run] = parse_text(WRITE_UP)
    assert roles(run) == ["user", "assistant"] * 3
    assert run.messages[0]["content"] == "請寫一個網頁，內容包含我的姓名和現在時間"
    assert run.messages[1]["content"] == "（自動撰寫並生成了 `index.html`）"


CONSOLE = """===== run @ 2026-04-26T22:07:15 =====
================================================================
  Earthquake Intelligence Agent — interactive mode
  Model: gemini-2.5-flash-lite
  Tools: geocode_location, fetch_recent_earthquakes
================================================================

================================================================
  USER: How far was the most recent earthquake from Bangalore?
================================================================

--- Iteration 1 ---
LLM raw: {"thought": "Need coordinates for Bangalore first.", "tool_name": "geocode_location"}
  -> tool call: geocode_location({'place': 'Bangalore'})
  -> result: {"lat": 12.97, "lon": 77.59}

--- Iteration 2 ---
LLM raw: {"thought": "Now the recent quakes near it.", "tool_name": "fetch_recent_earthquakes"}
  -> tool call: fetch_recent_earthquakes({'lat': 12.97, 'lon': 77.59})
  -> result: {"count": 1, "quakes": [{"place": "Parapat, Indonesia", "magnitude": 4.6}]}

--- Iteration 3 ---
LLM raw: {"thought": "I have the answer.", "answer": "It was near Parapat, Indonesia, about 3,000 km away."}

================================================================
  AGENT ANSWER: It was near Parapat, Indonesia, about 3,000 km away.
================================================================

You: 
================================================================
  USER: And how strong was it?
================================================================

--- Iteration 1 ---
LLM raw: {"thought": "The last result says it.", "answer": "It was a magnitude 4.6 earthquake."}

================================================================
  AGENT ANSWER: It was a magnitude 4.6 earthquake.
================================================================
"""


def test_a_console_log_of_calls_and_results_is_read_by_its_markers_not_by_names():
    """``USER:``, ``LLM raw:``, ``-> tool call:``, ``-> result:``: a program's markers of calls and results (each twice
    or more) are read as markers, not as the speakers ``Model:`` and ``Tools:`` its banner prints; the banner before
    the person's first turn is framing."""
    [run] = parse_text(CONSOLE)
    assert run.format == "marker-turns"
    assert roles(run)[:4] == ["user", "assistant", "tool", "assistant"]
    assert run.messages[0]["content"] == "How far was the most recent earthquake from Bangalore?"
    assert [c["name"] for m in run.messages for c in m["tool_calls"]] == ["geocode_location", "fetch_recent_earthquakes"]
