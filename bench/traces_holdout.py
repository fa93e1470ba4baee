"""Issue 45's holdout: 12 published agent systems' run files (bench/traces_holdout.tsv), read once through a
real `mix build` to the SFT stage, against message counts taken from each file by its own structure.

    python -m bench.traces_holdout --mirror /work/.mirror --work /tmp/holdout-run

Per system: the file as published (git show COMMIT:PATH from a local mirror of the repository, as the
`fetch` tool leaves it), the messages it holds counted here with ``json``/``re`` only (``SOURCE_COUNTS``:
one small function per file layout, written from the file, never calling codemix), then what a build with
one `transcripts` source per system (``outcome_policy: any``, so the outcome policy does not hide a read)
did with it: quarantined or read, transcripts, the messages of the transcripts that reached the sft
shards, and the loss masks decoded from the shards with the tokenizer library (``tokenizers``) checked
against the chat template's role headers: no token of a system, user or tool turn trained, and every
trained token inside an assistant turn.
"""

from __future__ import annotations

import argparse
import collections
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import yaml
from tokenizers import Tokenizer

from codemix.mixtures.transcript_formats.siblings import (
    MAX_PAIRED_BYTES,
    MAX_RECORD_BYTES,
    MAX_RECORDS,
    PAIRED_SUFFIXES,
    RECORD_SUFFIXES,
)

HOLDOUT = Path(__file__).resolve().parent / "traces_holdout.tsv"


# --- independent message counts: one per file layout ------------------------------------------------


def count_fireact(path: Path) -> int:
    """``{qid: {traj: [{role, content}], prompt: [...]}}``: the run is ``traj``."""
    return sum(len(r.get("traj") or []) for r in json.loads(path.read_text()).values())


def count_mint(path: Path) -> int:
    """One run per line, ``state.history`` a list of ``{role, content}``."""
    return sum(len(json.loads(line)["state"]["history"]) for line in path.read_text().splitlines() if line.strip())


def count_list(path: Path) -> int:
    """A bare JSON list of ``{role, content}`` messages."""
    return len(json.loads(path.read_text()))


def count_inspect(path: Path) -> int:
    """An eval log: ``samples[].messages`` (the model's output is the last message)."""
    return sum(len(s.get("messages") or []) for s in json.loads(path.read_text()).get("samples") or [])


def count_letta(path: Path) -> int:
    """An agent file: ``agents[].messages``."""
    return sum(len(a.get("messages") or []) for a in json.loads(path.read_text())["agents"])


def count_lats(path: Path) -> int:
    """A text log of a tree search: each ``PROMPT:`` is one model request (with the few-shot example and the
    branch so far); the log holds no conversation as such."""
    return len(re.findall(r" - INFO - PROMPT:", path.read_text()))


def count_reflexion(path: Path) -> int:
    """One task per line: the prompt, each reflection the agent wrote, the final solution."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return sum(1 + len(r.get("reflections") or []) + bool(r.get("solution")) for r in rows)


def count_trae(path: Path) -> int:
    """The task, then per ``llm_interaction`` the model's response and each tool result."""
    run = json.loads(path.read_text())
    n = 1
    for step in run.get("llm_interaction") or []:
        details = step.get("steps") or {}
        n += bool((details.get("llm_response") or {}).get("content"))
        n += len(details.get("tool_results") or [])
    return n


def count_agentless(path: Path) -> int:
    """One instance per line, three localisation calls (``*_traj``), each a prompt and a response."""
    n = 0
    for line in path.read_text().splitlines():
        row = json.loads(line)
        n += sum(2 for k, v in row.items() if k.endswith("_traj") and isinstance(v, dict) and v.get("prompt"))
    return n


def count_camel(path: Path) -> int:
    """The system prompt and the task, then each tool call and its result (``communications``)."""
    log = json.loads(path.read_text())
    calls = log.get("communications") or []
    return 2 + 2 * len(calls)


def count_toolalpaca(path: Path) -> int:
    """Per API, per item: the ``input`` messages and the ``output`` (the evaluator's verdict)."""
    data = json.loads(path.read_text())
    return sum(len(item["input"]) + 1 for items in data.values() if isinstance(items, list) for item in items)


