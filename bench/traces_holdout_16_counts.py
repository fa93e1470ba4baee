"""Reference message counts for issue 45's sixteenth holdout, made without codemix (standard library only).

One reader per file layout, each written after reading that file from its fetched mirror (git show) and before
any codemix run on it. A reader gets the file's bytes and returns runs, messages, roles (messages per role),
tool_calls, a few layout-specific extras and `notes` that say what was counted as what. Keys are
"<repository name>/<file name>", as in the earlier holdouts' counts files.

usage: python bench/traces_holdout_16_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_16_counts.json]
"""

import argparse
import collections
import itertools
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOLDOUT = HERE / "traces_holdout_16.tsv"


def result(runs, roles, tool_calls, notes, **extras):
    roles = {name: n for name, n in roles.items() if n}
    return dict(runs=runs, messages=sum(roles.values()), roles=roles, tool_calls=tool_calls, **extras, notes=notes)


def text_of(data):
    return data.decode("utf-8-sig")


def task_package_log(data):
    """ReflecTool: TaskPackage banners, then 'takes n-step Action:' blocks each followed by an 'Observation:'."""
    lines = text_of(data).splitlines()
    runs, roles, calls, finished, user_input, pending_user = 0, collections.Counter(), 0, 0, None, None
    action_name = None
    for line in lines:
        if line.startswith("\tInputs: "):
            user_input = line[len("\tInputs: "):]
        elif re.match(r"^=+\w+ starts execution on TaskPackage", line):
            pending_user = user_input
        elif re.match(r"^Agent \w+ takes \d+-step Action:$", line):
            if pending_user is not None:  # the first action of an execution opens a run with its request
                runs += 1
                roles["user"] += 1
                pending_user = None
            roles["assistant"] += 1
            action_name = None
        elif action_name is None and line.startswith("\tname: "):
            action_name = line[len("\tname: "):].strip()
            if action_name != "Finish":
                calls += 1
        elif line.startswith("Observation:") and action_name != "Finish":
            roles["tool"] += 1
        elif re.match(r"^=+\w+ finish execution", line):
            finished += 1
    return result(runs, roles, calls, "a run is an execution that takes at least one action, opened by its "
                  "'Inputs:' request (user); the TaskPackage banners that repeat the request for nested agents and "
                  "executions with no action are not messages; every action block is an assistant message and a "
                  "tool call unless it is Finish; the Observation after a non-Finish action is a tool message (the "
                  "one after Finish echoes the answer)", finished_runs=finished)


def korean_qa_markdown(data):
    """'### 사용자 질문' (question quoted after '> ') and '### AI 답변' headings; summary sections follow."""
    text = text_of(data)
    users = len(re.findall(r"(?m)^### 사용자 질문\s*$", text))
    answers = len(re.findall(r"(?m)^### AI 답변\s*$", text))
    bracketed = len(re.findall(r"(?m)^\[[^\]\n]+\]\s*$", text))
    return result(1, {"user": users, "assistant": answers}, 0, "each '### 사용자 질문' heading is a user message and "
                  "each '### AI 답변' heading an assistant message; the '## 📋' summary and '## 🔗' reference sections "
                  "after the dialogue are not messages", bracketed_summary_lines=bracketed)


def emoji_heading_markdown(data):
    """'### 👤 User' / '### 🤖 Assistant' headings separated by '---'; other '###' headings are answer content."""
    text = text_of(data)
    users = len(re.findall(r"(?m)^### 👤 User\s*$", text))
    answers = len(re.findall(r"(?m)^### 🤖 Assistant\s*$", text))
    actions = len(re.findall(r'\{"action_type"\s*:', text))
    return result(1, {"user": users, "assistant": answers}, actions, "each '### 👤 User' heading is a user message and "
                  "each '### 🤖 Assistant' heading an assistant message (two user headings and two assistant "
                  "headings follow each other once); headings inside answers are content; a tool call is an inline "
                  "action JSON object with action_type")


