"""Independent message counts for the development runs of ``bench/traces_dev_extra.tsv``: one small function per
file layout, written from the file with ``json``/``re``/``yaml`` only (never codemix). One message per user or
task turn, per model turn (its calls inside it) and per tool or environment result; a file that holds no
conversation counts 0 (a control: it must be quarantined)."""

from __future__ import annotations

import ast
import collections
import json
import re
from pathlib import Path

import yaml


def count_toolbench(path: Path) -> int:
    """``answer_generation.train_messages``: the prompts of each model call, the last one the whole run
    (system, user, then assistant and ``function`` turns); plus nothing else (the tree repeats them)."""
    return len(json.loads(path.read_text())["answer_generation"]["train_messages"][-1])


def count_io_pairs(path: Path) -> int:
    """A list of ``{inputs: {...}, outputs: {...}}`` chat-history entries: the input and the output each."""
    return 2 * len(json.loads(path.read_text()))


def count_io_pairs_with_tools(path: Path) -> int:
    """As ``count_io_pairs``, plus the model's call when ``outputs.llm_output`` holds one (``answer`` is then the
    tool's result written as the reply)."""
    rows = json.loads(path.read_text())
    return sum(2 + bool((row["outputs"].get("llm_output") or {}).get("tool_calls")) for row in rows)


def count_chatdev(path: Path) -> int:
    """ChatDev's log: each record ``[time INFO] <Role Name>: **...`` written by a named agent (not ``System``):
    the phase's opening prompt (``[Start Chat]``) and every agent's reply (``A<->B on : Phase, turn N``)."""
    record = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} INFO\] (?!System:)[A-Z][A-Za-z ]+: \*\*", re.MULTILINE)
    return len(record.findall(path.read_text(errors="replace")))


def count_cassette_openai(path: Path) -> int:
    """A VCR cassette of chat-completion calls: the last call's request messages, plus its reply."""
    calls = [json.loads(i["request"]["body"]) for i in yaml.safe_load(path.read_text())["interactions"]
             if "chat/completions" in i["request"]["uri"]]
    return len(calls[-1]["messages"]) + 1


def count_cassette_anthropic(path: Path) -> int:
    """A VCR cassette of Messages API calls (``parsed_body``): the last request's messages, a tool_result block
    in a user message counted as the tool's turn, plus the final reply."""
    calls = [i for i in yaml.safe_load(path.read_text())["interactions"] if "/v1/messages" in i["request"]["uri"]]
    return len(calls[-1]["request"]["parsed_body"]["messages"]) + 1


def count_instruction_output(path: Path) -> int:
    """Rows of ``{instruction, output, generator}``: the instruction and the answer."""
    return sum(bool(r.get("instruction")) + bool(r.get("output")) for r in json.loads(path.read_text()))


def count_taskmaster(path: Path) -> int:
    """One dialog (``utterances``: speaker USER/ASSISTANT, text), or a list of them."""
    value = json.loads(path.read_text())
    return sum(len(d["utterances"]) for d in (value if isinstance(value, list) else [value]))


def count_tape(path: Path) -> int:
    """A TapeAgents tape: every step with text in its ``content`` (calls, responses, broadcasts, results)."""
    return sum(isinstance(s.get("content"), str) and bool(s["content"].strip()) for s in json.loads(path.read_text())["steps"])


def count_adk_eval_set(path: Path) -> int:
    """An ADK eval set: per case, per invocation the user's content, one model turn calling the tools of
    ``intermediate_data.tool_uses`` when there are any, and the ``final_response``."""
    cases = json.loads(path.read_text())["eval_cases"]
    return sum(2 + bool((inv.get("intermediate_data") or {}).get("tool_uses"))
               for case in cases for inv in case["conversation"])


def count_adk_legacy_cases(path: Path) -> int:
    """ADK's older eval cases ``[{query, expected_tool_use, reference}]``: the query, one model turn calling the
    expected tools when there are any, and the reference answer."""
    return sum(1 + bool(case.get("expected_tool_use")) + bool(case.get("reference")) for case in json.loads(path.read_text()))


def count_messages_lines(path: Path) -> int:
    """One record per JSONL line, ``messages`` a list of ``{role, content}`` (content text or an object)."""
    return sum(len(json.loads(line)["messages"]) for line in path.read_text().splitlines() if line.strip())


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def notebook_outputs(path: Path) -> list[str]:
    """Each code cell's printed text (streams and plain-text results), colour codes removed."""
    def joined(text):
        return "".join(text) if isinstance(text, list) else text or ""
    return [ANSI.sub("", "".join(joined(o.get("text")) or joined((o.get("data") or {}).get("text/plain")) for o in c.get("outputs", [])))
            for c in json.loads(path.read_text())["cells"] if c.get("cell_type") == "code"]


def count_notebook_chains(path: Path) -> int:
    """A notebook's ``AgentExecutor`` verbose logs: per chain that called tools, the question its cell gave, one
    model turn per ``Invoking:`` line, one tool output after each, and the final answer."""
    total = 0
    for text in notebook_outputs(path):
        for chain in re.findall(r"> Entering new \w+ chain\.\.\.(.*?)> Finished chain\.", text, re.DOTALL):
            calls = len(re.findall(r"^Invoking: `", chain, re.MULTILINE))
            total += 2 + 2 * calls if calls else 0
    return total


def count_notebook_banners(path: Path) -> int:
    """A notebook printing LangGraph messages with ``pretty_print()``: one message per ``=== X Message ===``
    banner in cells that print both a human's and an AI's message."""
    banner = re.compile(r"^=+ (Human|Ai|Tool|System) Message =+$", re.MULTILINE)
    return sum(len(banner.findall(text)) for text in notebook_outputs(path)
               if {"Human", "Ai"} <= set(banner.findall(text)))


def count_speaker_utterances(path: Path) -> int:
    """Dialogues ``[{turns: [{speaker, utterance}]}]`` (the Schema-Guided Dialogue layout)."""
    return sum(bool(t["utterance"].strip()) for d in json.loads(path.read_text()) for t in d["turns"])


def count_usr_sys(path: Path) -> int:
    """Dialogues ``[{dial: [{usr: {transcript}, sys: {sent}}]}]`` (GECOR): each non-empty side."""
    return sum(bool(t["usr"]["transcript"].strip()) + bool(t["sys"]["sent"].strip())
               for d in json.loads(path.read_text()) for t in d["dial"])


def count_utterance_objects(path: Path) -> int:
    """Dialogues ``[{turns: [{system_utterance: {text}, user_utterance: {text}}]}]`` (the simulated M2M
    dialogues): each utterance with text."""
    return sum(bool((t.get(k) or {}).get("text", "").strip()) for d in json.loads(path.read_text())
               for t in d["turns"] for k in ("system_utterance", "user_utterance"))


def count_transcript_pairs(path: Path) -> int:
    """Dialogues ``[{dialogue: [{system_transcript, transcript}]}]`` (WOZ 2.0): each non-empty side."""
    return sum(bool(t["system_transcript"].strip()) + bool(t["transcript"].strip())
               for d in json.loads(path.read_text()) for t in d["dialogue"])


def count_multiwoz_log(path: Path) -> int:
    """MultiWOZ dialogues keyed by id, ``log`` a list of utterances ``{text, metadata}`` (user and system in
    turn): each utterance with text."""
    return sum(bool(u["text"].strip()) for d in json.loads(path.read_text()).values() for u in d["log"])


def count_moss(path: Path) -> int:
    """A MOSS conversation: the ``meta_instruction``, and per turn the human, the reply, and when the model ran
    commands (``Commands`` not ``None``) one model turn for its thoughts and commands and one for the tool
    results (with no command, its thoughts and reply are one model turn, as the fifth holdout's collector
    counted a run whose planning and answer had no call between them)."""
    value = json.loads(path.read_text())
    none = re.compile(r":\s*None\s*<eo[cr]>", re.DOTALL)
    return 1 + sum(2 + 2 * (not none.search(t["Commands"])) for t in value["chat"].values())


# round 7 (new formats: an HTML export, a CSV table, console logs, notebooks of simulated people, Chinese and
# Korean dialogues)


def count_autogpt_console(path: Path) -> int:
    """AutoGPT's console: the task (``I want Auto-GPT to:``), each cycle's model turn (``NAME THOUGHTS:`` ...
    ``NEXT ACTION:``), each command's result (``SYSTEM:  Command X returned:``) and the person's feedback
    (``SYSTEM:  Human feedback:``)."""
    text = path.read_text()
    return sum(len(re.findall(pattern, text, re.MULTILINE)) for pattern in (
        r"^I want Auto-GPT to:", r"^\S+ THOUGHTS:", r"^SYSTEM:\s+Command \S+ returned:", r"^SYSTEM:\s+Human feedback:"))


def count_qa_rows(path: Path) -> int:
    """A CSV table of ``Q,A`` rows: each non-empty question and answer."""
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    return sum(bool(row["Q"].strip()) + bool(row["A"].strip()) for row in rows)


def count_messages_per_dialogue(path: Path) -> int:
    """A JSON list of dialogues ``{messages: [{message[, attrs]}], name}``: every message."""
    return sum(len(dialogue["messages"]) for dialogue in json.loads(path.read_text()))


def count_agentverse_log(path: Path) -> int:
    """AgentVerse's log: each agent's review (``[Name]: ...``), each tool call (``Tool:`` with ``Tool Input:``)
    and each ``Observation:``."""
    text = path.read_text()
    return sum(len(re.findall(p, text, re.MULTILINE)) for p in (r"^\[[^\]\n]+\]: ", r"^Tool: ", r"^Observation: "))


def cell_outputs(path: Path, source_holds: str = "") -> list[str]:
    """The printed text of each code cell (whose source holds ``source_holds``), colours removed."""
    cells = json.loads(path.read_text())["cells"]
    return [ANSI.sub("", "".join("".join(o.get("text", [])) or "".join(o.get("data", {}).get("text/plain", []))
                                 for o in cell.get("outputs", [])))
            for cell in cells if cell["cell_type"] == "code" and source_holds in "".join(cell["source"])]


def count_tinytroupe_chat(path: Path) -> int:
    """TinyTroupe's world run: the person's message (``USER --> Name: [CONVERSATION]``) and what each simulated
    person said (``Name acts: [TALK]``); thoughts and the copies each listener receives are no messages."""
    outputs = cell_outputs(path, "world.run")
    return sum(len(re.findall(r"^USER --> ", o, re.MULTILINE)) + len(re.findall(r"^\S.* acts: \[TALK\]", o, re.MULTILINE))
               for o in outputs)


def count_html_message_divs(path: Path) -> int:
    """claude-code-log's page: every ``<div class='message KIND'>`` of a user, assistant, system, tool use or
    tool result (the session header is none)."""
    return len(re.findall(r"class='message (?:user|assistant|tool_use|tool_result|system)'", path.read_text()))


def count_message_list(path: Path) -> int:
    return len(json.loads(path.read_text()))


def count_camel_society(path: Path) -> int:
    """CAMEL's role-playing society printed by a notebook: each ``[AI User]`` and ``[AI Assistant]`` message."""
    return sum(len(re.findall(r"^\[AI (?:User|Assistant)\] ", o, re.MULTILINE)) for o in cell_outputs(path))


def count_tinytroupe_text(path: Path) -> int:
    """TinyTroupe's prints kept as text (a Markdown report, a console capture): the person's messages
    (``USER --> Name: [CONVERSATION]``) and what each simulated person said (``Name acts: [TALK]``)."""
    text = ANSI.sub("", path.read_text())
    return len(re.findall(r"^USER --> ", text, re.MULTILINE)) + len(re.findall(r"^\S.* acts: \[TALK\]", text, re.MULTILINE))


def count_camel_workforce(path: Path) -> int:
    """CAMEL Workforce printed by a notebook: each task a worker gets (``Worker node N (...) get task T:``) and
    each worker's reply (``Reply from Worker node N (...):``)."""
    return sum(len(re.findall(r"^(?:=+)?Worker node \S+ \(.*\) get task \S+:|^(?:=+)?Reply from Worker node ", o,
                              re.MULTILINE)) for o in cell_outputs(path))


def count_crewai_console(path: Path) -> int:
    """CrewAI's console output: each tool call (``## Tool Input:``), its output (``## Tool Output:``) and each
    final answer (``## Final Answer:``)."""
    return len(re.findall(r"^## (?:Tool Input|Tool Output|Final Answer):", path.read_text(), re.MULTILINE))


def count_sdk_replies_to_cell_tasks(path: Path) -> int:
    """Cells that pass a person's text to a call (``f("...")``) and print the model's reply, as an SDK repr
    (``Message(...)``, ``TextBlock(...)``, ``ToolUseBlock(...)``), an ``Assistant:`` line or a tool-call banner:
    the request and the reply each."""
    cells = json.loads(path.read_text())["cells"]
    reply = re.compile(r"ToolUseBlock\(|TextBlock\(|^Assistant: |Claude Wants To Call", re.MULTILINE)
    return sum(2 for cell, text in zip((c for c in cells if c["cell_type"] == "code"), cell_outputs(path))
               if re.search(r'\("[^"]+"\)', "".join(cell["source"])) and reply.search(text))


