"""Issue 45's tenth holdout: independent message counts, one small reader per layout, standard library only.

Written from the twelve files of bench/traces_holdout_10.tsv (read with git show from the fetched mirrors) before any
codemix run of them; codemix is never imported. Each reader returns runs, messages, roles (message counts by role),
tool_calls and layout-specific extras; `notes` says what was counted as what. Output: bench/traces_holdout_10_counts.json,
keyed "<repository name>/<file name>" like the earlier holdouts' counts.

usage: python bench/traces_holdout_10_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_10_counts.json]
"""

import argparse
import collections
import html
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TSV = HERE / "traces_holdout_10.tsv"


def result(runs, roles, tool_calls, notes, **extra):
    roles = {k: v for k, v in roles.items() if v}
    return {"runs": runs, "messages": sum(roles.values()), "roles": roles, "tool_calls": tool_calls, **extra,
            "notes": notes}


def cline_api_history(text):
    """Cline's api_conversation_history.json: a list of {role, content: [blocks]}; tool results come back as user
    entries whose first text block starts "[tool for '...'] Result:", harness notices as "[TASK RESUMPTION]"/"[ERROR]"."""
    entries = json.loads(text)
    roles = collections.Counter()
    tool_calls = answers = 0
    for entry in entries:
        blocks = entry["content"] if isinstance(entry["content"], list) else [{"type": "text", "text": entry["content"]}]
        if entry["role"] == "assistant":
            roles["assistant"] += 1
            tool_calls += sum(b["type"] == "tool_use" for b in blocks)
            continue
        first = next((b.get("text", "") for b in blocks if b["type"] == "text"), "")
        every = " ".join(b.get("text", "") for b in blocks if b["type"] == "text")
        if first.startswith(("[TASK RESUMPTION]", "[ERROR]")):
            roles["system (harness notice)"] += 1
        elif re.match(r"\[[a-z_]+(?: for '.*?')?\] Result:", first, re.DOTALL):
            roles["tool"] += 1
            answers += "<answer>" in every or "<feedback>" in every
        else:
            roles["user"] += 1
    return result(1, roles, tool_calls, "one task; user entries split by their first text block: tool results "
                  "('[name ...] Result:'), harness notices ([TASK RESUMPTION], [ERROR]), the rest user turns",
                  tool_results_carrying_user_answers=answers)


def browser_use_history(text):
    """browser-use AgentHistoryList: {history: [{model_output: {thinking, ..., action: [...]}, result: [...]}]}."""
    steps = json.loads(text)["history"]
    roles = collections.Counter()
    tool_calls = errors = 0
    for step in steps:
        if step.get("model_output"):
            roles["assistant"] += 1
            tool_calls += len(step["model_output"].get("action") or [])
        roles["tool"] += len(step.get("result") or [])
        errors += sum(bool(r.get("error")) for r in step.get("result") or [])
    done = any(r.get("is_done") for s in steps for r in s.get("result") or [])
    return result(1, roles, tool_calls, "one run, no user request in the file; each step's model_output is an "
                  "assistant message (its actions are the tool calls, 'done' included), each result a tool message",
                  finished_with_done=done, result_errors=errors)


def autogen_messages(text):
    """AutoGen AgentChat message list: [{source, type: TextMessage, content}]."""
    messages = json.loads(text)
    roles = collections.Counter(m["source"] for m in messages)
    calls = sum(m.get("type") == "ToolCallRequestEvent" for m in messages)
    return result(1, roles, calls, "one conversation; roles are the records' sources")


def aider_history(text):
    """.aider.chat.history.md: '# aider chat started' opens a session, '#### ' lines are the user's, '> ' lines
    aider's own output, anything else the model's reply; SEARCH/REPLACE blocks are edits (tool calls)."""
    runs = len(re.findall(r"^# aider chat started", text, re.MULTILINE))
    roles = collections.Counter()
    kind = None
    for line in text.split("\n"):
        if line.startswith("# aider chat started"):
            kind = None
            continue
        # aider's own lines are "> text" (">>>>>>> REPLACE" is the model's); code fences are not followed because
        # replies nest them inconsistently and aider itself never reads them
        now = "user" if line.startswith("#### ") or line == "####" else "tool (aider output)" if \
            line.startswith("> ") or line == ">" else (None if not line.strip() else "assistant")
        if now and now != kind:
            roles[now] += 1
        if now:
            kind = now
    edits = len(re.findall(r"^<<<<<<< SEARCH", text, re.MULTILINE))
    shell = len(re.findall(r"Run shell command\?", text))
    return result(runs, roles, edits, "a message is a stretch of lines of one kind (blank lines continue it); "
                  "tool calls are SEARCH/REPLACE edit blocks", shell_commands_proposed=shell)