def count_bfcl(path: Path) -> int:
    """One test per line, ``result``: per user turn, the model's steps (each a list of calls); the user
    turns themselves are not in the file."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return sum(len(step_list) for r in rows for step_list in r["result"] if isinstance(step_list, list))


# --- the second holdout (bench/traces_holdout_2.tsv), written from its files after the code was landed --


def count_webvoyager(path: Path) -> int:
    """A bare list of ``{role, content}`` messages (content text or image blocks)."""
    return len(json.loads(path.read_text()))


def count_tooltalk(path: Path) -> int:
    """``conversation``: the turns, plus each API call's response an assistant turn carries in ``apis``."""
    turns = json.loads(path.read_text())["conversation"]
    return len(turns) + sum(len(t.get("apis") or []) for t in turns)


def count_react_text(path: Path) -> int:
    """One task per line, the run written as text at the end of ``prompt`` (after the last few-shot
    example): the question, each ``Thought/Action`` the agent wrote and each ``Observation``."""
    n = 0
    for line in path.read_text().splitlines():
        run = json.loads(line)["prompt"].rsplit("\nQuestion:", 1)[-1]
        steps = re.findall(r"^(?:Action|Observation)(?: \d+)?:", run, re.MULTILINE)
        n += 1 + len(steps)
    return n


def count_agentgym(path: Path) -> int:
    """``episodes[].transitions``: each an action (the agent's) and an observation."""
    return sum(2 * len(e.get("transitions") or []) for e in json.loads(path.read_text())["episodes"])


def count_octotools(path: Path) -> int:
    """The query, each ``memory`` step's command and its result, and the final output."""
    run = json.loads(path.read_text())
    return 1 + 2 * len(run.get("memory") or {}) + bool(run.get("final_output"))


def count_taskweaver(path: Path) -> int:
    """``rounds[].post_list``: every post (user, planner, code interpreter) is a message."""
    return sum(len(r.get("post_list") or []) for r in json.loads(path.read_text())["rounds"])


def count_gemini(path: Path) -> int:
    """A bare list of ``{role, parts}`` contents (Gemini API history)."""
    return len(json.loads(path.read_text()))


def count_tot(path: Path) -> int:
    """Per puzzle: the input and each search step's selected continuation (the log of a tree search,
    not a conversation)."""
    return sum(1 + len(r.get("steps") or []) for r in json.loads(path.read_text()))


def count_self_refine(path: Path) -> int:
    """One attempt per line: the review to rewrite, the rewrite and the feedback on it."""
    return 3 * sum(1 for line in path.read_text().splitlines() if line.strip())


def count_metagpt(path: Path) -> int:
    """A response cache: each prompt (the key) and its response."""
    return 2 * len(json.loads(path.read_text()))


def count_easytool(path: Path) -> int:
    """Per question: the question, each tool call's result, the final answer."""
    items = json.loads(path.read_text())
    return sum(2 + len((item.get("execute_log") or {}).get("call_result_ls") or []) for item in items)


SOURCE_COUNTS_2 = {"WebVoyager": count_webvoyager, "ToolTalk": count_tooltalk, "KnowAgent": count_react_text,
                   "AutoAct": count_react_text, "AgentGym (MCP env)": count_agentgym, "OctoTools": count_octotools,
                   "TaskWeaver": count_taskweaver, "Gemini CLI": count_gemini, "Tree of Thoughts": count_tot,
                   "Self-Refine": count_self_refine, "MetaGPT": count_metagpt, "EasyTool (JARVIS)": count_easytool}

# --- the third holdout (bench/traces_holdout_3.tsv), written from its files after the code was landed --


def count_mad(path: Path) -> int:
    """``players``: each debater's (and the moderator's, the judge's) own message history."""
    return sum(len(history) for history in json.loads(path.read_text())["players"].values())


def count_lines(path: Path) -> int:
    """One message (a User, AI or API turn) per JSONL line."""
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def count_owl(path: Path) -> int:
    """Per exchange: the instruction (``user``), each tool call's result, the solution (``assistant``)."""
    return sum(2 + len(item.get("tool_calls") or []) for item in json.loads(path.read_text()))


def count_adapt(path: Path) -> int:
    """Per task: the ``problem`` and each action the agent took (``action_history``; no observations kept)."""
    return sum(1 + len(run.get("action_history") or []) for run in json.loads(path.read_text()).values())


def count_swiftsage(path: Path) -> int:
    """Per episode: the task description, then each step's action and observation."""
    runs = json.loads(path.read_text()).values()
    return sum(1 + 2 * len(run["history"]["history"]) for run in runs)


def count_waragent(path: Path) -> int:
    """A simulation log: each ``To <country>: ...`` line is one country agent's message to another."""
    return len(re.findall(r"^To [^:\n]+: ", path.read_text(), re.MULTILINE))


