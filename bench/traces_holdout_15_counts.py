"""Issue 45's fifteenth holdout: independent message counts, one small reader per layout, standard library only.

Each reader was written from its file (read with git show from the fetched mirror) before any codemix run of the
holdout, and codemix is never imported. A reader returns runs, messages, roles (message counts by role), tool_calls,
extras of its layout, and `notes` saying what was counted as what. The output, bench/traces_holdout_15_counts.json, is
keyed "<repository name>/<file name>" like the earlier holdouts' counts.

usage: python bench/traces_holdout_15_counts.py [--mirror /work/.mirror] [--out bench/traces_holdout_15_counts.json]
"""

import argparse
import collections
import json
import re
import subprocess
from pathlib import Path

BENCH = Path(__file__).resolve().parent
TSV = BENCH / "traces_holdout_15.tsv"


def counted(runs, roles, tool_calls, notes, **extra):
    roles = {role: n for role, n in roles.items() if n}
    return {"runs": runs, "messages": sum(roles.values()), "roles": roles, "tool_calls": tool_calls, **extra,
            "notes": notes}


def openai_jsonl(text):
    """One OpenAI-style message per line: role, content, tool_calls on assistant lines."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    roles = collections.Counter(row["role"] for row in rows)
    calls = sum(len(row.get("tool_calls") or []) for row in rows)
    reasoning = sum(1 for row in rows if row.get("reasoning_content"))
    return counted(1, roles, calls, "one session; every line is a message under its role; tool_calls are the entries "
                   "of assistant tool_calls lists (the last line is an assistant turn of parallel calls with no results)",
                   reasoning_fields=reasoning)


def chatgpt_mapping_module(text):
    """A JS module whose object literal is a ChatGPT export's mapping: node id -> {message, parent, children}."""
    mapping = json.loads(text[text.index("{"):text.rindex("}") + 1])
    roles, empty = collections.Counter(), 0
    for node in mapping.values():
        message = node.get("message")
        if not message:
            continue
        parts = message["content"].get("parts") or []
        if "".join(p for p in parts if isinstance(p, str)).strip():
            roles[message["author"]["role"]] += 1
        else:
            empty += 1

    def depth(key):
        node = mapping[key]
        here = 1 if node.get("message") and "".join(
            p for p in node["message"]["content"].get("parts") or [] if isinstance(p, str)).strip() else 0
        return here + max((depth(child) for child in node.get("children") or []), default=0)

    roots = [key for key, node in mapping.items() if not node.get("parent")]
    leaves = sum(1 for node in mapping.values() if not node.get("children"))
    return counted(1, roles, 0, "one conversation tree; every node whose message has non-empty text parts is a message "
                   "under its author role, regenerated answers (sibling branches) included; the empty system node and "
                   "the message-less root are not messages", empty_message_nodes=empty, leaves=leaves,
                   longest_path_messages=max(depth(root) for root in roots))


def langchain_readme(text):
    """Fenced console blocks after 'Question was:' lines; '> Entering/Finished' chain markers, JSON action blobs."""
    runs = re.findall(r"^Question was:.*?\n```\n(.*?)\n```", text, flags=re.DOTALL | re.MULTILINE)
    roles, calls, chains = collections.Counter(), 0, 0
    for block in runs:
        for line in block.splitlines():
            if line.startswith(">") and line.strip() != ">" and not re.match(r"> (Entering new|Finished chain)", line):
                roles["user"] += 1
            elif line.startswith("Observation:"):
                roles["tool"] += 1
        actions = re.findall(r'"action":\s*"([^"]*)"', block)
        roles["assistant"] += len(actions)
        calls += sum(1 for action in actions if action != "Final Answer")
        chains += len(re.findall(r"^> Entering new \w+ chain", block, flags=re.MULTILINE))
    return counted(len(runs), roles, calls, "each fenced console block after a 'Question was:' line is one run; a '>' "
                   "prompt line with text (not a chain marker, not the empty prompt) is a user message; each JSON action "
                   "blob is an assistant message, a tool call unless its action is 'Final Answer'; 'Observation:' lines "
                   "are tool messages; LLMChain prompts and the task-planning printouts are not messages",
                   chains_entered=chains)


def antigravity_writeup(text):
    """Bold 【使用者 (User)】 / 【AI Agent】 labels over blockquoted turns, steps between '---' rules."""
    roles = collections.Counter(user=len(re.findall(r"^\*\*【使用者 \(User\)】", text, flags=re.MULTILINE)),
                                assistant=len(re.findall(r"^\*\*【AI Agent】", text, flags=re.MULTILINE)))
    steps = len(re.findall(r"^### ", text, flags=re.MULTILINE))
    return counted(1, roles, 0, "one session; each bold 【使用者 (User)】 label opens a user message and each 【AI Agent】 "
                   "label an assistant message; the agent's actions are paraphrased in parentheses, so no tool calls",
                   steps=steps)


def openai_message_list(text):
    """A JSON list of OpenAI chat messages: system, user, assistant (content or tool_calls), tool."""
    rows = json.loads(text)
    roles = collections.Counter(row["role"] for row in rows)
    calls = sum(len(row.get("tool_calls") or []) for row in rows)
    return counted(1, roles, calls, "one saved memory; every list entry is a message under its role (assistant entries "
                   "with tool_calls and null content included); tool_calls are the tool_calls entries")


def pair_list(text):
    """A JSON list of {user, assistant} exchanges."""
    rows = json.loads(text)
    roles = collections.Counter(user=sum(1 for r in rows if "user" in r), assistant=sum(1 for r in rows if "assistant" in r))
    return counted(1, roles, 0, "one saved conversation; each pair is a user and an assistant message; tool use shows "
                   "only in the replies (a stored fact, a sum), so no tool calls")


