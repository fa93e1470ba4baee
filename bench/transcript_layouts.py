"""Real agent-trace files per layout: every message in, nothing silently lost (issues 24 and 34).

For each group of real files (the project's real fixtures, and any folder of files it does not have),
per layout: files, transcripts, the messages the files hold (counted here by plain ``json`` per layout,
not by codemix's parsers), the messages read, quarantined and dropped records with their reasons
(prose filter drops apart), SFT samples, the messages the samples carry and the model turns trained.
Then corrupted variants of the same files (empty, cut in half, no known layout, a ``.traj`` without its
``history``) are read: each must be quarantined with its reason. ``--build`` also runs ``mix build``
twice, on the good files with and without the variants, and compares the SFT shards byte for byte.

    .venv/bin/python -m bench.transcript_layouts --unseen DIR --build --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import sysconfig
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

from bench import tokenize as common
from codemix.document import Document, Quarantined
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.mix.cli import main as mix
from codemix.mixtures.chat import is_model_turn
from codemix.mixtures.sft import SFTConfig, sft_samples
from codemix.mixtures.tokenizer import train_bpe
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
REAL = [*(FIXTURES / d for d in ("claude-code-transcripts", "sharegpt", "swe-smith", "moatless", "moatless-tree",
                                  "swe-agent-demo", "openhands-resolver", "aider-history", "aider-llm-history",
                                  "sharegpt-zh")),
        FIXTURES / "swe-agent" / "6e44b9__sweagenttestrepo-1c2844.traj", ROOT.parent / "shared" / "data" / "transcripts"]
# Layouts whose independent count covers only some roles (aider: inputs and finished replies).
COUNTED_ROLES = {"aider chat history": ("user", "assistant")}
BEGIN, END = "<!-- bench.transcript_layouts: generated, begin -->", "<!-- bench.transcript_layouts: generated, end -->"
COLUMNS = ["files", "transcripts", "file_messages", "read_messages", "quarantined", "prose_dropped", "kept",
           "kept_messages", "samples", "sample_messages", "model_turns", "trained_turns"]
HEADERS = ["layout", "files", "transcripts", "messages in files", "messages read", "quarantined", "prose drops",
           "kept", "messages kept", "SFT samples", "messages in samples", "model turns kept", "trained",
           "prose drops: every check failed (check: n)", "quarantined, dropped, left out (reason: n)"]


# --- messages in a file, counted without codemix ----------------------------------------------------

def claude_messages(entries: list[dict[str, Any]]) -> int:
    """Anthropic messages as canonical turns: one per tool_result block, plus the entry's own text."""
    count = 0
    for entry in entries:
        if entry.get("type") not in ("user", "assistant") or entry.get("isSidechain"):
            continue
        content = entry["message"]["content"]
        blocks = content if isinstance(content, list) else [{"type": "text"}]
        results = sum(1 for b in blocks if b.get("type") == "tool_result")
        count += results + (1 if entry["type"] == "assistant" or results < len(blocks) else 0)
    return count


OPENHANDS_HARNESS = {"recall", "change_agent_state", "null"}


def openhands_messages(events: list[dict[str, Any]]) -> int:
    """OpenHands events as turns: a message or system event each, one per model response however many
    calls it made (events without the response's id: one each), one per observation but the agent's
    state changes and nulls, one per condensation summary."""
    count, responses = 0, set()
    for event in events:
        if "observation" in event:
            count += event["observation"] not in ("agent_state_changed", "null")
        elif event.get("action") == "condensation":
            count += bool((event.get("args") or {}).get("summary"))
        elif event.get("action") in ("message", "system"):
            count += 1
        elif event.get("action") not in OPENHANDS_HARNESS:
            reply = ((event.get("tool_call_metadata") or {}).get("model_response") or {}).get("id")
            count += reply is None or reply not in responses
            responses.add(reply)
    return count


