"""Issue 45's fourteenth holdout: independent message counts, one small reader per layout, standard library only.

Each reader was written from its file (read with git show from the fetched mirror) before any codemix run of the
holdout, and codemix is never imported. A reader returns runs, messages, roles (message counts by role), tool_calls,
extras of its layout, and `notes` saying what was counted as what. The output, bench/traces_holdout_14_counts.json, is
keyed "<repository name>/<file name>" like the earlier holdouts' counts.

usage: python bench/traces_holdout_14_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_14_counts.json]
"""

import argparse
import collections
import html
import json
import re
import subprocess
from pathlib import Path

BENCH = Path(__file__).resolve().parent
TSV = BENCH / "traces_holdout_14.tsv"


def counted(runs, roles, tool_calls, notes, **extra):
    roles = {role: n for role, n in roles.items() if n}
    return {"runs": runs, "messages": sum(roles.values()), "roles": roles, "tool_calls": tool_calls, **extra,
            "notes": notes}


def blocks(lines, starts):
    """Maximal runs of consecutive lines for which starts(line) holds."""
    runs, inside = [], False
    for line in lines:
        if starts(line):
            if not inside:
                runs.append([])
            runs[-1].append(line)
            inside = True
        else:
            inside = False
    return runs


def cline_api_history(text):
    """A JSON array of {role, content}; content is a string or a list of typed blocks. Tool results come back as user
    text blocks opening '[tool_name for ...] Result:'."""
    messages = json.loads(text)
    roles = collections.Counter(m["role"] for m in messages)
    block_list = [b for m in messages if isinstance(m["content"], list) for b in m["content"]]
    kinds = collections.Counter(b.get("type") for b in block_list)
    results = sum(1 for b in block_list if b.get("type") == "text" and re.match(r"\[[\w-]+( for [^\]]*)?\] Result:",
                                                                             b.get("text", "")))
    return counted(1, roles, kinds["tool_use"], "one exported task; every array entry is a message under its role "
                   "(after the first, user entries carry the tool results as text); tool_calls are tool_use blocks",
                   thinking_blocks=kinds["thinking"], tool_result_text_blocks=results)


def claude_yaml_events(text):
    """A YAML list of events at column 0 ('- type: X'); read line-wise, no YAML library in the standard library."""
    types = collections.Counter(re.findall(r"(?m)^- type: (\S+)", text))
    calls = len(re.findall(r"(?m)^  - tool_call:", text))
    thinking = len(re.findall(r"(?m)^  - thinking:", text))
    roles = {"user": types["user"], "assistant": types["assistant"], "tool": types["tool_results"]}
    return counted(1, roles, calls, "one session; each '- type: user' / 'assistant' / 'tool_results' event is one "
                   "message (an assistant event holds one content item: thinking, text or tool_call); "
                   "context_change events are not messages", context_changes=types["context_change"],
                   thinking_items=thinking)


def agent_trace_html(text):
    """Numbered cards '#N - ROLE' in an HTML page; the page's own header counters are kept for comparison."""
    plain = html.unescape(re.sub(r"<[^>]+>", " ", text))
    cards = re.findall(r"#(\d+) - (SYSTEM|USER|ASSISTANT|TOOL)\b", plain)
    roles = collections.Counter(role.lower() for _, role in cards)
    calls = len(re.findall(r"\bTool #\d+:", plain))
    header = {label: int(n) for n, label in re.findall(
        r"(\d+)\s+(Total Messages|User Messages|Assistant Messages|Tool Calls)", plain)}
    return counted(1, roles, calls, "one agent run; each numbered card is a message under its role label; tool_calls "
                   "are the 'Tool #k:' entries inside assistant cards", page_header_counts=header)


