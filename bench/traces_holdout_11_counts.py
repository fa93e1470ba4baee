"""Issue 45's eleventh holdout: independent message counts, one small reader per layout, standard library only.

Written from the twelve files of bench/traces_holdout_11.tsv (read with git show from the fetched mirrors) before any
codemix run of them; codemix is never imported. Each reader returns runs, messages, roles (message counts by role),
tool_calls and layout-specific extras; `notes` says what was counted as what. Output: bench/traces_holdout_11_counts.json,
keyed "<repository name>/<file name>" like the earlier holdouts' counts.

usage: python bench/traces_holdout_11_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_11_counts.json]
"""

import argparse
import collections
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TSV = HERE / "traces_holdout_11.tsv"


def result(runs, roles, tool_calls, notes, **extra):
    roles = {k: v for k, v in roles.items() if v}
    return {"runs": runs, "messages": sum(roles.values()), "roles": roles, "tool_calls": tool_calls, **extra,
            "notes": notes}


def chat_request_json(text):
    """One captured chat-completions request: {messages: [{role, content, tool_calls?, tool_call_id?}], tools}."""
    messages = json.loads(text)["messages"]
    roles = collections.Counter(m["role"] for m in messages)
    tool_calls = sum(len(m.get("tool_calls") or []) for m in messages)
    harness = sum(m["role"] == "user" and str(m.get("content", "")).startswith("Above is the result of calling")
                  for m in messages)
    return result(1, roles, tool_calls, "one request body; every entry of messages is a message of its role; the last "
                  "user entry is the client's instruction after tool results, counted as user",
                  harness_user_messages=harness, tools_offered=len(json.loads(text).get("tools") or []))


def copilot_debug_log(text):
    """VS Code Copilot Chat log: an entry per request ('panel/editAgent - 8 hex'), a table of contents, metadata,
    then 'Request Messages' with bare System/User/Assistant lines, 'Response' with the reply (tool calls as
    '🛠️ name (id) {args}'), and 'Tool Call - id' entries with their own Request/Response."""
    lines = text.split("\n")
    runs = sum(bool(re.fullmatch(r"[A-Za-z]+/[A-Za-z]+ - [0-9a-f]{8}", ln)) for ln in lines)
    roles = collections.Counter()
    section, seen_metadata = None, False
    requests_with_user_request = 0
    for ln in lines:
        if ln.startswith("url              :"):
            seen_metadata = True
        if not seen_metadata:
            continue
        if ln == "Request Messages":
            section = "request"
        elif ln == "Response" and section == "request":
            section = "response"
        elif ln.startswith("Tool Call - "):
            section = "tool"
        elif ln == "Response" and section == "tool":
            roles["tool"] += 1
        elif section in ("request", "response") and ln in ("System", "User", "Assistant"):
            roles[ln.lower()] += 1
        elif ln == "<userRequest>":
            requests_with_user_request += 1
    tool_calls = sum(ln.startswith("🛠️ ") for ln in lines)
    return result(runs, roles, tool_calls, "one logged request; bare System/User/Assistant lines after the metadata "
                  "are messages (the reply under Response included), each 'Tool Call - id' entry's Response a tool "
                  "message; the first User message holds only environment info", user_turns_with_userRequest=
                  requests_with_user_request)


def cline_ui_messages(text):
    """Cline ui_messages.json: a list of {ts, type: say|ask, say|ask: kind, text}. The first say/text is the task;
    user_feedback are later user turns; non-empty say/text, say/completion_result and ask/followup are the agent's;
    say/tool entries are tool uses; retries, checkpoints, api_req_* and resume asks are harness events."""
    entries = json.loads(text)
    roles = collections.Counter()
    tool_calls = harness = reasoning = 0
    first = True
    for e in entries:
        kind = (e["type"], e.get("say") or e.get("ask"))
        body = (e.get("text") or "").strip()
        if kind == ("say", "text"):
            if first:
                roles["user"] += 1
            elif body:
                roles["assistant"] += 1
            first = False
        elif kind == ("say", "user_feedback"):
            roles["user"] += 1
        elif kind in (("say", "completion_result"), ("ask", "followup")):
            roles["assistant"] += 1
        elif kind in (("say", "tool"), ("ask", "tool"), ("say", "command"), ("ask", "command")):
            tool_calls += 1
        elif kind == ("say", "reasoning"):
            reasoning += 1
        elif kind[1] in ("resume_task", "resume_completed_task", "api_req_failed", "error_retry", "api_req_retried",
                         "deleted_api_reqs"):
            harness += 1
    return result(1, roles, tool_calls, "one task resumed several times; task text and user_feedback are user "
                  "turns, non-empty text/completion_result/followup the agent's (empty partial text entries skipped), "
                  "say/tool entries tool calls (their results live only in later api_req_started request strings)",
                  reasoning_entries=reasoning, harness_events=harness)


