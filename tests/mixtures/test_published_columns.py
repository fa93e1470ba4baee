"""The published documents' typed metadata columns (codemix.columns, docs/published-documents.md), read
back with duckdb from documents the real readers made of real fixtures: a commit history, notebooks,
recorded GitHub threads, agent transcripts and a quality-scored file. Each value is checked against
the input read by something other than codemix (git, the json module), and no column needs JSON."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from codemix.document import Document
from codemix.filters.quality import QualityConfig
from codemix.mixtures.provenance import DOCUMENTS_SCHEMA, document_provenance, provenance_table
from codemix.pipelines.quality import quality_outcomes
from codemix.pipelines.readers import read_location
from codemix.sources import HistoryConfig, IssuesConfig, NotebookConfig, SourceConfig
from tests.conftest import REPO_ROOT

FIXTURES = REPO_ROOT / "tests" / "fixtures"
CLAUDE_SESSION = REPO_ROOT / "examples" / "transcripts" / "claude-code-session.jsonl"
DOC = REPO_ROOT / "docs" / "published-documents.md"
# Each metadata column as duckdb types it: what a consumer gets with no parsing of its own.
DUCKDB_TYPES = {
    "parents": "VARCHAR[]",
    "author_date": "TIMESTAMP WITH TIME ZONE",
    "files": 'STRUCT(path VARCHAR, old_path VARCHAR, status VARCHAR, "binary" BOOLEAN, "language" VARCHAR)[]',
    "notebook": "STRUCT(layout VARCHAR, kernel VARCHAR, cells INTEGER, code_cells INTEGER, outputs_kept INTEGER, "
                "outputs_dropped INTEGER)",
    "thread": "STRUCT(number BIGINT, pull BOOLEAN, \"comments\" INTEGER, comments_removed INTEGER, truncated INTEGER, "
              "participants INTEGER)",
    "transcript_ids": "STRUCT(session_id VARCHAR, trajectory_id VARCHAR, instance_id VARCHAR, run_id VARCHAR, "
                      "record_id VARCHAR, id VARCHAR)",
    "quality_scorer": "VARCHAR",
    "quality_score": "DOUBLE",
}


def documents(source: SourceConfig, location: Path | str) -> list[Document]:
    return [o for o in read_location(source, str(location)) if isinstance(o, Document)]


def scored(doc: Document, score: float, model: str) -> Document:
    """The document as the filter stage's quality step keeps it (a threshold it passes)."""
    config = QualityConfig(model=model, threshold=0.0)
    (kept,) = [o for o in quality_outcomes((doc, score), {}, config) if isinstance(o, Document)]
    return kept


@pytest.fixture(scope="module")
def published(itsdangerous_history, tmp_path_factory) -> str:
    """One published documents file of every kind's documents, their rows through JSON as a build's runs
    carry them; returns its path."""
    commits = documents(SourceConfig(name="history", type="commits", paths=["-"], license="BSD-3-Clause",
                                     history=HistoryConfig()), itsdangerous_history)
    notebooks = documents(SourceConfig(name="nb", type="directory", paths=["-"], license="BSD-3-Clause",
                                       include=["*.ipynb"], notebooks=NotebookConfig(layout="cells")),
                          FIXTURES / "notebooks")
    threads = documents(SourceConfig(name="gh", type="issues", paths=["-"], license="LGPL-3.0",
                                     issues=IssuesConfig(min_human_chars=0)), FIXTURES / "github")
    runs = documents(SourceConfig(name="runs", type="transcripts", paths=["-"], license="Apache-2.0"), CLAUDE_SESSION)
    (code,) = [doc for doc in documents(SourceConfig(name="code", type="directory", paths=["-"], license="MIT"),
                                        FIXTURES / "headers" / "google+googletest") if doc.path.endswith("sample1.cc")]
    docs = [*commits, *notebooks, *threads, *runs, scored(code, 0.8125, "quality/ridge.joblib")]
    assert {doc.kind for doc in docs} == {"commit", "notebook", "issue", "transcript", "file"}, "guard: every kind read"
    rows = [json.loads(json.dumps(document_provenance(doc))) for doc in docs]
    table = provenance_table("out/short/all-00000-of-00001", rows, [1] * len(rows), ends_with_eod=True,
                             texts=[doc.text for doc in docs])
    path = tmp_path_factory.mktemp("published") / "all-00000-of-00001.parquet"
    pq.write_table(table, path)
    return str(path)