def specstory_markdown(text):
    """SpecStory export of a Cursor chat: _**User**_ / _**Assistant**_ headings, each turn cut into segments by ---;
    an assistant segment that is a fetched rule, a listing, a file read, a command with output or a diff is a tool
    use (its result printed in the same segment)."""
    roles = collections.Counter()
    tool_calls = 0
    tools = collections.Counter()
    for turn in re.split(r"^_\*\*(?=User\*\*_|Assistant\*\*_)", text, flags=re.MULTILINE)[1:]:
        who, body = turn.split("**_", 1)
        if who == "User":
            roles["user"] += 1
            continue
        for segment in re.split(r"^---$", body, flags=re.MULTILINE):
            seg = segment.strip()
            if not seg:
                continue
            head = seg.split("\n", 1)[0]
            tool = ("fetch_rules" if head.startswith("### Rule:") else "listing/search" if head.startswith("<details>")
                    else "read_file" if head.startswith("Read file:") else "terminal" if head.startswith("```bash")
                    else "edit" if head.startswith("```diff") else "tool error" if head in (
                        "URI is not a directory.",) else None)
            if tool:
                tools[tool] += 1
                tool_calls += tool != "tool error"
                roles["tool"] += 1
            else:
                roles["assistant"] += 1
    return result(1, roles, tool_calls, "assistant turns cut at --- into prose (assistant) and tool-use segments "
                  "(tool, results printed inside); one chat", tool_kinds=dict(tools))


def langgraph_trajectory(text):
    """LangGraph steps {node_name: agent|tools|formatter, input, output, tool_calls}; a run starts at an agent step
    whose input is the user's HumanMessage repr (content='...' with no tool name)."""
    steps = json.loads(text)["trajectory"]
    roles = collections.Counter()
    runs = tool_calls = 0
    for step in steps:
        node = step["node_name"]
        if node == "agent" and step["input"].startswith("content=") and " name=" not in step["input"]:
            runs += 1
            roles["user"] += 1
        if node == "agent":
            roles["assistant"] += 1
            tool_calls += len(step["tool_calls"])
        elif node == "tools":
            roles["tool"] += len(re.findall(r"ToolMessage\(", step["output"]))
        else:
            roles[f"assistant ({node})"] += 1
    return result(runs, roles, tool_calls, "user turn read from the first agent step's input of each run; agent "
                  "steps are assistant messages, ToolMessage reprs in tools outputs tool messages, the formatter "
                  "node's answer a further assistant message", steps=len(steps))


def claude_code_log_html(text):
    """claude-code-log page: <div class='message KIND'> blocks, one 'session-header' per session."""
    kinds = collections.Counter(re.findall(r"<div (?:id='[^']*' )?class='message ([a-z_-]+)[^']*'>", text))
    runs = kinds.pop("session-header", 0)
    roles = {"user": kinds["user"], "assistant": kinds["assistant"], "tool (tool_use)": kinds["tool_use"],
             "tool (tool_result)": kinds["tool_result"], "system": kinds["system"]}
    todo = len(re.findall(r"<span>🛠️ 📝 Todo List", text))
    sessions = re.findall(r"class='message session-header'>\s*<div class='header'>([^<]*)<", text)
    return result(runs, roles, kinds["tool_use"], "message divs counted by class; a tool_use div is both a message "
                  "and a tool call; session headers are runs", todo_list_tool_uses=todo,
                  sessions=[html.unescape(s).strip() for s in sessions])


def python_log_router(text):
    """Python logging lines 'DATE - Input: X | Output: Y' (optionally '[NODE] Input:'), multi-line outputs
    continuing on lines without a timestamp; each Input line is one graph invocation."""
    entries = re.split(r"^(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ - )", text, flags=re.MULTILINE)
    roles = collections.Counter()
    runs = routed = 0
    for entry in entries:
        m = re.match(r"\S+ \S+ - (\[(\w+)\] )?Input: (.*?) \| Output: ", entry, re.DOTALL)
        if m:
            runs += 1
            roles["user"] += 1
            roles["assistant" + (f" ({m.group(2).lower()})" if m.group(2) else "")] += 1
        routed += entry.split(" - ", 1)[-1].startswith("Routing to:")
    http = len(re.findall(r" - HTTP Request: ", text))
    return result(runs, roles, 0, "each 'Input: ... | Output: ...' line is one single-turn invocation (user + "
                  "assistant); node-tagged lines keep the node in the role", routing_lines=routed,
                  http_request_lines=http)