def moatless_tree_messages(value: dict[str, Any]) -> int:
    """A search tree without branches (the published ones): the task, then per step but ActionError the
    call and, when it has a message, its observation."""
    nodes, stack = [], [value["root"]] if "root" in value else list(value["nodes"])
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack += node.get("children", []) if "root" in value else []
    count = 1
    for node in nodes:
        steps = node.get("action_steps") if isinstance(node.get("action_steps"), list) else (
            [{"action": node["action"], "observation": node.get("observation")}] if node.get("action") else [])
        for step in steps:
            if not step["action"].get("action_args_class", "").endswith("ActionError"):
                count += 1 + bool((step.get("observation") or {}).get("message"))
    return count


def aider_messages(text: str) -> list[int]:
    """Per session: the user's inputs (runs of ``####`` lines) and the replies aider reported finished
    (its ``> Tokens:`` line); tool output and replies cut off are not counted (see COUNTED_ROLES)."""
    sessions = re.split(r"^# aider chat started at .*$", text, flags=re.MULTILINE)
    counts = []
    for body in sessions:
        lines = body.split("\n")
        inputs = sum(1 for i, line in enumerate(lines) if line.startswith("####") and not (
            i and lines[i - 1].startswith("####")))
        counts.append(inputs + sum(1 for line in lines if line.startswith("> Tokens:")))
    return counts


def file_messages(path: Path) -> tuple[str, list[int]]:
    """``(layout, messages per transcript)`` of a real file, by its raw JSON (aider: its raw lines)."""
    text = path.read_text(encoding="utf-8")
    if re.search(r"^# aider chat started at ", text, flags=re.MULTILINE):
        return "aider chat history", aider_messages(text)
    if text.startswith("TO LLM "):  # per request: a message per `-------` line, and the reply if any
        records = re.split(r"^(TO LLM|LLM RESPONSE) \S+\n", text, flags=re.MULTILINE)[1:]
        kinds, bodies = records[0::2], records[1::2]
        return "aider llm history", [body.count("-------\n") + (k + 1 < len(kinds) and kinds[k + 1] == "LLM RESPONSE"
                                                              and bool(bodies[k + 1].strip()))
                                     for k, body in enumerate(bodies) if kinds[k] == "TO LLM"]
    try:
        value = json.loads(text)
    except ValueError:  # JSON lines
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        if all(isinstance(e, dict) and "type" in e for e in lines):
            return "claude-code session", [claude_messages(lines)]
        if all(isinstance(e.get("history"), list) for e in lines):
            return "openhands output rows", [openhands_messages(e["history"]) for e in lines]
        return "rows", [len(e.get("messages", [])) for e in lines]
    if isinstance(value, dict) and "loglines" in value:
        return "claude-code loglines export", [claude_messages(value["loglines"])]
    if isinstance(value, list) and value and all(isinstance(r, dict) and "conversations" in r for r in value):
        return "array of conversations rows", [len(r["conversations"]) for r in value]
    if isinstance(value, list) and value and all(isinstance(e, dict) and ("action" in e or "observation" in e)
                                                 for e in value):
        return "openhands events", [openhands_messages(value)]
    if isinstance(value, list):
        return "chat message list", [len(value)]
    if "root" in value or "nodes" in value:
        return "moatless search tree", [moatless_tree_messages(value)]
    if "history" in value:
        return "swe-agent .traj", [len(value["history"])]
    if "transitions" in value:  # the task, then per action the request and (when there is one) its output
        actions = [a for t in value["transitions"] for a in t.get("actions", [])]
        return "moatless", [1 + sum(1 + ("output" in a or "output" in a.get("response", {})) for a in actions)]
    if "messages" in value:
        return "mini-swe-agent .traj.json", [sum(1 for m in value["messages"] if m.get("role") != "exit")]
    return "other", []


# --- reading, filtering, shaping --------------------------------------------------------------------

