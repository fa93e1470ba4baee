"""Issue 45's twelfth holdout: independent message counts, one small reader per layout, standard library only.

Written from the twelve files of bench/traces_holdout_12.tsv (read with git show from the fetched mirrors) before any
codemix run of them; codemix is never imported. Each reader returns runs, messages, roles (message counts by role),
tool_calls and layout-specific extras; `notes` says what was counted as what. Output:
bench/traces_holdout_12_counts.json, keyed "<repository name>/<file name>" like the earlier holdouts' counts.

usage: python bench/traces_holdout_12_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_12_counts.json]
"""

import argparse
import collections
import html
import json
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TSV = HERE / "traces_holdout_12.tsv"


def result(runs, roles, tool_calls, notes, **extra):
    roles = {k: v for k, v in roles.items() if v}
    return {"runs": runs, "messages": sum(roles.values()), "roles": roles, "tool_calls": tool_calls, **extra,
            "notes": notes}


def jsonl(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def openai_chat_trajectory(text):
    """{format: openai-chat, model, task_id, message_count, messages: [{role, content, tool_calls?, tool_call_id?}],
    phases}: a Claude Code session rewritten as chat messages; compaction marks are system messages."""
    doc = json.loads(text)
    messages = doc["messages"]
    roles = collections.Counter(m["role"] for m in messages)
    users = [m["content"] for m in messages if m["role"] == "user"]
    return result(1, roles, sum(len(m.get("tool_calls") or []) for m in messages),
                  "every entry of messages is a message of its role (assistant entries that only carry tool_calls "
                  "included); the two system entries are '[compact_boundary]' marks; interruption notices and "
                  "continuation summaries are user entries",
                  declared_message_count=doc.get("message_count"),
                  user_interruptions=sum(u.startswith("[Request interrupted") for u in users),
                  user_continuation_summaries=sum(u.startswith("This session is being continued") for u in users),
                  assistant_only_tool_calls=sum(m["role"] == "assistant" and m.get("content") is None
                                                for m in messages),
                  phases=len(doc.get("phases") or []))


def browser_use_history(text):
    """{history: [{model_output: {current_state, action: [{name: args}]}, result: [{is_done, extracted_content,
    error}], state: {url, screenshot, ...}, metadata: {step_number, ...}}]}."""
    steps = json.loads(text)["history"]
    actions = [next(iter(a)) for s in steps if s.get("model_output") for a in s["model_output"].get("action", [])]
    results = [r for s in steps for r in s.get("result", [])]
    return result(1, {"assistant": sum(bool(s.get("model_output")) for s in steps),
                      "tool": sum(r.get("extracted_content") is not None or r.get("error") is not None
                                  for r in results)},
                  sum(a != "done" for a in actions),
                  "each step's model_output is one assistant message (its actions are tool calls, 'done' is the "
                  "final answer, not a call); each result entry is a tool message; the task itself is not in the "
                  "file (only paraphrased in the first step's memory); screenshots are base64 state, not text",
                  steps=len(steps), actions=len(actions), failed_results=sum(bool(r.get("error")) for r in results),
                  first_step_number=steps[0]["metadata"]["step_number"] if steps else None)


def kilo_capture_markdown(text):
    """Patched Kilo Code capture: '### source=prompt|response type=text|usage timestamp=N' then a ```markdown fence.
    A request is a run of prompt entries (the whole history re-sent) followed by its streamed response chunks."""
    entry = r"^### source=(prompt|response) type=(\w+) timestamp=[\d.]+\s*\n```markdown\n(.*?)\n```$"
    entries = re.findall(entry, text,
                         re.DOTALL | re.MULTILINE)
    requests, prev = [], None
    for source, kind, body in entries:
        if source == "prompt" and prev != "prompt":
            requests.append({"prompt": [], "response": []})
        if kind == "text":
            requests[-1][source].append(body.removeprefix("\n"))  # the capture adds a newline
        prev = source
    last_prompt = requests[-1]["prompt"]
    tool_results = sum(bool(re.match(r"\s*\[\w+ for '[^']*'\] Result:", b)) for b in last_prompt)
    replies = ["".join(r["response"]) for r in requests]
    calls = sum(len(re.findall(r"^<([a-z]+_[a-z_]+)>\s*$", reply, re.MULTILINE)) for reply in replies)
    return result(1, {"user": 1 + tool_results, "assistant": len(requests)}, calls,
                  "one task: the first request's prompt blocks (task, environment_details) are one user turn, each "
                  "'[tool for ...] Result:' block of the last request's re-sent history one more user turn; each "
                  "request's streamed chunks joined are one assistant message; tool calls are the XML tool tags "
                  "(apply_diff, attempt_completion) opening a line in the replies",
                  requests=len(requests), prompt_blocks=sum(len(r["prompt"]) for r in requests),
                  response_chunks=sum(len(r["response"]) for r in requests),
                  usage_records=sum(kind == "usage" for _, kind, _ in entries))


def mini_swe_traj(text):
    """mini-SWE-agent .traj: {info: {exit_status, model_stats, config}, messages: [{role, content, extra?}]};
    command output comes back as user messages starting '<returncode>'."""
    doc = json.loads(text)
    messages = doc["messages"]
    roles = collections.Counter(m["role"] for m in messages)
    observations = sum(m["role"] == "user" and m["content"].lstrip().startswith(("<returncode>", "The last command"))
                       for m in messages)
    roles["user"] -= observations
    roles["tool"] = observations
    calls = sum(len(re.findall(r"```bash\s*\n", m["content"])) for m in messages if m["role"] == "assistant")
    return result(1, roles, calls,
                  "messages as listed; user messages that start with '<returncode>' or report a timeout ('The last "
                  "command ...') are command output, counted as tool; a rejection carrying the person's words, an "
                  "interruption notice and one empty message stay user; each ```bash block is a tool call",
                  exit_status=doc["info"].get("exit_status"), api_calls=doc["info"]["model_stats"].get("api_calls"),
                  empty_messages=sum(not m["content"].strip() for m in messages))


def claude_transcripts_html(text):
    """claude-code-transcripts page: <div class="message user|assistant|tool-reply"> with a role label; tool uses as
    <div class="tool-use ..."> or file-tool blocks inside assistant messages."""
    kinds = re.findall(r'<div class="message (user|assistant|tool-reply)"', text)
    roles = collections.Counter({"tool-reply": 0, **collections.Counter(kinds)})
    roles["tool"] = roles.pop("tool-reply")
    calls = len(re.findall(r'<div class="(?:tool-use|file-tool)[ "]', text))
    user_texts = re.findall(r'<div class="message user"[^>]*>.*?<div class="message-content">(.*?)</div>\s*</div>',
                            text, re.DOTALL)
    plain = [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", u)).split()) for u in user_texts]
    return result(1, roles, calls,
                  "one page (3 of 20) of one session; each message div is a message of its class; tool-use and "
                  "file-tool blocks are tool calls; user divs include IDE-context notes and an interruption notice",
                  thinking_blocks=text.count('<div class="thinking">'),
                  user_ide_notes=sum(p.startswith("The user opened the file") for p in plain),
                  user_interruptions=sum(p.startswith("[Request interrupted") for p in plain))


def claude_code_jsonl(text):
    """Claude Code project log: records of type user|assistant|system|attachment|file-history-snapshot|...; an API
    message is split into one assistant record per content block (same message.id)."""
    records = jsonl(text)
    roles, calls = collections.Counter(), 0
    assistant_ids = set()
    for r in records:
        if r.get("type") == "assistant":
            assistant_ids.add(r["message"]["id"])
            calls += sum(b.get("type") == "tool_use" for b in r["message"]["content"])
        elif r.get("type") == "user":
            content = r["message"]["content"]
            blocks = [{"type": "text"}] if isinstance(content, str) else content
            roles["tool" if any(b.get("type") == "tool_result" for b in blocks) else "user"] += 1
    roles["assistant"] = len(assistant_ids)
    return result(len({r.get("sessionId") for r in records if r.get("type") in ("user", "assistant")}), roles, calls,
                  "assistant messages are distinct message.id values (block records merged); user records holding "
                  "tool_result blocks are tool messages, other user records user messages (3 of them isMeta); "
                  "snapshots, attachments, system and queue records are not messages; runs are sessionIds",
                  records=len(records), assistant_block_records=sum(r.get("type") == "assistant" for r in records),
                  user_meta=sum(r.get("type") == "user" and bool(r.get("isMeta")) for r in records),
                  thinking_blocks=sum(b.get("type") == "thinking" for r in records if r.get("type") == "assistant"
                                      for b in r["message"]["content"]))


def cascade_markdown(text):
    """Windsurf Cascade export: '### User Input' and '### Planner Response' sections; tool actions as one-line
    italics between them (*Viewed [f](...)*, *Edited relevant file*, *User accepted the command `...`*)."""
    lines = text.splitlines()
    actions = [ln for ln in lines if re.fullmatch(r"\*[A-Z][^*].*\*\s*", ln)]
    return result(1, {"user": lines.count("### User Input"), "assistant": lines.count("### Planner Response")},
                  len(actions),
                  "each section heading starts a message; each italic action line is a tool call (its result is "
                  "not exported); 'Updated todo list' counted as a call",
                  action_kinds=dict(collections.Counter(re.match(r"\*([A-Za-z ]+?)(?: \[| `|\*)", a).group(1)
                                                        for a in actions)))


def managed_agent_events(text):
    """Managed-agent session event JSONL: {role: user|agent|system, kind, time, content?, raw}."""
    records = jsonl(text)
    kinds = collections.Counter((r["role"], r["kind"]) for r in records)
    roles = {"user": sum(v for (role, _), v in kinds.items() if role == "user"),
             "assistant": kinds[("agent", "message")], "tool": kinds[("agent", "tool_result")]}
    return result(1, roles, kinds[("agent", "tool_use")],
                  "user events (the outcome definition, an interrupt without text) are user messages; agent.message "
                  "events assistant messages; tool_result events tool messages; tool_use events tool calls; thinking "
                  "and span/session events are not messages",
                  thinking_events=kinds[("agent", "thinking")], model_requests=kinds[("system", "model_request_end")],
                  records=len(records))


def aider_history(text):
    """.aider.chat.history.md: '# aider chat started at', '> ' tool lines, '#### ' user lines; the reply is the
    remaining text (here with a <thinking-content-...> block), edits as fenced whole files after a file name."""
    lines = text.splitlines()
    kinds, echo_open = [], False
    for ln in lines:
        if echo_open or ln.startswith((">", "# aider chat started")):
            # aider ends its own output lines with two spaces; a multi-line command echo runs until one does
            echo_open = ln.startswith(">") and not ln.endswith("  ") or echo_open and not ln.endswith("  ")
            kinds.append("tool")
        elif ln.strip():
            kinds.append("user" if ln.startswith("####") else "assistant")
    starts = collections.Counter(k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k)
    return result(len(re.findall(r"^# aider chat started at ", text, re.MULTILINE)),
                  {"user": starts["user"], "assistant": starts["assistant"]}, 0,
                  "blank lines ignored, a run of '####' lines is one user message and a run of other text lines one "
                  "assistant reply; '>' lines (and the multi-line command echo) are aider's own output; no edit "
                  "block was produced (the model asked for the files)",
                  harness_lines=sum(ln.startswith(">") for ln in lines),
                  thinking_blocks=len(re.findall(r"<thinking-content-[0-9a-f]+>", text)))


def otel_coding_agent_spans(text):
    """OpenTelemetry spans (JSONL) from a coding-agent hook: name coding_agent.llm.turn|tool.requested|tool.call|
    shell.requested|edit.decision|session.*; prompts and replies are JSON strings in gen_ai.input/output.messages."""
    spans = jsonl(text)
    attr = [(s["name"], s["attributes"]) for s in spans]
    turns = [a for n, a in attr if n == "coding_agent.llm.turn"]
    user = sum(len(json.loads(a["gen_ai.input.messages"])) for a in turns if "gen_ai.input.messages" in a)
    assistant = sum(len(json.loads(a["gen_ai.output.messages"])) for a in turns if "gen_ai.output.messages" in a)
    call_ids = {a["gen_ai.tool.call.id"] for n, a in attr if n == "coding_agent.tool.requested"}
    return result(len({a.get("gen_ai.conversation.id") for _, a in attr}), {"user": user, "assistant": assistant},
                  len(call_ids),
                  "messages are the entries of gen_ai.input.messages (user prompts) and gen_ai.output.messages "
                  "(assistant replies) on llm.turn spans; thought-only turns are reasoning, not messages; tool calls "
                  "are distinct gen_ai.tool.call.id values of tool.requested spans (135 spans); tool.call spans carry "
                  "arguments only, no results", spans=len(spans),
                  thought_turns=sum("coding_agent.llm.thought.text" in a for a in turns),
                  tool_requested_spans=sum(n == "coding_agent.tool.requested" for n, _ in attr),
                  shell_requested=sum(n == "coding_agent.shell.requested" for n, _ in attr),
                  model_change_events=sum(n == "coding_agent.session.model.changed" for n, _ in attr))


def claude_terminal_capture(text):
    """Claude Code v2 screen text: '❯ ' user prompts, '● ' assistant lines (a tool call when the line is
    Name(...) or a collapsed summary like 'Read 1 file (ctrl+o to expand)'), '⎿' tool output."""
    lines = text.splitlines()
    bullets = [ln[2:] for ln in lines if ln.startswith("● ")]
    calls = [b for b in bullets if re.match(r"[A-Z][A-Za-z]*\(", b) or "(ctrl+o to expand)" in b]
    return result(1, {"user": sum(ln.startswith("❯ ") for ln in lines), "assistant": len(bullets) - len(calls),
                      "tool": sum("⎿" in ln for ln in lines)}, len(calls),
                  "each '❯' line starts a user message, each '●' text line an assistant message; '●' lines "
                  "naming a tool or a collapsed search/read are tool calls; only one tool output is shown ('⎿'), "
                  "the rest collapsed", collapsed_calls=sum("(ctrl+o to expand)" in b for b in calls))


def smolagents_console(text):
    """smolagents CodeAgent console: a 'New run' box with the task, '━━ Step N ━━' rules, 'Executing parsed
    code' blocks, 'Execution logs:' and 'Out:' lines, '[Step N: Duration ...]' footers."""
    runs = text.count(" New run ")
    steps = len(re.findall(r"^\[Step \d+: Duration", text, re.MULTILINE))
    code = text.count("Executing parsed code")
    outs = len(re.findall(r"^Out(?: -|:)", text, re.MULTILINE))
    return result(runs, {"user": runs, "assistant": steps, "tool": outs}, code,
                  "each run's task box is a user message; each step (its code action) an assistant message and its "
                  "executed code a tool call; each 'Out' line (with any Execution logs above it) a tool message; the "
                  "model's thoughts are not printed", steps=steps,
                  final_answers=len(re.findall(r"^Out - Final answer:", text, re.MULTILINE)),
                  execution_logs=text.count("Execution logs:"))


READERS = {
    "TASK-20260318-393C91/develop-1.json": openai_chat_trajectory,
    "tools/AgentHistory.json": browser_use_history,
    "kilocode-hack/llm-messages.md": kilo_capture_markdown,
    "YudaiV3/last_mini_run.traj.json": mini_swe_traj,
    "tenex-transcript/page-003.html": claude_transcripts_html,
    "ResearchOS/conversation.jsonl": claude_code_jsonl,
    "olaf/run-project-onboarding-orchestrator-conversation-flow-20250910-3.md": cascade_markdown,
    "there-is-more-to-context-than-location-s6c6/transcript.jsonl": managed_agent_events,
    "conclave-fixissue-sandbox/.aider.chat.history.md": aider_history,
    "superopen/transcript.jsonl": otel_coding_agent_spans,
    "llm-safety-checks/create-file-with-file-edit-dissalowed.md": claude_terminal_capture,
    "agents/outputs.md": smolagents_console,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "traces_holdout_12_counts.json")
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
