"""Repositories as they are (issue 46), through the real git reader and the Filter stage: vendored trees
dropped with their evidence (or kept as their own repository), licenses per folder, repository names,
and a git call that never gets an answer (a loopback server the test starts)."""

from __future__ import annotations

import json
import pickle
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline

from codemix.config import load_config
from codemix.document import Document, Dropped, Quarantined
from codemix.filters.config import FiltersConfig
from codemix.pipelines.filter import Filter
from codemix.pipelines.ledger import DOCS, DROPPED
from codemix.pipelines.readers import read_location, repository_names
from codemix.pipelines.readers.commits import _TreeReader
from codemix.pipelines.readers.git import GIT_TIMEOUT_S, GitTimeout
from codemix.sources import SourceConfig
from tests.pipelines.test_build import GIT, make_git_repo

LAYOUTS = Path(__file__).parents[1] / "filters" / "data" / "vendored"  # README.md there names each commit


def real_layout(root: Path, name: str) -> Path:
    files = json.loads((LAYOUTS / f"{name}.json").read_text(encoding="utf-8"))
    return make_git_repo(root, {path: text.encode() for path, text in files.items()})


def source(location: Path, **fields) -> SourceConfig:
    return load_config(SourceConfig, {"name": "repos", "type": "git", "paths": [str(location)], **fields})


def filtered(location: Path, vendored: str = "drop") -> tuple[dict[str, Document], dict[str, Dropped]]:
    """The repository at ``location`` read and judged by the Filter stage (default thresholds, no prose
    or decontamination: only the repository-level decisions are under test)."""
    docs = [o for o in read_location(source(location), str(location)) if isinstance(o, Document)]
    config = load_config(FiltersConfig, {"vendored": vendored, "natural_language": {"enabled": False},
                                         "decontamination": {"enabled": False}, "amalgamation": False,
                                         })
    out = location.parent / f"filtered-{vendored}"
    out.mkdir()
    with BeamTestPipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
        outputs = pipeline | beam.Create(docs) | Filter(config)
        outputs[DOCS] | "Kept" >> beam.Map(keep_record, out / "kept")  # SDK workers may be other processes
        outputs[DROPPED] | "Dropped" >> beam.Map(keep_record, out / "dropped")
    kept, dropped = (load_records(out / name) for name in ("kept", "dropped"))
    return ({doc.path: doc for doc in kept}, {d.location.rsplit(":", 1)[-1]: d for d in dropped})


def keep_record(record, folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    (folder / uuid.uuid4().hex).write_bytes(pickle.dumps(record))


def load_records(folder: Path) -> list:
    return [pickle.loads(path.read_bytes()) for path in folder.iterdir()] if folder.exists() else []


@pytest.fixture(scope="module")
def pip(tmp_path_factory):
    return real_layout(tmp_path_factory.mktemp("layouts") / "pip", "pip")


def test_vendored_files_dropped_with_the_evidence(pip):
    kept, dropped = filtered(pip)
    vendored = {path: d.detail for path, d in dropped.items() if d.reason == "vendored"}
    assert vendored["src/pip/_vendor/certifi/core.py"] == "vendor.txt at src/pip/_vendor/"
    assert "src/pip/_vendor/requests/api.py" in vendored
    assert "src/pip/__init__.py" in kept and kept["src/pip/__init__.py"].license == "MIT"


def test_vendored_tree_kept_as_its_own_repository_with_its_own_license(pip):
    kept, dropped = filtered(pip, vendored="own_repository")
    assert not [d for d in dropped.values() if d.reason == "vendored"]
    requests = kept["api.py"]  # its path inside its own repository
    assert requests.repo == "pip:src/pip/_vendor/requests" and requests.license == "Apache-2.0"
    assert kept["src/pip/__init__.py"].license == "MIT"
    # certifi's own MPL-2.0, which the default permissive policy rejects (pip's MIT would have let it through)
    assert dropped["src/pip/_vendor/certifi/core.py"].reason == "license_not_allowed"


@pytest.mark.parametrize(("folders", "expected"), [
    (("checkouts", "widget", "repo"), "widget"),  # generic folders skipped
    (("mirror", "octo+widget", "repo"), "octo/widget"),  # a fetched mirror's owner+name
    (("srv", "octo+widget.git"), "octo/widget"),
])
def test_repository_named_from_its_folders(tmp_path, folders, expected):
    repo = make_git_repo(tmp_path.joinpath(*folders), {"a.py": b"print('a')\n"})
    docs = [o for o in read_location(source(repo), str(repo)) if isinstance(o, Document)]
    assert docs and {doc.repo for doc in docs} == {expected}


def test_repository_named_by_the_spec(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"a.py": b"print('a')\n"})
    spec = load_config(
        SourceConfig, {"name": "repos", "type": "git", "paths": [{"path": str(repo), "name": "octo/widget"}]})
    assert spec.paths == [str(repo)]
    docs = [o for o in read_location(spec, str(repo)) if isinstance(o, Document)]
    assert docs and {doc.repo for doc in docs} == {"octo/widget"}


