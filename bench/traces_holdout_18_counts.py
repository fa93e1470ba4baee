"""Reference message counts for issue 45's eighteenth holdout, made without codemix (standard library only).

Each file of bench/traces_holdout_18.tsv is read from its fetched mirror with `git show` and counted by one small
reader written for its layout after reading that file, before any codemix run. A reader returns runs, messages,
roles (messages per role), tool_calls, a few layout-specific extras and `notes` saying what was counted as what.
Keys are "<repository name>/<file name>", as in the earlier holdouts' counts files.

usage: python bench/traces_holdout_18_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_18_counts.json]
"""

import argparse
import collections
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOLDOUT = HERE / "traces_holdout_18.tsv"


def counted(runs, roles, tool_calls, notes, **extras):
    roles = {role: n for role, n in roles.items() if n}
    return {"runs": runs, "messages": sum(roles.values()), "roles": roles, "tool_calls": tool_calls, **extras,
            "notes": notes}


def decode(data):
    return data.decode("utf-8-sig")


def json_lines(data):
    return [json.loads(line) for line in decode(data).splitlines() if line.strip()]


def pi_session(data):
    """pi agent session: 'message' entries carry {role, content parts}; other entry types are session state."""
    roles, calls, thinking = collections.Counter(), 0, 0
    for entry in json_lines(data):
        if entry.get("type") != "message":
            continue
        message = entry["message"]
        roles[{"toolResult": "tool"}.get(message["role"], message["role"])] += 1
        parts = message["content"] if isinstance(message["content"], list) else []
        calls += sum(1 for part in parts if part.get("type") == "toolCall")
        thinking += sum(1 for part in parts if part.get("type") == "thinking")
    return counted(1, roles, calls, "one session; each 'message' entry is one message (toolResult entries are tool "
                   "messages); toolCall parts of assistant messages are the tool calls; thinking parts stay inside "
                   "their message; session, model_change and thinking_level_change entries are not messages",
                   thinking_parts=thinking)


def claude_code_jsonl(data):
    """Claude Code session: one line per content block; assistant lines of one API message share message.id."""
    roles, calls, meta = collections.Counter(), 0, 0
    assistant_ids = set()
    for entry in json_lines(data):
        message = entry.get("message")
        if entry.get("type") not in ("user", "assistant") or not isinstance(message, dict):
            continue
        content = message["content"]
        if entry["type"] == "assistant":
            assistant_ids.add(message.get("id"))
            calls += sum(1 for block in content if isinstance(block, dict) and block.get("type") == "tool_use")
        elif entry.get("isMeta"):
            meta += 1
        elif isinstance(content, list) and any(block.get("type") == "tool_result" for block in content):
            roles["tool"] += 1
        else:
            roles["user"] += 1
    roles["assistant"] = len(assistant_ids)
    return counted(1, roles, calls, "one session; user lines that hold tool_result blocks are tool messages, other "
                   "user lines (typed text and slash-command tags) are user messages except the isMeta caveat; "
                   "assistant lines are grouped by message.id (each text or tool_use block is written on its own "
                   "line); tool calls are tool_use blocks; file-history-snapshot lines are not messages",
                   meta_lines=meta)


def extractor_markdown(data):
    """Claude conversation exported to Markdown: '## 👤 Human' / '## 🤖 <model>' turns, tool calls and results."""
    text = decode(data)
    human = len(re.findall(r"^## 👤 Human", text, re.MULTILINE))
    model = len(re.findall(r"^## 🤖 ", text, re.MULTILINE))
    calls = len(re.findall(r"^### 🔧 Tool Call", text, re.MULTILINE))
    results = len(re.findall(r"^### 📤 Tool Result", text, re.MULTILINE))
    return counted(1, collections.Counter(user=human, assistant=model, tool=results), calls,
                   "each '## 👤 Human' heading opens a user message (slash-command text included) and each '## 🤖 "
                   "<model>' heading an assistant message (an assistant message may hold only a tool call); each "
                   "'### 📤 Tool Result' block is a tool message; tool calls are '### 🔧 Tool Call' blocks; other "
                   "'##'/'###' headings (summaries, numbered lists) are inside replies")


def aider_markdown(data):
    """Aider chat history: '####' user lines, '>' aider output lines, other lines the model's reply."""
    sessions, roles, slash = 0, collections.Counter(), 0
    kind_before = None
    for line in decode(data).splitlines():
        if not line.strip():
            continue
        if line.startswith("# aider chat started at"):
            sessions, kind = sessions + 1, "session"
        elif line.startswith("####"):
            kind = "user"
        elif line.startswith(">"):
            kind = "output"
        else:
            kind = "assistant"
        if kind != kind_before and kind in ("user", "assistant"):
            if kind == "user" and line[4:].lstrip().startswith("/"):
                slash += 1
            else:
                roles[kind] += 1
        kind_before = kind
    edits = len(re.findall(r"^> Applied edit to ", decode(data), re.MULTILINE))
    return counted(sessions, roles, edits, "runs are '# aider chat started at' sessions; a run of '####' lines (bare "
                   "'####' lines join the paragraphs of one prompt) is one user message, slash commands counted apart; "
                   "a run of other non-blank lines is one assistant reply, so aider's '>' output lines (edit reports, "
                   "token counts) between parts of an answer split it; tool calls are '> Applied edit to' lines",
                   slash_commands=slash)


