"""SWE-bench-style instances kept out: each document kind's policy on real fixtures, patch ids as git
computes them, instance files in every shape read (and a malformed one refused naming the field)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from codemix.config import ConfigError
from codemix.document import ContaminationHit, Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.benchmarks import (
    COMMIT,
    FILE,
    ISSUE,
    LATER_COMMIT,
    TRACE,
    BenchmarkInstancesConfig,
    InstanceIndex,
    patch_id,
    read_instances,
    repo_key,
)
from codemix.filters.config import FiltersConfig
from codemix.mix.cli import main as mix
from codemix.pipelines.filter import filter_outcomes
from codemix.pipelines.readers.commits import read_commits
from codemix.pipelines.readers.common import ReadTally
from codemix.pipelines.readers.git import GitError, read_git
from codemix.pipelines.readers.issues import read_issues
from codemix.pipelines.readers.transcripts import read_transcripts
from codemix.sources import HistoryConfig, SourceConfig
from tests.conftest import SHARED_TRANSCRIPTS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "benchmarks"
LITE = FIXTURES / "swe-bench-lite-test.json"  # full schema
VERIFIED = FIXTURES / "swebench_verified_astropy.jsonl"  # reduced variant
TRACE_FILE = next((FIXTURES / "openhands" / "llm_completions" / "astropy__astropy-13236").glob("*.json"))
SHARED_TRACES = SHARED_TRANSCRIPTS
GITHUB = Path(__file__).resolve().parents[1] / "fixtures" / "github"
FIXED = "astropy/wcs/wcsapi/wrappers/sliced_wcs.py"


def index_of(*locations: Path, **options) -> InstanceIndex:
    config = BenchmarkInstancesConfig(instances=[str(p) for p in locations], **options)
    config.validate("filters.benchmark_instances")
    return InstanceIndex.from_config(config)


def git_patch_id(diff: str) -> str:
    """The reference: git's own ``patch-id --stable``."""
    out = subprocess.run(["git", "patch-id", "--stable"], input=diff.encode(), capture_output=True, check=True)
    return out.stdout.decode().split(" ")[0]


