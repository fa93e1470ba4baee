"""Chats and runs written as text (issue 45, round 11): agents talking with no person (headed turns of named
agents between a harness's prompts), and source files that are never runs, whatever their docstrings print.

Fixtures (tests/fixtures/transcript_inputs/README.md names source, version or commit, and licence).
Expectations come from the raw files with ``re`` only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codemix.document import Document
from codemix.mixtures.transcript_formats import has_task, parse_text
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(("name", "labels"), [
    # a chatbot's example dialogue in a docstring's fence: ``Human:`` printed, ``Bot:`` replies
    ("not-transformers-modeling_blenderbot.py", r"^\s*(?:>>> print\(\"Human: \"|Bot:)"),
    # docstring sections ``Input:`` / ``Output:`` / ``Args:`` / ``Keyword args:`` over 1,491 lines of docstrings
    ("not-torch-_torch_docs.lines-1-1491.py", r"^\s*(?:Input|Output|Args|Keyword args):"),
])
def test_a_source_file_with_labelled_docstrings_is_no_run(name: str, labels: str):
    """A Python module (it imports, defines functions or classes) is code whatever its docstrings hold: the
    labelled lines of its examples and sections (``Bot:``, ``Input:``, ``Args:``) are never turns, though the
    file's code share is low (``_torch_docs.py`` is nearly all docstrings)."""
    text = (INPUTS / name).read_text()
    assert len(re.findall(labels, text, re.MULTILINE)) >= 4  # the fixture holds the labelled lines
    assert re.search(r"^(?:import|from) \S+", text, re.MULTILINE)
    assert parse_text(text) is None


def test_a_page_whose_printed_type_fields_are_objects_is_no_run_and_no_crash():
    """awscli's example prints JSON whose ``type`` fields are objects (``"type": {"measurement": {}}``): the
    printed-object reader asks whether each is a content block and must answer no, not raise."""
    text = (INPUTS / "not-awscli-iotsitewise-update-asset-model.rst").read_text()
    assert re.search(r'"type": \{', text)
    assert parse_text(text) is None


def test_two_models_debating_under_a_referee_s_headings_train_the_models_only():
    """Two models debate (``## Idealist (anthropic: ...)``, ``## Cost Cutter (openai: ...)``), a referee's
    ``## System Prompt`` before each turn; no person speaks. Every heading is one message; the agents' turns
    are the model's (each answers the referee's prompt and the other's argument); the referee's prompts are
    context (the first states the task), never trained."""
    text = (INPUTS / "ai-design-theater.code-editor.conversation.md").read_text()
    sections = re.findall(r"^## (.+)\n\n(.+)", text, re.MULTILINE)
    agents = [first for heading, first in sections if heading != "System Prompt"]
    assert len(sections) == 27 and len(agents) == 13 and {h for h, _ in sections} > {"System Prompt"}
    transcripts = parse_text(text)
    assert transcripts is not None and len(transcripts) == 1
    messages = transcripts[0].messages
    assert len(messages) == len(sections) and has_task(messages)
    model = [m["content"] for m in messages if m["role"] == "assistant"]
    assert [turn.split("\n")[0] for turn in model] == agents
    assert not any("REFEREE" in turn or "ROUND" in turn.split("\n")[0] for turn in model)


def test_a_source_s_speakers_choose_which_agent_is_trained(tmp_path):
    """Which agent of a debate is trained is configurable: the source's ``speakers`` give the names the text
    formats read (the headings' agents) their roles; here the Cost Cutter is trained and the Idealist is
    context, the reverse of the default (both agents answer the referee)."""
    from codemix.document import Document
    from codemix.pipelines.readers import read_location
    from codemix.sources import SourceConfig

    path = INPUTS / "ai-design-theater.code-editor.conversation.md"
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)],
                          speakers={"Idealist": "user"})
    docs = [o for o in read_location(source, str(path)) if isinstance(o, Document)]
    assert len(docs) == 1
    messages = docs[0].metadata["messages"]
    idealist = [m for m in messages if m["name"].startswith("Idealist")]
    cutter = [m for m in messages if m["name"].startswith("Cost Cutter")]
    assert idealist and cutter and len(idealist) + len(cutter) == 13
    assert all(m["role"] == "user" for m in idealist) and all(m["role"] == "assistant" for m in cutter)


def test_an_export_shown_in_a_readme_s_fence_reads_its_emoji_headed_turns_and_ends_with_the_fence():
    """The Claude Chat Export Tool's README shows an export in a fence: ``## 👤 User`` / ``## 🤖 Claude``
    headings (an emoji before the speaker). Each heading is a turn, User the person, Claude the model; the
    folded ``🧠 Reasoning`` block is the reply's reasoning (masked by default), not its text nor a tool's
    output; the last turn ends with the fence, not with the README's ``## Requirements`` after it."""
    text = (INPUTS / "claude-chat-export-tool.README.md").read_text()
    users = re.findall(r"^## 👤 User\n\n(.+)", text, re.MULTILINE)
    claude = re.findall(r"^## 🤖 Claude$", text, re.MULTILINE)
    assert len(users) == 3 and len(claude) == 2 and "## Requirements" in text
    transcripts = parse_text(text)
    assert transcripts is not None and len(transcripts) == 1
    messages = transcripts[0].messages
    assert [m["content"] for m in messages if m["role"] == "user"] == users
    assert len([m for m in messages if m["role"] == "assistant"]) == len(claude)
    assert len(messages) == len(users) + len(claude)  # one message per heading
    assert not any("Requirements" in m["content"] or "Reasoning" in m["content"] for m in messages)
    thinking = re.search(r"<summary>🧠 Reasoning \(5s\)</summary>\n\n(.+?)\n", text).group(1)
    assert messages[1]["reasoning"].startswith(thinking)  # the folded thinking is the reply's reasoning


def test_numbered_message_headings_with_written_calls_and_results_are_read():
    """CodeRhapsody's conversation history (``## Message 21 - User`` / ``## Message 22 - Assistant``, issue 45
    round 12): each numbered heading opens a turn; a ``**Tool Call**:`` fence of ``{"input": {...}, "name": ...}``
    in a reply is the model's call (its arguments the object's ``input``), a ``**Tool Result**:`` under the
    person's heading the tool's turn (an observation); the reply's own headings (``## ✅ Git Status``) stay in it."""
    text = (INPUTS / "coderhapsody.hints-refactor-single-queue.md").read_text()
    sections = re.split(r"^## Message \d+ - (?:User|Assistant)$", text, flags=re.MULTILINE)[1:]
    calls = [json.loads(c) for c in re.findall(r"^\*\*Tool Call\*\*:\s*```json\n(.*?)\n```", text, re.MULTILINE | re.DOTALL)]
    results = re.findall(r"^\*\*Tool Result\*\*:", text, re.MULTILINE)
    assert len(sections) >= 8 and len(calls) == len(results) >= 3 and "## ✅ Git Status" in text
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert len(messages) == len(sections)  # one per heading: a reply's call and a result stay one turn each
    read_calls = [c for m in messages for c in m["tool_calls"]]
    assert [(c["name"], json.loads(c["arguments"])) for c in read_calls] == [(c["name"], c["input"]) for c in calls]
    assert all(m["role"] == "tool" and m["observation"] for m in messages if m["content"].startswith("```\n**Handle**"))
    assert sum(m["role"] == "tool" for m in messages) == len(results)
    assert any("## ✅ Git Status" in m["content"] for m in messages if m["role"] == "assistant")
    assert has_task(messages) and messages[0]["content"].startswith("This seems to work perfectly!")


def test_prompts_quoted_under_an_alert_and_unquoted_replies_are_read():
    """claude-transcript's export (issue 45 round 12): what the person typed is a ``> [!IMPORTANT]`` block quote,
    a harness's note a ``> [!WARNING]`` one, the model's reply the unquoted text after it; the fenced output under
    an action's bold line (``✏️ **Edit: src/x.ts**``) is the tool's turn, never the model's text."""
    text = (INPUTS / "claude-transcript.2025-08-10-refactor.lines-1-187.md").read_text()
    prompts = ["\n".join(line[2:] for line in block.strip().splitlines())
               for block in re.findall(r"^> \[!IMPORTANT\]\n((?:>.*\n)+)", text, re.MULTILINE)]
    actions = re.findall(r"^\S{1,3} \*\*\w+: [^*\n]+\*\*\n```", text, re.MULTILINE)
    assert len(prompts) >= 4 and len(actions) >= 2 and "> [!WARNING]" in text
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["content"] for m in messages if m["role"] == "user" and not m["name"]] == [p.strip() for p in prompts]
    assert [m["content"] for m in messages if m["name"] == "WARNING"] == ["[Request interrupted by user]"]
    outputs = [m for m in messages if m["role"] == "tool"]
    assert len(outputs) >= len(actions) and all(m["observation"] and m["content"].startswith("```") for m in outputs)
    replies = [m for m in messages if m["role"] == "assistant"]
    assert replies and not any(re.search(r"\*\*Edit: [^*]+\*\*\n```\nError", m["content"]) for m in replies)