def measure(files: list[Path], tokenizer, config: SFTConfig, sequence_length: int) -> dict[str, Counter]:
    source = SourceConfig(name="bench", type="transcripts", paths=["unused"], limits=ReadLimits())
    judge = DocumentFilter(FiltersConfig())
    table: dict[str, Counter] = defaultdict(Counter)
    for path in files:
        layout, counts = file_messages(path)
        row = table[layout]
        row["files"] += 1
        row["file_messages"] += sum(counts)
        for outcome in read_location(source, str(path)):
            if not isinstance(outcome, Document):
                row["quarantined"] += isinstance(outcome, Quarantined)
                row[f"other:{outcome.error.split(':')[1].strip() if isinstance(outcome, Quarantined) else outcome.reason}"] += 1
                continue
            row["transcripts"] += 1
            messages = outcome.metadata["messages"]
            roles = COUNTED_ROLES.get(layout)
            row["read_messages"] += sum(1 for m in messages if roles is None or m["role"] in roles)
            reason = judge.drop_reason(outcome)
            if reason is not None:
                checks = judge.prose_reasons(outcome, reason)
                row["prose_dropped" if checks else f"other:{reason}"] += 1
                row.update(f"check:{r}" for r in checks)
                continue
            row["kept"] += 1
            row["kept_messages"] += len(messages)
            samples, reasons = sft_samples(outcome, tokenizer, sequence_length, config)
            row.update({f"other:{r}": n for r, n in reasons.items()})
            covered = {i for s in samples for i in range(*s.turns)}
            model = [i for i, m in enumerate(messages) if is_model_turn(m)]
            row["samples"] += len(samples)
            row["sample_messages"] += len(covered)
            row["model_turns"] += len(model)
            row["trained_turns"] += sum(1 for i in model if i in covered)
    return table


def render_table(table: dict[str, Counter]) -> list[str]:
    lines = ["| " + " | ".join(HEADERS) + " |", "|---|" + "---:|" * len(COLUMNS) + "---|---|"]
    for layout, row in sorted(table.items()):
        checks = ", ".join(f"{k[6:]}: {n}" for k, n in sorted(row.items()) if k.startswith("check:") and n) or "-"
        others = ", ".join(f"{k[6:]}: {n}" for k, n in sorted(row.items()) if k.startswith("other:") and n) or "-"
        lines.append(f"| {layout} | " + " | ".join(f"{row[c]:,}" for c in COLUMNS) + f" | {checks} | {others} |")
    return lines


# --- corrupted variants and the builds --------------------------------------------------------------

