"""Reference message counts for issue 45's seventeenth holdout, made without codemix (standard library only).

One reader per file layout, each written after reading that file from its fetched mirror (git show) and before
any codemix run on it. A reader gets the file's bytes and returns runs, messages, roles (messages per role),
tool_calls, a few layout-specific extras and `notes` that say what was counted as what. Keys are
"<repository name>/<file name>", as in the earlier holdouts' counts files.

usage: python bench/traces_holdout_17_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_17_counts.json]
"""

import argparse
import collections
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOLDOUT = HERE / "traces_holdout_17.tsv"


def result(runs, roles, tool_calls, notes, **extras):
    roles = {name: n for name, n in roles.items() if n}
    return dict(runs=runs, messages=sum(roles.values()), roles=roles, tool_calls=tool_calls, **extras, notes=notes)


def text_of(data):
    return data.decode("utf-8-sig")


def agentchat_messages(data):
    """AutoGen AgentChat: a JSON array of messages with source and type (TextMessage, tool events)."""
    messages = json.loads(text_of(data))
    roles = collections.Counter(m["source"] for m in messages if m["type"] == "TextMessage")
    calls = sum(len(m["content"]) for m in messages if m["type"] == "ToolCallRequestEvent")
    return result(1, roles, calls, "each TextMessage is a message under its source ('user', 'assistant'); tool calls "
                  "would be ToolCallRequestEvent entries (none); models_usage and metadata are not messages")


def cline_ui_messages(data):
    """Cline ui_messages.json: say/ask UI events of one task."""
    events = [e for e in json.loads(text_of(data)) if not e.get("partial")]
    kinds = collections.Counter(e.get("say") or e.get("ask") for e in events)
    roles = collections.Counter(user=kinds["task"] + kinds["user_feedback"],
                                assistant=sum(1 for e in events if e["type"] == "say"
                                              and e.get("say") in ("text", "completion_result")))
    calls = kinds["tool"] + sum(1 for e in events if e.get("say") == "command" or e.get("ask") == "command")
    outputs, previous = 0, None  # consecutive command_output events stream one command's output
    for e in events:
        kind = e.get("say") or e.get("ask")
        if kind == "command_output" and previous != "command_output":
            outputs += 1
        previous = kind
    roles["tool"] = outputs
    return result(1, roles, calls, "one task, continued after 'resume_task' asks; the 'task' event and each "
                  "'user_feedback' are user messages; say 'text' and say 'completion_result' are assistant messages "
                  "(the empty ask 'completion_result' that follows each is not); tool calls are say 'tool' events "
                  "(file reads, edits, creations, searches) and commands (say 'command' auto-approved, ask 'command' "
                  "awaiting approval); a stretch of 'command_output' events is one tool message; 'reasoning' events "
                  "are counted apart; checkpoint, api_req_started, task_progress, error_retry events and partial "
                  "(streaming) events are not messages",
                  reasoning_events=kinds["reasoning"], partial_events_skipped=sum(1 for e in json.loads(
                      text_of(data)) if e.get("partial")))


def research_runs(data):
    """AIResearchAgent: a JSON array of runs, each a user input and a Markdown report."""
    runs = json.loads(text_of(data))
    roles = collections.Counter(user=sum(1 for r in runs if r["input"].strip()),
                                assistant=sum(1 for r in runs if r["report"].strip()))
    return result(len(runs), roles, 0, "each entry is one run: its 'input' is the user message and its 'report' the "
                  "assistant message; id, timestamp and mode are metadata; no tool calls are recorded")


def chatgpt_share_copy(data):
    """DragonBench: a shared ChatGPT conversation copied as text; 'Worked for Ns' opens each answer."""
    lines = text_of(data).splitlines()
    markers = [i for i, line in enumerate(lines) if re.match(r"^Worked for \d+[smh]", line)]
    sources = [i for i, line in enumerate(lines) if line.strip() == "Sources"]
    users = 0
    for marker in markers:
        before = [s for s in sources if s < marker]
        if before and any(line.strip() for line in lines[before[-1] + 1:marker]):
            users += 1  # the prompt sits between the previous answer's 'Sources' line and the marker
    return result(1, collections.Counter(user=users, assistant=len(markers)), 0,
                  "each 'Worked for Ns' line opens an assistant message (the answer after it); a user message is the "
                  "text between the previous answer's 'Sources' line and the next 'Worked for' line; the first prompt "
                  "is not in the copy (only the page lines 'This is a copy of a shared ChatGPT conversation' and "
                  "'Report conversation' precede the first answer); 'Sources' lines are page furniture, not messages",
                  first_prompt_missing=True)