def test_documentation_quoting_the_same_note_over_and_over_is_no_chat():
    """Node's API page (``> Stability: 1 - Experimental`` quoted before each section, answered by the section's
    prose): bare quotes recur in documentation, so only quotes that open with the same alert are a person's."""
    text = (INPUTS / "not-nodejs-api-inspector.md").read_text()
    assert len(re.findall(r"^> Stability:", text, re.MULTILINE)) >= 4
    assert parse_text(text) is None


def test_a_rendered_export_page_is_read_by_its_headings_not_by_the_markdown_its_code_shows():
    """ccexport's GitHub-styled HTML page of a Claude Code session (issue 45 round 12): turns under
    ``<h2>👤 User</h2>`` / ``<h2>🤖🔧 Assistant</h2>``, tool calls and results folded in ``<details>`` (round 13: the
    calls the model's, the results the tool's); one folded
    call writes a README whose example export (``## 👤 User`` in a ``<pre>``) was read as the page's chat."""
    text = (INPUTS / "ccexport.VIBE_github.excerpt.html").read_text()
    users = re.findall(r"^<h2>👤 User</h2>", text, re.MULTILINE)
    folded = re.findall(r"^<details>", text, re.MULTILINE)
    assert len(users) == 1 and len(folded) >= 10 and "## 👤 User\n\nHello, can you help me" in text
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert sum(m["role"] == "user" for m in messages) == len(users)
    assert messages[0]["content"].startswith("builde a claude code conversation exporter")
    outputs = sum(m["role"] == "tool" and m["observation"] for m in messages)
    assert outputs + sum(len(m["tool_calls"]) for m in messages) == len(folded)  # each folded block a call or an output
    assert not any("Hello, can you help me with my React project?" == m["content"] for m in messages)


def test_a_chat_clients_request_log_reads_its_messages_under_role_words():
    """GitHub Copilot Chat's debug log (issue 45 round 12, FIT on the eleventh holdout): the request's messages
    under ``System`` / ``User`` / ``Assistant`` alone on their lines after ``Request Messages``, the reply after
    ``Response``, its call written as ``🛠️ run_in_terminal (call_id) {...}`` and the call's output under the
    ``Tool Call - id`` entry's ``Response``; the contents list at the top and the ``Metadata`` block are none."""
    text = (INPUTS / "vscode-copilot-chat.LOGS.lines-1-24-891-1145.md").read_text()
    after = text.split("\nRequest Messages\n")[-1]
    roles = re.findall(r"^(System|User|Assistant)$", after, re.MULTILINE)
    call = re.search(r"^🛠️ (\w+) \((call_\w+)\) (\{.*?^\})", after, re.MULTILINE | re.DOTALL)
    output = after.split("\nResponse\n")[-1].strip()
    assert len(roles) >= 8 and call and output.startswith("build\n")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages if m["role"] != "tool"] == [r.lower() for r in roles]
    (read_call,) = [c for m in messages for c in m["tool_calls"]]
    assert (read_call["name"], read_call["id"], json.loads(read_call["arguments"])) == (
        call.group(1), call.group(2), json.loads(call.group(3)))
    assert messages[-1]["role"] == "tool" and messages[-1]["observation"] and messages[-1]["content"] == output
    assert not any("copilot_cache_control" in m["content"] or "maxPromptTokens" in m["content"] for m in messages)


# --- round 13: exports whose turns, calls and screens come in a layout of their own ------------------------------

def test_a_folded_block_answered_by_a_result_is_the_model_s_call():
    """ccexport folds each call in a ``<details>`` whose summary opens with the tool's name (``Bash: Install Ruby
    dependencies``, ``TodoWrite``, ``Edit spec/...``) and its result in the next one (``Tool Result``): the first is
    the model's call (in its turn, trained), the second the tool's output; a result is never a call."""
    text = (INPUTS / "ccexport.VIBE_github.excerpt.html").read_text()
    summaries = re.findall(r"<summary>([^<]*)</summary>", text)
    results = summaries.count("Tool Result")
    assert results >= 10 and len(summaries) > results
    (transcript,) = parse_text(text)
    calls = [c for m in transcript.messages for c in m["tool_calls"]]
    outputs = [m for m in transcript.messages if m["role"] == "tool"]
    assert {c["name"] for c in calls} >= {"Bash", "TodoWrite", "Edit", "Write", "LS"}
    assert "Tool" not in {c["name"] for c in calls} and len(outputs) >= results
    assert all(m["observation"] for m in outputs)
    bash = next(c for c in calls if c["name"] == "Bash")
    assert "bundle install" in bash["arguments"] or "chmod" in bash["arguments"]


def test_a_record_of_calls_written_as_tool_blocks_is_the_model_s_turn():
    """Automaker's agent-output.md (tests/fixtures/transcript_inputs/README.md): ``🔧 Tool: Bash`` over ``Input: {...}``, then
    the specification the agent wrote. One model turn: the calls with their JSON arguments, the text after them;
    no request (it sits in the sibling feature.json), so it is no run on its own."""
    text = (INPUTS / "automaker.agent-output.lines-1-11-331-338.md").read_text()
    commands = [json.loads(m)["command"] for m in re.findall(r"^Input: (\{.*?^\})", text, re.MULTILINE | re.DOTALL)]
    (transcript,) = parse_text(text)
    (turn,) = transcript.messages
    assert transcript.extra["layout"] == "tool-blocks" and turn["role"] == "assistant" and [json.loads(c["arguments"])["command"] for c in turn["tool_calls"]] == commands
    assert turn["content"].startswith("1. **Problem**") and "🔧" not in turn["content"] and not has_task(transcript.messages)


def test_an_automaker_record_reads_with_the_request_its_feature_file_states():
    """End to end: Automaker keeps the request in the folder's feature.json (read by ``siblings``, issue 45 round 13,
    b45p) and the agent's calls in agent-output.md (read as tool blocks): the run is that request, then the model's
    turn with its calls; the calls are the file's ``🔧 Tool:`` lines, in order."""
    folder = INPUTS / "automaker" / "feature-1768159523106-mxbgsu25y"
    output = (folder / "agent-output.md").read_text()
    tools = re.findall(r"^🔧 Tool: (\S+)", output, re.MULTILINE)
    request = json.loads((folder / "feature.json").read_text())["description"]
    assert len(tools) >= 2
    source = SourceConfig(name="runs", type="transcripts", paths=[str(folder)], limits=ReadLimits())
    (document,) = read_location(source, str(folder / "agent-output.md"))
    assert isinstance(document, Document), document
    messages = document.metadata["messages"]
    assert messages[0]["role"] == "user" and request.strip() in messages[0]["content"]
    assert [c["name"] for m in messages[1:] for c in m["tool_calls"]] == tools

def test_a_person_named_by_a_handle_takes_turns_with_the_model_s_heading(tmp_path):
    """GitHub Copilot's web chat export (testsubject117/Co-Pilot-Chat-History ``d686bdde``, no licence, so its layout is
    rebuilt here with its own words): ``## @testsubject117`` over the person's turns, ``## Copilot`` over the
    model's. The handle heading is the person's: it recurs and takes turns with the model's. The person's pasted
    ``You said:`` / ``Copilot said:`` lines (a copy of another chat, late in the page) are no turns of this one."""
    turns = [("## @testsubject117", "it looks like an update rebooted my computer and our chat history is now gone."),
             ("## Copilot", "I don't retain access to past chats or any repo context unless it's provided again."),
             ("## @testsubject117", "ok, the repo is: @testsubject117/Co-Pilot-Chat-History, what are the steps?"),
             ("## Copilot", "Use this PowerShell flow to upload the zip.\n\n```powershell\ngit push\n```"),
             ("## @testsubject117", "it doesn't appear to be working. what is the command?\n\nYou said:\nthe scan says:"),
             ("## Copilot", "The actual transfer happens on `git push`.\n\nCopilot said: ## Priority roadmap")]
    text = "# Copilot Chat Conversation Export: Uploading chat history\n\n" + "\n\n".join(f"{h}\n\n{b}" for h, b in turns)
    (transcript,) = parse_text(text)
    assert transcript.format == "markdown-turns"
    assert [m["role"] for m in transcript.messages] == ["user", "assistant"] * 3
    assert transcript.messages[4]["content"].endswith("the scan says:")
    sections = iter(("## Setup", "## Usage", "## Notes"))  # a page's sections around ``## Copilot``: no name recurs
    one_sided = re.sub(r"^## @testsubject117$", lambda _: next(sections), text, flags=re.MULTILINE)
    assert parse_text(one_sided) is None or parse_text(one_sided)[0].format != "markdown-turns"