def probe_record(text):
    """{'meta', 'turns': [{user_message, raw_api_response: chat.completion}], 'verification'}."""
    data = json.loads(text)
    roles = collections.Counter()
    for turn in data["turns"]:
        roles["user"] += 1
        for choice in turn["raw_api_response"].get("choices") or []:
            roles[choice["message"]["role"]] += 1
    return counted(1, roles, 0, "one three-turn probe; each turn's user_message is a user message and each choice's "
                   "message in the raw API response an assistant message; meta and verification are not messages")


def agent_console_log(text):
    """'===== run @' banners, framed 'USER:' lines, 'LLM raw:' model outputs, '-> tool call:' / '-> result:' lines."""
    roles = collections.Counter(user=len(re.findall(r"^  USER: ", text, flags=re.MULTILINE)),
                                assistant=len(re.findall(r"^LLM raw: ", text, flags=re.MULTILINE)),
                                tool=len(re.findall(r"^  -> result: ", text, flags=re.MULTILINE)))
    return counted(len(re.findall(r"^===== run @", text, flags=re.MULTILINE)), roles,
                   len(re.findall(r"^  -> tool call: ", text, flags=re.MULTILINE)),
                   "each '===== run @' banner opens a run; framed 'USER:' lines are user messages, each 'LLM raw:' line "
                   "(a thought with a tool call, or the answer) an assistant message, each '-> result:' line a tool "
                   "message; the echoed 'thought:' lines and the framed 'AGENT ANSWER:' repeat the model output",
                   agent_answers=len(re.findall(r"^  AGENT ANSWER: ", text, flags=re.MULTILINE)))


def react_debug_log(text):
    """'📝 PROMPT' blocks holding '=== SYSTEM ===' and '=== USER ===' sections, '💬 RESPONSE' blocks."""
    prompts = len(re.findall(r"^📝 PROMPT", text, flags=re.MULTILINE))
    roles = collections.Counter(system=len(re.findall(r"^=== SYSTEM ===$", text, flags=re.MULTILINE)),
                                user=len(re.findall(r"^=== USER ===$", text, flags=re.MULTILINE)),
                                assistant=len(re.findall(r"^💬 RESPONSE$", text, flags=re.MULTILINE)))
    decisions = re.findall(r"decision\.next_action=(\S+)", text)
    return counted(1, roles, len(decisions), "one run, cut off while the third prompt is sent; each PROMPT block's "
                   "SYSTEM and USER sections are a system and a user message, each RESPONSE block an assistant message "
                   "(its body is empty in the log: the decision shows only in debug lines); tool_calls are the "
                   "'decision.next_action=' debug lines", prompts=prompts, response_bodies_empty=True)


def trae_copy(text):
    """Turns opened by a time line and the user's id line; replies run to the next one."""
    lines = text.splitlines()
    users = [i for i, line in enumerate(lines) if re.fullmatch(r"用户\d+", line.strip())]
    return counted(1, collections.Counter(user=len(users), assistant=len(users)),
                   sum(1 for line in lines if line.strip().startswith("toolName:")),
                   "one chat; each user-id line (after a time line) opens a user turn whose request follows, and the "
                   "text up to the next time line is one assistant reply; tool_calls are 'toolName:' lines (the first "
                   "reply's file reads under 'Thought' lines are not counted)",
                   thought_markers=sum(1 for line in lines if line.strip() in ("Thought", "思考过程")))


def chat_export_html(text):
    """'message user' / 'message bot' divs with a meta line and a bubble."""
    kinds = re.findall(r'<div class="message (user|bot)">', text)
    roles = collections.Counter(user=kinds.count("user"), assistant=kinds.count("bot"))
    return counted(1, roles, 0, "one session; each 'message user' div is a user message and each 'message bot' div an "
                   "assistant message; the agent's tool use is not exported")


def bridge_log(text):
    """Timestamped 'RECEIVED |' (the model's commands) and 'RESULT |' (numbered receipts) entries."""
    entries = re.split(r"^(?=\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] (?:RECEIVED|RESULT) \|)", text, flags=re.MULTILINE)
    roles, calls = collections.Counter(), 0
    for entry in entries:
        kind = re.match(r"\[[^\]]+\] (RECEIVED|RESULT) \|", entry)
        if not kind:
            continue
        if kind.group(1) == "RECEIVED":
            roles["assistant"] += 1
        else:
            roles["tool"] += 1
            calls += max(1, len(re.findall(r"\[指令 \d+\]", entry)))
    return counted(1, roles, calls, "one bridge log over several days; each RECEIVED entry (the model's command text, "
                   "file bodies between 【CodeSTART】 and 【/CodeEND】 included) is an assistant message and each RESULT "
                   "entry a tool message; tool_calls are the numbered receipts '[指令 n]' in RESULT entries (one when a "
                   "receipt is unnumbered); the user's turns in the web chat are not logged")


READERS = {
    "clawnitizer/session.jsonl": openai_jsonl,
    "llmfarm-front/dialog-data.js": chatgpt_mapping_module,
    "llm_agent/README.md": langchain_readme,
    "aiot_diy1/ai_conversation.md": antigravity_writeup,
    "technest-support-agent/conversation.json": openai_message_list,
    "AI-Studio-Agent/conversation.json": pair_list,
    "gpt4o-coding-failure-probe/openrouter_interaction.json": probe_record,
    "earthquake-agent/agent_log.txt": agent_console_log,
    "koru-agent/agent_log.txt": react_debug_log,
    "nofx-0210/chat_history.yaml": trae_copy,
    "ai-agents-google-adk/chat_export.html": chat_export_html,
    "Poker-Agent/agent_log.txt": bridge_log,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=BENCH / "traces_holdout_15_counts.json")
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