def count_labelled_sdk_run(path: Path) -> int:
    """A script's run printed with labels: each ``User Message:``, each printed model response
    (``ChatCompletionMessage(`` or a ``Message(`` / ``TextBlock(`` content list) and each ``Tool Result:``."""
    outputs = cell_outputs(path)
    patterns = (r"^User Message: ", r"^(?:Initial Response: |Content: )?(?:ChatCompletionMessage\(|\[TextBlock\()",
                r"^Tool Result: ")
    return sum(len(re.findall(p, o, re.MULTILINE)) for o in outputs for p in patterns)


def count_printed_ai_replies(path: Path) -> int:
    """Cells that print one ``AIMessage(...)`` answering one text the code sent: the text and the reply."""
    return sum(2 for o in cell_outputs(path) if len(re.findall(r"^AIMessage\(", o, re.MULTILINE)) == 1)


def count_instances(path: Path) -> int:
    """Alpaca seed tasks ``{instruction, instances: [{input, output}]}``: per instance the instruction, the input
    when it is not empty, and the output."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return sum(2 + bool(i["input"].strip()) for row in rows for i in row["instances"])


def count_bedrock_bound_tools(path: Path) -> int:
    """Cells that print the request sent (``bedrock_messages: [...]``, its ``'role'`` entries) and the reply
    (``AIMessage(``); and each agent run the notebook starts (``.invoke({"input": ...})``, ``.chat("...")``) that
    prints an answer: its task and its answer (the steps between, a log, are not counted)."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    chats = sum(len(re.findall(r"'role': '(?:user|assistant)'", o.split("\n")[0])) + len(re.findall(r"^AIMessage\(", o, re.MULTILINE))
                for o in cell_outputs(path) if o.startswith("bedrock_messages:"))
    agents = sum(2 for cell, o in zip(cells, cell_outputs(path)) if re.search(r"\.(?:invoke\(\{\"input\"|chat\(\")", "".join(cell["source"]))
                 and re.search(r"Final Answer:|^Answer:", o, re.MULTILINE))
    return chats + agents


def count_recursive_tool_log(path: Path) -> int:
    """A recursive tool-calling loop printed: each ``Assistant Message:`` and ``Tool Call Result:``, plus the
    person's query the loop was started with (one per printing run)."""
    outputs = [o for o in cell_outputs(path) if "Assistant Message: " in o]
    return sum(1 + len(re.findall(r"^(?:Assistant Message|Tool Call Result): ", o, re.MULTILINE)) for o in outputs)


def count_fenced_exchanges(path: Path) -> int:
    """A Markdown page keeping runs as fenced JSON of ``{input, output}`` rounds: every input and output."""
    fenced = "".join(re.findall(r"^```[^\n]*\n(.*?)^```", path.read_text(), re.MULTILINE | re.DOTALL))
    return len(re.findall(r'"(?:input|output)":', fenced))


def count_none(path: Path) -> int:
    """A file of no conversation (a pipeline's progress log, an ontology): 0."""
    return 0


# --- issue 45 round 9 (records that are runs) ----------------------------------------------------


def count_printed_model_messages(path: Path) -> int:
    """pydantic-ai's printed runs (``ModelRequest(parts=[...])`` / ``ModelResponse(parts=[...])`` in docstrings):
    each response one message, each request part a person's, a tool's or the system's message, and the page's
    ``instructions`` once per printed run."""
    text = path.read_text()
    runs = re.findall(r'"""\n\[\n(.*?)\n\]\n"""', text, re.DOTALL)
    return sum(len(re.findall(r"\bModelResponse\(", run))
               + len(re.findall(r"\b(?:UserPrompt|SystemPrompt|ToolReturn|RetryPrompt)Part\(", run))
               + bool(re.search(r"\binstructions=", text)) for run in runs if "ModelRequest(" in run)


def count_gemini_cassette(path: Path) -> int:
    """A recording of Gemini calls whose requests grow: the last request's system instruction, its model
    contents (one message each), its user contents' parts (a text or a function response each), and the last
    response."""
    body = yaml.safe_load(path.read_text())["interactions"][-1]["request"]["parsed_body"]
    return (bool(body.get("systemInstruction"))
            + sum(1 if c["role"] == "model" else len(c["parts"]) for c in body["contents"]) + 1)


def count_adk_session_events(path: Path) -> int:
    """An ADK session's ``events``: each event with content one message, but function responses one each."""
    total = 0
    for event in json.loads(path.read_text())["events"]:
        parts = (event.get("content") or {}).get("parts") or []
        responses = sum(1 for p in parts if p.get("function_response"))
        total += responses if responses else bool(parts)
    return total


def count_adk_eval_invocations(path: Path) -> int:
    """An ADK eval set's invocations: the user's content, the tool uses (one model message), each intermediate
    response, and the final response."""
    cases = json.loads(path.read_text())["eval_cases"]
    return sum(1 + bool(inv["intermediate_data"]["tool_uses"]) + len(inv["intermediate_data"]["intermediate_responses"])
               + bool(inv.get("final_response")) for case in cases for inv in case["conversation"])


def count_adk_legacy_rounds(path: Path) -> int:
    """ADK's legacy eval rows ``{query, expected_tool_use, expected_intermediate_agent_responses, reference}`` (a
    list of rounds, or named sets holding them under ``data``): the query, the tool uses (one model message),
    each intermediate response, and the reference reply."""
    value = json.loads(path.read_text())
    rows = [r for s in value for r in s["data"]] if value and "data" in value[0] else value
    return sum(1 + bool(r.get("expected_tool_use")) + len(r.get("expected_intermediate_agent_responses") or [])
               + bool(r.get("reference")) for r in rows)
# round 9 (runs printed as labelled sections, issue 45's text and Markdown logs)
def count_autogpt_session(path: Path) -> int:
    """AutoGPT's console: the person's goals or request (``I want Auto-GPT to:``, else ``Goals:``) once per run,
    each cycle's model turn (``NAME THOUGHTS:``), each command's result (``SYSTEM:  Command x returned``) and
    each line the person typed (``Input:``; ``SYSTEM:  Human feedback:`` echoes it)."""
    text = path.read_text()
    runs = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL) or [text]
    total = 0
    for run in runs:
        if not re.search(r"^\S+ THOUGHTS:", run, re.MULTILINE):
            continue
        asked = bool(re.search(r"^(?:I want Auto-GPT to:|Goals:)", run, re.MULTILINE))
        total += asked + sum(len(re.findall(p, run, re.MULTILINE)) for p in (
            r"^\S+ THOUGHTS:", r"^SYSTEM:\s+Command \S+ returned:", r"^Input:"))
    return total


def count_headed_role_pairs(path: Path) -> int:
    """A Markdown page of a role-playing chat under bold speaker headings (``**User Agent**:``,
    ``**Assistant Agent**:``): each heading."""
    return len(re.findall(r"^\*\*(?:User|Assistant) Agent\*\*:", path.read_text(), re.MULTILINE))


def count_crewai_headed_run(path: Path) -> int:
    """CrewAI's verbose output pasted into a page: each task (``## Task:``), tool call (``## Tool Input:``), its
    output (``## Tool Output:``) and final answer (``## Final Answer:``)."""
    return len(re.findall(r"^## (?:Task|Tool Input|Tool Output|Final Answer):", path.read_text(), re.MULTILINE))


def count_last_call_messages(path: Path) -> int:
    """A log of the calls a program sent the model, each rendering the conversation so far in headed blocks
    (``<div class="header"><b>role</b>:``) and the reply after it: the messages of the last call, which holds
    the whole run."""
    calls = re.split(r"^# SEND TO LLM", path.read_text(), flags=re.MULTILINE)
    return len(re.findall(r'<div class="header"><b>[^<]+</b>:', calls[-1]))


def count_clack_runs(path: Path) -> int:
    """A CLI's session log (clack-style glyphs): each run's intent (``## Intent:``), the model's statements
    (``●  ...``) and its replies (``Agent:``)."""
    text = path.read_text()
    return sum(len(re.findall(p, text, re.MULTILINE)) for p in (r"^## Intent:", r"^●  \S", r"^Agent:"))


# round 11 (chats and agents' dialogues written as text)

def count_headed_sections(path: Path) -> int:
    """A Markdown transcript of ``## Speaker`` sections (a referee's ``## System Prompt`` and each agent's turn):
    one message per heading with text under it."""
    sections = re.split(r"^## .*$", path.read_text(), flags=re.MULTILINE)[1:]
    return sum(1 for body in sections if body.strip())


def count_you_and_model_headings(path: Path) -> int:
    """A ChatGPT export in Markdown: one message per ``#### You:`` / ``#### ChatGPT:`` heading."""
    return len(re.findall(r"^#### (?:You|ChatGPT):", path.read_text(), re.MULTILINE))


def count_exporter_items(path: Path) -> int:
    """ChatGPT Exporter's HTML page: one message per ``<div class="conversation-item">``."""
    return path.read_text().count('<div class="conversation-item">')


def count_says_labels(path: Path) -> int:
    """A dialogue log of ``[N] Name says:`` entries: one message each."""
    return len(re.findall(r"^\[\d+\] \w+ says:", path.read_text(), re.MULTILINE))


def count_board_posts(path: Path) -> int:
    """A message board of posts ``Name: text`` (``DON (the human): ...``), each ended by a ``--------`` line."""
    return len(re.findall(r"^[A-Z][A-Za-z]+(?: \([^)]*\))?: \S", path.read_text(), re.MULTILINE))


def count_bold_speakers(path: Path) -> int:
    """Pidgin's Markdown: one message per ``**System**:``, ``**Researcher**:`` or ``**Agent X**:`` paragraph."""
    return len(re.findall(r"^\*\*(?:System|Researcher|Agent [AB])\*\*:", path.read_text(), re.MULTILINE))


def count_emoji_headed_pair(path: Path) -> int:
    """cg-md-parser's Markdown of one ChatGPT exchange: ``## 👤 User Question`` and ``## 🤖 Assistant Answer``."""
    return len(re.findall(r"^## (?:👤 User Question|🤖 Assistant Answer)$", path.read_text(), re.MULTILINE))


def count_autogen_printed_results(path: Path) -> int:
    """AutoGen runs a notebook printed as ``TaskResult(messages=[...])`` or ``[TextMessage(...), ...]`` reprs (parsed
    with ``ast``): one message per event with text, one per ``ToolCallRequestEvent`` (its calls inside), one per
    result of a ``ToolCallExecutionEvent``; events that say nothing (no content) none."""
    total = 0
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("text") or output.get("data", {}).get("text/plain") or [])
            for line in text.splitlines():
                line = line.strip()
                if not line.startswith(("TaskResult(", "[TextMessage(")):
                    continue
                try:
                    node = ast.parse(line, mode="eval").body
                except SyntaxError:
                    continue
                events = node.elts if isinstance(node, ast.List) else next(k.value for k in node.keywords if k.arg == "messages").elts
                for event in events:
                    content = next((k.value for k in event.keywords if k.arg == "content"), None)
                    if isinstance(content, ast.List):
                        total += len(content.elts) if event.func.id.endswith("ExecutionEvent") else 1
                    elif isinstance(content, ast.Constant) and str(content.value).strip():
                        total += 1
    return total


def count_emoji_claude_headings(path: Path) -> int:
    """The Claude Chat Export Tool's Markdown: one message per ``## 👤 User`` / ``## 🤖 Claude`` heading (the
    folded reasoning block is part of Claude's message)."""
    return len(re.findall(r"^## (?:👤 User|🤖 Claude)$", path.read_text(), re.MULTILINE))


def count_langfuse_last_generation(path: Path) -> int:
    """A Langfuse trace export (``{trace, observations}``): the last ``GENERATION`` by start time was sent the
    whole conversation; its input messages (a ``role: tool`` entry whose content is a tool's declaration,
    ``{function: {parameters}}``, is none) and its output messages (one object or a list)."""
    calls = [o for o in json.loads(path.read_text())["observations"] if o["type"] == "GENERATION"]
    last = max(calls, key=lambda o: o["startTime"])
    sent = [m for m in last["input"] if not (m.get("role") == "tool" and isinstance(m.get("content"), dict)
                                             and "parameters" in (m["content"].get("function") or {}))]
    output = last["output"]
    return len(sent) + (len(output) if isinstance(output, list) else 1)


def count_langfuse_single_call(path: Path) -> int:
    """A Langfuse trace export of one model call: the ``GENERATION``'s prompt (one text) and its reply."""
    (call,) = [o for o in json.loads(path.read_text())["observations"] if o["type"] == "GENERATION"]
    return 2 if call["input"] and call["output"] else 0


def count_headed_sections_and_parts(path: Path, heading: str, part: str) -> int:
    """A Markdown export of one heading per turn: one message per section with text, or one per ``part`` label in
    it when it holds several (each tool result a harness wrote under a person's heading is its own message)."""
    sections = re.split(heading, path.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]
    return sum(max(1, len(re.findall(part, body, re.MULTILINE))) for body in sections if body.strip())