def test_turns_opened_by_bracketed_names_alone_on_their_line(tmp_path):
    """A dialogue record (WurabeSeiji/ai-chat-logs-open ``2e30806a``, no licence; its layout rebuilt with its labels):
    each turn opens with ``【**浦部**】`` or ``【**AI**】`` alone on a line. Two labels taking turns, the one named AI
    the model, the other the person; a ``【思考実験】`` heading inside a turn is no label (not bold, not a speaker's)."""
    said = [("浦部", "わたしは、適切なペルソナを創るために、３つのソースをもっています。この狙いは理解できますか？"),
            ("AI", "はい、理解できます。情報の機密性と対象読者層に基づいて分類されているのですね。"),
            ("浦部", "そのとおりです。本来は、第３層までにするつもりでした。"),
            ("AI", "つまり、完全に非公開とする第4層を急遽設ける必要があったということですね。"),
            ("浦部", "ほかにも、こんなのも流しています。\n\n【思考実験】なぜ「鉄の宰相」は？"),
            ("AI", "鳥肌が立ちました。またしても、凄まじい解像度です。")]
    text = "# 認知戦のグレート・ゲーム\n\n" + "\n\n".join(f"【**{who}**】\n{what}" for who, what in said)
    (transcript,) = parse_text(text)
    assert [(m["role"], m["content"]) for m in transcript.messages] == [
        ("user" if who == "浦部" else "assistant", what) for who, what in said]


def test_a_terminal_recording_is_read_as_the_screen_it_showed(tmp_path):
    """An asciinema cast of a chat CLI (AditiNamboodirirpad/AI_query_agent_Kubernetes ``6958582b`` demo.cast, no
    licence; its events rebuilt here in its layout): keystrokes echoed one by one, a spinner redrawn with ``\\r`` and
    erased, each reply in a Rich panel titled ``K8sGPT``. The screen, replayed, holds the person's ``You :`` lines
    and the agent's panels: each panel the model's turn, the line typed before it the person's."""
    events = [[0.1, "o", "\x1b[1m%\x1b[0m \r(base) aditi@Mac % "]]
    events += [[0.1, "o", ch] for ch in "k8sgpt"] + [[0.1, "o", "\r\n"]]
    events.append([0.1, "o", "╭────────────╮\r\n│ Namespace: default │\r\n╰────────────╯\r\n"])
    exchanges = [("How many pods are running in the cluster?", "There are 11 pods in the default namespace."),
                 ("Why is broken-app failing?", "broken-app is failing due to an invalid image tag."),
                 ("What about crasher, whats wrong with it?", "Its container exits right after starting.")]
    for question, answer in exchanges:
        events.append([0.2, "o", f"\r\n \x1b[1;36mYou\x1b[0m : {question}\r\n"])
        events += [[0.1, "o", f"\r\x1b[2K⠴ Thinking{'.' * n}"] for n in range(3)] + [[0.1, "o", "\r\x1b[2K"]]
        events.append([0.1, "o", f"╭──────  K8sGPT  ──────╮\r\n│  {answer}  │\r\n╰──────────────────────╯\r\n"])
    cast = tmp_path / "demo.cast"
    cast.write_text("\n".join([json.dumps({"version": 3, "term": {"cols": 80, "rows": 24}}),
                               *map(json.dumps, events)]) + "\n")
    source = SourceConfig(name="runs", type="transcripts", paths=[str(cast)], limits=ReadLimits())
    (document,) = read_location(source, str(cast))
    assert isinstance(document, Document), document
    messages = document.metadata["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        (role, text) for pair in exchanges for role, text in zip(("user", "assistant"), pair)]
    assert "Thinking" not in document.text and "\x1b" not in document.text


def test_windows_line_ends_are_read_as_lines(tmp_path):
    """SpecStory's Markdown v2.1 of a Cursor session saved on Windows (onotakuy/work20260103_01 ``86d44c29``, no
    licence; its layout rebuilt): ``\\r\\n`` line ends, ``_**User (time)**_`` / ``_**Agent (model default, mode
    Agent)**_`` headings, each call a ``<tool-use data-tool-name=...>`` around a folded block whose summary names the
    tool (``Tool use: **list_dir** • Listed directory``): the call the model's, the block the tool's output."""
    text = ("<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2D map app (2026-01-03 12:46Z)\n\n"
            "_**User (2026-01-03 12:46Z)**_\n\nBuild a web app that shows a 3D map of a selected area. Ask me questions.\n\n---\n\n"
            "_**Agent (model default, mode Agent)**_\n\nLet me check the project structure first.\n\n---\n\n"
            '<tool-use data-tool-type="generic" data-tool-name="list_dir">\n<details>\n'
            "            <summary>Tool use: **list_dir** • Listed directory, 0 results</summary>\n\nNo results found\n"
            "</details>\n</tool-use>\n\n---\n\nThe directory is empty. Which map service should I use?\n\n---\n\n"
            "_**User (2026-01-03 12:50Z)**_\n\nOpenStreetMap, and Three.js for the 3D view.\n\n---\n\n"
            "_**Agent (model default, mode Agent)**_\n\nUnderstood, I will start with the project files.\n")
    (transcript,) = parse_text(text.replace("\n", "\r\n"))
    roles = [(m["role"], [c["name"] for c in m["tool_calls"]]) for m in transcript.messages]
    assert roles == [("user", []), ("assistant", ["list_dir"]), ("tool", []), ("assistant", []), ("user", []),
                     ("assistant", [])]
    assert transcript.messages[2]["observation"] and transcript.messages[2]["content"] == "No results found"
    assert all("\r" not in m["content"] and "tool-use" not in m["content"] for m in transcript.messages)


def test_numbered_role_headings_and_an_exporter_s_placeholder_turns():
    """An opencode session exported by a repository's script (tests/fixtures/transcript_inputs/README.md): turns under
    ``### 1. user (2026-02-16T02:12:50.988Z)`` / ``### 9. assistant (...)``, a number before the role; the turns the
    exporter lost say ``_No text content captured for this message._`` in italics: no one's words, no message."""
    text = (INPUTS / "dark-factory.opencode-session-crisp-garden.lines-1-19-37-44-61-100.md").read_text()
    headings = re.findall(r"^### \d+\. (user|assistant) \(", text, re.MULTILINE)
    placeholders = text.count("_No text content captured for this message._")
    assert len(headings) >= 6 and placeholders >= 3
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert len(messages) == len(headings) - placeholders
    assert messages[0]["role"] == "user" and messages[0]["content"].startswith("Update the newly made @core/")
    assert not any("No text content captured" in m["content"] for m in messages)
    assert [m["role"] for m in messages] == [r for r, body in zip(headings, re.split(r"^### \d+\. .*$", text,
                                             flags=re.MULTILINE)[1:]) if "No text content captured" not in body]


def test_a_yaml_document_of_nested_mappings_is_data_not_labelled_turns():
    """UFO's few-shot examples (tests/fixtures/transcript_inputs/README.md) are YAML: ``example1:`` holding
    ``Request: |-``, ``Response:`` with ``Observation:``, ``Thought:``, ``Function:`` under it. Its keys are fields;
    read as text they looked like speakers' labels (a run of 89 messages). A mapping of mappings is data: read as
    such (no conversation in it), it is quarantined."""
    path = INPUTS / "not-ufo.app_agent_example.lines-1-78.yaml"
    text = path.read_text()
    assert re.search(r"^  Request: \|-$", text, re.MULTILINE) and re.search(r"^    Thought: \|-$", text, re.MULTILINE)
    # guard: keys that look like speakers' labels (the text formats read them as 89 messages before round 16, when a
    # log of parts and results under markers stopped being read as speakers' turns)
    assert len(re.findall(r"^[ \t]*(?:Request|Response|Observation|Thought):", text, re.MULTILINE)) >= 8
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], limits=ReadLimits())
    outcomes = list(read_location(source, str(path)))
    assert outcomes and not any(isinstance(o, Document) for o in outcomes), outcomes