MESSAGE = re.compile(r"\n---\n\n\*\*\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]\*\*\n\n### (👤 User|🤖 Assistant)")


def cctrace_markdown(text):
    """cctrace export: '---', '**[timestamp]**', '### 👤 User' or '### 🤖 Assistant (model)'; tool uses as
    '🔧 **Tool Use: Name**', tool results as user messages '📊 **Tool Result:**' with a fenced body. A tool result
    that quotes an earlier export holds the same separators; a separator inside a tool result counts only when the
    last non-blank line before it closes the fence."""
    roles = collections.Counter()
    embedded = tool_results = 0
    last = 0
    in_result = False
    for match in MESSAGE.finditer(text):
        before = text[last:match.start()]
        if in_result:
            tail = [ln for ln in before.split("\n") if ln.strip()]
            if not tail or tail[-1] != "```":
                embedded += 1
                continue
        roles["user" if "User" in match.group(1) else "assistant"] += 1
        nxt = MESSAGE.search(text, match.end())
        body = text[match.end():nxt.start() if nxt else len(text)]
        in_result = "📊 **Tool Result:**" in body.split("```", 1)[0]
        tool_results += in_result
        last = match.end()
    tool_calls = len(re.findall(r"^🔧 \*\*Tool Use:", text, re.MULTILINE))
    return result(1, roles, tool_calls, "one session; tool results are '👤 User' messages (counted as user, also "
                  "given apart); role headings quoted inside a tool result are not messages",
                  user_messages_that_are_tool_results=tool_results, embedded_headings_skipped=embedded,
                  header_says="User Messages 201, Assistant Messages 285, Tool Uses 175")


def role_content_json(text):
    """{session_id, date, message_count, messages: [{role, content}]}."""
    data = json.loads(text)
    roles = collections.Counter(m["role"] for m in data["messages"])
    return result(1, roles, 0, "one session of plain role/content messages; no tool calls recorded (the assistant "
                  "texts only narrate them)", message_count_field=data.get("message_count"))


def codex_rollout(text):
    """Codex CLI rollout JSONL: {timestamp, type, payload}; response_item payloads are message (role developer/user/
    assistant), reasoning, function_call/custom_tool_call and their *_output; event_msg records repeat the user and
    agent messages for the UI and are not counted."""
    roles = collections.Counter()
    tool_calls = reasoning = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        payload = record.get("payload") or {}
        if record["type"] != "response_item":
            continue
        kind = payload.get("type")
        if kind == "message":
            roles[payload["role"]] += 1
        elif kind in ("function_call", "custom_tool_call"):
            tool_calls += 1
        elif kind in ("function_call_output", "custom_tool_call_output"):
            roles["tool"] += 1
        elif kind == "reasoning":
            reasoning += 1
    return result(1, roles, tool_calls, "one session; messages are response_item messages (the developer message is "
                  "the permissions preamble, the first user message the environment context) plus tool outputs",
                  reasoning_items=reasoning)


def parent_tree_chat(text):
    """{messages: [{id, parentMessageId, role: User|Claude, message}]} from a web chat exporter."""
    messages = json.loads(text)["messages"]
    ids = {m["id"] for m in messages}
    children = collections.Counter(m.get("parentMessageId") for m in messages)
    roles = collections.Counter({"User": "user", "Claude": "assistant"}.get(m["role"], m["role"]) for m in messages)
    commands = sum(m["message"].lstrip().startswith("<cmd>") for m in messages if m["role"] == "User")
    by_id = {m["id"]: m for m in messages}
    path, node = 0, messages[-1]
    while node is not None:
        path += 1
        node = by_id.get(node.get("parentMessageId"))
    return result(1, roles, 0, "one conversation tree (a single root; regenerated or edited turns make branches), all "
                  "its messages counted; role User is user, Claude assistant; the user's <cmd> lines are commands "
                  "typed to a terminal the model imitates, not tool calls",
                  roots=sum(m.get("parentMessageId") not in ids for m in messages),
                  branch_points=sum(1 for k, v in children.items() if v > 1),
                  leaves=sum(1 for m in messages if not children[m["id"]]), last_message_path_length=path,
                  user_cmd_messages=commands)