def question_console(data):
    """'Enter a question (or 'quit' to exit): <q>' prompts, 'Answer:' blocks and 'Sources used:' lists."""
    text = text_of(data)
    prompts = re.findall(r"(?m)^Enter a question \(or 'quit' to exit\):[ \t]*(.*)$", text)
    asked = [q for q in prompts if q.strip() and q.strip() != "quit"]
    answers = len(re.findall(r"(?m)^Answer:\s*$", text))
    sources = len(re.findall(r"(?m)^Sources used:\s*$", text))
    return result(1, {"user": len(asked), "assistant": answers}, 0, "every prompt line with text other than the final "
                  "'quit' is a user message ('exit' was sent as a question and answered); every 'Answer:' block is an "
                  "assistant message; the retrieval shows only as 'Sources used:' lists, counted apart, not as tool "
                  "calls", source_lists=sources)


def bold_label_markdown(data):
    """A title and note, then '**User:**' / '**Claude:**' label lines before each turn."""
    text = text_of(data)
    users = len(re.findall(r"(?m)^\*\*User:\*\*\s*$", text))
    answers = len(re.findall(r"(?m)^\*\*Claude:\*\*\s*$", text))
    return result(1, {"user": users, "assistant": answers}, 0, "each '**User:**' label line opens a user message and "
                  "each '**Claude:**' label line an assistant message; bold labels inside the text (with more after "
                  "the colon) are content; no tool calls are shown")


def hash_label_markdown(data):
    """'## USER:' / '## ASSISTANT:' headings, one assistant heading per model step; a BOM and mojibake emoji."""
    text = text_of(data)
    labels = re.findall(r"(?m)^## (USER|ASSISTANT):\s*$", text)
    roles = collections.Counter("user" if label == "USER" else "assistant" for label in labels)
    turns = sum(1 for i, label in enumerate(labels) if label == "ASSISTANT" and (i == 0 or labels[i - 1] != label))
    mojibake = sum(1 for line in text.splitlines() if "ðŸ" in line or "âœ" in line)
    return result(1, roles, 0, "each '## USER:' heading is a user message and each '## ASSISTANT:' heading an "
                  "assistant message (the export writes one per model step, so assistant headings run on; the "
                  "assistant turns between user messages are counted apart); other '## ' headings are content; tool "
                  "use is only narrated", assistant_turns=turns, byte_order_mark=data.startswith(b"\xef\xbb\xbf"),
                  lines_with_mojibake=mojibake)


def speaker_jsonl(data):
    """JSON lines {timestamp, role, content}, some {speaker, content[, ts]}; the human is alma, the agent chispa."""
    rows = [json.loads(line) for line in text_of(data).splitlines() if line.strip()]
    side = {"user": "user", "alma": "user", "assistant": "assistant", "chispa": "assistant"}
    roles = collections.Counter(side[row.get("role") or row.get("speaker")] for row in rows)
    repeats = sum(1 for a, b in itertools.pairwise(rows) if a.get("role") == b.get("role") == "user"
                  and a.get("content") == b.get("content"))
    schemas = collections.Counter(",".join(sorted(row)) for row in rows)
    return result(1, roles, 0, "every line is a message: role user or speaker/role 'alma' is the user, role "
                  "assistant or speaker/role 'chispa' the assistant; repeated identical user lines (retries) are "
                  "counted as stored", repeated_user_lines=repeats, line_schemas=dict(schemas))


def react_step_list(data):
    """A JSON list of {step, thought, action, action_input, result}."""
    steps = json.loads(text_of(data))
    return result(1, {"assistant": len(steps), "tool": sum(1 for s in steps if str(s.get("result", "")).strip())},
                  sum(1 for s in steps if s.get("action")), "each step is an assistant message (thought and action) "
                  "and its action a tool call (read_pdf_pages, escalate, COMPOSE); each step's result is a tool "
                  "message; there is no user message in the file")