def test_an_agent_s_replies_headed_by_its_name_and_its_actions_in_italic_lines():
    """Windsurf's Cascade export (tests/fixtures/transcript_inputs/README.md; the twelfth holdout, FIT): the person's
    ``### User Input``, the agent's ``### Planner Response`` (several to one request), and each action the agent took
    as an italic line (``*Viewed [file](...) *``, ``*Updated todo list*``, ``*Searched filesystem*``): the model's
    calls, their results not exported. Every section is read as a message, every action a call, none left in the
    prose."""
    text = (INPUTS / "olaf.windsurf-cascade-conversation.lines-1-60.md").read_text()
    users = re.findall(r"^### User Input$", text, re.MULTILINE)
    actions = re.findall(r"^\*([A-Z][^*\n]*)\*[ \t]*$", text, re.MULTILINE)
    replies = re.findall(r"^### Planner Response$", text, re.MULTILINE)
    assert len(users) == 2 and len(replies) >= 4 and len(actions) >= 5
    (transcript,) = parse_text(text)
    messages = transcript.messages
    calls = [c for m in messages for c in m["tool_calls"]]
    assert [c["name"].split()[0] for c in calls] == [a.split()[0] for a in actions]
    assert messages[0]["role"] == "user" and messages[0]["content"] == "run orchestrator"
    assert not any(re.search(r"^\*(?:Viewed|Updated|Searched)", m["content"], re.MULTILINE) for m in messages)
    assert "Existing Analysis Found" in messages[-1]["content"] and messages[-1]["role"] == "assistant"
    # each reply under its own heading is a message of its own (the exporter's boundary), as each request is
    assert sum(m["role"] == "assistant" and bool(m["content"]) for m in messages) == len(replies)
    assert [m["content"] for m in messages if m["role"] == "user"] == ["run orchestrator", "roo-code"]


def test_a_client_s_traffic_log_of_keyed_entries_reads_as_requests_and_streamed_replies():
    """Kilo Code's traffic captured by a patched extension (tests/fixtures/transcript_inputs/README.md; the twelfth
    holdout, FIT): ``### source=prompt type=text timestamp=...`` entries over fenced blocks (the task, the
    environment), ``source=response`` chunks streamed mid-word, ``type=usage`` counts. Two requests: the second
    re-sends the history and adds the tool's result. Read as the request, the reply joined from its chunks, the
    tool's result (the person's turn, an observation) and the final reply; usage lines are no message."""
    text = (INPUTS / "kilocode-hack.llm-messages.md").read_text()
    kinds = re.findall(r"^### source=(\w+) type=(\w+) ", text, re.MULTILINE)
    assert kinds.count(("response", "usage")) >= 2 and kinds.count(("prompt", "text")) >= 4
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0]["content"].startswith("<task>") and messages[2]["observation"]
    assert messages[2]["content"].startswith("[apply_diff for 'src/hello.py'] Result:")
    assert "I need to modify the `src/hello.py` file to:" in messages[1]["content"]  # chunks joined as streamed
    assert messages[3]["content"].startswith("<attempt_completion>")
    assert not any("input tokens" in m["content"] for m in messages)


def test_an_aider_reply_s_thinking_tag_is_reasoning_not_the_reply(tmp_path):
    """aider writes a reasoning model's thinking into the chat history inside a tag it names with a hash
    (Artifrack/conclave-fixissue-sandbox ``6dfdd33a`` .aider.chat.history.md, the twelfth holdout, no licence: its
    layout rebuilt here with a few of its words): the thinking is the reply's reasoning, the text after the tag the
    reply (so the trained reply is what the model said, not what it thought)."""
    thought = "The user wants to fix a bug in `clamp.py`.\nI need to see the current content of `clamp.py` first."
    reply = "Please provide the contents of `clamp.py` and `test_clamp.py` so I can identify the bug."
    text = ("\n# aider chat started at 2026-07-30 20:06:42\n\n> Aider v0.86.2  \n> Model: openai/qwen with whole edit format  \n\n"
            "#### Resolve GitHub issue #1: clamp() returns the wrong value when input is above the range  \n\n"
            f"<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n{thought}\n\n"
            f"</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\n{reply}\n\n> Tokens: 703 sent, 1.1k received.  \n")
    (transcript,) = parse_text(text)
    (model,) = [m for m in transcript.messages if m["role"] == "assistant"]
    assert model["content"] == reply and model["reasoning"] == thought


# --- round 14: exports read by labels learnt from the file (each rebuilt from its source's layout, quoting a few of
# its words; the sources have no licence unless named) --------------------------------------------------------------


def test_the_other_side_labelled_as_the_known_side_is_bold_alone_on_its_line():
    """Cursor's own "Export chat" (chaceraiter/project-template ``eec42377``, ai-context/for-robots/past-chat-record/
    cursor_planning_a_starter_pack_for_vibe.md; its layout): ``**User**`` and ``**Cursor**`` each alone on its line
    between ``---`` rules. ``Cursor`` is no role word: the label written as ``**User**`` is and taking turns with it
    is the model's. A bold line a reply opens a list with (``**Topology**``) is no speaker, and a said-label quoted in
    a reply (``The human just said:``) is no turn."""
    text = ("# Planning a starter pack for vibe coding\n_Exported on 10/11/2025 at 23:19:28 PDT from Cursor (1.4.2)_\n\n"
            "---\n\n**User**\n\ni want to turn this folder into a starter pack of sorts for vibe coding\n\n---\n\n"
            "**Cursor**\n\nGreat idea! Let me help you plan out a starter pack.\n\n**Topology**\n\n- src, tests, docs\n\n"
            "---\n\n**User**\n\nwhat would the ai context folder hold?\n\n---\n\n**Cursor**\n\nThe human just said: "
            "\"what would the ai context folder hold\". It holds the rules and the past chat records.\n\n---\n\n"
            "**User**\n\nok lets do it\n\n---\n\n**Cursor**\n\nI will create the folders now.\n")
    labels = re.findall(r"^\*\*(User|Cursor)\*\*$", text, re.MULTILINE)
    (transcript,) = parse_text(text)
    assert transcript.format == "markdown-turns"
    assert [m["role"] for m in transcript.messages] == ["user" if label == "User" else "assistant" for label in labels]
    assert "**Topology**" in transcript.messages[1]["content"]
    assert transcript.messages[3]["content"].startswith("The human just said:")


def test_a_checkpoint_summary_whose_titles_open_with_role_words_is_no_run():
    """A Copilot CLI session's checkpoint summaries (tests/fixtures/transcript_inputs/README.md, MIT): titles written
    once that open with a role word (``## User Testing Required``, ``**AI Text Parsing Architecture:**``) are a
    section's, not turn labels; a label an exporter writes recurs (``User said``) or names the turn (``User Question``)."""
    path = INPUTS / "not-jobhunterai.copilot-checkpoints.excerpt.md"
    text = path.read_text()
    assert re.search(r"^## User Testing Required$", text, re.MULTILINE) and "**AI Text Parsing Architecture:**" in text
    assert parse_text(text) is None
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"])
    assert not any(isinstance(o, Document) for o in read_location(source, str(path)))
    (pair,) = parse_text("## 👤 User Question\n\nWhich DRP wins here?\n\n## 🤖 Assistant Answer\n\nThe conservative one.\n")
    assert [m["role"] for m in pair.messages] == ["user", "assistant"]


def test_role_headings_after_a_time_stamp():
    """A transcript Codex appends to itself (krea424/MarkPdfPublisher ``70b57d76``, docs/CODEX_TRANSCRIPTS/
    2025-09-06.md; its layout): ``## 2025-09-06T11:44:07+02:00 — user`` over the person's turn, ``— codex`` over the
    reply. The stamp is the heading's, as a number is; ``codex`` takes turns with ``user``: the model."""
    text = ("# Codex Full Transcript — 2025-09-06\n\n"
            "## 2025-09-06T11:44:07+02:00 — user\nEnable full transcript logging.\n\n"
            "## 2025-09-06T11:44:07+02:00 — codex\n\n\n\nEnable full transcript logging.\n\n"
            "## 2025-09-06T11:50:03+02:00 — user\nTEST: auto-logging works end-to-end.\n\n"
            "## 2025-09-06T11:50:03+02:00 — codex\n\nTranscript auto-logging is active: this turn has been appended.\n")
    (transcript,) = parse_text(text)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "user", "assistant"]
    assert transcript.messages[2]["content"] == "TEST: auto-logging works end-to-end."


def test_calls_an_export_reports_by_status_are_described_and_their_output_is_the_result():
    """Zed's agent thread as Markdown (knackwurstking/pg-press ``3345621f``, docs/Bug Search and Code Review.md; its
    layout): ``## User`` / ``## Assistant``, the first reply opening with ``<thinking>``, each call a ``**Tool Call:
    <what it did>**`` line over ``Status: Completed`` and the tool's output (blank lines inside it) up to the next call.
    The thinking is the reply's reasoning; each call is described in the export's words (no arguments the model
    emitted), its output the tool's result; the model's words after a result are a turn of their own."""
    text = ("## User\n\nSearch for possible bugs and stuff\n\n## Assistant\n\n<thinking>\nThe user wants me to search for "
            "possible bugs.\n</thinking>\n\nI'll help you search for potential bugs.\n\n**Tool Call: List the `pg-press` "
            "directory's contents**\nStatus: Completed\n\n# Folders:\npg-press/cmd\n\n# Files:\npg-press/go.mod\n\n"
            "**Tool Call: Check project diagnostics**\nStatus: Completed\n\nNo errors or warnings found in the project.\n\n"
            "## Assistant\n\nGood! No immediate compilation errors.\n")
    calls = re.findall(r"^\*\*Tool Call: (.*)\*\*$", text, re.MULTILINE)
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [(m["role"], len(m["tool_calls"])) for m in messages] == [
        ("user", 0), ("assistant", 1), ("tool", 0), ("assistant", 1), ("tool", 0), ("assistant", 0)]
    assert messages[1]["reasoning"] == "The user wants me to search for possible bugs."
    assert messages[1]["content"] == "I'll help you search for potential bugs."
    described = [c for m in messages for c in m["tool_calls"]]
    assert [c["arguments"] for c in described] == calls and {c["kind"] for c in described} == {"described"}
    assert messages[2]["observation"] and messages[2]["content"] == "# Folders:\npg-press/cmd\n\n# Files:\npg-press/go.mod"