def gemini_cli_jsonl(data):
    """Gemini CLI chat recording: a header line, then records by id; a later line with the same id replaces it."""
    records, order = {}, []
    for entry in json_lines(data)[1:]:
        if "id" not in entry:
            continue
        if entry["id"] not in records:
            order.append(entry["id"])
        records[entry["id"]] = entry
    kinds = collections.Counter(records[i]["type"] for i in order)
    calls = sum(len(records[i].get("toolCalls") or []) for i in order if records[i]["type"] == "gemini")
    roles = collections.Counter(user=kinds["user"], assistant=kinds["gemini"])
    return counted(1, roles, calls, "one session (the first line is its header); records are keyed by id and the "
                   "last line of an id is the record (the file rewrites a gemini record as thoughts, text and tool "
                   "calls arrive); user records are user messages, gemini records assistant messages (tool results "
                   "sit inside their toolCalls, not as messages); info and error records and '$set' lines are not "
                   "messages", info_records=kinds["info"], error_records=kinds["error"])


def step_trajectory(data):
    """IDE agent trajectory: numbered steps; USER_INPUT from the user, PLANNER_RESPONSE with tool_calls, results."""
    roles, calls = collections.Counter(), 0
    for step in json_lines(data):
        if step["type"] == "USER_INPUT":
            roles["user"] += 1
        elif step["type"] == "PLANNER_RESPONSE":
            roles["assistant"] += 1
            if step.get("tool_calls"):
                calls += len(step["tool_calls"])
        elif "content" in step:
            roles["tool"] += 1
    return counted(1, roles, calls, "one run; USER_INPUT steps are user messages, PLANNER_RESPONSE steps assistant "
                   "messages (each element of their tool_calls list is a tool call), other steps "
                   "with content (CODE_ACTION, SEARCH_WEB, LIST_DIRECTORY, GENERIC) are tool results; the "
                   "CONVERSATION_HISTORY step has no content and is not a message")


def role_content_array(data):
    """A JSON array of {role, content} written by PowerShell (byte-order mark, escaped '<')."""
    messages = json.loads(decode(data))
    return counted(1, collections.Counter(m["role"] for m in messages), 0,
                   "each array element is one message under its role; no tool calls are recorded")


def named_speaker_markdown(data):
    """A conversation in Markdown whose turns are '## <speaker>' headings; replies carry their own headings."""
    text = decode(data)
    speakers = collections.Counter(re.findall(r"^## (Tyler|Atem)\s*$", text, re.MULTILINE))
    return counted(1, collections.Counter(user=speakers["Tyler"], assistant=speakers["Atem"]), 0,
                   "the human is 'Tyler' and the model 'Atem' (named in the title block); each '## Tyler' or '## "
                   "Atem' heading line opens one message; other '## ' headings are section titles inside Atem's "
                   "replies; '[image shared]' lines are part of the user's message")


def autogen_console(data):
    """AutoGen AgentChat console output: '---------- TextMessage (<source>) ----------' banners."""
    sources = re.findall(r"^-+ (\w+) \(([^)]*)\) -+$", decode(data), re.MULTILINE)
    roles = collections.Counter("user" if source.lower() == "user" else "assistant"
                                for kind, source in sources if kind == "TextMessage")
    calls = sum(1 for kind, _ in sources if kind == "ToolCallRequestEvent")
    return counted(1, roles, calls, "each TextMessage banner opens a message; source 'user'/'User' is the user and "
                   "PlannerAgent the assistant; '[Prompt tokens: ..]' lines are usage, not messages; no tool-call "
                   "events appear")


def user_ai_text(data):
    """Plain text log with 'User:' and 'AI:' turns; continuation lines belong to the turn above."""
    turns = re.findall(r"^(User|AI):", decode(data), re.MULTILINE)
    roles = collections.Counter("user" if who == "User" else "assistant" for who in turns)
    return counted(1, roles, 0, "each line starting 'User:' or 'AI:' opens a message; following lines (menus, lists) "
                   "continue it; no tool calls are recorded")


def timestamped_lines(data):
    """One timestamped line per turn: '[YYYY-MM-DD HH:MM:SS] 你: ...' and '[...] AI: ...'."""
    turns = re.findall(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (你|AI): ", decode(data), re.MULTILINE)
    roles = collections.Counter("user" if who == "你" else "assistant" for who in turns)
    return counted(1, roles, 0, "each line '[time] 你:' is a user message and '[time] AI:' an assistant message "
                   "(sessions are appended to one log without markers, so they count as one run); no tool calls")


def exported_messages(data):
    """{exportedAt, messages: [{role, text}]}: the assistant's progress notes are messages of their own."""
    messages = json.loads(decode(data))["messages"]
    return counted(1, collections.Counter(m["role"] for m in messages), 0,
                   "each element of 'messages' is one message under its role; tool calls are not recorded (the "
                   "assistant's notes say what it searched or opened)")


READERS = {
    "paradocs/session.jsonl": pi_session,
    "agentcmd/full-session-four.jsonl": claude_code_jsonl,
    "claude-conversation-extractor/detailed_transcript.md": extractor_markdown,
    "brejlator/.aider.chat.history.md": aider_markdown,
    "Axe/session.jsonl": gemini_cli_jsonl,
    "ApplySense/transcript.jsonl": step_trajectory,
    "rust-axum-task/agent_history.json": role_content_array,
    "ground-state-dialogue/conversation.md": named_speaker_markdown,
    "ai-agent-project/chat_log.txt": autogen_console,
    "Agentic-AI-Project/chat_log.txt": user_ai_text,
    "my-ai-agent/chat_log.txt": timestamped_lines,
    "arcon-api-explorer/chat_export.json": exported_messages,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "traces_holdout_18_counts.json")
    args = parser.parse_args()
    counts = {}
    for row in HOLDOUT.read_text(encoding="utf-8").splitlines()[1:]:
        _, at, path = row.split("\t")
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