def pi_session_jsonl(text):
    """pi coding agent session JSONL: typed entries with id/parentId; 'message' entries hold {role: user|assistant|
    toolResult, content: [text|thinking|toolCall|image]}; invalid JSON escapes (a redaction) repaired, counted."""
    rows, repaired = [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append(json.loads(re.sub(r'\\(?!["\\/bfnrtu])', r"\\\\", line)))
            repaired += 1
    roles = collections.Counter()
    tool_calls = errors = 0
    for row in rows:
        if row.get("type") != "message":
            continue
        message = row["message"]
        role = {"toolResult": "tool"}.get(message["role"], message["role"])
        roles[role] += 1
        content = message.get("content") if isinstance(message.get("content"), list) else []
        tool_calls += sum(block.get("type") == "toolCall" for block in content)
        errors += role == "tool" and bool(message.get("isError"))
    ids = {row.get("id") for row in rows}
    orphans = sum(1 for row in rows if row.get("parentId") and row["parentId"] not in ids)
    other = collections.Counter(row.get("type") for row in rows if row.get("type") != "message")
    return result(1, roles, tool_calls, "message entries counted (toolResult as tool); custom entries are harness "
                  "context, not messages", repaired_lines=repaired, tool_errors=errors,
                  entries_without_parent_in_file=orphans, other_entries=dict(other))


def parent_id_jsonl(text):
    """JSONL of {id, parent_id, role, content}; tool calls appear only as `tool_call: ...` text in replies."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    roles = collections.Counter(r["role"] for r in rows)
    roots = sum(r["parent_id"] is None for r in rows)
    inline = sum(len(re.findall(r"`tool_call: [^`]+`", r["content"])) for r in rows if r["role"] == "assistant")
    return result(roots, roles, 0, "runs are root messages (parent_id null); the `tool_call: ...` lines are text "
                  "the model wrote, not executed calls", inline_tool_call_mentions=inline)


def prompt_wars_yaml(text):
    """PyYAML-dumped list of calls ('- model:' at column 0), each with messages ('  - role: X' at indent 2) and one
    response; read by line structure only (continuation lines of scalars are indented deeper)."""
    calls = re.split(r"^(?=- model: )", text, flags=re.MULTILINE)[1:]
    roles = collections.Counter()
    agents = collections.Counter()
    for call in calls:
        for role in re.findall(r"^  - role: (\w+)$", call, re.MULTILINE):
            roles[role] += 1
        roles["assistant"] += len(re.findall(r"^  response:$", call, re.MULTILINE))
        system = re.search(r"^  - role: system\n    content: [\"']?You are ([A-Z][\w-]*)", call, re.MULTILINE)
        agents[system.group(1) if system else "?"] += 1
    return result(len(calls), roles, 0, "each call is a self-contained exchange (system + user state, response "
                  "as assistant); JSON actions in responses are game moves, not tool calls", agents=len(agents),
                  calls_per_agent=dict(agents))


def react_steps_jsonl(text):
    """JSONL of {step, response: {reasoning, state: ACT|FINAL, tool_call, final_answer}} and {tool_result}; a run
    restarts at step 1; no user turns are logged."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    roles = collections.Counter()
    runs = tool_calls = finals = 0
    for row in rows:
        if "response" in row:
            runs += row.get("step") == 1
            roles["assistant"] += 1
            tool_calls += bool(row["response"].get("tool_call"))
            finals += row["response"].get("state") == "FINAL"
        elif "tool_result" in row:
            roles["tool"] += 1
    return result(runs, roles, tool_calls, "runs restart at step 1; every response record is an assistant "
                  "message, every tool_result record a tool message; requests are not in the file",
                  final_states=finals)


READERS = {
    "MRA04242026/api_conversation_history.json": cline_api_history,
    "waigenie-qa/agent_history.json": browser_use_history,
    "3CLOUD-AUTOGEN/agent_history.json": autogen_messages,
    "metadata-aider/.aider.chat.history.md": aider_history,
    "minsky/2025-04-28_21-34-creating-a-git-push-task.md": specstory_markdown,
    "goit-agents-hw-02/trajectory.json": langgraph_trajectory,
    "einsumcorr/combined_transcripts.html": claude_code_log_html,
    "langgraph-mistral-agentic-workflow/agent_log.txt": python_log_router,
    "agent-complex-task/session.jsonl": pi_session_jsonl,
    "terminal-coding-agent/session.jsonl": parent_id_jsonl,
    "prompt_wars/trace.yaml": prompt_wars_yaml,
    "agent/trajectory.jsonl": react_steps_jsonl,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "traces_holdout_10_counts.json")
    args = parser.parse_args()
    counts = {}
    for line in TSV.read_text().splitlines()[1:]:
        _, at, path = line.split("\t")
        repo, commit = at.split("@")
        key = f"{repo.split('/')[1]}/{Path(path).name}"
        git_dir = args.mirror / repo.replace("/", "+") / "repo"
        raw = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], check=True,
                             capture_output=True).stdout
        counts[key] = READERS[key](raw.decode("utf-8"))
    args.out.write_text(json.dumps(counts, indent=1, ensure_ascii=False) + "\n")
    for key, value in counts.items():
        print(f"{key}: runs {value['runs']}, messages {value['messages']}, tool_calls {value['tool_calls']}")


if __name__ == "__main__":
    main()
