"""Issue 48: SWE-bench instances kept out of a real repository's commits and snapshots, of real
published agent traces, and of issue threads; everything checked against git itself.

    python -m bench.benchmark_instances --instances ROWS.jsonl --repo BARE.git --traces DIR \
        --since 2017-06-01 [--controls DIR...] [--out summary.json]

Reference (git, not our code): ``git patch-id --stable`` of every gold patch, of every commit of the
history (``git log -p --no-merges``), and of every commit's diff restricted to a gold patch's files
(``git diff C^ C -- PATHS``: the fix squashed with its tests and changelog). Ours: the commits reader,
the transcripts reader, the issues reader and the git reader, each document judged by
``filters.benchmarks.InstanceIndex``. Results: bench/RESULTS.md ("Agentic benchmark instances").
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

from codemix.document import Document
from codemix.filters.benchmarks import BenchmarkInstancesConfig, InstanceIndex, added_text, read_instances
from codemix.pipelines.readers.commits import read_commits
from codemix.pipelines.readers.common import ReadTally
from codemix.pipelines.readers.git import before_benchmark, read_git
from codemix.pipelines.readers.issues import read_issues
from codemix.pipelines.readers.transcripts import read_transcripts
from codemix.sources import HistoryConfig, SourceConfig


def git(repo: str, *args: str, stdin: bytes | None = None) -> str:
    return subprocess.run(["git", f"--git-dir={repo}", *args], input=stdin, capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


def git_patch_id(repo: str, diff: bytes) -> str:
    out = git(repo, "patch-id", "--stable", stdin=diff).split()
    return out[0] if out else ""


def reference_gold_commits(repo: str, branch: str, since: str, instances) -> dict:
    """What git says: commits whose whole diff, or whose diff in the gold patch's files, has the gold
    patch's (or test patch's) patch id."""
    log = subprocess.run(f"git --git-dir={repo} log -p --no-merges --since={since} {branch} | "
                         f"git --git-dir={repo} patch-id --stable", shell=True, capture_output=True, check=True)
    by_pid = defaultdict(list)
    for line in log.stdout.decode().splitlines():
        pid, commit = line.split()
        by_pid[pid].append(commit)
    whole, in_files, fix_points, pr_commits = {}, {}, {}, {}
    for instance in instances:
        for kind, diff in (("patch", instance.patch), ("test_patch", instance.test_patch)):
            if not diff:
                continue
            pid = git_patch_id(repo, diff.encode())
            for commit in by_pid.get(pid, []):
                whole[commit] = (instance.instance_id, kind)
            _, paths = added_text(diff)
            touching = git(repo, "log", "--format=%H", "--no-merges", f"--since={since}", branch, "--", *paths).split()
            for commit in touching:
                restricted = git(repo, "diff", f"{commit}^", commit, "--", *paths).encode()
                if git_patch_id(repo, restricted) == pid:
                    in_files.setdefault(commit, (instance.instance_id, kind))
                    fix_points.setdefault(instance.instance_id, commit)
            if kind == "patch" and instance.instance_id not in fix_points:  # merged as a branch of commits
                merges = git(repo, "log", "--merges", "--first-parent", "--format=%H", f"--since={since}", branch,
                             "--", *paths).split()
                for merge in merges:
                    if git_patch_id(repo, git(repo, "diff", f"{merge}^1", merge, "--", *paths).encode()) == pid:
                        fix_points[instance.instance_id] = merge
                        for commit in git(repo, "rev-list", "--no-merges", f"{merge}^1..{merge}^2", "--", *paths).split():
                            pr_commits[commit] = instance.instance_id
                        break
    return {"whole": whole, "in_files": in_files, "fix_points": fix_points, "pr_commits": pr_commits,
            "commits_read_by_git": sum(len(v) for v in by_pid.values())}


def our_commits(repo: str, branch: str, since: str, index: InstanceIndex) -> dict:
    source = SourceConfig(name="history", type="commits", paths=[repo], ref=branch,
                          history=HistoryConfig(since=since))
    source.validate("bench")
    removed, other_drops, kept, read = {}, {}, 0, 0
    started = time.process_time()
    for outcome in read_commits(source, repo, ReadTally()):
        read += 1
        sha = outcome.location.rsplit("@", 1)[-1] if hasattr(outcome, "location") else ""
        if isinstance(outcome, Document):
            sha = outcome.metadata["commit"]
            hits = index.hits(outcome)
            if hits:
                removed[sha] = [(h.instance_id, h.evidence, h.overlap) for h in hits]
            else:
                kept += 1
        elif hasattr(outcome, "reason"):
            other_drops[sha] = outcome.reason
    return {"removed": removed, "other_drops": other_drops, "kept": kept, "read": read,
            "cpu_s": round(time.process_time() - started, 1)}


def compare_commits(repo: str, reference: dict, ours: dict) -> dict:
    gold = {**reference["in_files"], **reference["whole"]}
    missed = {c: i for c, i in gold.items() if c not in ours["removed"] and c not in ours["other_drops"]}
    by_other = {c: ours["other_drops"][c] for c in gold if c in ours["other_drops"]}
    parts = {c: i for c, i in reference["pr_commits"].items() if c not in gold}
    extra = {c: h for c, h in ours["removed"].items() if c not in gold and c not in parts}
    listed = [{"commit": c[:10], "subject": git(repo, "log", "-1", "--format=%s", c).strip()[:80], "hits": h}
              for c, h in sorted(extra.items())]
    return {"gold_commits_git": len(gold), "whole_diff": len(reference["whole"]),
            "in_files_only": len(set(reference["in_files"]) - set(reference["whole"])),
            "removed_by_policy": len([c for c in gold if c in ours["removed"]]), "removed_by_other_drop": by_other,
            "missed": missed, "fix_points_found_by_git": len(reference["fix_points"]),
            "pr_commits_of_fixes_merged_as_branches": len(parts),
            "pr_commits_removed": sorted((c[:10], i, c in ours["removed"]) for c, i in parts.items()),
            "removed_beyond_git": listed, "commits_read": ours["read"],
            "commits_kept": ours["kept"], "cpu_s": ours["cpu_s"]}


def trace_documents(folder: str):
    source = SourceConfig(name="traces", type="transcripts", paths=[folder])
    source.validate("bench")
    for root, _, files in sorted(os.walk(folder)):
        for name in sorted(files):
            for outcome in read_transcripts(source, os.path.join(root, name), ReadTally()):
                if isinstance(outcome, Document):
                    yield outcome


def judge_traces(index: InstanceIndex, folder: str, expected: set[str]) -> dict:
    """Each trace by id (its path names the instance, as the published layout does) and by text alone."""
    named, by_text, found = set(), set(), 0
    for doc in trace_documents(folder):
        found += 1
        named |= {h.instance_id for h in index.hits(doc)}
        blind = Document(id=doc.id, text=doc.text, source=doc.source, kind=doc.kind)  # no path, no metadata
        by_text |= {h.instance_id for h in index.hits(blind)}
    return {"traces": found, "expected": len(expected), "removed_by_id_or_text": len(named & expected),
            "removed_by_text_alone": len(by_text & expected), "missed_by_text": sorted(expected - by_text),
            "other_instances_named": sorted((named | by_text) - expected)}


def judge_controls(index: InstanceIndex, folders: list[str]) -> dict:
    docs = [doc for folder in folders for doc in trace_documents(folder)]
    hits = [(doc.metadata.get("location", ""), [h.instance_id for h in index.hits(doc)]) for doc in docs]
    return {"control_traces": len(docs), "removed": [h for h in hits if h[1]]}


def issue_exports(instances, folder: str) -> set[str]:
    """GitHub REST issue records made of each instance's real problem statement (title: its first
    line), under its pull request's number and, a second thread, under a number no instance has."""
    expected = set()
    for instance in instances:
        title, _, body = instance.problem_statement.partition("\n")
        for number in (instance.numbers[0], 900000 + instance.numbers[0]):
            record = {"url": f"https://api.github.com/repos/{instance.repo}/issues/{number}", "number": number,
                      "title": title, "body": body, "state": "closed", "user": {"login": "reporter", "type": "User"},
                      "created_at": instance.created_at or "2020-01-01T00:00:00Z", "comments": 0}
            with open(os.path.join(folder, f"issues-{number}.json"), "w") as handle:
                json.dump(record, handle)
            expected.add(f"{instance.repo}#{number}")
    return expected


