"""Input and code fingerprints change exactly when what a stage would read changes."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest

from codemix.pipelines.fingerprints import git_fingerprint, local_fingerprint, remote_fingerprint, tree_digest
from tests.pipelines.readers_fixtures import git, make_git_repo


def test_a_local_file_is_fingerprinted_by_size_and_mtime(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("one\n")
    before = local_fingerprint(str(path))
    os.utime(path, ns=(1, 1))
    touched = local_fingerprint(str(path))
    path.write_text("one\ntwo\n")
    assert len({str(before), str(touched), str(local_fingerprint(str(path)))}) == 3


def test_a_directory_changes_with_any_file_below_it_but_not_with_vcs_metadata(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    (tmp_path / ".git").mkdir()
    before = local_fingerprint(str(tmp_path))
    (tmp_path / ".git" / "index").write_text("changed")
    assert local_fingerprint(str(tmp_path)) == before
    (tmp_path / "pkg" / "m.py").write_text("x = 2\n")
    assert local_fingerprint(str(tmp_path))["tree"] != before["tree"]
    assert before["files"] == 1


def test_a_missing_path_names_its_error(tmp_path):
    assert local_fingerprint(str(tmp_path / "gone"))["error"].startswith("FileNotFoundError")


def test_git_is_fingerprinted_by_the_commit_its_ref_resolves_to(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    head = git(repo, "rev-parse", "HEAD")
    assert git_fingerprint(str(repo), "HEAD")["commit"] == head
    (repo / "new.py").write_text("y = 1\n")
    git(repo, "add", "new.py")
    git(repo, "commit", "-q", "-m", "more")
    assert git_fingerprint(str(repo), "HEAD")["commit"] == git(repo, "rev-parse", "HEAD") != head
    assert git_fingerprint(str(repo), "v9.9") == {"location": str(repo), "ref": "v9.9", "unresolved": 1}


def test_the_code_digest_follows_sources_not_bytecode(tmp_path):
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("A = 1\n")
    before = tree_digest(tmp_path)
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-311.py").write_text("compiled")
    assert tree_digest(tmp_path) == before
    (tmp_path / "pkg" / "a.py").write_text("A = 1  # a comment is a change\n")
    assert tree_digest(tmp_path) != before


@pytest.fixture
def served(tmp_path):
    """A local HTTP server over tmp_path (loopback only: no network)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_url_is_fingerprinted_by_what_its_server_says(tmp_path: Path, served):
    (tmp_path / "dump.jsonl").write_text("{}\n")
    before = remote_fingerprint(f"{served}/dump.jsonl")
    assert before["length"] == "3" and before["last_modified"]  # this server sends no ETag
    (tmp_path / "dump.jsonl").write_text("{}\n{}\n")
    assert remote_fingerprint(f"{served}/dump.jsonl") != before
    assert "error" in remote_fingerprint(f"{served}/missing.jsonl")