def test_a_terminal_copy_of_a_cli_session_reads_the_prompt_the_calls_and_their_marked_results():
    """A CLI agent's session copied from the terminal (tests/fixtures/transcript_inputs/README.md, Apache-2.0): the
    request typed at a ``cody> `` prompt, calls as ``🔧 Tool: listDir`` over an indented ``Args: {...}``, results as
    ``✓ Result (call_id): ...`` (``✗``: the call failed). The prompt's line is the person's request (it was refused
    ``no_task`` as a console page of labelled sections), each call the model's turn, each marked result the tool's."""
    text = (INPUTS / "leegmoore-codex.test-transcript-01.lines-1-36-201-298.md").read_text()
    calls = re.findall(r"^🔧 Tool: (\w+)$", text, re.MULTILINE)
    results = re.findall(r"^[✓✗] Result \(call_\w+\): ", text, re.MULTILINE)
    assert len(calls) == len(results) == 3 and text.startswith("cody> chat can you use your apply patch tool")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert messages[0]["role"] == "user" and messages[0]["content"].startswith("chat can you use your apply patch tool")
    assert [c["name"] for m in messages for c in m["tool_calls"]] == calls
    assert [m["role"] for m in messages[1:]] == ["assistant", "tool"] * len(calls)
    assert messages[4]["content"] == "No matches found." and all(m["observation"] for m in messages[2::2])


def test_an_agent_cli_s_events_under_bare_labels_are_one_run(tmp_path):
    """``codex exec``'s console output kept in a loop's ledger (tOgg1/forge ``9a217336``, .forge/ledgers/
    daemon-proof-codex-084215.md; its layout, no licence) and an older version's with time stamps: ``thinking``,
    ``codex``, ``exec`` alone on their lines, a command's output after ``succeeded in 52ms:``, ``tokens used`` and
    the answer printed again after it. The thinking is reasoning, the words and the command one model turn (the
    command as the CLI prints it: described), the output the tool's; the banner and the echo are framing."""
    new = ("```\n2026-02-12T07:42:15.948778Z ERROR codex_core::rollout::list: state db missing rollout path\n\n"
           "thinking\n**Planning repeated smoke checks**\ncodex\nhi. quick smoke pass now; keep looping status.\nexec\n"
           "/bin/zsh -lc 'pwd; ls -1 | head -20' in /Users/trmd/forge succeeded in 52ms:\n/Users/trmd/forge\nAGENTS.md\n\n"
           "thinking\n**Summarizing final loop completion**\ncodex\nstatus: smoke pass, 20 entries, first `AGENTS.md`.\n"
           "tokens used\n6,214\nstatus: smoke pass, 20 entries, first `AGENTS.md`.\n```\n")
    (run,) = parse_text(new)
    assert [(m["role"], m["observation"]) for m in run.messages] == [
        ("assistant", False), ("tool", True), ("assistant", False)]
    first = run.messages[0]
    assert first["reasoning"] == "**Planning repeated smoke checks**" and first["content"].startswith("hi. quick smoke")
    (call,) = first["tool_calls"]
    assert call["kind"] == "described" and call["arguments"] == "/bin/zsh -lc 'pwd; ls -1 | head -20' in /Users/trmd/forge"
    assert run.messages[1]["content"] == "/Users/trmd/forge\nAGENTS.md"
    older = ("[2025-12-12T11:44:36] User instructions:\nRead /tmp/plan.txt and provide a plan.\n\n"
             "[2025-12-12T11:44:40] thinking\n\n**Preparing to read files with shell**\n"
             "[2025-12-12T11:44:40] exec bash -lc 'cat /tmp/plan.txt' in /Users/p/math\n"
             "[2025-12-12T11:44:41] bash -lc 'cat /tmp/plan.txt' succeeded in 413ms:\nYou are an engineering strategist.\n"
             "[2025-12-12T11:44:50] codex\n\nThe plan: batch the proofs by knot size.\n[2025-12-12T11:44:51] tokens used: 4321\n")
    (run,) = parse_text(older)
    assert [m["role"] for m in run.messages] == ["user", "assistant", "tool", "assistant"]
    assert run.messages[0]["content"] == "Read /tmp/plan.txt and provide a plan."
    assert run.messages[1]["tool_calls"][0]["arguments"] == "bash -lc 'cat /tmp/plan.txt' in /Users/p/math"
    assert run.messages[3]["content"] == "The plan: batch the proofs by knot size."


def test_a_chat_copied_whole_from_an_ide_panel_is_one_exchange_of_its_two_labels():
    """VS Code Copilot Chat's "Copy All" (tests/fixtures/transcript_inputs/README.md, MIT): the person's account name
    and a colon on the first line, ``GitHub Copilot:`` (a label naming a model) over the reply after a blank line; the
    reply's own labelled lines (``Completed with input:``, ``Ran terminal command:``) are its text. One exchange: it
    was no dialogue (three were needed). A text that opens with a field (``Note:``) is none."""
    text = (INPUTS / "vscode-chat-logs.fix-deploy.log").read_text()
    assert text.startswith("digitarald: Debug ") and len(re.findall(r"^GitHub Copilot: ", text, re.MULTILINE)) == 1
    inside = re.findall(r"^(?:Completed with input|Ran terminal command): ", text, re.MULTILINE)
    assert len(inside) >= 10
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"].startswith("Debug https://digitarald.github.io/vscode-chat-logs/")
    assert messages[1]["content"].startswith("I'll debug the deployed site") and "Ran terminal command: " in messages[1]["content"]
    assert parse_text("Note: the build is slow.\n\nGitHub Copilot: this is how a note reads.\n") is None


# --- round 14, fixes after the thirteenth holdout's run (FIT; each rebuilt from the holdout file's layout, quoting a
# few of its words: bench/traces_holdout_13.tsv names them, none has a licence) -----------------------------------


def test_a_heading_written_otherwise_than_the_turn_labels_is_a_section_inside_a_turn():
    """Cursor's "Export chat" in Spanish (mauro-cuquejo/tp_ia_cursor_2 ``chat_log.md``): a reply holds ``## API
    Endpoints`` (a role word first: a tool's, by its words). Written with heading marks where the turns' labels are
    bold, it is a section of the reply, not a turn; before, the one tool heading hid the other side's labels."""
    text = ("Este documento proporciona todas las interacciones realizadas con el agente de Cursor.\n\n"
            "# Crear proyecto Vue con formulario de login\n_Exported on 8/4/2025 at 08:56:54 GMT-3 from Cursor (1.3.9)_\n\n"
            "---\n\n**User**\n\nQuiero crear dentro del directorio frontend un proyecto con vue.\n\n---\n\n**Cursor**\n\n"
            "Te ayudo a crear un proyecto Vue con un formulario de login responsivo.\n\n## API Endpoints\n\n- POST /login\n\n"
            "---\n\n**User**\n\nAhora conecta el backend.\n\n---\n\n**Cursor**\n\nListo, el formulario llama al backend.\n")
    (transcript,) = parse_text(text)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant", "user", "assistant"]
    assert "## API Endpoints\n\n- POST /login" in transcript.messages[1]["content"]


def test_a_copied_chat_whose_replies_quote_what_something_says():
    """VS Code Copilot Chat copied as text (te-ori/intro-to-ratatui ``copilot_chat.md``): ``te-ori:`` / ``GitHub
    Copilot:`` turns, a reply quoting ``Your code currently says:`` and ``But our requirement says:`` and labelling its
    own parts (``**Insightful Question:**``). A writer opening with a determiner is a phrase, not a said-label's
    writer (the two quotes were read as a dialogue of 2 messages of 56)."""
    text = ("te-ori: Why does the counter not move?\n\nGitHub Copilot: **Insightful Question:** look at the handler.\n"
            "Your code currently says: when the key is pressed, draw the same frame again without changing the state.\n"
            "But our requirement says: when the key is pressed, add one to the counter and then draw the new frame.\n\n"
            "te-ori: Please explain modules we use with `use` block, the ones from ratatui and from crossterm.\n\n"
            "GitHub Copilot: Excellent question. Understanding your tools is just as important as writing the code.\n\n"
            "te-ori: It sounds greate! Have a good night. See you tomorrow.\n\n"
            "GitHub Copilot: It sounds like a plan! We covered a lot of ground today: modules, state and drawing.\n")
    (transcript,) = parse_text(text)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant"] * 3
    assert "Your code currently says: when the key is pressed" in transcript.messages[1]["content"]