def count_ai_scientist(path: Path) -> int:
    """aider's console output: each model reply ends in a ``Tokens: ... sent, ... received`` line (the
    prompts are not printed)."""
    return len(re.findall(r"^Tokens: .* sent, .* received", path.read_text(), re.MULTILINE))


def count_concatenated_records(path: Path) -> int:
    """Two JSON arrays written back to back (no newline): per record, the ``dialogue`` utterances."""
    text, decoder, at, n = path.read_text(), json.JSONDecoder(), 0, 0
    while at < len(text):
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            break
        value, at = decoder.raw_decode(text, at)
        n += sum(len(record.get("dialogue") or []) for record in value)
    return n


def count_alphacodium(path: Path) -> int:
    """A loguru log: each model call logs ``system:``, ``user:`` and ``response:`` records."""
    return len(re.findall(r"chat_completion:\d+ - (?:system|user|response):", path.read_text()))


def count_mapcoder(path: Path) -> int:
    """One task per line: the final ``solution`` only (no prompt or conversation is kept)."""
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def count_ldb(path: Path) -> int:
    """One task per line: the ``prompt``, each implementation tried, each reflection, the ``solution``."""
    n = 0
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            n += 2 + len(row.get("implementations") or []) + len(row.get("reflections") or [])
    return n


def count_xagent(path: Path) -> int:
    """JSON with ``//`` comments: per subtask step (``inner``), the agent's thoughts and its tool's output."""
    value = json.loads(re.sub(r"(?m)//[^\n\"]*$", "", path.read_text()))
    return sum(1 + bool((step.get("using_tools") or {}).get("tool_output"))
               for task in value["subtasks"] for step in task.get("inner") or [])


SOURCE_COUNTS_3 = {"MAD (Multi-Agents-Debate)": count_mad, "API-Bank": count_lines, "OWL": count_owl,
                   "ADaPT": count_adapt, "SwiftSage": count_swiftsage, "WarAgent": count_waragent,
                   "AI Scientist": count_ai_scientist, "Avalon-LLM (Strategist)": count_concatenated_records,
                   "AlphaCodium": count_alphacodium, "MapCoder": count_mapcoder, "LDB (LLMDebugger)": count_ldb,
                   "XAgent": count_xagent}

SOURCE_COUNTS = {**SOURCE_COUNTS_2, **SOURCE_COUNTS_3, "FireAct": count_fireact, "MINT": count_mint, "AutoCodeRover": count_list,
                 "Inspect AI": count_inspect, "Letta Agent File": count_letta, "LATS": count_lats,
                 "Reflexion": count_reflexion, "Trae Agent": count_trae, "Agentless": count_agentless,
                 "CAMEL": count_camel, "ToolAlpaca": count_toolalpaca, "BFCL (Gorilla)": count_bfcl}


# --- the build ---------------------------------------------------------------------------------------


def slug(system: str) -> str:
    """A system's source name: its words in lower case, cut to 60 characters with a hash of the whole name (a
    long description as a source name made a shard's file name longer than the file system allows)."""
    name = re.sub(r"[^a-z0-9]+", "-", system.lower()).strip("-")
    return name if len(name) <= 60 else f"{name[:60].rstrip('-')}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def copy_sibling_records(git_dir: Path, commit: str, path: str, target: Path) -> None:
    """The small JSON/YAML files beside ``path`` at ``commit`` copied beside ``target``: a run's folder as
    published, where its request may sit in a task record (mixtures/transcript_formats/siblings.py); and the
    JSONL files beside a JSONL file, where a batch's requests sit beside its results (the reader's
    ``batch_requests``)."""
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-l", commit, folder or "."],
                             check=True, capture_output=True, text=True).stdout
    kinds: dict[tuple, list] = {(RECORD_SUFFIXES, MAX_RECORD_BYTES): [], (PAIRED_SUFFIXES, MAX_PAIRED_BYTES): []}
    for line in listing.splitlines():
        meta, name = line.split("\t", 1)
        kind, size = meta.split()[1], meta.split()[3]
        base = name.rsplit("/", 1)[-1]
        for suffixes, records in kinds.items():
            if kind == "blob" and name != path and base.endswith(suffixes[0]):
                records.append((name, base, size))
    if not path.endswith(PAIRED_SUFFIXES):
        kinds[(PAIRED_SUFFIXES, MAX_PAIRED_BYTES)] = []
    for (_, most), records in kinds.items():
        if len(records) > MAX_RECORDS:
            continue  # a folder of many records is a data set, not a run's folder: the reader looks at none
        for name, base, size in records:
            if not size.isdigit() or int(size) > most:  # a blob the mirror lacks is listed as BAD
                continue
            if not (target.parent / base).exists():
                (target.parent / base).write_bytes(subprocess.run(
                    ["git", "--git-dir", str(git_dir), "show", f"{commit}:{name}"], check=True, capture_output=True).stdout)


