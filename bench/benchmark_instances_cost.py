"""Issue 48: the filter stage's CPU per MB with a 2,000-instance set kept out, and without.

    python -m bench.benchmark_instances_cost --real ROWS.jsonl... --repo BARE.git --ref REF \
        --since DATE --traces DIR [--include GLOB...] [--instances 2000] [--rounds 3]

The set: every distinct real row of the files given, then, to reach ``--instances``, copies of real
rows under new ids and repository names (said so in the output). The corpus: the repository's files
at REF, its commits since DATE, and the traces; read once into memory, then judged by
``filters.apply.DocumentFilter`` (every default filter, HumanEval decontamination included) with and
without ``benchmark_instances``, in alternating rounds; CPU is ``time.process_time``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.benchmarks import BenchmarkInstancesConfig
from codemix.filters.config import FiltersConfig
from codemix.pipelines.readers.commits import read_commits
from codemix.pipelines.readers.common import ReadTally
from codemix.pipelines.readers.git import read_git
from codemix.pipelines.readers.transcripts import read_transcripts
from codemix.sources import HistoryConfig, SourceConfig


def instance_set(files: list[str], size: int, folder: str) -> tuple[str, int]:
    """A JSONL of ``size`` rows: the distinct real rows, then renamed copies of them."""
    rows = {}
    for name in files:
        with open(name) as handle:
            for line in handle:
                row = json.loads(line)
                rows.setdefault(row["instance_id"], row)
    real = list(rows.values())
    out = list(real)
    for n in range(size - len(real)):
        row = dict(real[n % len(real)])
        owner, name = row["repo"].split("/")
        row["repo"] = f"{owner}/{name}-copy{n // len(real) + 1}"
        row["instance_id"] = f"{row['repo'].replace('/', '__')}-{n}"
        out.append(row)
    path = os.path.join(folder, "instances.jsonl")
    with open(path, "w") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in out[:size])
    return path, len(real)


def corpus(repo: str, ref: str, since: str, traces: str, include: list[str]) -> list[Document]:
    docs = []
    files = SourceConfig(name="files", type="git", paths=[repo], ref=ref, include=include)
    commits = SourceConfig(name="commits", type="commits", paths=[repo], ref=ref, history=HistoryConfig(since=since))
    chats = SourceConfig(name="traces", type="transcripts", paths=[traces])
    for source in (files, commits, chats):
        source.validate("bench")
    docs += read_git(files, repo, ReadTally())
    docs += read_commits(commits, repo, ReadTally())
    for root, _, names in os.walk(traces):
        for name in names:
            docs += read_transcripts(chats, os.path.join(root, name), ReadTally())
    return [d for d in docs if isinstance(d, Document)]


def judge_all(judge: DocumentFilter, docs: list[Document]) -> tuple[float, int]:
    started, dropped = time.process_time(), 0
    for doc in docs:
        dropped += judge.judge(doc, "BSD-3-Clause").reason is not None
    return time.process_time() - started, dropped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--real", nargs="+", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--ref", required=True)
    parser.add_argument("--since", required=True)
    parser.add_argument("--traces", required=True)
    parser.add_argument("--instances", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--include", nargs="*", default=[], help="globs of the files read at REF")
    args = parser.parse_args()
    docs = corpus(args.repo, args.ref, args.since, args.traces, args.include)
    megabytes = sum(len(d.text.encode()) for d in docs) / 1e6
    with tempfile.TemporaryDirectory() as folder:
        path, real = instance_set(args.real, args.instances, folder)
        config = BenchmarkInstancesConfig(instances=[path])
        started = time.process_time()
        config.validate("bench")
        with_set = DocumentFilter(FiltersConfig(benchmark_instances=config))
        _ = with_set.instances
        build = time.process_time() - started
        without = DocumentFilter(FiltersConfig())
        for judge in (with_set, without):  # warm: HumanEval index, datatrove filters, tokenizer caches
            judge_all(judge, docs[:200])
        rounds = {"with": [], "without": [], "instance_policies_alone": []}
        drops = {}
        for _ in range(args.rounds):
            for name, judge in (("without", without), ("with", with_set)):
                seconds, drops[name] = judge_all(judge, docs)
                rounds[name].append(round(seconds / megabytes, 3))
            started = time.process_time()
            for doc in docs:
                with_set.instances.hits(doc)
            rounds["instance_policies_alone"].append(round((time.process_time() - started) / megabytes, 3))
    print(json.dumps({"documents": len(docs), "MB": round(megabytes, 2), "instances": args.instances,
                      "real_instances": real, "synthesised_copies": args.instances - real,
                      "index_build_cpu_s": round(build, 2), "cpu_s_per_MB": rounds, "dropped": drops}, indent=1))


if __name__ == "__main__":
    main()