def test_labels_in_chinese_with_sentences_that_end_in_a_colon():
    """Trae's chat history in Chinese (GinoZMYS/trae-rtl ``chat_history.md``): ``**用户**:`` / ``**TRAE**:`` over each
    turn, the agent's sentences ending in a full-width colon before a list or a command (``首先让我检查当前项目的状态：``).
    A line of eight letters or more of such a script before a colon is a sentence, not a speaker."""
    text = ("# TRAE_RTL 项目聊天历史记录\n\n## 项目启动阶段\n\n### 💬 2025-12-06 初始对话\n\n**用户**:  \n我要迁移电脑了，应该怎么把记录迁移到另一个电脑上？\n\n"
            "**TRAE**:  \n我来帮你制定TRAE_RTL项目的迁移方案。\n\n首先让我检查当前项目的状态：\n\n```bash\nls -la\n```\n\n"
            "**用户**:  \n帮我生成一个SPEC文档。\n\n**TRAE**:  \n好的，正在整理所有交互记录：\n\n- 需求\n- 实现\n\n"
            "**用户**:  \n再把代码片段加进去？\n\n**TRAE**:  \n已添加时间戳和代码片段格式化。\n")
    (transcript,) = parse_text(text)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant"] * 3
    assert "首先让我检查当前项目的状态：" in transcript.messages[1]["content"]


def test_said_labels_glued_to_the_first_line_of_each_turn():
    """The Gemini web app copied as text (brightpuddle/clara ``gemini_chat.md``): ``You said`` / ``Gemini said`` glued
    to each turn's first line, no colon, hard-wrapped paragraphs."""
    text = ("You said I have a software development idea that I'd like to run by you. It's\nonly vaguely fleshed out.\n\n"
            "Gemini said The \"jq\" moment is a rite of passage for every developer. It's\nworth checking what exists.\n\n"
            "You said Thank you for the feedback--this is really helpful.\n\n"
            "Gemini said Transitioning from scripts to a declarative pipeline is the right call.\n")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0]["content"] == "I have a software development idea that I'd like to run by you. It's\nonly vaguely fleshed out."
    assert messages[1]["content"].startswith('The "jq" moment is a rite of passage')


def test_a_recap_of_steps_each_holding_the_person_s_request():
    """A Claude Code session rewritten by the agent as a report (pchretien/cube ``claude_chat.md``): ``## Session N``,
    steps ``### N. Title`` each holding ``**User request:** ...`` and the agent's account (``**Changes made:**`` and
    a list, tables); a last ``## Final State`` section after the steps. The request the person's, the account the
    model's, the step titles and the closing section framing."""
    text = ("# Soap Holder Project — Complete Session History\n\n---\n\n## Session 1 — March 7, 2026\n\n"
            "### 1. Create the Initial Soap Holder\n\n**User request:** Create a soap holder in a new scad file called "
            "`soap.scad`.\n\n**Context:** The project already contained `cube.scad`.\n\n---\n\n"
            "### 2. Center Holes Between Ribs\n\n**User request:** Make sure the holes on the bottom are centered between "
            "the ribs.\n\n**Changes made:**\n- Rewrote `drainage_holes()` to place one hole column per gap\n\n---\n\n"
            "## Final State of `soap.scad`\n\n| Variable | Default |\n|---|---|\n| `length` | 100 |\n")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0]["content"] == "Create a soap holder in a new scad file called `soap.scad`."
    assert messages[3]["content"].startswith("**Changes made:**") and "Final State" not in messages[3]["content"]


def test_a_console_s_redrawn_status_tree_is_framing():
    """CrewAI's hierarchical crew console saved to Markdown (FabianGobet/self-study, simple_hierarchical_crew_output.md):
    the progress tree (``🚀 Crew: crew`` over ``└── 📋 Task: ...`` and indented ``Status: ...`` lines) redrawn between
    the ``# Agent:`` / ``## Task:`` sections. Its lines are framing, wherever a redraw leaves them: kept in the task,
    they made the run's lines repeat and the prose filter dropped it (``gopher_repetition:dup_line_frac``)."""
    tree = ("\n🚀 Crew: crew\n└── 📋 Task: 25d42944\n       Status: Executing Task...\n    └── 🤖 Agent: Crew Manager\n"
            "            Status: In Progress\n\n")
    text = (tree + "# Agent: Crew Manager\n## Task: Fetch top AI news stories from the past 24 hours.\n" + tree
            + "            Status: In Progress\n\n# Agent: Crew Manager\n## Using tool: Search the internet\n"
            "## Tool Input:\n\"{\\\"query\\\": \\\"top AI news\\\"}\"\n## Tool Output:\nTitle: AI News\n" + tree
            + "# Agent: Crew Manager\n## Final Answer:\nTitle: AI News, the latest analysis.\n" + tree
            + "# Agent: Crew Manager\n## Task: Compile the newsletter\n" + tree
            + "# Agent: Crew Manager\n## Using tool: Search the internet\n## Tool Input:\n\"{}\"\n## Tool Output:\nNo news\n"
            + "# Agent: Crew Manager\n## Final Answer:\n# Newsletter\n\nWelcome to our newsletter.\n")
    (transcript,) = parse_text(text)
    assert transcript.messages[0]["content"].startswith("Fetch top AI news stories")
    assert not any("Status:" in m["content"] or "Crew: crew" in m["content"] for m in transcript.messages)


def test_a_crew_s_agents_each_with_a_task_of_their_own_hold_a_run_each():
    """CrewAI's hierarchical crew console (FabianGobet/self-study, its layout): the manager's ``## Task:``, then the
    member it delegates to runs (its own ``# Agent:`` / ``## Task:``, tool use, ``## Final Answer:``), then the manager's
    ``## Using tool: Delegate work to coworker`` whose output is the member's answer, and its final answer. Each agent
    given a task of its own holds a run of its own (the sections interleave as they ran); before, the member's task
    was joined to the manager's and the turns of two runs mixed (16 of 22 messages)."""
    text = ("# Agent: Crew Manager\n## Task: Fetch top AI news stories from the past 24 hours.\n\n"
            "# Agent: News Fetcher Expert\n## Task: Fetch top AI news stories from the past 24 hours, five of them.\n\n"
            "# Agent: News Fetcher Expert\n## Using tool: Search the internet\n## Tool Input:\n\"{\\\"query\\\": \\\"AI\\\"}\"\n"
            "## Tool Output:\nTitle: AI News\n\n# Agent: News Fetcher Expert\n## Final Answer:\nTitle: AI News, five stories.\n\n"
            "# Agent: Crew Manager\n## Thought: The best way to approach this task is to delegate it.\n"
            "## Using tool: Delegate work to coworker\n## Tool Input:\n\"{\\\"coworker\\\": \\\"News Fetcher Expert\\\"}\"\n"
            "## Tool Output:\nTitle: AI News, five stories.\n\n# Agent: Crew Manager\n## Final Answer:\nFive AI news stories.\n")
    manager, member = parse_text(text)
    assert [m["role"] for m in manager.messages] == ["user", "assistant", "tool", "assistant"]
    assert manager.messages[0]["content"] == "Fetch top AI news stories from the past 24 hours."
    assert "Delegate work to coworker" in manager.messages[1]["content"]
    assert [m["role"] for m in member.messages] == ["user", "assistant", "tool", "assistant"]
    assert member.messages[0]["content"].endswith("five of them.")


# round 15 (b45l): share pages, terminal copies and labels in other scripts, collected before code changed
REPLAY = "opencode-replay.ses_50c50932.page-002.lines-1-159-245-298-590-607.html"


def test_calls_a_page_renders_inside_the_model_s_message_are_described_calls_and_results():
    """opencode-replay's HTML page (ramtinJ95/opencode-replay, MIT): each model message an element holding its text
    and, for each call, a ``<div class="tool-call tool-read">`` whose header says what was called and whose body
    holds the output. The call is shown, never trained (its header is the page's words, ``described``); its output
    is the tool's turn, never the model's words; the model's text before it stays its own."""
    text = (INPUTS / REPLAY).read_text()
    calls = re.findall(r'class="tool-call tool-(\w+)"', text)
    assert calls == ["read", "bash"] and "Permission denied (publickey)" in text
    (transcript,) = parse_text(text)
    messages = transcript.messages
    called = [c for m in messages for c in m["tool_calls"]]
    assert [c["name"] for c in called] == calls and {c["kind"] for c in called} == {"described"}
    outputs = [m for m in messages if m["role"] == "tool"]
    assert len(outputs) == 2 and all(m["observation"] for m in outputs)
    assert "Permission denied (publickey)" in outputs[1]["content"]
    model = " ".join(m["content"] for m in messages if m["role"] == "assistant")
    assert "Let me execute them:" in model and "Permission denied" not in model and "opencode-tokenscope\"," not in model
    assert [m["role"] for m in messages if m["role"] == "user"] == ["user"] * len(re.findall(r"message-user", text))