def step_log_json(text):
    """{logs: [{step: discover|plan|execute|tool_use|verify|submit|compute, ...}]}: the task in discover, the plan
    as model text, one tool_use with its result."""
    steps = json.loads(text)["logs"]
    roles = collections.Counter()
    tool_calls = 0
    for step in steps:
        if step["step"] == "discover":
            roles["user"] += 1
        elif step["step"] == "plan":
            roles["assistant"] += 1
        elif step["step"] == "tool_use":
            tool_calls += 1
            roles["tool"] += 1
    return result(1, roles, tool_calls, "one run; the discover step's task is the request, the plan step the model's "
                  "reply, the tool_use step a call with its result; execute/verify/submit/compute are harness records",
                  steps=len(steps))


def research_event_list(text):
    """JSON list of {event_type: step|retry_triggered|confidence_update|gaps_updated, data}; step data carry
    thinking and action (plan, search_initial, evaluate_retry, search_retry)."""
    events = json.loads(text)
    roles = collections.Counter()
    tool_calls = 0
    for event in events:
        if event["event_type"] != "step":
            continue
        roles["assistant"] += 1
        if event["data"]["type"].startswith("search"):
            tool_calls += 1
    return result(1, roles, tool_calls, "one research run with no user turn (the query appears only inside the plan's "
                  "thinking); each step event is an agent message, search steps are tool calls; retry/confidence/gap "
                  "events are harness records", events=len(events))


def automaker_output(text):
    """Automaker agent-output.md: '🔧 Tool: Name' then 'Input: {' with the pretty-printed arguments closed by a '}'
    line at column 0, and the agent's prose in between (a generated specification ending '[SPEC_GENERATED] ...',
    then progress notes)."""
    tool_calls = prose_runs = 0
    in_prose = in_input = False
    for ln in text.split("\n"):
        if ln.startswith("🔧 Tool: "):
            tool_calls += 1
            in_prose = False
        elif ln.startswith("Input: {"):
            in_input = ln.rstrip() != "Input: {}"
        elif in_input:
            in_input = ln.rstrip() != "}"
        elif ln.strip() and not in_prose:
            prose_runs += 1
            in_prose = True
    roles = collections.Counter({"assistant": prose_runs})
    return result(1, roles, tool_calls, "one agent run, no request in the file (it sits in feature.json beside it); "
                  "a message is a stretch of prose between tool blocks (here all 67 tool calls come first, then one "
                  "stretch: the specification, whose last line has a later progress note glued on without a line "
                  "break); tool results are not recorded",
                  spec_awaiting_approval="[SPEC_GENERATED]" in text)


def assistants_event_stream(text):
    """JSONL of {event_type: status|initial_response|tool_execution|final_response|completed, data}."""
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    roles = collections.Counter()
    tool_calls = 0
    for event in events:
        kind, data = event["event_type"], event["data"]
        if kind in ("initial_response", "final_response"):
            roles["assistant"] += 1
        elif kind == "tool_execution" and data.get("status") == "executing":
            tool_calls += 1
        elif kind == "tool_execution" and data.get("status") == "completed":
            roles["tool"] += 1
    return result(1, roles, tool_calls, "one run of an OpenAI Assistants thread; the user's question is not in the "
                  "file ('Message added to thread'); status events are harness records", events=len(events))


def agent_epochs_json(text):
    """{agentName, epochs: [{epoch, phase, actions: [{step, description, tool, result, decision}]}], summary,
    decisions, safetyLog}."""
    data = json.loads(text)
    actions = [a for epoch in data["epochs"] for a in epoch["actions"]]
    with_tool = sum(bool(a.get("tool")) for a in actions)
    return result(1, collections.Counter(), with_tool, "an autonomous agent's action log with no conversation: no "
                  "user, assistant or tool messages; each action names a tool and its result (counted as tool calls)",
                  epochs=len(data["epochs"]), actions=len(actions), decisions=len(data.get("decisions") or []))


READERS = {
    "api-auto-mcp-server-demo/request-3.json": chat_request_json,
    "vscode-copilot-chat/LOGS.md": copilot_debug_log,
    "fineye/ui_messages.json": cline_ui_messages,
    "cctrace-js/conversation_full.md": cctrace_markdown,
    "cc_atoms/claude-conversation-2025-10-14-42fe0cd6.json": role_content_json,
    "scout/codex-session.jsonl": codex_rollout,
    "Soluna-Gaia-Claude-Hermes/chat-export.json": parent_tree_chat,
    "Auto_Agent/agent_log.json": step_log_json,
    "research-agent/agent_trace.json": research_event_list,
    "praDeep/agent-output.md": automaker_output,
    "Agent_POC/events.jsonl": assistants_event_stream,
    "OmniAgent/agent_log.json": agent_epochs_json,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "traces_holdout_11_counts.json")
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
