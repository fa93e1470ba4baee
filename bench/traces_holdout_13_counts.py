"""Issue 45's thirteenth holdout: independent message counts, one small reader per layout, standard library only.

Written from the twelve files of bench/traces_holdout_13.tsv (read with git show from the fetched mirrors) before any
codemix run of them; codemix is never imported. Each reader returns runs, messages, roles (message counts by role),
tool_calls and layout-specific extras; `notes` says what was counted as what. Output:
bench/traces_holdout_13_counts.json, keyed "<repository name>/<file name>" like the earlier holdouts' counts.

usage: python bench/traces_holdout_13_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_13_counts.json]
"""

import argparse
import collections
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TSV = HERE / "traces_holdout_13.tsv"


def result(runs, roles, tool_calls, notes, **extra):
    roles = {k: v for k, v in roles.items() if v}
    return {"runs": runs, "messages": sum(roles.values()), "roles": roles, "tool_calls": tool_calls, **extra,
            "notes": notes}


def jsonl(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def mentat_transcripts(text):
    """One JSON object per line, each {messages: [{role, content}]}: a Mentat run on one exercise. The file is named
    .json but is JSON Lines."""
    runs = jsonl(text)
    messages = [m for run in runs for m in run["messages"]]
    roles = collections.Counter(m["role"] for m in messages)
    edits = sum(len(re.findall(r"(?m)^@ \S+ starting_line\b", m["content"]))
                for m in messages if m["role"] == "assistant")
    users = [m["content"] for m in messages if m["role"] == "user"]
    return result(len(runs), roles, edits,
                  "each line is one run; every entry of messages is counted under its role, empty system prompts "
                  "and the 'Code Files' context messages included; tool_calls are the assistant's '@ file "
                  "starting_line=..' edit blocks (Mentat's only action)",
                  empty_system_messages=sum(m["role"] == "system" and not m["content"] for m in messages),
                  applied_change_notices=sum(u.startswith("User chose to apply") for u in users),
                  test_output_turns=sum(u.startswith("=====") for u in users))


def crewai_console(text):
    """CrewAI verbose console output with ANSI colours: '# Agent:' headers followed by '## Task:', '## Thought:',
    '## Using tool:' / '## Tool Input:' / '## Tool Output:', or '## Final Answer:' blocks; tree redraws between."""
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    tasks = len(re.findall(r"(?m)^## Task:", plain))
    tools = len(re.findall(r"(?m)^## Using tool:", plain))
    outputs = len(re.findall(r"(?m)^## Tool Output:", plain))
    finals = len(re.findall(r"(?m)^## Final Answer:", plain))
    crews = len(set(re.findall(r"ID: ([0-9a-f-]{36})", plain)))
    return result(crews, {"user": tasks, "assistant": tools + finals, "tool": outputs}, tools,
                  "one crew run; each '## Task:' block is a user turn (the manager's and its delegations), each "
                  "'## Using tool:' block and each '## Final Answer:' block an assistant turn, each '## Tool Output:' "
                  "a tool message; ANSI escapes stripped before matching; tree progress redraws are not messages",
                  agent_headers=len(re.findall(r"(?m)^# Agent:", plain)), tasks=tasks, final_answers=finals,
                  ansi_escapes=len(re.findall(r"\x1b\[", text)))


def cursor_export(text):
    """Cursor 'Export Chat' Markdown: '_Exported on ... from Cursor (x.y.z)_', then '**User**' / '**Cursor**'
    headings separated by '---' rules."""
    users = len(re.findall(r"(?m)^\*\*User\*\*\s*$", text))
    agent = len(re.findall(r"(?m)^\*\*Cursor\*\*\s*$", text))
    return result(len(re.findall(r"(?m)^_Exported on ", text)), {"user": users, "assistant": agent}, 0,
                  "one exported chat; each '**User**' and '**Cursor**' heading opens a turn; tool use is not "
                  "exported (only narrated), so no tool calls",
                  fenced_blocks=text.count("\n```") // 2)


def trae_history(text):
    """Markdown recap written by the Trae agent: '**用户**:' and '**TRAE**:' turn labels under '### 💬' headings."""
    users = len(re.findall(r"(?m)^\*\*用户\*\*", text))
    agent = len(re.findall(r"(?m)^\*\*TRAE\*\*", text))
    return result(1, {"user": users, "assistant": agent}, 0,
                  "one recap of one project's chats; each '**用户**' and '**TRAE**' label opens a turn; commands "
                  "appear only as fenced bash in the agent's text (not counted as tool calls); bracketed "
                  "placeholders mark elided work",
                  topics=len(re.findall(r"(?m)^### 💬", text)),
                  placeholder_lines=len(re.findall(r"(?m)^\[[^\]\n]+\](?: *\[[^\]\n]+\])* *$", text)))


COPILOT_ACTIONS = re.compile(r"(?m)^(?:Read \[\]\(|Ran terminal command:|Using \"|Searched (?:for|text|codebase)|"
                             r"Created \[\]\(|Created \d+ todos|Starting: |Completed: |Edited \[\]\(|Checked \[\]\()")


def copilot_copy(text):
    """VS Code Copilot Chat copied as text: turns open with '<github user>:' or 'GitHub Copilot:' at a line start;
    tool activity shows as bare lines (Read [](file...), Ran terminal command:, Using "...", todo updates)."""
    agent = len(re.findall(r"(?m)^GitHub Copilot:", text))
    user_label = text.split(":", 1)[0].strip()
    users = len(re.findall(rf"(?m)^{re.escape(user_label)}: ", text))
    return result(1, {"user": users, "assistant": agent}, len(COPILOT_ACTIONS.findall(text)),
                  "one chat; the user's label is the one that opens the file (the GitHub user name), each line "
                  "starting with it or with 'GitHub Copilot:' opens a turn; tool_calls are the bare activity lines "
                  "(file reads, terminal commands, edits, todo-list status lines)",
                  user_label=user_label, made_changes_notes=len(re.findall(r"(?m)^Made changes\.", text)))


def autogen_console_readme(text):
    """AutoGen AgentChat Console output in a README: '### model:' headings, each over one fenced run of
    '---------- <EventType> (<source>) ----------' separators."""
    events = re.findall(r"(?m)^---------- (\w+) \(([\w-]+)\) ----------$", text)
    kinds = collections.Counter(kind for kind, _ in events)
    return result(len(re.findall(r"(?m)^### model:", text)),
                  {"user": kinds["TextMessage"],
                   "assistant": kinds["ToolCallRequestEvent"] + kinds["ModelClientStreamingChunkEvent"],
                   "tool": kinds["ToolCallExecutionEvent"]},
                  kinds["ToolCallRequestEvent"],
                  "one run per '### model:' heading; each separator opens one event: TextMessage (user) a user "
                  "message, ToolCallRequestEvent and each streamed chunk block an assistant message, "
                  "ToolCallExecutionEvent a tool message; <think> text stays inside its chunk block",
                  events=dict(kinds), think_blocks=text.count("<think>"))


def goal_steps_history(text):
    """[{goal, timestamp, steps: [{tool, params, result}], result, error, suggested_tools}]: one run per goal."""
    runs = json.loads(text)
    steps = [s for r in runs for s in r["steps"]]
    return result(len(runs), {"user": len(runs), "tool": sum("result" in s for s in steps),
                              "assistant": sum(r.get("result") is not None for r in runs)}, len(steps),
                  "each run's goal is the user request, each step one tool call with its result as a tool message; "
                  "no run has a final answer (result null, the same encoding error in every run)",
                  errors=sum(bool(r.get("error")) for r in runs))


def gemini_web_copy(text):
    """Gemini web app conversation copied as text: 'You said' and 'Gemini said' glued to the first line of each
    turn, hard-wrapped."""
    users = len(re.findall(r"(?m)^You said\b", text))
    agent = len(re.findall(r"(?m)^Gemini said\b", text))
    return result(1, {"user": users, "assistant": agent}, 0,
                  "one conversation; each line starting 'You said' or 'Gemini said' opens a turn; no tools")


def claude_session_report(text):
    """Markdown report of Claude Code sessions written by the agent: '## Session N' headings, numbered '### N.'
    steps each with '**User request:**' and a '**Changes made:**' or '**Result:**' part."""
    requests = len(re.findall(r"(?m)^\*\*User request:\*\*", text))
    steps = len(re.findall(r"(?m)^### \d+\.", text))
    return result(len(re.findall(r"(?m)^## Session ", text)), {"user": requests, "assistant": steps}, 0,
                  "each '## Session' is one run; each numbered '### N.' step holds one '**User request:**' (a user "
                  "turn) and the agent's account of what it did (one assistant turn, under 'Changes made', "
                  "'Result' or a first-step heading of its own); tool calls are not shown",
                  steps=steps)


def claude_stream_json(text):
    """claude -p --output-format stream-json appended run after run: system/init, assistant records (one content
    block each, several per API message id), user records carrying tool_result blocks, result records."""
    records = jsonl(text)
    assistant_ids = {r["message"]["id"] for r in records if r["type"] == "assistant"}
    blocks = collections.Counter((r["type"], b.get("type")) for r in records if r["type"] in ("assistant", "user")
                                 for b in (r["message"]["content"] if isinstance(r["message"]["content"], list)
                                           else [{"type": "text"}]))
    return result(sum(r["type"] == "system" and r.get("subtype") == "init" for r in records),
                  {"assistant": len(assistant_ids), "tool": blocks[("user", "tool_result")],
                   "user": blocks[("user", "text")]}, blocks[("assistant", "tool_use")],
                  "one run per system/init record (the prompt came on stdin and is not in the file); assistant "
                  "records sharing a message id are one assistant message; each tool_result block is a tool "
                  "message; result records are run summaries, not messages",
                  records=len(records), result_records=sum(r["type"] == "result" for r in records),
                  assistant_text_blocks=blocks[("assistant", "text")])


def git_inbox_messages(text):
    """JSON Lines envelopes {id, ts, from, to, body, kind?, reply_to?, thread_id?, ...} exchanged between agents."""
    messages = jsonl(text)
    senders = collections.Counter(m["from"] for m in messages)
    agents = {"claude", "codex", "reviewer"}
    return result(1, {"assistant": sum(n for s, n in senders.items() if s in agents),
                      "user": sum(n for s, n in senders.items() if s not in agents)}, 0,
                  "one inbox log; every envelope is one message, the agents' (claude, codex, reviewer) counted as "
                  "assistant, the human's as user",
                  senders=dict(senders), kinds=dict(collections.Counter(m.get("kind") for m in messages)),
                  threads=len({m["thread_id"] for m in messages if m.get("thread_id")}))


def ops_room_events(text):
    """JSON Lines events {id, type: say|result, from: {kind, id}, payload: {text} or {content: {text},
    message_type: ack|finding|result}}."""
    events = jsonl(text)
    says = [e for e in events if e["type"] == "say"]
    results = [e for e in events if e["type"] == "result"]
    texts = [(e, e["payload"]["content"]["text"]) for e in results]
    answers = [e for e, t in texts if e["payload"]["message_type"] == "result" and t.strip()]
    commands = [e for e, t in texts if t.startswith("🔧 Executing:")]
    exits = [e for e, t in texts if t.startswith("Exit code:")]
    return result(len(says), {"user": len(says), "assistant": len(answers) + len(commands), "tool": len(exits)},
                  len(commands),
                  "each user 'say' starts a run; non-empty 'result' events are assistant messages, each "
                  "'🔧 Executing:' finding a tool call and its 'Exit code' finding the tool message; acknowledgements "
                  "and empty handoff results are not messages",
                  acks=sum(e["payload"]["message_type"] == "ack" for e in results),
                  empty_results=sum(not t.strip() for _, t in texts))


READERS = {
    "exercism-python/transcript.json": mentat_transcripts,
    "self-study/simple_hierarchical_crew_output.md": crewai_console,
    "tp_ia_cursor_2/chat_log.md": cursor_export,
    "trae-rtl/chat_history.md": trae_history,
    "intro-to-ratatui/copilot_chat.md": copilot_copy,
    "my-ai-agents/README.md": autogen_console_readme,
    "Agent0/agent_history.json": goal_steps_history,
    "clara/gemini_chat.md": gemini_web_copy,
    "cube/claude_chat.md": claude_session_report,
    "github.gg/claude_output.jsonl": claude_stream_json,
    "h5i/messages.jsonl": git_inbox_messages,
    "agent-ops-room/messages.jsonl": ops_room_events,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "traces_holdout_13_counts.json")
    args = parser.parse_args()
    counts = {}
    for line in TSV.read_text().splitlines()[1:]:
        _, at, path = line.split("\t")
        repo, commit = at.split("@")
        key = f"{repo.split('/')[1]}/{Path(path).name}"
        git_dir = args.mirror / repo.replace("/", "+") / "repo"
        if (git_dir / ".git").is_dir():
            git_dir = git_dir / ".git"
        raw = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], check=True,
                             capture_output=True).stdout
        counts[key] = READERS[key](raw.decode("utf-8"))
    args.out.write_text(json.dumps(counts, indent=1, ensure_ascii=False) + "\n")
    for key, value in counts.items():
        print(f"{key}: runs {value['runs']}, messages {value['messages']}, tool_calls {value['tool_calls']}")


if __name__ == "__main__":
    main()