def distilled_step_jsonl(data):
    """JSON lines {step, phase, user, assistant, ...}: one exchange per line, the assistant side summarised."""
    rows = [json.loads(line) for line in text_of(data).splitlines() if line.strip()]
    roles = collections.Counter()
    for row in rows:
        roles["user"] += bool(str(row.get("user", "")).strip())
        roles["assistant"] += bool(str(row.get("assistant", "")).strip())
    return result(1, roles, 0, "each line holds one user message and one assistant message (a summary of the "
                  "agent's work, not its words); artifacts, commit and user_decisions are not messages",
                  phases=len({row.get("phase") for row in rows}))


def ollama_repl_markdown(data):
    """A note, a shell line running 'ollama run', '>>> ' prompts with '... ' continuations, answers between them."""
    lines = text_of(data).splitlines()
    prompts = [i for i, line in enumerate(lines) if line.startswith(">>> ")]
    users = [i for i in prompts if not lines[i].startswith(">>> Send a message")]
    answers = 0
    for i in users:
        following = [j for j in prompts if j > i]
        body = lines[i + 1:following[0] if following else len(lines)]
        body = [line for line in body if not line.startswith("... ")]
        answers += any(line.strip() for line in body)
    thinking = sum(line.count("</think>") for line in lines)
    return result(1, {"user": len(users), "assistant": answers}, 0, "a '>>> ' line with a request (joined with its "
                  "'... ' continuation lines) is a user message; the text up to the next prompt is one assistant "
                  "message (printed reasoning closed by </think>, then the answer); the empty '>>> Send a message' "
                  "prompt and the note before the shell line are not messages", think_closings=thinking)


def parts_message_json(data):
    """{messages: [{role, content: [parts]}], meta}; assistant parts text and tool_use, tool replies as role tool."""
    messages = json.loads(text_of(data))["messages"]
    roles = collections.Counter(m["role"] for m in messages)
    calls = sum(1 for m in messages for part in m.get("content") or [] if part.get("type") == "tool_use")
    return result(1, roles, calls, "every entry of messages is a message under its role; tool calls are the "
                  "tool_use parts of assistant messages; meta (session and turn contexts) is not a message")


def utf16_session_array(data):
    """A UTF-16 (BOM) JSON array of session entries; 'message' entries carry {role, content: [parts]}."""
    entries = json.loads(data.decode("utf-16"))
    messages = [e["message"] for e in entries if e.get("type") == "message"]
    roles = collections.Counter("tool" if m["role"] == "toolResult" else m["role"] for m in messages)
    calls = sum(1 for m in messages for part in m.get("content") or [] if part.get("type") == "toolCall")
    thinking = sum(1 for m in messages for part in m.get("content") or [] if part.get("type") == "thinking")
    return result(1, roles, calls, "every entry of type message is one message under its role (toolResult counted "
                  "as tool); tool calls are toolCall parts of assistant messages; session, model_change, "
                  "thinking_level_change and custom entries are not messages", thinking_parts=thinking,
                  non_message_entries=len(entries) - len(messages))


READERS = {
    "ReflecTool/agent.log": task_package_log,
    "mcp-study/chat_export.md": korean_qa_markdown,
    "vsyuangs/chat_export.md": emoji_heading_markdown,
    "Research_agent/sample_run.txt": question_console,
    "retailcast-india-forecast/chat_export.md": bold_label_markdown,
    "rdo-command-os/chat_export.md": hash_label_markdown,
    "chispa/conversation.jsonl": speaker_jsonl,
    "Agentic-AI-for-Discharge-Summaries/agent_trace.json": react_step_list,
    "rag-from-scratch/conversation.jsonl": distilled_step_jsonl,
    "AstraCodex/history.md": ollama_repl_markdown,
    "demo/trajectory.json": parts_message_json,
    "sql/trajectory.json": utf16_session_array,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "traces_holdout_16_counts.json")
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