def materialise(mirror: Path, work: Path, holdout: Path = HOLDOUT) -> list[dict]:
    rows = []
    for line in holdout.read_text().splitlines()[1:]:
        system, at, path = line.split("\t")
        repo, commit = at.split("@")
        target = work / "inputs" / slug(system) / Path(path).name
        target.parent.mkdir(parents=True, exist_ok=True)
        git_dir = mirror / repo.replace("/", "+") / "repo"
        target.write_bytes(subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
                                          check=True, capture_output=True).stdout)
        copy_sibling_records(git_dir, commit, path, target)
        rows.append({"system": system, "repo": at, "path": path, "file": target, "source": slug(system)})
    return rows


def write_spec(rows: list[dict], work: Path) -> Path:
    spec = {"name": "traces-holdout",
            "sources": [{"name": r["source"], "type": "transcripts", "paths": [str(r["file"])], "license": "MIT",
                         "limits": {"max_file_bytes": 50_000_000}} for r in rows],
            "stages": {"sft": {"sequence_length": 32768, "token_budget": 200_000_000,
                               "weights": {r["source"]: 1 for r in rows},
                               "sft": {"outcome_policy": "any", "min_tokens": 1}}},
            "tokenizer": {"vocab_size": 4000, "train_sample_documents": 400}}
    path = work / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


# --- what reached the shards ---------------------------------------------------------------------------


def check_masks(tokenizer: Tokenizer, tokens: np.ndarray, mask: np.ndarray) -> tuple[int, int, int]:
    """(trained tokens, trained tokens outside an assistant turn's body, assistant turns with a trained
    token), from the sample decoded token by token: the tokens after ``<|im_start|>`` up to the newline
    name the turn's role (the chat template's header, never trained)."""
    outside = trained_turns = 0
    role, header, reading, turn_trained = "", "", False, False
    for token, trained in zip(tokens.tolist(), mask.tolist()):
        piece = tokenizer.decode([int(token)], skip_special_tokens=False)
        if piece == "<|im_start|>":
            trained_turns += turn_trained
            role, header, reading, turn_trained = "", "", True, False
            outside += bool(trained)
            continue
        if reading:
            header += piece
            if "\n" in header:
                role, reading = header.split("\n")[0].strip(), False
            outside += bool(trained)
            continue
        if trained:
            turn_trained = True
            outside += role != "assistant"
    return int(mask.sum()), outside, trained_turns + turn_trained


def shard_report(out: Path, source: str) -> dict:
    from codemix.mixtures.indexed_dataset import read_indexed_documents

    tokenizer = Tokenizer.from_file(str(out / "tokenizer.json"))
    docs: dict[str, set[int]] = collections.defaultdict(set)
    samples = trained = outside = turns = 0
    for prov in sorted(glob.glob(str(out / "sft" / f"{source}-*provenance.parquet"))):
        prefix = prov[: -len(".provenance.parquet")] if prov.endswith(".provenance.parquet") else prov.rsplit("-provenance", 1)[0]
        rows = pq.read_table(prov).to_pylist()
        token_docs = list(read_indexed_documents(prefix))
        mask_docs = list(read_indexed_documents(prefix + "-loss_mask"))
        assert len(rows) == len(token_docs) == len(mask_docs), (prov, len(rows), len(token_docs))
        for row, tokens, mask in zip(rows, token_docs, mask_docs):
            samples += 1
            docs[row["doc_id"]].update(range(row["turns_start"], row["turns_end"]))
            t, o, n = check_masks(tokenizer, tokens, mask)
            trained, outside, turns = trained + t, outside + o, turns + n
    return {"samples": samples, "transcripts_in_shards": len(docs), "messages_in_shards": sum(map(len, docs.values())),
            "trained_tokens": trained, "trained_outside_assistant": outside, "trained_assistant_turns": turns}