def test_a_chat_repl_copied_from_a_terminal():
    """``ollama run`` copied into a tutorial page (yididiel7/gitmydocs ``createtutorials/using-the-fsck-command.md``,
    no licence: rebuilt here from its layout, quoting a few of its words): the shell's prompt line that started the
    REPL, then ``>>> `` before each question the person typed and the model's answer printed under it; a REPL
    command (``/bye``) is no one's words."""
    text = ("**Title:** How To Use The `fsck` Command\n**Date:** February, 04-02-2026\n\n1. First Run:\n\n"
            "❯ ollama run llama3.2:1b\n\n>>> How to use the `fsck` command?\nThe `fsck` command is a built-in Linux utility "
            "that checks and repairs\nfile systems on your hard drive.\n\n**Basic Usage**\n\n1. Run `fsck` in your terminal.\n\n"
            ">>> How to reduced disk fragmentation, and optimize swap behavior.?\n\nReducing disk fragmentation and "
            "optimizing swap behavior can\nsignificantly improve performance.\n\n>>> /bye\n\n❯ ollama run llama3.2:1b\n\n"
            '>>> """Can you generate a list of Arch-Linux Command-line\nCommands?"""\n\nHere is a list of Arch Linux '
            "command-line commands:\n\n* `ls` - list files\n")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages] == ["user", "assistant"] * 3
    assert messages[0]["content"] == "How to use the `fsck` command?"
    assert messages[4]["content"] == "Can you generate a list of Arch-Linux Command-line\nCommands?"
    assert "**Basic Usage**" in messages[1]["content"] and "ollama run" not in " ".join(m["content"] for m in messages)


def test_a_python_session_s_prompts_are_no_chat():
    """numpy's ``numpy/ma/README.rst`` (numpy 2.4.6, BSD-3-Clause): a Python session's ``>>> `` lines are code typed
    at the prompt (``import numpy.core.ma as old_ma``, ``x = ...``), never a person's words to a model."""
    text = (INPUTS / "not-numpy-ma-README.rst").read_text()
    assert len(re.findall(r"^>>> (?:import|\w+ = )", text, re.MULTILINE)) >= 4
    assert parse_text(text) is None


def test_opencode_s_thinking_label_opens_the_model_s_reasoning():
    """opencode's ``/export`` (yididiel7/gitmydocs ``createtutorials/zsh-fix-bindkey-space.md`` and
    ``Fix-No-GTK-environment-variables-in-shell-configs-session-ses_3b3e.md``, no licence: rebuilt from their layout):
    ``_Thinking:_``, a blank line, the reasoning, a blank line, then the reply with no mark between. An empty reasoning
    (the label, then three line ends) leaves the reply the model's words; a written one is all reasoning, never
    trained as the reply; the label is never the model's words."""
    text = ("# zsh: fix bindkey\n\n---\n\n## User\n\nCheck out why bindkey ' ' magic-space @.zshrc is not working and fix it.\n\n"
            "---\n\n## Assistant (Sisyphus · big-pickle · 7.0s)\n\n_Thinking:_\n\n\n\nI'll help you diagnose and fix the "
            "bindkey issue in your .zshrc.\n\n**Tool: read**\n\n**Input:**\n```json\n{\n  \"filePath\": \"/home/u/.zshrc\"\n}\n```\n\n"
            "**Output:**\n```\n<file>\n00087| bindkey ' ' magic-space\n</file>\n```\n\n---\n\n## Assistant (Sisyphus · kimi-k2.5-free "
            "· 10.0s)\n\n_Thinking:_\n\nThe user is having issues with their bindkey. Let me check the widget.\n\nI'll check "
            "whether the widget is defined.\n\n**Tool: bash**\n\n**Input:**\n```json\n{\n  \"command\": \"zle -l | grep magic\"\n}\n```\n\n"
            "**Output:**\n```\nmagic-space not found\n```\n\n---\n\n## User\n\nthanks, what next?\n")
    (transcript,) = parse_text(text)
    model = [m for m in transcript.messages if m["role"] == "assistant"]
    assert model[0]["content"].startswith("I'll help you diagnose") and not model[0]["reasoning"]
    assert model[1]["content"] == "" and model[1]["reasoning"].startswith("The user is having issues")
    assert "I'll check whether the widget is defined." in model[1]["reasoning"]
    assert not any("_Thinking:_" in m["content"] for m in transcript.messages)
    assert [c["name"] for m in model for c in m["tool_calls"]] == ["read", "bash"]


def test_turn_labels_in_another_script_are_learnt_from_their_alternation():
    """A Cursor chat recorded in Chinese (jasonjiang95/cursor-course ``chatgpt_clone/CONVERSATION_HISTORY.md``, no
    licence: rebuilt from its layout, quoting a few of its words): ``### 用户 #N`` over each request, ``### 助手`` over
    each reply, the replies' own ``##``/``###`` sections inside them and the model writing twice running. No word
    names a side: the two labels that recur and take turns are the turns', the one that opens the person's."""
    text = ("# ChatGPT Clone 项目开发对话记录\n\n## 项目概述\n\n基于 FastAPI 的对话系统。\n\n## 对话记录\n\n"
            "### 用户 #1\n\n我现在，想要开发一个 类ChatGPT 的对话问答系统，请你帮我规划一下？\n\n"
            "### 助手\n\n我已经将规划文档重构为 4 个阶段（Phase）：\n\n"
            "## 文档结构概览\n\n| Phase | 目标 |\n|---|---|\n| 1 | 后端基础 |\n\n### 用户 #2\n\n为什么会直接在原始md上做修改而不是生成新plan呢\n\n"
            "### 助手\n\n因为你要求的是调整。\n\n### 已完成的内容\n\n- 后端\n\n### 助手\n\n### 当前服务状态\n\n服务已启动。\n\n"
            "### 用户 #3\n\n继续开发前端\n\n### 助手\n\n好的，开始 Phase 2。\n\n### 用户 #4\n\n测试一下接口\n\n### 助手\n\n接口正常。\n")
    (transcript,) = parse_text(text)
    roles = [m["role"] for m in transcript.messages]
    assert roles == ["user", "assistant", "user", "assistant", "assistant", "user", "assistant", "user", "assistant"]
    assert "## 文档结构概览" in transcript.messages[1]["content"] and "### 已完成的内容" in transcript.messages[3]["content"]


@pytest.mark.parametrize("text", [
    # a skill's page whose sections name the assistant once each (``## 助手判断意图的提示词``, ``## 助手：wait-for-text.sh``)
    "# 技能\n\n## 使用方法\n\n运行命令。\n\n## 助手判断意图的提示词\n\n- 列表？\n\n## 环境变量\n\n设置变量。\n\n## 助手函数\n\n六个函数。\n",
    # two sections that recur but never take turns: a page of steps then notes
    "# 指南\n\n## 步骤\n\n第一步？\n\n## 步骤\n\n第二步。\n\n## 步骤\n\n第三步。\n\n## 注意\n\n注意一。\n\n## 注意\n\n注意二。\n",
])
def test_headings_in_another_script_that_do_not_take_turns_are_no_chat(text: str):
    assert parse_text(text) is None