def role_jsonl(data):
    """trace-taxi: one chat-completion message per line."""
    messages = [json.loads(line) for line in text_of(data).splitlines() if line.strip()]
    roles = collections.Counter(m["role"] for m in messages)
    calls = sum(len(m.get("tool_calls") or []) for m in messages)
    return result(1, roles, calls, "every line is a message under its role (the system line is a session header "
                  "naming model and tools); tool_calls are the entries of assistant tool_calls lists, answered by "
                  "tool lines with tool_call_id; assistant lines with empty content are counted",
                  empty_assistant_lines=sum(1 for m in messages if m["role"] == "assistant" and not m["content"]))


def episode_array_jsonl(data):
    """web-nav: each line is a whole message array of one browser-agent episode."""
    episodes = [json.loads(line) for line in text_of(data).splitlines() if line.strip()]
    roles = collections.Counter(m["role"] for episode in episodes for m in episode)
    calls = sum(1 for episode in episodes for m in episode if m["role"] == "tool" and "tool_call_id" in m)
    return result(len(episodes), roles, calls, "each line is one run (an episode's message array); every array "
                  "entry is a message under its role, the state reports the agent sends as 'user' included; "
                  "assistant messages before a tool reply have empty content, so a tool call is counted for each "
                  "tool message that carries a tool_call_id; a tool message without one holds a function schema",
                  empty_assistant_messages=sum(1 for e in episodes for m in e if m["role"] == "assistant"
                                               and not m["content"]))


def aider_history(data):
    """Aider .aider.chat.history.md: '#### ' user lines, '> ' aider output, other text the model's replies."""
    lines = text_of(data).splitlines()
    groups, previous = [], None
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("# aider chat started"):
            kind = "session"
        elif line.startswith("####"):
            kind = "user"
        elif line.startswith(">"):
            kind = "aider"
        else:
            kind = "assistant"
        if kind != previous:
            groups.append((kind, line))
        previous = kind
    commands = sum(1 for kind, line in groups if kind == "user" and line[4:].strip().startswith("/"))
    roles = collections.Counter(user=sum(1 for kind, _ in groups if kind == "user") - commands,
                                assistant=sum(1 for kind, _ in groups if kind == "assistant"))
    edits = sum(1 for line in lines if line.startswith("> Applied edit to "))
    return result(sum(1 for kind, _ in groups if kind == "session"), roles, edits,
                  "blank lines ignored; a run of '####' lines is one user message (runs that are slash commands are "
                  "counted apart); a run of other text lines is one assistant reply (the architect's plan and the "
                  "editor's whole-file edits are separate replies); '>' lines are aider's own output, not messages; "
                  "tool_calls are the edits aider reports as applied ('> Applied edit to ...')", slash_commands=commands)


def langgraph_console(data):
    """LangGraph chatbot console with debug logging: '👤 Tú:' user lines, '🤖 Bot:' replies, log lines between."""
    lines = text_of(data).splitlines()
    roles = collections.Counter(user=sum(1 for line in lines if line.startswith("👤 Tú:")),
                                assistant=sum(1 for line in lines if line.startswith("🤖 Bot:")))
    nodes = sum(1 for line in lines if re.search(r" - INFO - 🔷 Executing \w+", line))
    return result(1, roles, 0, "each '👤 Tú:' line opens a user message (the last, 'salir', ends the session and "
                  "gets no reply) and each '🤖 Bot:' line (the welcome first) an assistant message running to the next prompt or log "
                  "line; the PowerShell command line, the banner and the timestamped log lines (graph nodes, LLM and "
                  "HTTP calls) are not messages; no tool calls are shown as such", graph_node_executions=nodes)


def banner_multiagent_log(data):
    """RPLH: dashed '###' banners name each speaker of a multi-agent planning run; round separators between."""
    lines = text_of(data).splitlines()
    speakers = [m.group(1) for line in lines
                if (m := re.match(r"^-{6}###-{6}###-{6}(.+?)-{6}###-{6}###-{6}: ?$", line))]
    rounds = sum(1 for line in lines if re.match(r"^-{7}###-{7}###-{7}###-{14}###", line))
    kinds = collections.Counter(re.sub(r"(_\d+)?(_ROW_.*)?$", "", s) for s in speakers)
    return result(1, collections.Counter(assistant=len(speakers)), 0,
                  "one run with no human turn; every speaker banner opens an assistant message (the central planner "
                  "HCA, the local agents, the HCA judges); the separator banners between rounds and the state lines "
                  "(future_step, actions_plan, agent_model, spy_model, justification) are not messages; the JSON action "
                  "plans inside replies are content, not tool calls", rounds=rounds, speakers=dict(kinds))