def variants(files: list[Path], folder: Path) -> dict[Path, str]:
    """Damaged copies of ``files`` in ``folder``, each with the reason its quarantine must give."""
    made: dict[Path, str] = {}
    for n, path in enumerate(files):
        data = path.read_bytes()
        cases = {f"{n}-empty{path.suffix}": (b"", "empty"),
                 f"{n}-cut{path.suffix}": (data[: len(data) // 2], "cut"),
                 f"{n}-unknown.json": (json.dumps({"episode": n, "log": "no messages"}).encode(), "no layout")}
        try:
            value = json.loads(data)
        except ValueError:  # JSON lines
            value = None
        if isinstance(value, dict) and "history" in value and "trajectory" in value:
            cases[f"{n}-lost-history.traj"] = (json.dumps({k: v for k, v in value.items() if k != "history"}).encode(),
                                               "no_task")
        for name, (content, reason) in cases.items():
            (folder / name).write_bytes(content)
            made[folder / name] = reason
    return made


def read_variants(made: dict[Path, str]) -> tuple[Counter, list[Path]]:
    """Quarantine reasons per kind of damage, and the variants that gave no document at all (a JSONL
    session cut mid-line keeps its whole lines: a document, so it is left out of the byte comparison)."""
    source = SourceConfig(name="bench", type="transcripts", paths=["unused"], limits=ReadLimits())
    found: Counter = Counter()
    unread = []
    for path, kind in made.items():
        outcomes = list(read_location(source, str(path)))
        errors = [o.error.split(":")[1].strip()[:40] for o in outcomes if isinstance(o, Quarantined)]
        documents = sum(isinstance(o, Document) for o in outcomes)
        found[(kind, ", ".join(sorted(set(errors))) or "-", documents)] += 1
        unread += [path] if not documents else []
    return found, unread


def build(folder: Path, name: str, paths: list[Path]) -> dict[str, str]:
    spec = folder / f"{name}.yaml"
    spec.write_text(yaml.safe_dump({
        "name": name, "sources": [{"name": "runs", "type": "transcripts", "paths": [str(p) for p in paths],
                                   "license": "Apache-2.0"}],
        "stages": {"sft": {"sequence_length": 4096, "token_budget": 200_000, "weights": {"runs": 1},
                           "sft": {"outcome_policy": "any"}}},
        "tokenizer": {"vocab_size": 2000, "train_sample_documents": 200}}))
    code = mix(["build", str(spec), "--out", str(folder / name)])
    shards = sorted((folder / name / "sft").rglob("*.*"))
    return {"exit": str(code), **{str(p.relative_to(folder / name)): hashlib.sha256(p.read_bytes()).hexdigest()
                                  for p in shards if p.suffix in (".bin", ".idx")}}


def files_of(roots: list[Path]) -> list[Path]:
    found = [p for root in roots for p in ([root] if root.is_file() else sorted(root.rglob("*")))]
    return [p for p in found if p.is_file() and p.name != "README.md"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.transcript_layouts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--unseen", type=Path, help="a folder of real trace files the project does not have")
    parser.add_argument("--sequence-length", type=int, default=16384)
    parser.add_argument("--build", action="store_true", help="also compare two mix builds' SFT shards")
    parser.add_argument("--write", action="store_true", help="replace this bench's section of bench/RESULTS.md")
    args = parser.parse_args(argv)
    started, begin = common.begin_run(), time.perf_counter()
    groups = {"real fixtures": files_of(REAL)} | ({"unseen": files_of([args.unseen])} if args.unseen else {})
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))]
    tokenizer = train_bpe(stdlib + [p.read_text(encoding="utf-8") for g in groups.values() for p in g], 4000)
    config = SFTConfig(outcome_policy="any")
    lines = ["## Agent traces per layout: every message in, nothing silently lost (issues 24 and 34)", "",
             (f"{started}; {common.machine()}; command `.venv/bin/python -m bench.transcript_layouts "
             f"{' '.join(argv)}`. Messages in files: counted by plain `json` per layout (tool_result blocks as "
             "their own turns, a mini-swe-agent `exit` record not a turn; aider: runs of `####` lines and `> Tokens:` "
             "lines, read: user and model turns only), not by codemix. SFT: outcome_policy "
             f"any, sequence length {args.sequence_length:,}, a BPE of 4,000 trained on the files. Messages in "
             "samples: the transcript's messages some sample carries; trained: model turns inside a sample."), ""]
    for name, files in groups.items():
        lines += [f"{name}: {', '.join(sorted({p.parent.name + '/' + p.name for p in files}))}", ""]
        lines += render_table(measure(files, tokenizer, config, args.sequence_length)) + [""]
    with tempfile.TemporaryDirectory() as tmp:
        good = [p for g in groups.values() for p in g]
        made = variants(good, Path(tmp))
        lines += ["Corrupted variants of those files (kind, quarantine reasons, documents read, files):", "",
                  "| kind | quarantined as | documents | files |", "|---|---|---:|---:|"]
        found, unread = read_variants(made)
        lines += [f"| {k} | {e} | {d} | {n} |" for (k, e, d), n in sorted(found.items())] + [""]
        if args.build:
            clean = build(Path(tmp), "clean", good)
            mixed = build(Path(tmp), "mixed", [*good, *unread])
            lines += [(f"`mix build` of the {len(good)} good files: exit {clean['exit']}; with the {len(unread)} "
                      f"variants that hold no transcript beside them: exit {mixed['exit']}; SFT shard files "
                      f"{len(clean) - 1}, identical bytes: {clean == mixed}."), ""]
    lines += [f"Wall time {time.perf_counter() - begin:.0f} s.", ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        common.write_section(ROOT / "bench" / "RESULTS.md", text, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