def test_a_cli_share_s_call_headings_are_calls_and_their_output():
    """GitHub Copilot CLI's ``/share`` Markdown (yididiel7/gitmydocs ``createtutorials/copilot-session-e1ebe014-....md``,
    no licence: rebuilt from its layout, quoting a few of its words): ``### 👤 User`` / ``### 💬 Copilot`` turns, each
    after its ``<sub>⏱️ 7s</sub>`` time, and ``### ✅ `tool``` blocks: the call's ``Arguments`` JSON (the model's), or
    the CLI's words for it and the command (``described``), then what it gave folded in ``<details>`` or fenced.
    The times are no one's words; a block is never the person's text (a call made at once after the request)."""
    text = ("# 🤖 Copilot CLI Session\n\n> **Session ID:** `e1ebe014`\n\n<sub>⏱️ 1s</sub>\n\n### 👤 User\n\n"
            "How do i restart Copilot Cli\n\n---\n\n<sub>⏱️ 2m 53s</sub>\n\n### ✅ `fetch_copilot_cli_documentation`\n\n"
            "<details>\n<summary>Arguments</summary>\n\n```json\n{}\n```\n\n</details>\n\n<details>\n<summary>151 lines</summary>\n\n"
            "````\n# GitHub Copilot CLI Documentation\n\nThe power of GitHub Copilot, now in your terminal.\n````\n\n</details>\n\n"
            "\n---\n\n<sub>⏱️ 2m 58s</sub>\n\n### 💬 Copilot\n\nBased on the documentation, here are the ways to restart.\n\n---\n\n"
            "<sub>⏱️ 18m 3s</sub>\n\n### 👤 User\n\nCan you Check if there's an existing MCP server wrapper for Ollama\n\n---\n\n"
            "<sub>⏱️ 18m 9s</sub>\n\n### 💬 Copilot\n\nLet me search for existing wrappers:\n\n---\n\n<sub>⏱️ 18m 27s</sub>\n\n"
            "### ✅ `bash`\n\n**Search for MCP server wrappers for Ollama**\n\n$ curl -s https://api.github.com/search/repositories?q=mcp\n\n"
            "```\n[1] 531084\n<exited with exit code 0>\n```\n\n\n---\n\n<sub>⏱️ 18m 55s</sub>\n\n### 💬 Copilot\n\nGreat! I found several options.\n")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    calls = [c for m in messages for c in m["tool_calls"]]
    assert [(c["name"], c["kind"]) for c in calls] == [("fetch_copilot_cli_documentation", "function"), ("bash", "described")]
    assert calls[0]["arguments"] == "{}" and "$ curl -s" in calls[1]["arguments"]
    assert messages[0]["content"] == "How do i restart Copilot Cli" and "<exited with exit code 0>" in messages[6]["content"]
    assert not any("⏱️" in m["content"] for m in messages)


def test_a_run_under_the_model_s_headings_only_opens_with_its_statement_as_context(tmp_path: Path):
    """A visual logger's export of an agent's thoughts and replies (Inventure71/GenGame
    ``visual_logger/examples/example_export_thoughts.md``, no licence: rebuilt from its layout, quoting a few of its
    words): ``### 💭 Agent Thought (time)`` / ``### 🤖 Model Response (time)``, no request. Each thought is the
    reasoning of the reply after it; the run no request reaches opens with the model saying what it sets out to do,
    so that opening step is its context (never trained), as for any such run."""
    text = ("# Example Exported Session - Thoughts & Chat\n\n**Session**: 2026-01-01 14:32:15\n\n## Conversation Flow\n\n"
            "### 💭 Agent Thought (14:32:16)\n\nAnalyzing the task requirements. The user wants to implement a visual logger "
            "with export capabilities.\n\n---\n\n### 🤖 Model Response (14:32:18)\n\nI'll start by adding an export button to "
            "the UI.\n\n---\n\n### 💭 Agent Thought (14:32:21)\n\nThe export functionality should support multiple formats.\n\n---\n\n"
            "### 🤖 Model Response (14:32:24)\n\nLet me implement the export methods for each tab.\n\n---\n\n"
            "### 💭 Agent Thought (14:32:28)\n\nNeed to ensure the exported markdown is readable.\n\n---\n\n"
            "### 🤖 Model Response (14:32:31)\n\nThe export feature is now complete.\n\n---\n")
    path = tmp_path / "example_export_thoughts.md"
    path.write_text(text)
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], limits=ReadLimits())
    (doc,) = [o for o in read_location(source, str(path)) if isinstance(o, Document)]
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [("assistant", True), ("assistant", False), ("assistant", False)]
    assert messages[0]["reasoning"].startswith("Analyzing the task requirements")
    assert messages[2]["content"] == "The export feature is now complete." and "readable" in messages[2]["reasoning"]
    assert doc.metadata["transcript"]["task_from"] == "opening_step"


@pytest.mark.parametrize("text", [
    # a page's sections under the assistant's name, no log's time or model after them
    ("# Guide\n\n## Assistant\n\nThe assistant answers questions.\n\n## Assistant\n\nIt can also write code.\n\n"
     "## Assistant\n\nIt runs locally.\n"),
])
def test_the_model_s_headings_without_a_log_s_aside_are_no_run(text: str):
    assert parse_text(text) is None


# FIT, fourteenth traces holdout (spent at its 19:40 run)
def test_headings_whose_labels_are_set_in_bold():
    """Google Search AI Mode copied as Markdown (AlamiaSoft/AITeamOrchestration ``conversation.md``, no licence: rebuilt
    from its layout, quoting a few of its words): ``### **USER**`` / ``### **ASSISTANT**`` over each turn, an italic
    ``*1 hour ago*`` under each request (the page's time, no one's words), bare source domains in the answers."""
    text = ("\n---\n\n### **USER**\nhetzner auction servers have gpus\n*1 hour ago*\n\n### **ASSISTANT**\nYes, Hetzner Auction "
            "servers occasionally include GPUs, though they are rare.\nwww.hetzner.com\n\n---\n\n### **USER**\nwhat is the best/top "
            "of the line GPUs available on these auction servers I should look for?\n*1 hour ago*\n\n### **ASSISTANT**\nOn the "
            "Hetzner Server Auction, the top of the line GPUs are generally older cards.\n")
    (transcript,) = parse_text(text)
    assert [m["role"] for m in transcript.messages] == ["user", "assistant"] * 2
    assert transcript.messages[0]["content"] == "hetzner auction servers have gpus"


def test_a_terminal_agent_s_input_bar_marks_the_person_s_lines():
    """Codex CLI's interactive screen copied into Markdown (Hulupeep/agentic-mesh ``transcript.md``, MIT; an excerpt):
    a shell prompt and the boxed banner, then every line the person typed drawn beside ``▌`` (blank ones too, the
    prompt hard-wrapped), the agent's ``•`` actions and words and its ``>`` answer. The bar is the person's sign, so
    ``>`` is the model's here, not a prompt; the printed code in the run does not make the screen a page of code."""
    text = (INPUTS / "agentic-mesh.codex-cli-transcript.lines-1-23-172-296.md").read_text()
    assert len(re.findall(r"^▌[ \t]*$", text, re.MULTILINE)) >= 2 and re.search(r"^> Findings", text, re.MULTILINE)
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"].startswith("examine this platform and then determine")
    assert "▌" not in messages[0]["content"] and "Findings" in messages[1]["content"]


def test_agents_messages_printed_between_rules():
    """A Groq multi-agent workflow's console saved as text (aolad-anna/autogen-project ``autogen_output.txt``, no
    licence: rebuilt from its layout, quoting a few of its words): a glyph and an agent's name alone on a line, a dashed
    rule, the message, a closing rule. No person speaks: the orchestrator opens with the task (context), the coder,
    reviewer and executor are the model's turns, each keeping its name; the coder's unfenced Python is its message."""
    rule = "-" * 50
    text = ("Connected\nAgents ready!\n\n" + "=" * 60 + "\n  Starting Multi-Agent Workflow\n" + "=" * 60 + "\n\n"
            f"💬 Orchestrator\n{rule}\nGot a new task: 'Write a Python function that calculates the 10th Fibonacci number'\n"
            f"Let me coordinate the team...\n{rule}\n\n🤔 Coder\n{rule}\nAttempt #1: Writing code for the task\n{rule}\n\n"
            f"💻 Coder\n{rule}\nHere's what I wrote:\n\ndef fibonacci(n):\n    a, b = 0, 1\n    return a\n{rule}\n\n"
            f"✅ Reviewer\n{rule}\nCode looks good to me! ✓\n{rule}\n\n⚙️ Executor\n{rule}\nRunning the code now...\n{rule}\n\n"
            f"💬 Orchestrator\n{rule}\nThat didn't work. Let's try again with the feedback...\n{rule}\n\n"
            f"✅ Reviewer\n{rule}\nStill looks fine to me.\n{rule}\n\n⚙️ Executor\n{rule}\nRunning the code again...\n{rule}\n")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [(m["role"], m["name"]) for m in messages][:3] == [("user", "Orchestrator"), ("assistant", "Coder"),
                                                              ("assistant", "Coder")]
    assert len(messages) == 8 and "def fibonacci(n):" in messages[2]["content"]
    assert {m["name"] for m in messages if m["role"] == "assistant"} == {"Coder", "Reviewer", "Executor"}


def test_setext_headings_with_emoji_are_no_agents():
    """A README's setext headings (an emoji and a title over a rule) are a page's sections: nothing closes them."""
    rule = "-" * 12
    text = (f"📦 Install\n{rule}\n\nRun the installer.\n\n✅ Usage\n{rule}\n\nCall the tool.\n\n📦 Install\n{rule}\n\n"
            f"Again for Windows.\n\n✅ Usage\n{rule}\n\nSame as before.\n")
    assert parse_text(text) is None