def git(cwd: Path, *args: str, date: str = "") -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "HOME": str(cwd), "PATH": "/usr/bin:/bin",
           **({"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else {})}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True, text=True, env=env).stdout


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> Path:
    """astropy's sliced_wcs.py before the fix, then the real fix commit (``git am``), then a commit
    that squashes the fix with a test, then one that rebases it onto a changed line."""
    repo = tmp_path_factory.mktemp("history") / "astropy"  # a commit's repository is its clone's folder name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", "https://github.com/astropy/astropy.git")
    (repo / FIXED).parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "sliced_wcs.py.before", repo / FIXED)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Sliced WCS before the fix", date="2022-08-01T00:00:00Z")
    git(repo, "am", "-q", "--committer-date-is-author-date", str(FIXTURES / "astropy-13579-fix.mbox"))
    return repo


def test_patch_ids_are_gits_own():
    rows = [*json.loads(LITE.read_text()), *map(json.loads, VERIFIED.read_text().splitlines())]
    diffs = [r["patch"] for r in rows] + [r["test_patch"] for r in rows if r.get("test_patch")]
    diffs.append((FIXTURES / "astropy-13579-fix.mbox").read_text())  # a commit: message, index lines, stat
    assert len(diffs) == 14
    assert [patch_id(d) for d in diffs] == [git_patch_id(d) for d in diffs]


def test_every_shape_reads_to_the_same_instance(tmp_path):
    rows = json.loads(LITE.read_text())
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "lite.parquet")
    (tmp_path / "lite.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    row = rows[0]
    owner, name = row["repo"].split("/")
    multi = {"org": owner, "repo": name, "number": 16255, "fix_patch": row["patch"], "test_patch": row["test_patch"],
             "resolved_issues": [{"number": 34201, "title": row["problem_statement"], "body": ""}]}
    (tmp_path / "multi.json").write_text(json.dumps([multi]))
    shapes = [[dataclasses.replace(i, benchmark="") for i in read_instances(str(location), "x")]
              for location in (tmp_path / "lite.parquet", tmp_path / "lite.jsonl", LITE)]
    assert shapes[0] == shapes[1] == shapes[2] and len(shapes[0]) == 5
    assert shapes[0][0].numbers == (16255,) and shapes[0][0].created_at == "2022-11-04T13:49:40Z"
    (from_multi,) = read_instances(str(tmp_path / "multi.json"), "x")
    assert (from_multi.instance_id, from_multi.patch, from_multi.numbers) == ("django__django-16255", row["patch"],
                                                                             (16255, 34201))
    assert {repo_key(r) for r in ("astropy/astropy", "https://github.com/astropy/astropy.git", "/srv/astropy",
                                  "swesmith/astropy__astropy.26d14786")} == {"astropy"}
    (reduced, *_) = read_instances(str(VERIFIED), "x")
    assert reduced.benchmark == "swebench_verified_astropy" and not reduced.test_patch and not reduced.created_at


@pytest.mark.parametrize(("change", "named"), [
    (lambda r: r.pop("patch"), "no field 'patch' (nor golden_patch, gold_patch, fix_patch"),
    (lambda r: r.pop("instance_id"), "no string field 'instance_id'"),
    (lambda r: r.update(repo="django"), "field 'repo' must be owner/name"),
    (lambda r: r.pop("problem_statement"), "no string field 'problem_statement'"),
    (lambda r: r.update(patch="fix the bug"), "field 'patch' is not a unified diff"),
    (lambda r: r.update(created_at=20221104), "field 'created_at' must be an ISO 8601 string"),
])
def test_mix_plan_refuses_a_malformed_instance_file_naming_the_field(tmp_path, capsys, change, named):
    rows = json.loads(LITE.read_text())
    change(rows[2])
    (tmp_path / "bad.json").write_text(json.dumps(rows))
    spec = {"name": "t", "sources": [{"name": "code", "type": "directory", "paths": [str(tmp_path)]}],
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1.0}}},
            "filters": {"benchmark_instances": {"instances": [str(tmp_path / "bad.json")]}}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    assert mix(["plan", str(tmp_path / "spec.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"filters.benchmark_instances.instances[0]: {tmp_path / 'bad.json'} record 3: {named}" in err


def transcript(path: Path) -> Document:
    source = SourceConfig(name="traces", type="transcripts", paths=[str(path.parent)])
    source.validate("t")
    (doc,) = [o for o in read_transcripts(source, str(path), ReadTally()) if isinstance(o, Document)]
    return doc


def test_a_published_trace_of_an_instance_goes_by_id_and_by_its_task_text():
    index = index_of(VERIFIED)
    doc = transcript(TRACE_FILE)
    assert "astropy__astropy-13236" in doc.metadata["location"] and "astropy__astropy-13236" not in doc.text
    assert [(h.instance_id, h.policy, h.evidence) for h in index.hits(doc)] == [("astropy__astropy-13236", TRACE, "id")]
    blind = Document(id=doc.id, text=doc.text, source="t", kind="transcript")  # no path, no metadata
    (hit,) = index.hits(blind)
    assert (hit.instance_id, hit.evidence) == ("astropy__astropy-13236", "problem_statement") and hit.overlap == 1.0


def test_other_real_traces_are_kept():
    index = index_of(VERIFIED, LITE)
    files = sorted(p for p in SHARED_TRACES.rglob("*") if p.is_file() and p.suffix in (".json", ".traj"))
    assert len(files) == 3
    assert [index.hits(transcript(f)) for f in files] == [[], [], []]


def commits_of(repo: Path) -> list[Document]:
    source = SourceConfig(name="history", type="commits", paths=[str(repo)], history=HistoryConfig())
    source.validate("t")
    return [o for o in read_commits(source, str(repo), ReadTally()) if isinstance(o, Document)]


def test_the_fix_commit_goes_and_the_one_before_stays(history):
    index = index_of(VERIFIED)
    fix, before = commits_of(history)
    assert git_patch_id(git(history, "show", fix.metadata["commit"])) == git_patch_id(index.by_id["astropy__astropy-13579"].patch)
    assert [(h.instance_id, h.policy, h.evidence) for h in index.hits(fix)] == [
        ("astropy__astropy-13579", COMMIT, "patch_id:patch")]
    assert index.hits(before) == []


def test_the_fix_squashed_with_a_test_or_rebased_still_goes(history, tmp_path):
    repo = tmp_path / "astropy"
    shutil.copytree(history, repo)
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "am", "-q", str(FIXTURES / "astropy-13579-fix.mbox"))
    (repo / "astropy" / "test_sliced.py").write_text("def test_slice():\n    assert True\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "-m", "Fix and test, squashed")
    squashed = commits_of(repo)[0]
    assert [h.evidence for h in index_of(VERIFIED).hits(squashed)] == ["patch_id_in_files:patch"]
    source = (repo / FIXED).read_text()
    fixed_line = next(line for line in source.splitlines() if "world_coords" in line and "sliced_out_world_coords" in line)
    (repo / FIXED).write_text(source.replace(fixed_line, fixed_line + "  # noqa"))  # a rebase that touched the fix
    git(repo, "commit", "-q", "-a", "--amend", "-m", "Fix, rebased")
    rebased = commits_of(repo)[0]
    assert git_patch_id(git(repo, "show", rebased.metadata["commit"], "--", FIXED)) != git_patch_id(
        index_of(VERIFIED).by_id["astropy__astropy-13579"].patch)
    (hit,) = index_of(VERIFIED).hits(rebased)
    assert (hit.instance_id, hit.evidence) == ("astropy__astropy-13579", "added_lines:patch") and hit.overlap >= 0.5


def test_later_commits_of_a_benchmark_repository_go_when_asked(tmp_path):
    rows = json.loads(LITE.read_text())
    (tmp_path / "lite.json").write_text(json.dumps(rows))
    before, after = ("2022-06-18T21:00:00+02:00", "2022-06-18T20:00:00+00:00")  # django-15781 opened 19:39:34Z
    docs = [Document(id=d, text="Docs.\n", source="s", kind="commit", repo="django/django", metadata={"date": d})
            for d in (before, after)]
    plain, later = index_of(tmp_path / "lite.json"), index_of(tmp_path / "lite.json", later_commits=True)
    assert [plain.hits(d) for d in docs] == [[], []]
    assert [[h.policy for h in later.hits(d)] for d in docs] == [[], [LATER_COMMIT]]
    rows[1].pop("created_at")
    (tmp_path / "lite.json").write_text(json.dumps(rows))
    with pytest.raises(ConfigError, match=r"later_commits: instance sympy__sympy-13031 has no 'created_at'"):
        BenchmarkInstancesConfig(instances=[str(tmp_path / "lite.json")], later_commits=True).validate(
            "filters.benchmark_instances")


def test_the_issue_thread_goes_by_number_or_by_its_text_and_other_threads_stay(tmp_path):
    row = json.loads(LITE.read_text())[0]  # django__django-16255
    title, _, body = row["problem_statement"].partition("\n")
    for number in (16255, 34201):  # the pull request's thread, and an issue number no row gives
        (tmp_path / f"issues-{number}.json").write_text(json.dumps({
            "url": f"https://api.github.com/repos/django/django/issues/{number}", "number": number, "title": title,
            "body": body, "state": "open", "user": {"login": "reporter", "type": "User"}}))
    index = index_of(LITE)
    found = {}
    for folder in (tmp_path, GITHUB):
        source = SourceConfig(name="threads", type="issues", paths=[str(folder)])
        source.validate("t")
        for doc in (o for o in read_issues(source, str(folder), ReadTally()) if isinstance(o, Document)):
            found[f"{doc.repo}#{doc.metadata['thread']['number']}"] = [(h.policy, h.evidence) for h in index.hits(doc)]
    assert found.pop("django/django#16255") == [(ISSUE, "repo_number")]
    assert found.pop("django/django#34201") == [(ISSUE, "problem_statement")]
    assert len(found) >= 3 and all(v == [] for v in found.values())  # PyGithub's real threads


def snapshot(repo: Path, **options) -> list[Document]:
    source = SourceConfig(name="tree", type="git", paths=[str(repo)], **options)
    source.validate("t")
    return [o for o in read_git(source, str(repo), ReadTally()) if isinstance(o, Document)]


def test_a_snapshot_after_the_fix_is_flagged_and_one_before_the_benchmark_is_not(history, tmp_path):
    index = index_of(VERIFIED)
    (after,) = snapshot(history)
    assert [(h.instance_id, h.policy) for h in index.hits(after)] == [("astropy__astropy-13579", FILE)]
    unrelated = Document(id="u", text=after.text, source="t", kind="file", repo="psf/requests", path=FIXED)
    assert index.hits(unrelated) == []  # the fix of another repository's instance
    rows = [json.loads(line) for line in VERIFIED.read_text().splitlines()]
    dated = tmp_path / "dated.jsonl"  # opened between the two commits (the fix is dated 2022-08-26)
    dated.write_text("".join(json.dumps({**r, "created_at": "2022-08-20T12:00:00Z"}) + "\n" for r in rows))
    (before,) = snapshot(history, snapshot="before_benchmark", snapshot_instances=[str(dated)])
    assert before.metadata["commit"] == git(history, "rev-parse", "HEAD~1").strip() and index.hits(before) == []
    with pytest.raises(GitError, match="none of the benchmark instances' 3 base commits is in this repository"):
        snapshot(history, snapshot="before_benchmark", snapshot_instances=[str(VERIFIED)])


@pytest.mark.parametrize("files", ["drop", "mark"])
def test_the_filter_stage_drops_or_marks_and_records_the_policy(history, files):
    config = FiltersConfig(benchmark_instances=BenchmarkInstancesConfig(instances=[str(VERIFIED)], files=files))
    config.decontamination.enabled = False
    judge = DocumentFilter(config)
    (after,) = snapshot(history, license="BSD-3-Clause")  # astropy's
    outcomes = list(filter_outcomes(after, judge, {}))
    hits = [o for o in outcomes if isinstance(o, ContaminationHit)]
    assert [(h.benchmark, h.item_id, h.policy) for h in hits] == [
        ("swebench_verified_astropy", "astropy__astropy-13579", FILE if files == "drop" else f"{FILE}_marked")]
    kept = [o for o in outcomes if isinstance(o, Document)]
    assert (kept[0].metadata["benchmark_instances"] == ["astropy__astropy-13579"]) if files == "mark" else kept == []
    trace = judge.judge(transcript(TRACE_FILE), "MIT")  # OpenHands' evaluation outputs
    assert trace.reason == TRACE and trace.instances[0].instance_id == "astropy__astropy-13236"


def test_the_dataset_card_names_the_instance_sets_and_their_hits_by_policy(tmp_path):
    from codemix.mixtures.spec import parse_spec
    from codemix.pipelines.card import instances_section

    spec = parse_spec({"name": "t", "sources": [{"name": "repo", "type": "git", "paths": [str(tmp_path)],
                                                 "snapshot": "before_benchmark"}],
                       "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"repo": 1.0}}},
                       "filters": {"benchmark_instances": {"instances": [str(VERIFIED)]}}})
    assert spec.sources[0].snapshot_instances == [str(VERIFIED)]
    rows = [{"benchmark": "swebench_verified_astropy", "policy": COMMIT}, {"benchmark": "humaneval", "policy": "ngram_overlap"}]
    text = instances_section(spec, {"contamination": rows})
    assert f"`{VERIFIED}`" in text and "sources read before the benchmark: repo" in text
    assert text.endswith("Hits: swebench_verified_astropy benchmark_commit 1.")