def judge_issues(index: InstanceIndex, folders: list[str]) -> tuple[dict, dict]:
    found, dropped = {}, {}
    for folder in folders:
        source = SourceConfig(name="threads", type="issues", paths=[folder])
        source.validate("bench")
        for outcome in read_issues(source, folder, ReadTally()):
            if isinstance(outcome, Document):
                key = f"{outcome.repo}#{outcome.metadata['thread']['number']}"
                found[key] = [(h.instance_id, h.evidence) for h in index.hits(outcome)]
            elif hasattr(outcome, "reason"):  # the reader's own drops (too_little_text...)
                repo, _, number = outcome.location.rsplit("#", 1)[-1].rpartition("/")
                dropped[f"{repo.rsplit('/', 1)[0]}#{number}"] = outcome.reason
    return found, dropped


def judge_snapshot(index: InstanceIndex, repo: str, commit: str, instances) -> dict:
    """Files of ``commit``'s tree: which hold a fix (ours), against the patched paths (git)."""
    source = SourceConfig(name="snapshot", type="git", paths=[repo], ref=commit)
    source.validate("bench")
    flagged, files = {}, 0
    for outcome in read_git(source, repo, ReadTally()):
        if isinstance(outcome, Document):
            files += 1
            hits = index.hits(outcome)
            if hits:
                flagged[outcome.path] = sorted({h.instance_id for h in hits})
    patched = defaultdict(set)
    for instance in instances:
        for path in added_text(instance.patch)[1]:
            patched[path].add(instance.instance_id)
    present = {p for p in patched if git(repo, "ls-tree", commit, "--", p).strip()}
    missed = {}
    for path in sorted(present - set(flagged)):
        content = git(repo, "show", f"{commit}:{path}")
        for instance_id in patched[path]:  # independent: gold added lines still verbatim in the file
            lines = [line.strip() for line in added_text(index.by_id[instance_id].patch)[0].split("\n") if line.strip()]
            missed[f"{path} ({instance_id})"] = round(sum(line in content for line in lines) / max(len(lines), 1), 2)
    return {"commit": commit[:10], "files": files, "patched_files": len(present),
            "patched_flagged": len(present & set(flagged)), "patched_not_flagged_with_share_of_lines_present": missed,
            "other_files_flagged": {p: v for p, v in flagged.items() if p not in patched}}