def aider_history(text):
    """'#### ' user lines (aider ends each with two spaces; an assistant's own '#### ' heading has none), '> '
    tool/UI lines, everything else assistant text, except the failed-edit report aider prints unquoted."""
    lines = text.splitlines()

    def user(line):
        return line.startswith("#### ") and line.endswith("  ")

    users = blocks(lines, user)
    commands = [b for b in users if b[0][5:].lstrip().startswith("/")]
    stretches = [b for b in blocks(lines, lambda line: not (user(line) or line.startswith(("> ", "# aider chat "))))
                 if any(line.strip() for line in b)]
    failed = [b for b in stretches if next(line for line in b if line.strip()).startswith("## SearchReplace")]
    replies = [b for b in stretches if b not in failed]
    edits = sum(1 for b in replies for line in b if line.rstrip() == "<<<<<<< SEARCH")
    return counted(len(re.findall(r"(?m)^# aider chat started at", text)),
                   {"user": len(users) - len(commands), "assistant": len(replies), "tool": len(failed)}, edits,
                   "each run of '#### ' lines ending in two spaces is one user turn; turns that are slash commands "
                   "(/code, /commit, ...) are counted apart as commands, the '/code X' echo that follows is the user "
                   "message; each stretch of other non-blank lines between them and the '> ' lines is one assistant "
                   "reply, except aider's unquoted failed-edit reports ('## SearchReplaceNoExactMatch ...'), counted "
                   "as tool messages; tool_calls are SEARCH/REPLACE blocks in assistant replies",
                   slash_commands=len(commands), token_lines=len(re.findall(r"(?m)^> Tokens: ", text)),
                   applied_edit_notices=len(re.findall(r"(?m)^> Applied edit to ", text)),
                   think_blocks=len(re.findall(r"(?m)^<think>", text)))


def codex_rollout(text):
    """Codex rollout JSONL: records {timestamp, type, payload}."""
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    items = [r["payload"] for r in records if r["type"] == "response_item"]
    kinds = collections.Counter(item["type"] for item in items)
    roles = collections.Counter(item["role"] for item in items if item["type"] == "message")
    roles["tool"] = kinds["function_call_output"] + kinds["custom_tool_call_output"]
    events = collections.Counter(r["payload"].get("type") for r in records if r["type"] == "event_msg")
    return counted(sum(1 for r in records if r["type"] == "session_meta"), roles,
                   kinds["function_call"] + kinds["custom_tool_call"],
                   "one exec session; response_item messages counted by role (developer, user, assistant), each "
                   "tool output item a tool message; tool_calls are function_call and custom_tool_call items; "
                   "reasoning items and event_msg records (which repeat messages) are not messages",
                   reasoning_items=kinds["reasoning"], event_msgs=dict(events))