def test_duckdb_types_every_metadata_column(published):
    described = {name: kind for name, kind, *_ in duckdb.sql(f"DESCRIBE SELECT * FROM '{published}'").fetchall()}
    assert {name: described[name] for name in DUCKDB_TYPES} == DUCKDB_TYPES


def test_commit_columns_are_gits_own_parents_date_and_files(published, itsdangerous_history):
    rows = duckdb.sql(f"SELECT commit, parents, epoch(author_date)::BIGINT, [f.path FOR f IN files] "
                      f"FROM '{published}' WHERE kind = 'commit'").fetchall()
    assert len(rows) >= 5, "guard: commits were kept"
    for sha, parents, seconds, paths in rows:
        shown = subprocess.run(["git", "--git-dir", str(itsdangerous_history), "show", "--no-renames", "-s",
                                "--format=%P%n%at", sha], capture_output=True, text=True, check=True).stdout.split("\n")
        changed = subprocess.run(["git", "--git-dir", str(itsdangerous_history), "diff-tree", "-r", "-M",
                                  "--name-only", "--no-commit-id", sha], capture_output=True, text=True,
                                 check=True).stdout.split()
        assert parents == shown[0].split() and seconds == int(shown[1])
        assert paths == changed


def test_notebook_columns_count_the_notebooks_cells(published):
    rows = duckdb.sql(f"SELECT location, notebook.layout, notebook.kernel, notebook.cells, notebook.code_cells "
                      f"FROM '{published}' WHERE kind = 'notebook'").fetchall()
    assert len(rows) >= 3, "guard: the fixture notebooks were read"
    for location, layout, kernel, cells, code_cells in rows:
        notebook = json.loads(Path(location).read_text())
        listed = notebook.get("cells") or [c for sheet in notebook.get("worksheets", []) for c in sheet["cells"]]
        assert (layout, cells, code_cells) == ("cells", len(listed), sum(c["cell_type"] == "code" for c in listed))
        assert kernel


def github_threads(value) -> dict[int, bool]:
    """Every issue or pull request object in GitHub's JSON replies, by number: whether it is a pull request,
    as its page address on github.com says (``.../pull/31``, ``.../issues/28``)."""
    found = {}
    if isinstance(value, dict):
        if isinstance(value.get("number"), int) and "title" in value and value.get("html_url"):
            found[value["number"]] = "/pull/" in value["html_url"]
        for item in value.values():
            found.update(github_threads(item))
    elif isinstance(value, list):
        for item in value:
            found.update(github_threads(item))
    return found


def test_thread_columns_name_each_issue_and_pull_request(published):
    rows = duckdb.sql(f"SELECT thread.number, thread.pull, thread.participants FROM '{published}' "
                      "WHERE kind = 'issue'").fetchall()
    exported = {}
    for path in (FIXTURES / "github").glob("*.json"):
        text, decoder, at = path.read_text(), json.JSONDecoder(), 0
        while at < len(text.rstrip()):  # a reply file may hold several JSON values
            value, at = decoder.raw_decode(text, at)
            exported.update(github_threads(value))
            at += len(text[at:]) - len(text[at:].lstrip())
    assert {pull for _, pull, _ in rows} == {True, False}, "guard: issues and a pull request were kept"
    assert {number: pull for number, pull, _ in rows} == {number: exported[number] for number, *_ in rows}
    assert all(participants >= 1 for *_, participants in rows)


def test_transcript_and_quality_columns(published):
    session = next(json.loads(line)["sessionId"] for line in CLAUDE_SESSION.read_text().splitlines()
                   if "sessionId" in json.loads(line))
    ids = duckdb.sql(f"SELECT DISTINCT transcript_ids.session_id FROM '{published}' WHERE kind = 'transcript'")
    assert ids.fetchall() == [(session,)]
    quality = duckdb.sql(f"SELECT path, quality_scorer, quality_score FROM '{published}' "
                         "WHERE quality_score IS NOT NULL").fetchall()
    assert quality == [("googletest/samples/sample1.cc", "quality/ridge.joblib", 0.8125)]


def test_the_schema_table_in_the_docs_is_the_published_schema():
    names = re.findall(r"^\| `([a-z_]+)` \|", DOC.read_text(), flags=re.MULTILINE)
    assert names == DOCUMENTS_SCHEMA.names