def judge_fix_points(index: InstanceIndex, repo: str, fix_points: dict[str, str]) -> dict:
    """Each instance's patched files read (git reader) at the commit git says applied its gold patch."""
    rows, flagged = [], 0
    for instance_id, commit in sorted(fix_points.items()):
        paths = list(added_text(index.by_id[instance_id].patch)[1])
        source = SourceConfig(name="fix", type="git", paths=[repo], ref=commit, include=paths)
        source.validate("bench")
        docs = [o for o in read_git(source, repo, ReadTally()) if isinstance(o, Document)]
        hits = {d.path: sorted({h.instance_id for h in index.hits(d)}) for d in docs}
        ok = all(instance_id in v for v in hits.values()) and len(hits) == len(paths)
        flagged += ok
        rows.append((instance_id, commit[:10], len(paths), sum(instance_id in v for v in hits.values())))
    return {"instances": len(fix_points), "all_patched_files_flagged": flagged, "per_instance": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances", nargs="+", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--branch", default="main")
    parser.add_argument("--since", required=True)
    parser.add_argument("--traces", required=True)
    parser.add_argument("--controls", nargs="*", default=[])
    parser.add_argument("--issue-controls", nargs="*", default=[])
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    config = BenchmarkInstancesConfig(instances=args.instances)
    config.validate("bench")
    index = InstanceIndex.from_config(config)
    name = git(args.repo, "config", "--get", "remote.origin.url").strip()
    rows = [i for location in args.instances for i in read_instances(location, "bench")]
    mine = [i for i in {i.instance_id: i for i in rows}.values() if i.repo_key == name.rstrip("/").removesuffix(".git").rsplit("/", 1)[-1].lower()]
    summary = {"instances": len(index), "repository_instances": len(mine), "repository": name}
    reference = reference_gold_commits(args.repo, args.branch, args.since, mine)
    summary["commits"] = compare_commits(args.repo, reference, our_commits(args.repo, args.branch, args.since, index))
    expected = {i.instance_id for i in index.by_id.values()}
    traced = {d for d in os.listdir(args.traces)}
    summary["traces"] = judge_traces(index, args.traces, expected & traced)
    summary["trace_controls"] = judge_controls(index, args.controls)
    with tempfile.TemporaryDirectory() as folder:
        threads = issue_exports(mine, folder)
        found, dropped = judge_issues(index, [folder, *args.issue_controls])
    summary["issues"] = {"threads": len(threads), "removed": sum(bool(found.get(t)) for t in threads),
                         "dropped_by_the_reader": {t: dropped[t] for t in threads if t in dropped},
                         "missed": sorted(t for t in threads if not found.get(t) and t not in dropped),
                         "by_number": sum(any(e == "repo_number" for _, e in found.get(t, [])) for t in threads),
                         "controls": len(found) - len(threads & found.keys()),
                         "controls_removed": [k for k, v in found.items() if v and k not in threads]}
    gold = {**reference["in_files"], **reference["whole"]}
    last = max(gold, key=lambda c: int(git(args.repo, "log", "-1", "--format=%ct", c)))
    summary["fix_point_snapshots"] = judge_fix_points(index, args.repo, reference["fix_points"])
    summary["snapshot_after"] = judge_snapshot(index, args.repo, last, mine)
    first = before_benchmark(args.repo, git(args.repo, "rev-parse", args.branch).strip(), mine)
    summary["snapshot_before_benchmark"] = judge_snapshot(index, args.repo, first, mine)
    text = json.dumps(summary, indent=1, default=str)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