def composer_export(text):
    users = len(re.findall(r"(?m)^### User\s*$", text))
    replies = len(re.findall(r"(?m)^### AI \(Composer Assistant\)\s*$", text))
    return counted(1, {"user": users, "assistant": replies}, 0, "one exported chat; each '### User' and '### AI "
                   "(Composer Assistant)' heading opens a turn; tool use is not exported, so no tool calls",
                   fenced_blocks=len(re.findall(r"(?m)^```", text)) // 2)


SPEAKER = re.compile(r"^(\S+) (Orchestrator|Coder|Reviewer|Executor)\s*$")


def agent_console_text(text):
    """'<emoji> <Agent>' lines each followed by a dashed rule, the message, and a closing dashed rule."""
    lines = text.splitlines()
    speakers = [SPEAKER.match(line).group(2) for i, line in enumerate(lines[:-1])
                if SPEAKER.match(line) and lines[i + 1].startswith("-----")]
    executions = sum(1 for i, line in enumerate(lines[:-1])
                     if SPEAKER.match(line) and SPEAKER.match(line).group(2) == "Executor"
                     and lines[i + 2].startswith("Running"))
    return counted(1, collections.Counter(name.lower() for name in speakers), executions,
                   "one workflow run; each emoji-and-agent header above a dashed rule is one message under the "
                   "agent's name (the task arrives inside the orchestrator's first message, there is no user "
                   "turn); tool_calls are the executor's 'Running the code now...' steps",
                   ends_with_traceback=text.rstrip().endswith("EOF when reading a line"))


def opencode_export(text):
    session = json.loads(text)
    messages = session["messages"]
    roles = collections.Counter(m["info"]["role"] for m in messages)
    parts = collections.Counter(p["type"] for m in messages for p in m["parts"])
    return counted(1, roles, parts["tool"], "one session; each entry of 'messages' is a message under info.role; "
                   "tool_calls are parts of type tool", parts=dict(parts))


def gemini_error_report(text):
    """{'error', 'context'}: context is the conversation as Gemini contents, plus the request that failed appended as a
    bare string."""
    report = json.loads(text)
    contents = [c for c in report["context"] if isinstance(c, dict)]
    pending = [c for c in report["context"] if isinstance(c, str)]
    roles = collections.Counter(c["role"] for c in contents)
    roles["user"] += len(pending)
    parts = collections.Counter(key for c in contents for p in c.get("parts", []) for key in p)
    return counted(1, roles, parts["functionCall"], "one CLI session cut off by the error; each dict in 'context' is "
                   "a message under its role (user entries include the CLI's context preamble and the "
                   "functionResponse turns) and each bare string is the user's request that failed; tool_calls are "
                   "functionCall parts", function_responses=parts["functionResponse"],
                   bare_string_requests=len(pending), thought_signatures=parts["thoughtSignature"],
                   error=report["error"]["message"][:60])


def lab_transcript(text):
    questions = len(re.findall(r"(?m)^QUESTION: ", text))
    answers = len(re.findall(r"(?m)^FINAL ANSWER: ", text))
    calls = len(re.findall(r"(?m)^\s*\[tool call\] ", text))
    results = len(re.findall(r"(?m)^\s*\[tool result\] ", text))
    return counted(questions, {"user": questions, "assistant": answers, "tool": results}, calls,
                   "each 'QUESTION:' starts a run (user message), each 'FINAL ANSWER:' is the assistant message, "
                   "each '[tool result]' line a tool message; tool_calls are '[tool call]' lines; the '**Question:**' "
                   "lines repeat the question and are not counted")


def ai_mode_copy(text):
    users = len(re.findall(r"(?m)^### \*\*USER\*\*\s*$", text))
    replies = len(re.findall(r"(?m)^### \*\*ASSISTANT\*\*\s*$", text))
    return counted(1, {"user": users, "assistant": replies}, 0, "one conversation; each '### **USER**' and "
                   "'### **ASSISTANT**' heading opens a turn; searches are not shown as tool calls",
                   time_lines=len(re.findall(r"(?m)^\*\d+ \w+ ago\*\s*$", text)))


ACTIONS = ("• Ran", "• Explored", "• Edited", "• Updated Plan")


def codex_tui_copy(text):
    lines = text.splitlines()
    users = blocks(lines, lambda line: line.startswith("▌"))
    placeholder = [line for line in lines if line.strip()][-1].startswith("⏎")
    if placeholder:  # the empty composer's grey suggestion above the key-help footer, never sent
        users = users[:-1]
    answers = [line for line in lines if line.startswith("> ")]
    actions = [line for line in lines if line.startswith(ACTIONS)]
    notes = [line for line in lines if line.startswith("• ") and not line.startswith(ACTIONS)]
    return counted(1, {"user": len(users), "assistant": len(answers)}, len(actions),
                   "one interactive session; each run of '▌' lines is one user prompt, each line starting '> ' "
                   "opens one assistant answer; tool_calls are '• Ran', '• Explored', '• Edited' and "
                   "'• Updated Plan' entries; other '• ' lines are reasoning notes, not counted as messages; the "
                   "unsent composer suggestion at the end is not a prompt; '■' lines are interruptions and errors",
                   reasoning_notes=len(notes), stops=len(re.findall(r"(?m)^■ ", text)),
                   composer_placeholder_dropped=placeholder)


READERS = {
    "Online-Card-Architecture/api_conversation_history.json": cline_api_history,
    "astro-blog/conversation.yaml": claude_yaml_events,
    "faithful_simulation/agent_trace.html": agent_trace_html,
    "Simple-Calulator/.aider.chat.history.md": aider_history,
    "webdev-task-sxw-02/trajectory.jsonl": codex_rollout,
    "deepseek-reddit-agent/conversation.md": composer_export,
    "autogen-project/autogen_output.txt": agent_console_text,
    "pfm-categorization/opencode-session.json": opencode_export,
    "immo212/gemini-conversation.json": gemini_error_report,
    "m9-04-lab-tool-use-function-calling/transcript.md": lab_transcript,
    "AITeamOrchestration/conversation.md": ai_mode_copy,
    "agentic-mesh/transcript.md": codex_tui_copy,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=BENCH / "traces_holdout_14_counts.json")
    args = parser.parse_args()
    counts = {}
    for row in TSV.read_text().splitlines()[1:]:
        _, at, path = row.split("\t")
        repo, commit = at.split("@")
        git_dir = args.mirror / repo.replace("/", "+") / "repo"
        raw = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], check=True,
                             capture_output=True).stdout
        key = f"{repo.split('/')[1]}/{Path(path).name}"
        counts[key] = READERS[key](raw.decode("utf-8"))
    args.out.write_text(json.dumps(counts, indent=1, ensure_ascii=False) + "\n")
    for key, value in counts.items():
        print(f"{key}: runs {value['runs']}, messages {value['messages']}, roles {value['roles']}, "
              f"tool_calls {value['tool_calls']}")


if __name__ == "__main__":
    main()