def crawled(out: Path, source: str) -> dict:
    """What the crawl read of ``source``: its documents' formats, transcripts and messages."""
    marker = json.loads((out / "work" / "crawl" / "_COMPLETE.json").read_text())
    folder = out / "work" / "crawl" / marker.get("attempt", "")
    paths = glob.glob(str(folder / "docs*.parquet")) or glob.glob(str(out / "work" / "crawl" / "attempt-*" / "docs*.parquet"))
    formats, transcripts, messages, unread = collections.Counter(), 0, 0, 0
    for path in paths:
        for row in pq.read_table(path, columns=["source", "metadata"]).to_pylist():
            if row["source"] == source:
                meta = json.loads(row["metadata"])
                formats[meta.get("format", "")] += 1
                transcripts += 1
                messages += len(meta.get("messages") or [])
                unread += int((meta.get("transcript") or {}).get("branch_unread") or 0)
    # a message tree's turns on branches other than the one read: counted, not read (reported by that reason)
    return {"formats": dict(formats), "transcripts_read": transcripts, "messages_read": messages,
            "branch_unread": unread}


def quarantined(out: Path, source: str) -> list[str]:
    errors = []
    for path in glob.glob(str(out / "quarantine" / "*.jsonl")):
        for line in Path(path).read_text().splitlines():
            record = json.loads(line)
            if record.get("source") == source:
                errors.append(record.get("error", ""))
    return errors


def given_count(given: dict, row: dict) -> int | None:
    """The count a collector's file gives a system (keyed by its name, its slug or its file's path), or None."""
    name = Path(row["path"]).name
    repo = str(row.get("repo", "")).split("@")[0].rsplit("/", 1)[-1]
    keyed = [key for key in given if str(key).rsplit("/", 1)[-1] == name]  # "<repo>/<file name>"
    keyed.sort(key=lambda key: not str(key).startswith(f"{repo}/"))  # two files of one name: the repository's own
    for key in (row["system"], row["source"], row["path"], name, *keyed):
        value = given.get(key)
        if isinstance(value, dict) and isinstance(value.get("counts"), dict):
            value = value["counts"]
        if isinstance(value, dict):
            value = next((value[k] for k in ("messages", "count", "source_messages", "total") if k in value), None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/holdout-run"))
    parser.add_argument("--allow-missing", nargs="*", default=[], metavar="SOURCE",
                        help="sources the build may go on without (a source quarantined whole stops it otherwise)")
    parser.add_argument("--holdout", type=Path, default=HOLDOUT, help="a TSV like traces_holdout.tsv (the second "
                        "holdout: bench/traces_holdout_2.tsv); systems without a counter here are not counted")
    parser.add_argument("--allow-missing-all", action="store_true",
                        help="every source of the holdout may be quarantined whole (one build reads them all)")
    parser.add_argument("--counts", type=Path, default=None,
                        help="a JSON file of per-system message counts taken by someone else's script (the fourth "
                        "holdout's collector: {system: count} or {system: {..., messages: count}}), used where this "
                        "file has no counter")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    rows = materialise(args.mirror, args.work, args.holdout)
    given = json.loads(args.counts.read_text()) if args.counts and args.counts.exists() else {}
    if isinstance(given, list):  # [{system, messages...}, ...]
        given = {str(entry.get("system")): entry for entry in given if isinstance(entry, dict)}
    given = given if isinstance(given, dict) else {}
    for row in rows:
        counter = SOURCE_COUNTS.get(row["system"])
        row["source_messages"] = counter(row["file"]) if counter else given_count(given, row)
    spec, out = write_spec(rows, args.work), args.work / "out"
    names = [row["source"] for row in rows] if args.allow_missing_all else args.allow_missing
    allow = [flag for name in names for flag in ("--allow-missing", name)]
    build = subprocess.run([sys.executable, "-m", "codemix.mix", "build", str(spec), "--out", str(out), "--fresh", *allow],
                           check=False, capture_output=True, text=True, env={**os.environ})
    (args.work / "build.log").write_text(build.stdout + "\n" + build.stderr)
    manifest = json.loads((out / "manifest.json").read_text()) if (out / "manifest.json").exists() else {}
    for row in rows:
        row["quarantined"] = quarantined(out, row["source"])
        row["funnel"] = (manifest.get("sources") or {}).get(row["source"], {})
        row["sft_left_out"] = ((manifest.get("stages") or {}).get("sft") or {}).get("left_out_by_source", {}).get(
            row["source"], {})
        if (out / "work" / "crawl" / "_COMPLETE.json").exists():
            row.update(crawled(out, row["source"]))
        row.update(shard_report(out, row["source"]) if manifest else {})
        row["file"] = str(row["file"])
    (args.work / "report.json").write_text(json.dumps({"build_rc": build.returncode, "rows": rows}, indent=2))
    print(json.dumps({"build_rc": build.returncode, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