def author_messages_object(data):
    """DungeonLifeAgent: {'messages': [{timestamp, author, content}], 'last_updated'} with named authors."""
    messages = json.loads(text_of(data))["messages"]
    authors = collections.Counter(m["author"] for m in messages)
    roles = collections.Counter(user=authors["Tú"], assistant=sum(n for a, n in authors.items() if a != "Tú"))
    return result(1, roles, 0, "each entry of messages is a message; the author 'Tú' (you) is the user and 'Willow' "
                  "the agent (assistant); the agent's greeting opens the chat", authors=dict(authors))


def query_log(data):
    """Agentic-AI-for-Adult-diabetes: a JSON array of user_query / agent_response pairs with the answering agent."""
    entries = json.loads(text_of(data))

    def answer(response):  # one response is the agent executor's whole result, {"input": prompt, "output": answer}
        return response["output"] if isinstance(response, dict) else response

    roles = collections.Counter(user=sum(1 for e in entries if e["user_query"].strip()),
                                assistant=sum(1 for e in entries if answer(e["agent_response"]).strip()))
    return result(1, roles, 0, "one session log; each entry's user_query is a user message and its agent_response "
                  "an assistant message; one agent_response is an object {input, output} whose input is the agent's "
                  "whole prompt (instructions and the question again): only its output is the answer, the prompt is "
                  "not a message; 'source' names the answering agent (metadata); no tool calls are recorded",
                  answering_agents=dict(collections.Counter(e["source"] for e in entries)),
                  responses_as_objects=sum(1 for e in entries if isinstance(e["agent_response"], dict)))


def parts_trajectory(data):
    """pharma-platform: {'messages': [...], 'meta': {...}}; content as typed parts (text, tool_call, tool_output)."""
    trajectory = json.loads(text_of(data))
    messages = trajectory["messages"]
    roles = collections.Counter(m["role"] for m in messages)
    parts = collections.Counter(p.get("type") for m in messages if isinstance(m["content"], list)
                                for p in m["content"])
    return result(1, roles, parts["tool_call"], "every entry of messages is a message under its role (developer "
                  "and system instructions included); tool_calls are the tool_call parts of assistant messages, "
                  "answered by tool messages with tool_output parts; meta (session_meta, turn_contexts, token_counts) "
                  "is not messages", tool_output_parts=parts["tool_output"])


READERS = {
    "autogen/agent_history.json": agentchat_messages,
    "Cline-Xray/ui_messages.json": cline_ui_messages,
    "AIResearchAgent/agent_history.json": research_runs,
    "DragonBench/transcript.md": chatgpt_share_copy,
    "trace-taxi/chat.jsonl": role_jsonl,
    "web-nav/chat.jsonl": episode_array_jsonl,
    "pocketflow-text2sql-gui/.aider.chat.history.md": aider_history,
    "LangGraph-ShoppingCart-Chatbot/conversation debug.txt": langgraph_console,
    "RPLH/rplh_agent_3x3.txt": banner_multiagent_log,
    "DungeonLifeAgent/conversation_history.json": author_messages_object,
    "Agentic-AI-for-Adult-diabetes/conversation_history.json": query_log,
    "pharma-platform-fullstack/trajectory-1.json": parts_trajectory,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "traces_holdout_17_counts.json")
    args = parser.parse_args()
    counts = {}
    for line in HOLDOUT.read_text(encoding="utf-8").splitlines()[1:]:
        _, at, path = line.split("\t")
        repo, commit = at.split("@")
        git_dir = args.mirror / repo.replace("/", "+") / "repo"
        data = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], check=True,
                              capture_output=True).stdout
        key = f"{repo.split('/')[1]}/{Path(path).name}"
        counts[key] = READERS[key](data)
    args.out.write_text(json.dumps(counts, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for key, c in counts.items():
        print(f"{key}: runs {c['runs']}, messages {c['messages']}, roles {c['roles']}, tool_calls {c['tool_calls']}")


if __name__ == "__main__":
    main()