def count_gemini_cli_export(path: Path) -> int:
    """Gemini CLI's ``/export``: ``## USER 🧑‍💻`` / ``## MODEL ✨`` sections, a person's section holding one
    ``**Tool Response**:`` per result."""
    return count_headed_sections_and_parts(path, r"^## (?:USER|MODEL) .*$", r"^\*\*Tool Response\*\*:")


def count_numbered_messages(path: Path) -> int:
    """CodeRhapsody's conversation history: ``## Message N - User`` / ``## Message N - Assistant`` sections, a
    person's section holding one ``**Tool Result**:`` per result."""
    return count_headed_sections_and_parts(path, r"^## Message \d+ - (?:User|Assistant)$", r"^\*\*Tool Result\*\*:")
def count_langfuse_responses_items(path: Path) -> int:
    """A Langfuse trace export of an OpenAI Agents SDK run: the last ``GENERATION`` (by start time) was sent the
    run's Responses items (a message, a call, its output: one message each) and returned ``output`` items."""
    calls = [o for o in json.loads(path.read_text())["observations"] if o["type"] == "GENERATION"]
    last = max(calls, key=lambda o: o["startTime"])
    return len(last["input"]) + len(last["output"]["output"])


def count_langsmith_patched_run(path: Path) -> int:
    """LangSmith's recorded run (``{post: [run], patch: [run]}``): the patched run's input messages and its one
    reply (a chat completion's first choice)."""
    (patched,) = json.loads(path.read_text())["patch"]
    return len(patched["inputs"]["messages"]) + 1


def count_folded_export(path: Path) -> int:
    """ccexport's session export, Markdown or its HTML page: per turn heading (``## 👤 User``, ``## 🤖🔧 Assistant``,
    ``<h2>`` on the page) one message for its text outside ``<details>`` and one per ``<details>`` block (a call or
    a result); code (fences, ``<pre>``) is left out first, so an example export a README shows counts nothing."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"<pre\b.*?</pre>", "", text, flags=re.DOTALL)
    text = re.sub(r"^[ \t]*(`{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", "", text, flags=re.MULTILINE | re.DOTALL)
    text = re.sub(r"<h2>(.*?)</h2>", r"\n## \1\n", text)
    heading = r"^## (?:👤 User|🤖🔧 Assistant|🤖 Assistant|🔧 Tool Use)[ \t]*$"
    count = 0
    for body in re.split(heading, text, flags=re.MULTILINE)[1:]:
        folded = len(re.findall(r"<details>", body))
        rest = re.sub(r"<[^>]+>", "", re.sub(r"<details>.*?</details>|<!--.*?-->", "", body, flags=re.DOTALL)).strip()
        count += folded + bool(rest)
    return count


def count_prompt_history_record(path: Path) -> int:
    """A Spec-Kit prompt history record: the person's ``## Prompt`` and the agent's ``## Response snapshot``."""
    return len(re.findall(r"^## (?:Prompt|Response snapshot)[ \t]*$", path.read_text(encoding="utf-8"), re.MULTILINE))


# --- round 13 (b45p): structured runs of new systems, counted before any code of the round -------------


def count_autogen_core_history(path: Path) -> int:
    """AutoGen Core's saved ``{messages: [...]}``: one per message, a ``FunctionExecutionResultMessage`` one per
    result it holds."""
    messages = json.loads(path.read_text())["messages"]
    return sum(len(m["content"]) if m["type"] == "FunctionExecutionResultMessage" else 1 for m in messages)


def count_cassette_chains(path: Path) -> int:
    """A VCR cassette of chat-completion calls by several agents: a call whose messages begin with an earlier
    call's messages continues that conversation; each conversation is its last request's messages plus the reply."""
    calls = []
    for interaction in yaml.safe_load(path.read_text())["interactions"]:
        if "chat/completions" in interaction["request"]["uri"]:
            calls.append(json.loads(interaction["request"]["body"])["messages"])
    last: list[list] = []
    for messages in calls:
        last = [c for c in last if messages[:len(c)] != c] + [messages]
    return sum(len(c) + 1 for c in last)


def count_responses_chain(path: Path) -> int:
    """A VCR cassette of Responses API calls chained by ``previous_response_id``: every input item sent (the first
    request's system and user messages, later requests' tool outputs) and every output item returned."""
    total = 0
    for interaction in yaml.safe_load(path.read_text())["interactions"]:
        total += len(json.loads(interaction["request"]["body"])["input"])
        total += len(json.loads(interaction["response"]["body"]["string"])["output"])
    return total


def count_task_outputs(path: Path) -> int:
    """A swarm's ``outputs``: each agent's task and its result."""
    return 2 * len(json.loads(path.read_text())["outputs"])


def count_jsonl_turns(path: Path) -> int:
    """JSONL records, some holding ``turns`` (the others answers only): one per turn."""
    return sum(len(json.loads(line).get("turns", [])) for line in path.read_text().splitlines() if line.strip())


def count_automaker_output(path: Path) -> int:
    """Automaker's ``agent-output.md`` and the request in ``feature.json`` beside it: the request, then one model
    turn per stretch of text (the ``🔧 Tool:`` / ``Input: {...}`` calls after it belong to it; calls before any
    text make a turn of their own)."""
    text = path.read_text()
    parts = re.split(r"🔧 Tool: [^\n]*\nInput: \{.*?\n\}\n", text, flags=re.DOTALL)
    turns = sum(bool(p.strip()) for p in parts) + (not parts[0].strip() and len(parts) > 1)
    return 1 + turns


def count_nested_turn_lists(path: Path) -> int:
    """A JSON list of conversations, each a list of ``{role, text}`` turns: one per turn."""
    return sum(len(conversation) for conversation in json.loads(path.read_text()))


def count_wrapped_steps(path: Path) -> int:
    """ATIF steps each holding a ``message``: one per step, plus one per result under its ``observation``."""
    steps = json.loads(path.read_text())["steps"]
    return sum(1 + len((step.get("observation") or {}).get("results", [])) for step in steps)


def count_nothing(path: Path) -> int:
    """A file of no conversation (a control)."""
    return 0
# round 13 (exports of chats and agent sessions written as text; collected before code changed)
def _without_fences(text: str) -> str:
    return re.sub(r"^[ \t]*(`{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", "", text, flags=re.MULTILINE | re.DOTALL)