def test_the_manifest_lists_each_paths_repository_name(tmp_path):
    """``repository_names`` is what the build manifest lists per source (``inputs[].repositories``): the
    same names the reader gives the documents, for every path of a git and of a directory source."""
    mirror = make_git_repo(tmp_path / "octo+widget" / "repo", {"a.py": b"print('a')\n"})
    named = make_git_repo(tmp_path / "checkout" / "repo", {"b.py": b"print('b')\n"})
    spec = load_config(SourceConfig, {"name": "repos", "type": "git",
                                      "paths": [str(mirror), {"path": str(named), "name": "acme/gadget"}]})
    names = repository_names(spec)
    assert names == {str(mirror): "octo/widget", str(named): "acme/gadget"}
    for location in spec.paths:
        assert {o.repo for o in read_location(spec, location) if isinstance(o, Document)} == {names[location]}
    folders = load_config(SourceConfig, {"name": "tree", "type": "directory", "paths": [str(tmp_path / "checkout")]})
    assert repository_names(folders) == {str(tmp_path / "checkout"): str(tmp_path.name)}  # "checkout" is generic


@pytest.fixture
def silent_server():
    """A loopback TCP server that accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def partial_clone_of_a_silent_remote(root: Path, port: int) -> Path:
    """A repository lacking b.py's blob, whose promisor remote is the loopback server that never answers."""
    repo = make_git_repo(root, {"a.py": b"print('a')\n", "b.py": b"print('b')\n"})
    blob = subprocess.run([*GIT, "-C", str(repo), "rev-parse", "HEAD:b.py"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # the copy lacks b.py's blob
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialclone", "origin"),
                       ("remote.origin.url", f"http://127.0.0.1:{port}/widget.git"),
                       ("remote.origin.promisor", "true")):
        subprocess.run([*GIT, "-C", str(repo), "config", key, value], check=True)
    return repo


def test_a_remote_that_never_answers_ends_the_read_with_the_fault_named(tmp_path, silent_server):
    """A partial clone whose promisor remote never answers: with ``fetch_missing_blobs`` the blob read
    would wait forever; it ends after ``git_timeout_s`` with one quarantine naming the call and the fix."""
    repo = partial_clone_of_a_silent_remote(tmp_path / "widget", silent_server)
    spec = source(repo, fetch_missing_blobs=True, git_timeout_s=2)
    started = time.monotonic()
    outcomes = list(read_location(spec, str(repo)))
    assert time.monotonic() - started < 30
    quarantined = [o for o in outcomes if isinstance(o, Quarantined)]
    assert len(quarantined) == 1
    error = quarantined[0].error
    assert "gave no answer within 2 s" in error and f"127.0.0.1:{silent_server}" in error
    assert "fetch_missing_blobs: false" in error


def test_a_commit_touching_only_vendored_code_is_dropped_with_a_reason(pip, tmp_path):
    """The commits source reads the repository's vendoring evidence at its newest commit: a commit that
    changes only ``src/pip/_vendor/`` is ``vendored_only`` (pip's "Update vendored Requests to 2.34.2",
    19064ced2, did so); one that changes pip's own code is kept. The texts added are pip's at 6d30920."""
    repo = tmp_path / "pip"
    subprocess.run([*GIT, "clone", "-q", str(pip), str(repo)], check=True)
    subprocess.run([*GIT, "-C", str(repo), "remote", "remove", "origin"], check=True)
    api = repo / "src/pip/_vendor/requests/api.py"
    api.write_text(api.read_text() + REQUESTS_API_MORE)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qam", "Update vendored Requests to 2.34.2"], check=True)
    own = repo / "src/pip/__init__.py"
    own.write_text(own.read_text() + "\n\n__all__ = ['main']\n")
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qam", "Export main from pip's package"], check=True)
    spec = load_config(SourceConfig, {"name": "history", "type": "commits", "paths": [str(repo)]})
    outcomes = list(read_location(spec, str(repo)))
    assert len(outcomes) == 3  # the fixture's first commit and the two above
    by_message = {o.text.split("\n", 1)[0] if isinstance(o, Document) else o.reason: o for o in outcomes}
    assert "vendored_only" in by_message and "Export main from pip's package" in by_message
    assert by_message["Export main from pip's package"].repo == "pip"


# The lines after the fixture's first 12 of pip's src/pip/_vendor/requests/api.py (6d30920).
REQUESTS_API_MORE = '''
from typing import TYPE_CHECKING

from . import sessions
from .models import Response

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from . import _types as _t


def request(
    method: str, url: _t.UriType, **kwargs: Unpack[_t.RequestKwargs]
) -> Response:
    """Constructs and sends a :class:`Request <Request>`.

    :param method: method for the new :class:`Request` object: ``GET``, ``OPTIONS``, ``HEAD``, ``POST``, ``PUT``, ``PATCH``, or ``DELETE``.
    :param url: URL for the new :class:`Request` object.
    :param params: (optional) Dictionary, list of tuples or bytes to send
        in the query string for the :class:`Request`.
    :param data: (optional) Dictionary, list of tuples, bytes, or file-like
        object to send in the body of the :class:`Request`.
    :param json: (optional) A JSON serializable Python object to send in the body of the :class:`Request`.
    :param headers: (optional) Dictionary of HTTP Headers to send with the :class:`Request`.
    :param cookies: (optional) Dict or CookieJar object to send with the :class:`Request`.
    :param files: (optional) Dictionary of ``'name': file-like-objects`` (or ``{'name': file-tuple}``) for multipart encoding upload.
        ``file-tuple`` can be a 2-tuple ``('filename', fileobj)``, 3-tuple ``('filename', fileobj, 'content_type')``
        or a 4-tuple ``('filename', fileobj, 'content_type', custom_headers)``, where ``'content_type'`` is a string
'''


def test_a_commit_history_whose_remote_never_answers_ends_too(tmp_path, silent_server):
    """``git log -p`` fetches the blob the partial clone lacks from its promisor: bounded the same way."""
    repo = partial_clone_of_a_silent_remote(tmp_path / "widget", silent_server)
    spec = load_config(SourceConfig, {"name": "history", "type": "commits", "paths": [str(repo)], "git_timeout_s": 2})
    started = time.monotonic()
    outcomes = list(read_location(spec, str(repo)))
    assert time.monotonic() - started < 30
    quarantined = [o for o in outcomes if isinstance(o, Quarantined)]
    assert len(quarantined) == 1 and "gave no answer within 2 s" in quarantined[0].error


def test_the_commit_readers_tree_and_blob_reads_are_bounded_too(tmp_path, silent_server):
    """The commits reader reads trees and license files with its own ``cat-file``: an object the partial clone
    lacks is fetched from the silent remote, and the read ends after ``git_timeout_s`` naming the call."""
    repo = partial_clone_of_a_silent_remote(tmp_path / "widget", silent_server)
    missing = subprocess.run([*GIT, "-C", str(repo), "rev-parse", "HEAD:b.py"], capture_output=True, text=True,
                             check=True).stdout.strip()
    token = GIT_TIMEOUT_S.set(2)
    started = time.monotonic()
    try:
        with _TreeReader(str(repo / ".git")) as objects, pytest.raises(GitTimeout, match="gave no answer within 2 s"):
            objects.read(missing)
    finally:
        GIT_TIMEOUT_S.reset(token)
    assert time.monotonic() - started < 30


def test_the_filter_stage_and_the_commits_reader_find_the_same_copies(tmp_path):
    """difftastic (9e2d60c, tests/filters/data/vendored/README.md) laid out as a git repository: the Filter stage
    drops a grammar folder without a LICENSE (its own package.json inside ``vendored_parsers/``), the queries beside
    the grammars and a sample file that says where it came from, each with its evidence, and keeps difftastic's own
    ``src/main.rs``; the commits reader's tree read finds the same folders."""
    from codemix.pipelines.readers.git import vendored_trees_at

    repo = real_layout(tmp_path / "difftastic", "difftastic")
    kept, dropped = filtered(repo)
    assert "src/main.rs" in kept
    for path, evidence in [("vendored_parsers/highlights/ada.scm", "beside 4 vendored trees"),
                           ("vendored_parsers/tree-sitter-janet-simple/grammar.js", "inside vendored_parsers/"),
                           ("sample_files/r_1.R", "This file is from https://github.com/rstudio/shiny")]:
        assert dropped[path].reason == "vendored" and evidence in dropped[path].detail, dropped[path]
    head = subprocess.run([*GIT, "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    folders = {tree.folder for tree in vendored_trees_at(str(repo / ".git"), head, "Wilfred/difftastic")}
    assert {"vendored_parsers/highlights", "vendored_parsers/tree-sitter-janet-simple"} <= folders