def count_copy_all_labels(path: Path) -> int:
    """VS Code Copilot Chat's "Copy All": each turn opens with the writer's name and a colon at a line's start
    (the person's account name, ``GitHub Copilot:``); the model's actions (``Ran ...``, ``Read [](...)``) are inside
    its turn, no result is kept."""
    return len(re.findall(r"^(?:digitarald|GitHub Copilot): ", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_handle_headings(path: Path) -> int:
    """GitHub Copilot's web chat export: one message per ``## @handle`` (the person) or ``## Copilot`` heading,
    outside fences."""
    return len(re.findall(r"^## (?:@[\w-]+|Copilot)[ \t]*$", _without_fences(path.read_text(encoding="utf-8")),
                          re.MULTILINE))


def count_specstory_tool_use(path: Path) -> int:
    """SpecStory's Markdown v2 export of a Cursor agent: per ``_**User (...)**_`` heading one message; per
    ``_**Agent (...)**_`` section each ``<tool-use>`` block is a call and its result (two messages: the model's
    turn holding the call, the tool's), and text after the last block one more model message (a section of text
    alone, one)."""
    text = path.read_text(encoding="utf-8")
    count = 0
    for heading, body in re.findall(r"^_\*\*(User|Agent)\b[^\n]*\*\*_[ \t]*\n(.*?)(?=^_\*\*(?:User|Agent)\b|\Z)",
                                    text, re.MULTILINE | re.DOTALL):
        if heading == "User":
            count += 1
            continue
        blocks = re.split(r"<tool-use\b.*?</tool-use>", body, flags=re.DOTALL)
        words = [re.sub(r"^-{3,}[ \t]*$", "", b, flags=re.MULTILINE).strip() for b in blocks]
        count += 2 * (len(blocks) - 1) + bool(words[-1])
    return count


def count_specstory_turns(path: Path) -> int:
    """SpecStory's earlier export: one message per ``_**User**_`` / ``_**Assistant**_`` heading and one per folded
    tool call block (``<summary>MCP tool call</summary>``: what the tool returned); the model's thinking
    (``<think>``) is no message."""
    text = path.read_text(encoding="utf-8")
    return (len(re.findall(r"^_\*\*(?:User|Assistant)\b", text, re.MULTILINE))
            + len(re.findall(r"<summary>MCP tool call</summary>", text)))


def count_numbered_dash_turns(path: Path) -> int:
    """A session record's ``### Turn N — User`` / ``### Turn N — Assistant`` headings: one message each."""
    return len(re.findall(r"^### Turn \d+ \u2014 (?:User|Assistant)[ \t]*$", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_cast_chat(path: Path) -> int:
    """An asciinema cast of a chat CLI: its output events joined, escapes and carriage-return overwrites taken out;
    one message per `` You : `` prompt line and per reply panel titled with the agent's name (``── K8sGPT ──``)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = "".join(event[2] for event in map(json.loads, lines[1:]) if event[1] == "o")
    out = re.sub(r"\x1b\][^\x07]*\x07|\x1b\[[0-9;?]*[A-Za-z]", "", out)
    screen = "\n".join(line.split("\r")[-1] for line in out.replace("\r\n", "\n").split("\n"))
    return (len(re.findall(r"^ You : \S", screen, re.MULTILINE))
            + len(re.findall(r"^╭─+  K8sGPT  ─+╮", screen, re.MULTILINE)))


def count_bracketed_bold_speakers(path: Path) -> int:
    """A dialogue record whose turns open with a bracketed bold name alone on a line (``【**浦部**】``, ``【**AI**】``)."""
    return len(re.findall(r"^【\*\*[^*\n]+\*\*】[ \t]*$", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_kimaki_share_headings(path: Path) -> int:
    """kimaki's ShareMarkdown of an opencode session: one message per ``### 👤 User`` / ``### 🤖 Assistant (model)``
    heading with anything under it (its ``#### 🛠️ Tool: x`` calls inside the model's turn, no output kept); a heading
    right over the next is an empty message, none."""
    bodies = re.split(r"^### (?:👤 User|🤖 Assistant)\b[^\n]*$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]
    return sum(1 for body in bodies if body.strip())


def count_numbered_role_headings(path: Path) -> int:
    """An opencode chat export's ``### N. user (time)`` / ``### N. assistant (time)`` headings, less the turns whose
    whole body is the exporter's ``_No text content captured for this message._``."""
    text = path.read_text(encoding="utf-8")
    bodies = re.split(r"^### \d+\. (?:user|assistant) \([^)\n]*\)[ \t]*$", text, flags=re.MULTILINE)[1:]
    return sum(1 for body in bodies if body.strip() != "_No text content captured for this message._")



def count_request_span_events(path: Path) -> int:
    """Span start/end events (JSONL ``{event, span: {trace_id, kind, attributes}}``): per trace, the person's and
    later turns of the longest request an ``llm`` span's end event logs (``llm.request.messages``, a Python repr
    or a list: one per role entry, the system prompt too), plus the reply when ``llm.response.content`` holds words."""
    best: dict[str, int] = {}
    for line in path.read_text().splitlines():
        event = json.loads(line) if line.strip() else {}
        span = event.get("span") or {}
        attrs = span.get("attributes") or {}
        if event.get("event") != "end" or span.get("kind") != "llm" or "llm.request.messages" not in attrs:
            continue
        sent = attrs["llm.request.messages"]  # a Python repr, or (later events) the list itself
        roles = [m.get("role") for m in sent] if isinstance(sent, list) else re.findall(r"'role': '(\w+)'", sent)
        said = len(roles) + bool(str(attrs.get("llm.response.content") or "").strip())
        best[span["trace_id"]] = max(best.get(span["trace_id"], 0), said)
    return sum(best.values())


def count_jsonl_records(path: Path) -> int:
    """A JSONL file whose every record is one message (a memory's records): one per record."""
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def count_observation_generations(path: Path) -> int:
    """A Langfuse export of observations: per trace, each distinct message (system prompts too) its generations were sent
    (``input``, JSON text of a message list) or returned (``output``, one message as JSON text)."""
    seen: dict[str, set] = {}
    for observation in json.loads(path.read_text()):
        if observation.get("type") != "GENERATION":
            continue
        said = seen.setdefault(observation["traceId"], set())
        for item in json.loads(observation["input"] or "[]") + [json.loads(observation["output"] or "{}")]:
            if isinstance(item, dict) and item.get("role"):
                said.add((item["role"], json.dumps(item.get("content"), sort_keys=True)))
    return sum(len(said) for said in seen.values())
# round 14 (b45l: text exports and logs, collected before code changed)
def count_bold_label_turns(path: Path) -> int:
    """Cursor's own "Export chat" Markdown: each turn under a bold label alone on its line (``**User**``,
    ``**Cursor**``), turns parted by ``---`` rules."""
    return len(re.findall(r"^\*\*(?:User|Cursor)\*\*[ \t]*$", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_zed_thread(path: Path) -> int:
    """Zed's agent thread as Markdown: ``## User`` / ``## Assistant`` sections; in the model's, each ``**Tool Call:
    <what it did>**`` line (then ``Status:``) is a call whose output follows it: one result each, and the model's
    turn after a result (a further call, or words) is a new one."""
    count = 0
    for role, body in re.findall(r"^## (User|Assistant)[ \t]*\n(.*?)(?=^## (?:User|Assistant)[ \t]*$|\Z)",
                                 path.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL):
        calls = len(re.findall(r"^\*\*Tool Call: ", body, re.MULTILINE))
        count += 1 if role == "User" or not calls else 2 * calls
    return count


def count_prompt_repl(path: Path) -> int:
    """A CLI's session copied from the terminal: the person's ``name> text`` prompts, the agent's calls as ``🔧 Tool:
    name`` blocks (calls with no result between them one turn) and each ``✓ Result (call_id):`` (``✗``: failed) a result."""
    text = path.read_text(encoding="utf-8")
    prompts = len(re.findall(r"^\w+> \w", text, re.MULTILINE))  # (``cody> %``: an empty prompt, the shell's mark)
    marks = re.findall(r"^(🔧 Tool:|[✓✗] Result)", text, re.MULTILINE)
    turns = sum(1 for i, m in enumerate(marks) if m == "🔧 Tool:" and (i == 0 or marks[i - 1] != "🔧 Tool:"))
    return prompts + turns + len(marks) - marks.count("🔧 Tool:")


def count_claude_screen(path: Path) -> int:
    """Claude Code's screen copied as text: each ``> `` prompt a message, each run of ``⏺`` lines up to a tool's
    output (``⎿``) or a prompt one model turn (its calls inside it), each ``⎿`` output a result."""
    count, in_turn = 0, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("> "):
            count, in_turn = count + 1, False
        elif line.startswith("⏺ "):
            count, in_turn = count + (not in_turn), True
        elif line.lstrip().startswith("⎿"):
            count, in_turn = count + 1, False
    return count


def count_codex_exec_output(path: Path) -> int:
    """``codex exec``'s console output (in a loop's ledger): each ``codex`` label's words a model turn (the ``exec``
    calls after them inside it), each command's output after ``succeeded in``/``exited`` a result; ``thinking`` is
    the turn's reasoning, the answer echoed after ``tokens used`` no message."""
    text = path.read_text(encoding="utf-8")
    return len(re.findall(r"^codex$", text, re.MULTILINE)) + len(re.findall(r" (?:succeeded|exited \d+) in [\d.]+m?s:$", text, re.MULTILINE))


def count_turn_headings_ja(path: Path) -> int:
    """An agent's run log with Japanese turn headings: each ``## Turn N: AI応答`` (the model's words) and ``## Turn N:
    ツール使用`` (a call, its parameters listed) a message; the system's start and end turns none."""
    return len(re.findall(r"^## Turn \d+: (?:AI応答|ツール使用)", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_stamped_role_headings(path: Path) -> int:
    """A transcript the agent appends to itself: ``## <time> — user`` / ``## <time> — codex`` headings."""
    return len(re.findall(r"^## \S+ — (?:user|codex)[ \t]*$", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_prompt_response_log(path: Path) -> int:
    """A client's console log: each ``Sending prompt: "..."`` the person's turn, each printed response message
    (``"role": "assistant"``) the model's."""
    text = path.read_text(encoding="utf-8")
    return len(re.findall(r'Sending prompt: "', text)) + len(re.findall(r'"role": "assistant"', text))

# round 15 (b45p): structured run files of new systems, counted before any code of the round
def count_gemini_session(path: Path) -> int:
    """A Gemini CLI chat session (``messages`` of ``type`` user / gemini): each message that says something or
    makes calls, plus one tool message per call holding its ``result``."""
    messages = json.loads(path.read_text())["messages"]
    said = sum(1 for m in messages if m.get("type") in ("user", "gemini")
               and (str(m.get("content") or "").strip() or m.get("toolCalls")))
    return said + sum(1 for m in messages for call in m.get("toolCalls") or [] if call.get("result"))


def count_envelopes(path: Path) -> int:
    """JSONL envelopes between agents (``sender``, ``recipient``, ``payload``): one message each (a summary line
    without a sender is none)."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return sum(1 for record in records if "sender" in record and record.get("payload") is not None)


def count_team_state_thread(path: Path) -> int:
    """An AutoGen ``TeamState``: the conversation once, as the group chat manager's ``message_thread`` (each
    agent's ``llm_context`` is its own view of the same messages)."""
    states = json.loads(path.read_text())["agent_states"]
    return max(len(state.get("message_thread") or []) for state in states.values())


def count_agent_state_context(path: Path) -> int:
    """An AutoGen ``AssistantAgentState``: the messages of its ``llm_context``."""
    return len(json.loads(path.read_text())["llm_context"]["messages"])


def count_claude_stream_json(path: Path) -> int:
    """Claude Code ``--output-format stream-json``: the model's messages by ``message.id`` (a record per content
    block), plus each user record's blocks (its text, each ``tool_result``); ``system`` and ``result`` records
    (hooks, retries, task notices) are none."""
    ids, user = set(), 0
    for line in path.read_text().splitlines():
        record = json.loads(line) if line.strip() else {}
        if record.get("type") == "assistant":
            ids.add(record["message"]["id"])
        elif record.get("type") == "user":
            content = record["message"]["content"]
            user += len(content) if isinstance(content, list) else bool(content.strip())
    return len(ids) + user




# round 16 (b45p): structured run files of new systems, counted before any code of the round
def _glued_records(path: Path) -> list:
    """JSON lines, a line holding two records glued together (an interrupted append) split into both."""
    records, decoder = [], json.JSONDecoder()
    for line in path.read_text(encoding="utf-8").splitlines():
        line, at = line.strip(), 0
        while at < len(line):
            record, at = decoder.raw_decode(line, at)
            records.append(record)
    return records


def count_pi_session(path: Path) -> int:
    """A pi coding-agent session (JSONL ``session`` header, ``message`` records of role user / assistant /
    toolResult / bashExecution): each message record one message, plus each ``custom_message`` the harness sends
    the model (``enriched-prompt``; a ``prompt-summary`` is the UI's timing note); model and thinking-level changes
    and extension state are none."""
    records = _glued_records(path)
    return sum(1 for r in records if r.get("type") == "message") + sum(
        1 for r in records if r.get("type") == "custom_message" and r.get("customType") == "enriched-prompt")


def count_wrapped_cli_events(path: Path) -> int:
    """GitHub Copilot CLI session events each wrapped in a ``{role, content, raw}`` record: the person's
    ``user.message``, each ``assistant.message`` (its words or its ``toolRequests``), each
    ``tool.execution_complete`` a result, and each distinct ``system.message`` prompt; hooks, turn starts and ends,
    and compaction bookkeeping are none."""
    events = [json.loads(line)["raw"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    kinds = collections.Counter(event["type"] for event in events)
    prompts = {event["data"]["content"] for event in events if event["type"] == "system.message"}
    return kinds["user.message"] + kinds["assistant.message"] + kinds["tool.execution_complete"] + len(prompts)


def count_part_per_line(path: Path) -> int:
    """A transcript written one content part per line (``{role, content: {type, ...}}``): the model's consecutive
    parts one message, each person's line and each ``tool_result`` line one message."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return sum(1 for index, r in enumerate(records)
               if r["role"] != "assistant" or index == 0 or records[index - 1]["role"] != "assistant")


def count_run_state(path: Path) -> int:
    """An OpenAI Agents SDK (JS) ``RunState`` serialized by ``toString()``: the ``originalInput`` (a string is one
    message, a list its items) and each generated item but the approvals waiting for an answer."""
    state = json.loads(path.read_text())
    given = state["originalInput"]
    return (1 if isinstance(given, str) else len(given)) + sum(
        1 for item in state["generatedItems"] if item["type"] != "tool_approval_item")


def count_role_lines(path: Path) -> int:
    """JSON lines of which those with a conversational ``role`` are messages (a tools list or metadata line is
    none)."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return sum(1 for r in records if r.get("role") in ("user", "assistant", "system", "tool"))


def count_step_records(path: Path) -> int:
    """An IDE agent's trajectory of steps (``source`` USER_EXPLICIT / MODEL / SYSTEM, ``type`` USER_INPUT,
    PLANNER_RESPONSE, tool steps, system notices): each step that carries ``content``, ``thinking`` or
    ``tool_calls`` one message (the bare history and knowledge markers are none)."""
    steps = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return sum(1 for step in steps if step.get("content") or step.get("thinking") or step.get("tool_calls"))


def count_session_export_messages(path: Path) -> int:
    """A session exported as one JSON line (``system_prompt`` beside ``messages``): the prompt and each message."""
    session = json.loads(path.read_text(encoding="utf-8"))
    return bool(session.get("system_prompt")) + len(session["messages"])


# round 15 (b45l: text exports, share pages and terminal copies, collected before code changed)
def count_opencode_export(path: Path) -> int:
    """opencode's own ``/export`` Markdown: each ``## User`` and ``## Assistant (agent · model · time)`` heading a
    message (an assistant's ``**Tool: name**`` calls inside it), each call's ``**Output:**`` or ``**Error:**`` a result."""
    text = path.read_text(encoding="utf-8")
    turns = re.findall(r"^## (?:User|Assistant \([^)\n]*\))[ \t]*$", text, re.MULTILINE)
    return len(turns) + len(re.findall(r"^\*\*(?:Output|Error):\*\*[ \t]*$", text, re.MULTILINE))


def count_copilot_cli_share(path: Path) -> int:
    """GitHub Copilot CLI's ``/share`` Markdown: ``### 👤 User`` and ``### 💬 Copilot`` turns; each ``### ✅ `tool```
    (``❌``: failed) block a call with its result: the result a message, and the call a model turn of its own unless it
    follows the Copilot's words (a call after a result is a new turn: corrected after the first count, 31 -> 32).
    ``### ℹ️ Info`` notes are the CLI's, no message."""
    blocks = re.findall(r"^### (👤 User|💬 Copilot|[✅❌] `)", path.read_text(encoding="utf-8"), re.MULTILINE)
    count, last = 0, ""
    for block in blocks:
        tool = block not in ("👤 User", "💬 Copilot")
        count += 1 + (tool and last != "💬 Copilot")
        last = block
    return count


def count_ollama_prompts(path: Path) -> int:
    """``ollama run`` copied from the terminal: each ``>>> `` prompt (not a ``/command``) and the answer printed under it."""
    prompts = re.findall(r"^>>> (?!/)\S", path.read_text(encoding="utf-8"), re.MULTILINE)
    return 2 * len(prompts)


def count_replay_page(path: Path) -> int:
    """An opencode-replay HTML page: each ``message-user`` / ``message-assistant`` element, and each ``tool-call``
    element (a call inside the model's message, its output a result)."""
    text = path.read_text(encoding="utf-8")
    return (len(re.findall(r'class="message message-(?:user|assistant)"', text))
            + len(re.findall(r'class="tool-call ', text)))


def count_prompt_blocks_and_replies(path: Path) -> int:
    """A chat retold in a README: each ``### ... ChatGPT`` heading over the model's reply, each reply answering the
    person's prompt quoted in the fenced ``txt`` block above it (under a screenshot): two per heading."""
    return 2 * len(re.findall(r"^### \S* ?ChatGPT[ \t]*$", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_query_response_records(path: Path) -> int:
    """A shell's log of model calls: per ``**<time> | PROVIDER (model)**`` record the ``**Query:**`` and each answer
    (one ``**Response:**``, or one per ``### PROVIDER`` under ``**Responses:**``) that is not ``Failed (...)``."""
    count = 0
    for record in re.split(r"^\*\*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \| ", path.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]:
        count += len(re.findall(r"^\*\*Query:\*\*", record, re.MULTILINE))
        if "**Responses:**" in record:
            answers = re.split(r"^### \w+", record.split("**Responses:**", 1)[1], flags=re.MULTILINE)[1:]
        else:
            answers = [record.split("**Response:**", 1)[1]] if "**Response:**" in record else []
        count += sum(1 for a in answers if a.strip() and not a.strip().startswith("Failed"))
    return count


def count_thought_response_pairs(path: Path) -> int:
    """An agent's exported thoughts and replies (``### 💭 Agent Thought`` / ``### 🤖 Model Response``), no request: each
    reply one model turn, the thought before it its reasoning."""
    return len(re.findall(r"^### \S* ?Model Response\b", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_agent_run_report(path: Path) -> int:
    """A coding agent's run report in Russian: the person's request (``Запрос пользователя``), the orchestrator's turn
    (its instructions, the tool calls listed with their arguments but no output), the code generator's turn (its code
    and explanation): three when each is written (a ``[...]`` placeholder is none)."""
    sections = dict(re.findall(r"^## \S+ ([^\n]+)\n(.*?)(?=^## |\Z)", path.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL))
    said = lambda *names: any(sections.get(n, "").strip() and not sections[n].strip().startswith("[") for n in names)
    return (said("Запрос пользователя") + said("Анализ Оркестратора", "Инструкции для Code Generator")
            + said("Сгенерированный код", "Пояснения к коду"))


def count_last_call_sent(path: Path) -> int:
    """A Markdown log of model calls (``### Call #N``, ``**Messages sent to model:**`` as fenced JSON, ``**Model
    Response:**``): the last call's messages (the system prompt too) plus its reply."""
    sent = re.findall(r"\*\*Messages sent to model:\*\*\s*```json\n(.*?)\n```", path.read_text(encoding="utf-8"), re.DOTALL)
    return len(json.loads(sent[-1])) + 1



def count_numbered_headings_zh(path: Path) -> int:
    """A Cursor chat recorded in Chinese: each ``### 用户 #N`` (the person's) and ``### 助手`` (the model's) heading
    outside fences a message; the replies' own ``###`` sections are inside them."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    return len(re.findall(r"^### (?:用户(?: #\d+)?|助手)[ \t]*$", text, re.MULTILINE))



# --- round 16 (b45l: text exports and terminal copies, collected before code changed) ---------------------------

def count_gemini_cli_screen(path: Path) -> int:
    """Gemini CLI's screen captured as text: each prompt the person typed in a top-level box (``│  > ...``, a
    ``/command`` none), each ``✦`` block of the model's words, each indented tool box (``│ ✔  ReadFile ...``) a
    result, and a model turn of its own for each tool box no ``✦`` block opens (a call after a result)."""
    events = []
    for line in path.read_text().splitlines():
        if re.match(r"^│  > (?!/)", line):
            events.append("user")
        elif line.startswith("✦"):
            events.append("model")
        elif re.match(r"^ │ [✔✖x-] ", line):
            events.append("tool")
    calls_alone = sum(b == "tool" and a != "model" for a, b in zip(["user", *events], events))
    return len(events) + calls_alone


def count_agent_eval_log(path: Path) -> int:
    """An evaluation harness's Markdown run log (``* Human Message:`` / ``* Agent Message:`` / ``* Tool Call:`` /
    ``* Tool Output:`` bullets): each human and agent message, each tool output that says something, and each
    ``Tool Call`` bullet no agent message opens (calls after a result are a model turn of their own)."""
    marks = re.findall(r"^\* (Human Message|Agent Message|Tool Call|Tool Output):[ \t]*(\S?)", path.read_text(), re.MULTILINE)
    count, previous = 0, None
    for label, said in marks:
        if label == "Tool Output" and not said:
            continue  # an empty output bullet says nothing
        count += not (label == "Tool Call" and previous == "Agent Message")
        previous = label
    return count


def count_continue_transcript(path: Path) -> int:
    """Continue's session transcript: each ``#### _User_`` / ``#### _Assistant_`` heading a message (the bodies
    quoted with ``> ``, so no heading of a body starts a line)."""
    return len(re.findall(r"^#### _(?:User|Assistant)_[ \t]*$", path.read_text(), re.MULTILINE))


def count_goose_run_output(path: Path) -> int:
    """``goose run``'s console output (no request typed): each ``▸ tool`` block the model's call (a turn of its own,
    each after the previous result) and its output; the closing report the model's last turn."""
    text = path.read_text()
    calls = len(re.findall(r"^  ▸ \S", text, re.MULTILINE))
    return 2 * calls + bool(text.rstrip().rsplit("\n", 1)[-1].strip())


def count_flemma_chat(path: Path) -> int:
    """A Flemma chat buffer (``@System:`` / ``@You:`` / ``@Assistant:``): each section a message, but a ``@You:``
    section of ``**Tool Result:**`` blocks one tool message per block."""
    return _sections_and_results(re.split(r"^@(System|You|Assistant):[ \t]*$", path.read_text(), flags=re.MULTILINE), "You")


def count_amp_thread(path: Path) -> int:
    """An Amp thread exported as Markdown (front matter, ``## User`` / ``## Assistant`` sections, ``**Tool Use:**``
    inside the model's, ``## User`` sections of ``**Tool Result:**`` blocks): each prompt and each model section a
    message, each tool result one (headings inside fences are the bodies' own)."""
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.MULTILINE | re.DOTALL)
    return _sections_and_results(re.split(r"^## (User|Assistant)[ \t]*$", text, flags=re.MULTILINE), "User")


def _sections_and_results(split: list[str], user: str) -> int:
    """Messages of a ``re.split`` by role headings (text before the first dropped): each section one, but a ``user``
    section of ``**Tool Result:**`` blocks one tool message per block."""
    sections, count = split[1:], 0
    for role, body in zip(sections[::2], sections[1::2]):
        results = len(re.findall(r"^\*\*Tool Result:\*\*", body, re.MULTILINE))
        count += results if role == user and results else 1
    return count


def count_goose_blog_session(path: Path) -> int:
    """A blog post quoting a goose session in a fence: each ``( O)> `` prompt answered in its fence, and the answer."""
    fences = re.findall(r"^```[^\n]*\n(.*?)^```", path.read_text(), re.MULTILINE | re.DOTALL)
    return sum(2 for fence in fences for prompt in re.findall(r"^\( O\)> (.*)$", fence, re.MULTILINE)
               if fence.split(prompt, 1)[1].strip())


def count_prime_screen(path: Path) -> int:
    """A terminal agent's screen in a design note's fence (``┏━ <prompt>``, ``┃`` the reply, ``┏━ actions`` and its
    ``┃`` command lines, ``│`` the output): each prompt, each block of ``┃`` reply lines that is no action (the
    reply before an action holds it), each block of ``│`` output lines."""
    fence = re.findall(r"^```[^\n]*\n(.*?)^```", path.read_text(), re.MULTILINE | re.DOTALL)[0]
    count, kind = 0, None
    for line in fence.splitlines():
        now = ("prompt" if line.startswith("┏━") and line[2:].strip() != "actions" else "actions" if line.startswith("┏━")
               else ("reply" if kind != "actions" else "actions") if line.startswith("┃") else "output" if line.startswith("│")
               else None)
        count += now in ("prompt", "reply", "output") and now != kind
        kind = now if now is not None else (kind if line.startswith(("┗", "╰")) else None)
    return count


# --- round 17 (b45l: text exports, copies and write-ups, collected before code changed) ----------------------------

def count_obsidian_copilot(path: Path) -> int:
    """Obsidian Copilot's saved conversation: each ``**user**:`` / ``**ai**:`` label opening a line is a message."""
    return len(re.findall(r"^\*\*(?:user|ai)\*\*:", path.read_text(), re.MULTILINE))


def count_bold_to_labels(path: Path) -> int:
    """AutoGen's printed chat rewritten as Markdown: each ``**Speaker (to Other):**`` label a message, but a label
    with nothing under it before the next rule (``---``) says nothing."""
    parts = re.split(r"^\*\*[^*\n]+ \(to [^)\n]+\):\*\*[ \t]*$", path.read_text(), flags=re.MULTILINE)[1:]
    return sum(1 for part in parts if re.sub(r"^-{3,}[ \t]*$", "", part, flags=re.MULTILINE).strip())


def count_turn_attribute_dump(path: Path) -> int:
    """A printed dump of a model's turns (``Turn N.M`` blocks of ``reasoning_content=`` / ``content=`` /
    ``tool_calls=`` lines): each block a model message, each ``tool_result(name):`` line a tool message."""
    text = path.read_text()
    return (len(re.findall(r"^Turn \d+\.\d+[ \t]*$", text, re.MULTILINE))
            + len(re.findall(r"^tool_result\([^)\n]*\):", text, re.MULTILINE)))


def count_prompt_response_labels(path: Path) -> int:
    """An ``llm logs`` Markdown page: each ``**Prompt:**`` and ``**Response:**`` label a message (``**Options:**``
    and the metadata ``<details>`` are the log's own)."""
    return len(re.findall(r"^\*\*(?:Prompt|Response):\*\*[ \t]*$", path.read_text(), re.MULTILINE))


def count_role_headings(path: Path) -> int:
    """LM Studio's exported chat: each ``## User`` / ``## Assistant`` heading a message."""
    return len(re.findall(r"^## (?:User|Assistant)[ \t]*$", path.read_text(), re.MULTILINE))


def count_perplexity_export(path: Path) -> int:
    """Perplexity's own Markdown export: each query opens with a top-level heading (the first after the logo, then
    one after each ``---`` rule that is followed by a heading) and is answered once: two messages a query."""
    text = path.read_text()
    queries = 1 + len(re.findall(r"^---[ \t]*\n\n# ", text, re.MULTILINE)) if re.search(r"^# ", text, re.MULTILINE) else 0
    return 2 * queries


def count_bold_colon_labels(path: Path) -> int:
    """A chat saved by a browser script: each ``**User:**`` / ``**Assistant:**`` label opening a line a message."""
    return len(re.findall(r"^\*\*(?:User|Assistant):\*\*", path.read_text(), re.MULTILINE))
# --- round 18 (b45l: chat exports, session logs and a console, collected before code changed) ------------------------

def count_conversation_items(path: Path) -> int:
    """A ChatGPT page saved whole (2022 layout): each ``ConversationItem__ConversationItemWrapper`` element a message."""
    return len(re.findall(r'class="ConversationItem__ConversationItemWrapper', path.read_text()))


def count_timed_speaker_headings(path: Path) -> int:
    """A chat saved by a script in Russian: each ``### Пользователь [hh:mm:ss]`` / ``### Claude [hh:mm:ss]`` heading a
    message."""
    return len(re.findall(r"^### (?:Пользователь|Claude) \[\d\d:\d\d:\d\d\][ \t]*$", path.read_text(), re.MULTILINE))


def count_you_chatgpt_headings(path: Path) -> int:
    """A ChatGPT chat exported as Markdown: each ``### You`` / ``### ChatGPT`` heading a message."""
    return len(re.findall(r"^### (?:You|ChatGPT)[ \t]*$", path.read_text(), re.MULTILINE))


def count_model_labelled_console(path: Path) -> int:
    """A home-made agent's console: each ``> `` line typed at the program's prompt a message, and each model label
    alone on a line (``gemma3:12b:``) one reply (its answer's lines also open with ``> ``)."""
    lines = path.read_text().splitlines()
    label = re.compile(r"^[\w.-]+:[\w.-]+:$")
    replies = sum(1 for line in lines if label.match(line))
    typed = sum(1 for i, line in enumerate(lines) if line.startswith("> ") and (i == 0 or not label.match(lines[i - 1])))
    return replies + typed


def count_bold_q_a(path: Path) -> int:
    """A chat exported by topic: each ``**Q:**`` / ``**A:**`` label opening a line a message."""
    return len(re.findall(r"^\*\*[QA]:\*\*", path.read_text(), re.MULTILINE))


def count_level_two_role_headings(path: Path) -> int:
    """A chat exported as Markdown under ``## User`` / ``## Assistant`` headings (the replies use ``##`` headings of their
    own, which are no messages)."""
    return len(re.findall(r"^## (?:User|Assistant)[ \t]*$", path.read_text(), re.MULTILINE))


def count_bold_user_assistant(path: Path) -> int:
    """A chat written up by topic: each ``**User:**`` / ``**Assistant:**`` label opening a line a message."""
    return len(re.findall(r"^\*\*(?:User|Assistant):\*\*", path.read_text(), re.MULTILINE))


def count_comment_marked_entries(path: Path) -> int:
    """A prompt logger's session file: each ``<!--Start Prompt-->`` / ``<!--Start Response-->`` marker line an entry."""
    return len(re.findall(r"^<!--Start (?:Prompt|Response)-->[ \t]*$", path.read_text(), re.MULTILINE))
# --- round 19 (b45l: text exports, session logs and consoles of new tools, collected before code changed) ------------

def count_handle_headings_and_copilot(path: Path) -> int:
    """VS Code Copilot's chat exported as Markdown: each ``# <handle>: <request>`` heading a message, each
    ``**GitHub Copilot:**`` label a reply."""
    text = path.read_text(encoding="utf-8")
    return len(re.findall(r"^# [\w.-]+: \S", text, re.MULTILINE)) + len(re.findall(r"^\*\*GitHub Copilot:\*\*", text, re.MULTILINE))


def count_numbered_messages_and_tools(path: Path) -> int:
    """A Claude.ai chat exported as Markdown: each ``## User Message N`` / ``## Assistant Response N`` heading a
    message, each tool's heading (``### create_group``, and the call the export appends after the last response,
    ``## get_group_expenses``) its result; ``### API Call`` repeats the call's request and response, no message."""
    text = path.read_text(encoding="utf-8")
    turns = len(re.findall(r"^## (?:User Message|Assistant Response) \d+[ \t]*$", text, re.MULTILINE))
    tools = len(re.findall(r"^##{1,2} (?!API Call|Additional API Calls|User Message|Assistant Response)[a-z_]+[ \t]*$",
                           text, re.MULTILINE))
    return turns + tools


def count_pasted_claude_code_screens(path: Path) -> int:
    """Claude Code screens pasted into a note: each prompt (``❯ `` or ``> ``) a message; each prompt answered
    (all but the one whose only line is ``⎿  Request timed out``) one reply; each call's ``⎿`` line right after its
    ``⏺ Name(args)`` line a result."""
    lines = path.read_text(encoding="utf-8").splitlines()
    prompts = [i for i, line in enumerate(lines) if re.match(r"^(?:❯|>) +\S", line)]
    unanswered = sum(1 for i in prompts if i + 1 < len(lines) and "Request timed out" in lines[i + 1])
    results = sum(1 for i, line in enumerate(lines[1:], 1) if line.lstrip().startswith("⎿")
                  and re.match(r"^⏺ \w+\(", lines[i - 1]))
    return 2 * len(prompts) - unanswered + results


def count_user_trae_labels(path: Path) -> int:
    """A Trae chat retold as a text log in Chinese: each ``用户:`` / ``TRAE:`` label opening a line a message."""
    return len(re.findall(r"^(?:用户|TRAE): ", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_level_two_name_headings(path: Path) -> int:
    """Two models talking under their names: each ``## Jake`` / ``## Paul`` heading a message."""
    return len(re.findall(r"^## (?:Jake|Paul)[ \t]*$", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_question_fanned_to_models(path: Path) -> int:
    """One question put to several models: each ``--- <model> ---`` banner after a ``Pregunta:`` line an answer; the
    question is sent to each model (a message of each model's conversation)."""
    text = path.read_text(encoding="utf-8")
    answers = len(re.findall(r"^--- (?!Consulta )[^-\n][^\n]*? ---[ \t]*$", text, re.MULTILINE))
    return 2 * answers


def count_numbered_speeches(path: Path) -> int:
    """An AI debate in Chinese: each ``#N [stage] speaker ...`` heading a speech (the debaters' and the judge's)."""
    return len(re.findall(r"^#\d+ \[", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_handle_and_copilot_labels(path: Path) -> int:
    """VS Code's Copy All: each ``<handle>:`` / ``GitHub Copilot:`` label opening a line a message."""
    return len(re.findall(r"^(?:adam-mcquistan_moo|GitHub Copilot):", path.read_text(encoding="utf-8"), re.MULTILINE))


def count_bold_names_and_mcp_commands(path: Path) -> int:
    """A Claude.ai chat written up with bold names: each ``**Alexey:**`` / ``**Claude:**`` label opening a line a
    message, each ``### MCP Command: <tool>`` block a call's result."""
    text = path.read_text(encoding="utf-8")
    return len(re.findall(r"^\*\*(?:Alexey|Claude):\*\*", text, re.MULTILINE)) + len(
        re.findall(r"^### MCP Command: ", text, re.MULTILINE))


# --- round 17 (b45p): structured run files of new systems, collected before code changed ---------------------------


def concatenated_values(text: str) -> list:
    """JSON values written back to back (pretty-printed objects one after another)."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(text):
        while at < len(text) and text[at].isspace():
            at += 1
        if at < len(text):
            value, at = decoder.raw_decode(text, at)
            values.append(value)
    return values


def count_promptflow_spans(path: Path) -> int:
    """promptflow's span export: each LLM span's ``inputs`` attribute holds the messages sent (JSON text) and
    ``llm.generated_message`` the reply; the run is the last call's messages plus its reply."""
    calls = [span["attributes"] for span in concatenated_values(path.read_text())
             if span.get("attributes", {}).get("span_type") == "LLM"]
    last = max(calls, key=lambda a: len(json.loads(a["inputs"])["messages"]))
    return len(json.loads(last["inputs"])["messages"]) + ("llm.generated_message" in last)


def count_jaeger_genai_calls(path: Path) -> int:
    """A Jaeger export of GenAI spans (``tags`` as key/type/value): each conversation (by its first input
    message) counted at its longest call: its system instructions (one message), input and output messages."""
    longest: dict[str, int] = {}
    for trace in json.loads(path.read_text())["data"]:
        for span in trace["spans"]:
            tags = {tag["key"]: tag["value"] for tag in span["tags"]}
            if "gen_ai.input.messages" not in tags:
                continue
            sent = json.loads(tags["gen_ai.input.messages"])
            got = json.loads(tags.get("gen_ai.output.messages") or "[]")
            key = json.dumps(sent[0], ensure_ascii=False)
            longest[key] = max(longest.get(key, 0), len(sent) + len(got) + ("gen_ai.system_instructions" in tags))
    return sum(longest.values())


def count_constructor_messages(path: Path) -> int:
    """Messages serialised as their class's constructor (``id: ["langchain_core", "messages", "HumanMessage"]``)."""
    return len(re.findall(r'id:\s*\[\s*"langchain_core",\s*"messages",\s*"\w+Message(?:Chunk)?"\s*\]', path.read_text()))


def count_ai_sdk_steps(path: Path) -> int:
    """AI SDK step results written as object literals: per step the model's turn (its text and calls) and one
    result per ``tool-result``."""
    text = path.read_text()
    return text.count("stepType:") + text.count('type: "tool-result"')


def count_mcp_proxy_log(path: Path) -> int:
    """An MCP audit proxy's log: a JSON line per call with its result or error (two messages), and timestamped
    ``[REQUEST]`` lines of JSON-RPC ``tools/call`` (the call) answered by a ``[RESPONSE]`` of the same process
    and id (its result)."""
    total, calls = 0, set()
    for line in path.read_text().splitlines():
        if line.startswith("{") and '"toolName"' in line:
            total += 2
        elif match := re.search(r"\[PID:(\d+)\] - \[REQUEST\] Method: tools/call \| ID: (\d+)", line):
            calls.add(match.groups())
            total += 1
        elif (match := re.search(r"\[PID:(\d+)\] - \[RESPONSE\] Method: \S+ \| ID: (\d+)", line)) and match.groups() in calls:
            total += 1
    return total


def count_class_typed_traces(path: Path) -> int:
    """Evaluation records whose ``trace`` lists messages typed by class (HumanMessage, AIMessage, ToolMessage)."""
    return sum(len(record["trace"]) for record in json.loads(path.read_text()))


def count_task_steps(path: Path) -> int:
    """Tasks with their steps: the task, then per step the action and its observation."""
    return sum(1 + 2 * len(task["steps"]) for task in json.loads(path.read_text()))



# --- round 18 (b45p): structured run files of new systems, collected before code changed ---------------------------


def json_lines(path: Path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]



def count_exchange_records(path: Path) -> int:
    """A chatbot's log of one exchange per line (``user_message`` and ``assistant_answer``): two messages each."""
    return sum(bool(r.get("user_message")) + bool(r.get("assistant_answer")) for r in json_lines(path))



def count_kind_events(path: Path) -> int:
    """An agent's event log (``kind`` THOUGHT / DECISION / ACTION / OBSERVE): each thought and each action (a
    call) is the model's, each observation a result. Decisions (a stop reason) say nothing."""
    return sum(event["kind"] in ("THOUGHT", "ACTION", "OBSERVE") for event in json_lines(path))


def count_browser_history(path: Path) -> int:
    """browser-use's ``AgentHistoryList``: per step the model's output (its goal and actions) and the results of
    its actions (one message however many)."""
    return sum(bool(step.get("model_output")) + bool(step.get("result")) for step in json.loads(path.read_text())["history"])




def count_sender_lines(path: Path) -> int:
    """Chat lines of several parties (``sender``, ``text``), each a message."""
    return sum(bool(r.get("text", "").strip()) for r in json_lines(path))


def count_question_answers(path: Path) -> int:
    """A list of ``{question, answer}`` records: two messages each."""
    return sum(bool(r.get("question")) + bool(r.get("answer")) for r in json.loads(path.read_text()))


def count_toml_messages(path: Path) -> int:
    """A TOML file's ``[[messages]]`` tables (role and content): each one message."""
    return len(re.findall(r"^\[\[messages\]\]\s*$", path.read_text(), re.MULTILINE))


def count_message_response_lines(path: Path) -> int:
    """A support bot's log of one exchange per line (``user_message``, ``response``): two messages each."""
    return sum(bool(r.get("user_message")) + bool(r.get("response")) for r in json_lines(path))


# --- round 19 (b45p): structured run files of new systems, collected before code changed ---------------------------


def count_batch_results(path: Path) -> int:
    """A batch API's results (a ``custom_id`` per line): each result's request, found by its ``custom_id`` in a
    JSONL file beside it (``{custom_id, body: {messages}}``), is its messages, and the reply one more."""
    requests = {}
    for other in sorted(path.parent.glob("*.jsonl")):
        for record in json_lines(other):
            if isinstance(record.get("body"), dict) and "messages" in record["body"]:
                requests[record["custom_id"]] = record["body"]["messages"]
    return sum(len(requests[r["custom_id"]]) + 1 for r in json_lines(path) if r["custom_id"] in requests)


def count_promptfoo_results(path: Path) -> int:
    """promptfoo's results: each test's prompt (``prompt.raw``, the rendered chat messages as JSON text) and the
    provider's output."""
    results = json.loads(path.read_text())["results"]["results"]
    return sum(len(json.loads(r["prompt"]["raw"])) + bool(r["response"].get("output")) for r in results)


def count_numbered_answers(path: Path) -> int:
    """Rows of a question and the model's answer (a judge's verdict beside them is no turn): two messages each."""
    return sum(bool(r.get("question")) + bool(r.get("qwen_answer")) for r in json_lines(path))


def count_agent_products(path: Path) -> int:
    """A research run per record: the topic, and each named agent's product under ``results`` (a one-word
    ``query_type`` is a label)."""
    return sum(1 + sum(1 for k, v in r["results"].items() if k != "query_type" and isinstance(v, str) and v.strip())
               for r in json.loads(path.read_text()))


def count_question_responses(path: Path) -> int:
    """A question and its response per line: two messages each."""
    return sum(bool(r.get("question")) + bool(r.get("response")) for r in json_lines(path))


def count_prompt_responses(path: Path) -> int:
    """A prompt and its response per line: two messages each."""
    return sum(bool(r.get("prompt")) + bool(r.get("response")) for r in json_lines(path))


def count_task_conversations(path: Path) -> int:
    """Each line's ``conversation``: one message per entry."""
    return sum(len(r["conversation"]) for r in json_lines(path))


EXTRA_COUNTS = {"ToolBench (DFS answer)": count_toolbench, "promptflow (chat history)": count_io_pairs,
                "promptflow (chat history with tools)": count_io_pairs_with_tools, "ChatDev (WareHouse log)": count_chatdev,
                "crewAI (VCR cassette)": count_cassette_openai, "pydantic-ai (VCR cassette)": count_cassette_anthropic,
                "AlpacaEval (model outputs)": count_instruction_output, "Taskmaster-1 (sample dialog)": count_taskmaster,
                "TapeAgents (data science tape)": count_tape, "TapeAgents (delegate stack tape)": count_tape,
                "Google ADK (eval set)": count_adk_eval_set, "Google ADK (legacy eval cases)": count_adk_legacy_cases,
                "Arena-Hard-Auto (model answers)": count_messages_lines,
                "SWE-bench submission (pipeline log, no conversation)": count_none,
                "Taskmaster-2 (ontology, no conversation)": count_none,
                # round 6 (notebooks, printed runs, keyed dialogue turns)
                "langchain-benchmarks (relational data agent, notebook)": count_notebook_chains,
                "LangChain Academy (agent notebook, pretty-printed messages)": count_notebook_banners,
                "LangChain Academy (memory agent notebook)": count_notebook_banners,
                "Schema-Guided Dialogue (DialogStudio original)": count_speaker_utterances,
                "GECOR (DialogStudio original, usr/sys)": count_usr_sys,
                "SimJoint Movie (DialogStudio original)": count_utterance_objects,
                "WOZ 2.0 (DialogStudio original)": count_transcript_pairs,
                "MOSS (calculator plugin conversation)": count_moss,
                "MultiWOZ 2.1 (DialogStudio original)": count_multiwoz_log,
                "Python Data Science Handbook (notebook, no conversation)": count_none,
                "Python Data Science Handbook (CSV of numbers, no conversation)": count_none,
                "watsonx demos (README, no conversation)": count_none,
                # round 7
                "AutoGPT (console log in Markdown, agent leaderboard)": count_autogpt_console,
                "Chatbot_data (Korean Q/A table, CSV)": count_qa_rows,
                "KdConv (Chinese knowledge-grounded dialogues, travel)": count_messages_per_dialogue,
                "AgentVerse (multi-agent tool-use log)": count_agentverse_log,
                "TinyTroupe (two simulated people chatting, notebook)": count_tinytroupe_chat,
                "claude-code-log (Claude Code session rendered as HTML)": count_html_message_divs,
                "SMILE (Chinese counselling dialogue, client/counselor)": count_message_list,
                "CAMEL (role-playing society, notebook)": count_camel_society,
                # round 8 (runs printed as text, issue 45's console logs)
                "TinyTroupe (simulation report, prints in Markdown)": count_tinytroupe_text,
                "TinyTroupe (three personas' feedback session, console capture)": count_tinytroupe_text,
                "TinyTroupe (test README with printed runs)": count_tinytroupe_text,
                "CAMEL Workforce (judge committee, notebook outputs)": count_camel_workforce,
                "CAMEL Workforce (research society, notebook outputs)": count_camel_workforce,
                "CrewAI (hierarchical crew console output, Markdown)": count_crewai_console,
                # round 8 (printed objects and data records)
                "Anthropic cookbook (tool choice, SDK reprs printed by cells)": count_sdk_replies_to_cell_tasks,
                "E2B cookbook (OpenAI code-interpreter run printed with labels)": count_labelled_sdk_run,
                "langchain-benchmarks (chat models compared, AIMessage reprs)": count_printed_ai_replies,
                "Stanford Alpaca (seed tasks, instructions with and without input)": count_instances,
                "Amazon Bedrock samples (tool binding: requests, AIMessage reprs, agent runs)": count_bedrock_bound_tools,
                "Hermes Function Calling (recursive tool-calling loop printed)": count_recursive_tool_log,
                "Chinese-Vicuna (legal multi-turn outputs as JSON in Markdown, zh)": count_fenced_exchanges,
                # round 9 (records that are runs)
                "pydantic-ai docs (a run printed as ModelRequest/ModelResponse parts)": count_printed_model_messages,
                "pydantic-ai Gemini cassette (systemInstruction parts, growing requests)": count_gemini_cassette,
                "ADK customer-service agent (session events with function calls)": count_adk_session_events,
                "ADK travel concierge (eval set of invocations)": count_adk_eval_invocations,
                "ADK brand search optimization (legacy eval rounds)": count_adk_legacy_rounds,
                "ADK customer-service agent (legacy eval rounds)": count_adk_legacy_rounds,
                # round 9 (runs printed as labelled sections)
                "AutoGPT (math evaluation notes, console runs in Markdown)": count_autogpt_session,
                "CAMEL (math evaluation notes, role-play under bold headings)": count_headed_role_pairs,
                "CrewAI (research agent README, verbose run under Markdown headings)": count_crewai_headed_run,
                "TaoGPT (log of LLM calls in Markdown, HTML-headed turns)": count_last_call_messages,
                "simple-cli (CLI session log with clack glyphs, demo)": count_clack_runs,
                "simple-cli (CLI session log with clack glyphs, product director loop)": count_clack_runs,
                # round 11 (chats and agents' dialogues written as text)
                "AI Design Theater (two models debating under a referee's headings)": count_headed_sections,
                "ProxyChatGPT (ChatGPT chat in Markdown, You and ChatGPT headings)": count_you_and_model_headings,
                "ChatGPT Exporter (Markdown export, extratone)": count_you_and_model_headings,
                "ChatGPT Exporter (HTML export, writer named by an avatar element)": count_exporter_items,
                "Orchestrator (Claude and Gemini code review, said labels)": count_says_labels,
                "Orchestrator (message board of a person and three agents)": count_board_posts,
                "Pidgin (Claude and GPT-4o talking, bold speaker labels)": count_bold_speakers,
                "cg-md-parser (a ChatGPT exchange under emoji headings)": count_emoji_headed_pair,
                # round 11 (event logs, printed)
                "AutoGen literature review (TaskResult events printed in a notebook)": count_autogen_printed_results,
                "AutoGen company research (TaskResult events printed in a notebook)": count_autogen_printed_results,
                "Claude Chat Export Tool (README's example export, emoji headings)": count_emoji_claude_headings,
                # round 12 (trace exports)
                "Langfuse trace export of a Koog agent (observations)": count_langfuse_last_generation,
                "Langfuse trace export of a LangGraph run (observations)": count_langfuse_last_generation,
                "Langfuse trace export of a LlamaIndex completion (observations)": count_langfuse_single_call,
                "Langfuse trace export of an OpenAI Agents SDK run (observations)": count_langfuse_responses_items,
                "LangSmith run posted and patched by the JS SDK (wrapped OpenAI call)": count_langsmith_patched_run,
                "LangSmith run posted and patched by the JS SDK (reasoning model call)": count_langsmith_patched_run,
                # round 12 (text exports)
                "Gemini CLI /export of a session (Markdown: ## USER / ## MODEL headings after the emoji, **Tool Command** / **Tool Response** fences)": count_gemini_cli_export,
                "CodeRhapsody conversation history (Markdown: ## Message N - User / Assistant, **Tool Call** / **Tool Result** fences)": count_numbered_messages,
                "ccexport Markdown of a Claude Code session (## 👤 User / ## 🤖🔧 Assistant, calls and results in <details>)": count_folded_export,
                "ccexport HTML page of the same session (GitHub style, <h2> turns, <details>, a README example in a <pre>)": count_folded_export,
                "Spec-Kit prompt history record (Markdown: YAML front matter, ## Prompt / ## Response snapshot / ## Outcome)": count_prompt_history_record,
                # round 13 (b45p): new systems, counted before any code of the round
                "AutoGen Core handoffs sample (saved chat history: UserMessage/AssistantMessage/FunctionExecutionResultMessage with sources)": count_autogen_core_history,
                "mini-swe-agent test trajectory (message list with a bash command block per reply)": count_message_list,
                "Agno team run recorded for OpenInference (VCR cassette: a leader delegating to a member, chat-completion calls, telemetry posts)": count_cassette_chains,
                "Microsoft Agent Framework run recorded for OpenInference (VCR cassette of Responses API calls chained by previous_response_id)": count_responses_chain,
                "Swarms spreadsheet swarm run (metadata JSON: outputs of named agents, each a task and its result)": count_task_outputs,
                "Interview agent sessions (JSONL: records with agent/user turns mixed with answer-only records)": count_jsonl_turns,
                "Automaker feature agent output beside its feature.json (legal adviser app)": count_automaker_output,
                "tau2-bench voice simulation (full-duplex ticks with no text, no conversation)": count_nothing,
                "ChatArena classroom config (players with role descriptions, no conversation)": count_nothing,
                "X-Ray Claude Code interceptor token log (JSONL of turn numbers, token counts and tools, no conversation)": count_nothing,
                "Robot arm waypoint trajectory (task and waypoints, no conversation)": count_nothing,
                "AgentOps captured log records (OpenTelemetry log spans of console output, no conversation)": count_nothing,
                "UFO app agent few-shot examples (prompt YAML: example requests and responses, no run)": count_nothing,
                "AI president debate (JSON list of debates: a host's prompt and candidates' speeches under role names, zh)": count_nested_turn_lists,
                "Autonomous GitHub agent event log (plan_created events listing plan steps as strings, no conversation)": count_nothing,
                "ProspectAgent hackathon decision log (steps with action, decision, outcome and tools, no conversation)": count_nothing,
                "Composio app research trace (statistics and evidence rows, no conversation)": count_nothing,
                # round 13 (b45l: text exports, collected before code changed)
                "VS Code Copilot Chat Copy All (account name: / GitHub Copilot: labels, actions inside the turn)": count_copy_all_labels,
                "GitHub Copilot web chat export (## @handle / ## Copilot headings)": count_handle_headings,
                "SpecStory Markdown v2.1 of a Cursor agent (_**Agent (model, mode)**_ headings, <tool-use> blocks)": count_specstory_tool_use,
                "SpecStory Markdown of a Cursor chat (_**Assistant (default)**_, <think>, MCP tool call <details>)": count_specstory_turns,
                "Session record with numbered turns (### Turn N — User / Assistant)": count_numbered_dash_turns,
                "asciinema cast of a Kubernetes agent chat CLI (You : prompts, Rich panels titled K8sGPT)": count_cast_chat,
                "AI dialogue record with bracketed bold speakers (【**name**】 / 【**AI**】, Japanese)": count_bracketed_bold_speakers,
                "ATIF 1.5 trajectory replayed by replai (steps each holding a message object, calls and observation results beside it)": count_wrapped_steps,
                "Claude harness session log (JSONL of Python logging records, no conversation)": count_nothing,
                "kimaki ShareMarkdown of an opencode session (### 👤 User / ### 🤖 Assistant (model), #### 🛠️ Tool: headings)": count_kimaki_share_headings,
                "opencode chat export by a repo script (### N. user / assistant (time), placeholder turns)": count_numbered_role_headings,
                "AutoGen AgentChat history saved by a FastAPI app (TextMessage records with ids, source user/assistant)": count_message_list,
                "AG2 group chat messages saved by an agent team (every message role user, the speaker in name)": count_message_list,
                "RAAF (Ruby AI Agents Factory) trace span events (JSONL start/end events, request messages as a Python repr)": count_request_span_events,
                "Langfuse observation export of a LangGraph supervisor's multi-agent run (GENERATION inputs and outputs as JSON text)": count_observation_generations,
                "DSPy ticket classifier traces (ticket and span timings, no conversation)": count_nothing,
                "Order agent route spans (span names and metadata, no conversation)": count_nothing,
                "Research assistant session steps (planner sub-tasks, retrieval and scores, no conversation)": count_nothing,
                "Cloud cost agent intent-drift log (rationale and invoked tool per tick, no request, no conversation)": count_nothing,
                "Microsoft Agent Framework OpenTelemetry spans without message capture (tool names and ids only, no conversation)": count_nothing,
                "Crowd evacuation simulation history (agent positions per step, no conversation)": count_nothing,
                # round 14 (b45l: text exports and logs, collected before code changed)
                "Cursor Export chat Markdown (**User** / **Cursor** labels alone on a line, --- rules)": count_bold_label_turns,
                "Zed agent thread as Markdown (## User / ## Assistant, **Tool Call: <what it did>** / Status lines)": count_zed_thread,
                "CLI session copied from a terminal (cody> prompts, 🔧 Tool / Args / ✓ Result blocks)": count_prompt_repl,
                "Claude Code screen copied as text (> prompts, ⏺ turns, ⎿ outputs)": count_claude_screen,
                "codex exec console output in a loop ledger (codex / exec / thinking labels, no request)": count_codex_exec_output,
                "Claude agent run log with Japanese turn headings (## Turn N: AI応答 / ツール使用, no request)": count_turn_headings_ja,
                "Codex transcript appended by the agent (## <time> — user / codex headings)": count_stamped_role_headings,
                "opencode client console log (Sending prompt lines, printed response messages)": count_prompt_response_log,
                "Copilot CLI session checkpoints (overview and history summaries, no conversation)": count_nothing,
                "CAMEL agent memory records (JSONL: role_at_backend beside message {role_name, role_type, content}, calls in func_name/args, results in result)": count_jsonl_records,
                # round 15 (b45p): structured run files, collected before code changed
                "Gemini CLI chat session saved by the CLI (JSON: sessionId, messages of type user/gemini, toolCalls holding their functionResponse results, thoughts, tokens)": count_gemini_session,
                "Multi-agent customer-case trace (JSONL envelopes: case_id, sender/recipient, performative/intent, payload; 50 cases interleaved, a msg_id per envelope, a usage summary line)": count_envelopes,
                "AutoGen AgentChat TeamState saved by save_state (a round robin of two agents: the manager's message_thread, each agent's llm_context and message_buffer)": count_team_state_thread,
                "AutoGen AssistantAgentState saved by save_state (llm_context of UserMessage/AssistantMessage with sources)": count_agent_state_context,
                "Claude Code headless stream-json with hook and subagent task records (system hook/task/api_retry records, assistant block records sharing message ids, result)": count_claude_stream_json,
                "Jaeger JSON export of an inference API's spans (operation names and tags, no conversation)": count_nothing,
                "Analytics assistant run summaries (JSONL: thread_id, question, route, token counts; no answers, no conversation)": count_nothing,
                "Agent Trace attribution records (JSONL: files and line ranges per AI contributor, no conversation)": count_nothing,
                # round 16 (b45p): structured run files of new systems, collected before code changed
                "kimchi coding harness session on pi (JSONL v3: session header, message records user/assistant/toolResult, custom_message enriched prompts, model changes)": count_pi_session,
                "pi coding agent session v1 (JSONL: session header, message records with toolCall parts, toolResult and bashExecution roles, two records glued on one line)": count_pi_session,
                "wasa-cli transcript of a GitHub Copilot CLI session (JSONL: empty role/content wrappers around raw session events; tool requests, results and reasoning inside)": count_wrapped_cli_events,
                "Engram transcript of a Claude Code session (JSONL: one content part per line, thinking / text / tool_use of the model, tool_result lines)": count_part_per_line,
                "OpenAI Agents SDK (JS) RunState serialized mid-run (schema 1.17: originalInput, generatedItems of a tool call and its output, modelResponses)": count_run_state,
                "Goose session JSONL (a tools line, messages with created times, toolRequest / toolResponse content items)": count_role_lines,
                "Hermes Agent session exported as one JSON line (system_prompt, session statistics, messages with OpenAI-style tool_calls, reasoning)": count_session_export_messages,
                "IDE agent trajectory of steps exported as JSONL (source USER_EXPLICIT/MODEL/SYSTEM, USER_INPUT, PLANNER_RESPONSE with thinking and tool_calls, tool steps, ephemeral system messages)": count_step_records,
                "AG-UI event transcript of an SDK integration test (RUN_STARTED, TEXT_MESSAGE_START/CONTENT/END events without text, no conversation)": count_nothing,
                # round 18 (b45p): structured run files of new systems, collected before code changed
                "Resort chatbot session log (JSONL: one exchange per line, user_message and assistant_answer beside route, intent and retrieval fields, several sessions; Vietnamese)": count_exchange_records,
                "Agent trace of kinded events (JSONL: time, kind THOUGHT / DECISION / ACTION / OBSERVE, data; sub-agents called as actions, no request)": count_kind_events,
                "browser-use AgentHistoryList saved by a pentest agent (history of model_output with goals and actions, results, state; no task)": count_browser_history,
                "Marketplace chat among buyer, seller and agent (JSONL: conversation_id, sender, text; three conversations; Vietnamese)": count_sender_lines,
                "Game-strategy assistant's question/answer export (JSON list: question, answer, sources, model; French)": count_question_answers,
                "Support agent chat log (JSONL: user_message, scored intents, routing, response)": count_message_response_lines,
                "Smart-cat CLI conversation kept as TOML (settings, then [[messages]] tables of role and content, a multi-line reply; Spanish request)": count_toml_messages,
                "Research copilot event trace (JSONL: event_type / data of setup, tool and agent lengths; no conversation)": count_nothing,
                "Travel agent stage trace (JSONL: request_id, stage, status, latency; no conversation)": count_nothing,
                # round 17 (b45p): structured run files of new systems, collected before code changed
                "promptflow OpenTelemetry span export (pretty-printed span objects back to back, the chat call's messages as JSON text in its inputs attribute, the reply in llm.generated_message)": count_promptflow_spans,
                "AGNTCY multi-agent run exported from Jaeger (A2A supervisor and detector agents; tags lists of key/type/value with gen_ai.input.messages and gen_ai.output.messages as JSON text, Spanish)": count_jaeger_genai_calls,
                "LangChain messages serialised as constructor records in a TypeScript module (two const statements of object literals: lc, type constructor, id [..., HumanMessage], kwargs with tool_calls; Spanish)": count_constructor_messages,
                "Vercel AI SDK step result in a TypeScript module (export const step = [object literal: text, toolCalls, toolResults, usage]; no request)": count_ai_sdk_steps,
                "MCP audit proxy log (JSON lines of tool calls with results, then timestamped [REQUEST] / [RESPONSE] lines carrying JSON-RPC payloads, cut at about a thousand characters)": count_mcp_proxy_log,
                "LangGraph bank assistant evaluation traces (records with question, expected behaviour, final answer and a trace of HumanMessage / AIMessage / ToolMessage objects named by class, Russian)": count_class_typed_traces,
                "Household robot agent task traces (task_description, steps of action and observation, completion flags)": count_task_steps,
                "Integration research agent's summary trace (statistics, evidence report, verification sample; no conversation)": count_nothing,
                "Clinical trial matching pipeline traces (patient text, extracted fields, trial verdicts, follow-up questions, a re-evaluation; no conversation)": count_nothing,
                # round 15 (b45l: text exports, share pages and terminal copies, collected before code changed)
                "opencode /export of an oh-my-opencode session (## User / ## Assistant (agent · model · time), _Thinking:_, **Tool:** / **Input:** / **Output:**)": count_opencode_export,
                "GitHub Copilot CLI /share Markdown (### 👤 User / ### 💬 Copilot, ### ✅ `tool` blocks with Arguments in <details>)": count_copilot_cli_share,
                "ollama run copied from the terminal (>>> prompts, answers below, a heading note)": count_ollama_prompts,
                "opencode-replay HTML page of a session (message-user / message-assistant divs, tool-call divs)": count_replay_page,
                "ChatGPT talk retold in a Japanese README (screenshots, prompts in txt fences, ### 🔴 ChatGPT replies)": count_prompt_blocks_and_replies,
                "aishell LLM transcript (**time | PROVIDER (model)** records, **Query:** / **Response:**, collations)": count_query_response_records,
                "visual logger export of an agent's thoughts and replies (### 💭 Agent Thought / ### 🤖 Model Response, no request)": count_thought_response_pairs,
                "AI code agent run report in Russian (## 📝 Запрос пользователя, orchestrator instructions, generated code, tool calls listed)": count_agent_run_report,
                "Markdown log of model calls (### Call #N, Messages sent to model as JSON, Model Response)": count_last_call_sent,
                "Claude Code session note in Korean (summary, decisions and code of a session, no conversation)": count_nothing,
                "Cursor chat recorded in Chinese (### 用户 #N / ### 助手 headings, sections of the replies inside)": count_numbered_headings_zh,
                # round 16 (b45l: text exports, terminal copies and runs in fences, collected before code changed)
                "Gemini CLI screen captured by ai-cli-log (boxed > prompts, ✦ replies, boxed ✔ tool calls with results, Chinese)": count_gemini_cli_screen,
                "Evaluation harness run log in Markdown (run summary, * Human Message / * Agent Message / * Tool Call / * Tool Output bullets)": count_agent_eval_log,
                "Continue session transcript (#### _User_ / #### _Assistant_ headings, bodies quoted with >, Chinese)": count_continue_transcript,
                "goose run console output (goose banner, ▸ tool blocks between rules, the closing report, no request, Chinese)": count_goose_run_output,
                "Flemma chat buffer (@System / @You / @Assistant sections, **Tool Use:** and **Tool Result:** blocks)": count_flemma_chat,
                "Amp thread exported as Markdown (front matter, ## User / ## Assistant, **Tool Use:** / **Tool Result:** blocks)": count_amp_thread,
                "goose session quoted in a blog post's fence (starting session banner, ( O)> prompt, the answer)": count_goose_blog_session,
                "Terminal agent screen in a design note's fence (┏━ prompt, ┃ reply, ┏━ actions, │ output)": count_prime_screen,
                "Note summarising an AI tutoring session in Chinese (topic, concepts, fixes; no conversation)": count_nothing,
                # round 17 (b45l: text exports, copies and write-ups, collected before code changed)
                "Obsidian Copilot saved conversation (**user**: / **ai**: labels, [Context: ...] and [Timestamp: ...] lines)": count_obsidian_copilot,
                "AutoGen tool-use chat rewritten as Markdown (**Speaker (to Other):** labels between --- rules, suggested tool calls, tool responses)": count_bold_to_labels,
                "Printed dump of an agent's turns (Turn N.M blocks of reasoning_content= / content= / tool_calls= lines, tool_result lines, no request)": count_turn_attribute_dump,
                "llm CLI logs page in Markdown (**Prompt:** / **Response:** labels, metadata <details>, **Options:**)": count_prompt_response_labels,
                "LM Studio chat exported as Markdown (## User / ## Assistant headings, every body fenced)": count_role_headings,
                "Perplexity thread exported as Markdown (logo, each query a # heading over its further lines, the answer unlabelled)": count_perplexity_export,
                "ChatGPT chat saved by a browser-console script (**User:** / **Assistant:** labels, Copy code lines)": count_bold_colon_labels,
                # round 18 (b45l: chat exports, session logs and a console, collected before code changed)
                "ChatGPT page saved whole with a page-saving extension in 2022 (ConversationItem divs, the person's avatar an image with their e-mail as alt text, the model's an SVG logo; no role in any class)": count_conversation_items,
                "Claude chat saved every few minutes by a PowerShell script, in Russian (### Пользователь [time] / ### Claude [time] headings between --- rules)": count_timed_speaker_headings,
                "ChatGPT chat exported as Markdown by a browser extension in 2023 (title, ### You / ### ChatGPT headings)": count_you_chatgpt_headings,
                "Home-made pydantic-ai agent's console over a local model (shell prompt launching main.py, the program's banner, > typed request, a model-name label line, the reply's lines also opening with > )": count_model_labelled_console,
                "Chat exported by topic as Markdown (## Topic N headings, **Q:** / **A:** labels, --- rules inside the answers)": count_bold_q_a,
                "Chat exported as Markdown in Russian (## User / ## Assistant headings; the replies use ## headings of their own)": count_level_two_role_headings,
                "Claude Code session transcript written as Markdown by a script (header with turn count and source JSONL, ## User / ## Assistant between --- rules)": count_level_two_role_headings,
                "Chat written up by the agent as numbered sections (## N. topic headings, **User:** / **Assistant:** labels, files-created lists)": count_bold_user_assistant,
                "VS Code agent session log kept by a PowerShell prompt logger (# Prompt: (time) / # Response: (time) headings over <!--Start Prompt--> / <!--Start Response--> comment markers; prompts with headings of their own; Read [](file:///...) tool lines)": count_comment_marked_entries,
                "Mock security agent's console output (emoji status lines, no request, no conversation)": count_nothing,
                # round 19 (b45l: text exports, session logs and consoles of new tools, collected before code changed)
                'VS Code Copilot chat exported as Markdown (# handle: request headings, **GitHub Copilot:** replies, empty fences where edits were made)': count_handle_headings_and_copilot,
                'Claude.ai chat with an MCP server exported as Markdown (## User Message N / ## Assistant Response N, ### tool name over its arguments and result, ### API Call request and response)': count_numbered_messages_and_tools,
                'Claude.ai chat written up with bold names (**Alexey:** / **Claude:** labels under topic headings, ### MCP Command: tool blocks with Anfrage / Antwort, a German copy notice)': count_bold_names_and_mcp_commands,
                'Claude Code screens over local models pasted into a note (## model headings, fenced screens with a boxed banner, ❯ and > prompts, ⏺ replies and calls, ⎿ results, a reply pasted without its glyph)': count_pasted_claude_code_screens,
                'Trae chat retold by the agent as a plain-text log in Chinese (【stage】 headers, 用户: / TRAE: labels, bracketed action notes, summary sections after)': count_user_trae_labels,
                'Two Gemma models talking under their names (# AI Conversation title, ## Jake / ## Paul headings)': count_level_two_name_headings,
                'One question put to several models, logged in Spanish (--- Consulta time --- / Pregunta: lines, --- Gemini --- / --- OpenAI (ChatGPT) --- banners over each answer)': count_question_fanned_to_models,
                "AI debate hall transcript in Chinese (#N [side and stage] speaker model time headings, a judge's comments each round)": count_numbered_speeches,
                "Agent group chat output saved as text (one agent's # QuestionsBuilder: banner over its plan, Q1/A1 pairs and a CSV; no exchange, no conversation)": count_nothing,
                'Agentic noise orchestra terminal log (timed status lines of agents singing and voting, no conversation)': count_nothing,
                'Slash command instructions for a Claude and Codex debate (front matter, setup steps, no conversation)': count_nothing,
                # round 19 (b45p): structured run files of new systems, collected before code changed
                'OpenAI Batch API output of a benchmark run (JSONL: custom_id and the chat.completion response body per line; the requests, system and user messages, in batch_input.jsonl beside it)': count_batch_results,
                'OpenAI Batch API results of a diagram-generation study (batch_results.jsonl: custom_id paths and chat.completion bodies holding JSON answers; the requests in batch.jsonl beside it)': count_batch_results,
                'promptfoo eval results of a task-query assistant (JSON: evalId, results.results of prompt.raw holding the rendered chat messages as JSON text, response.output, gradingResult, testCase vars)': count_promptfoo_results,
                "Hallucination study rows (JSONL: question_number, question, the model's answer under qwen_answer, a judge's verdict under gemini_judgement)": count_numbered_answers,
                'Multi-agent research history (JSON list: topic, results of named agents search / reader / writer / critic beside a query_type label, an empty chat_history)': count_agent_products,
                'Alignment-probe responses (JSONL: model, question, response, and the chat.completion it came from under full_data)': count_question_responses,
                'Persona persuasion experiment responses (JSONL: persona_key, iteration, prompt, response)': count_prompt_responses,
                "Enterprise agent arena trajectories (JSONL: task, conversation of a system prompt, the task, JSON tool calls written as the model's text, Result: lines)": count_task_conversations,
                'NL-to-SQL field-mapping batch results (JSONL: question, status, summary counts, mapped fields; no conversation)': count_nothing,
                'Research assistant topic history (JSON list: topic, timestamp, max_papers, model; no conversation)': count_nothing,
                'Heuristic agent environment log in a .jsonl file ([START] / [STEP] lines of actions and rewards; no language model, no conversation)': count_nothing,
                'Workflow recovery runtime tool-step traces (JSONL: task_id, step, tool params, status, budget; no conversation)': count_nothing,
                "VS Code Copilot chat copied with Copy All under a long account handle (adam-mcquistan_moo: / GitHub Copilot: labels, Read [](file:///...) lines; collected after the first landings)": count_handle_and_copilot_labels}
