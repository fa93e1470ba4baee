"""Dedup scopes per document kind (issue 46): a commit never removes the file it added, nor a file a commit,
unless ``dedup.across_kinds`` asks; a later build places an earlier index's signatures by their kind.

The repository is pip's layout at 6d30920 (tests/filters/data/vendored/README.md), its ``LICENSE.txt`` (MIT)
added by a commit of its own: the file and the commit's patch are near-duplicates (Jaccard 0.86), which is
how requests' LICENSE was once removed by the commit that vendored it (issue 46; a commit that touches only
vendored code is now dropped as ``vendored_only`` before dedup, so pip's own license stands in for it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from codemix.config import ConfigError, load_config
from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import exact_jaccard, shingle_hashes
from codemix.document import DOCUMENT_SCHEMA, Document
from codemix.pipelines.dedup.deduplicate import run_dedup
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig
from tests.pipelines.test_build import GIT, make_git_repo

LAYOUT = Path(__file__).parents[2] / "filters" / "data" / "vendored" / "pip.json"
LICENSE = "LICENSE.txt"
RUNNER = ["--runner=FnApiRunner"]


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> dict[str, Document]:
    """The LICENSE as a file of the git source and as the commit that added it, of the commits source."""
    files = json.loads(LAYOUT.read_text(encoding="utf-8"))
    license_text = files.pop(LICENSE)
    repo = make_git_repo(tmp_path_factory.mktemp("scopes") / "pip", {p: t.encode() for p, t in files.items()})
    (repo / LICENSE).write_text(license_text, encoding="utf-8")
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "Add the license"], check=True)
    found = {}
    for kind in ("git", "commits"):
        spec = load_config(SourceConfig, {"name": kind, "type": kind, "paths": [str(repo)]})
        for doc in read_location(spec, str(repo)):
            if isinstance(doc, Document) and (doc.path == LICENSE or doc.text.startswith("Add the license")):
                found[doc.kind] = doc
    return found


def dedup(docs: list[Document], out: Path, config: DedupConfig) -> tuple[set[str], pa.Table]:
    """The ids kept by the dedup stage over ``docs``, and the signature index it wrote."""
    (out / "input").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([d.to_row() for d in docs], schema=DOCUMENT_SCHEMA), out / "input/in.parquet")
    run_dedup(str(out / "input/in.parquet"), str(out / "dedup"), config, RUNNER)
    kept = pq.read_table(sorted((out / "dedup").glob("docs-*.parquet"))).column("id").to_pylist()
    return set(kept), pq.read_table(sorted((out / "dedup" / "index").glob("*.parquet")))


def test_the_fixture_holds_a_file_and_its_commit_that_are_near_duplicates(documents):
    file, commit = documents["file"], documents["commit"]
    shingles = [shingle_hashes(doc.text, 5, False) for doc in (file, commit)]
    assert exact_jaccard(*shingles) >= DedupConfig().jaccard_threshold


def test_a_commit_never_removes_the_file_it_added(documents, tmp_path):
    kept, index = dedup(list(documents.values()), tmp_path, DedupConfig())
    assert kept == {documents["file"].id, documents["commit"].id}
    assert dict(zip(index.column("doc_id").to_pylist(), index.column("kind").to_pylist(), strict=True)) == {
        documents["file"].id: "file", documents["commit"].id: "commit"}


def test_across_kinds_compares_them(documents, tmp_path):
    kept, _ = dedup(list(documents.values()), tmp_path, DedupConfig(across_kinds=True))
    assert len(kept) == 1


def test_an_earlier_commit_never_removes_a_new_file(documents, tmp_path):
    """The earlier build's index holds the commit (with its kind); a later build reads the file alone."""
    dedup([documents["commit"]], tmp_path / "earlier", DedupConfig())
    shutil.rmtree(tmp_path / "earlier" / "input")
    glob = str(tmp_path / "earlier" / "dedup" / "index" / "*.parquet")
    kept, _ = dedup([documents["file"]], tmp_path / "later", DedupConfig(previous_indexes=[glob]))
    assert kept == {documents["file"].id}
    across = DedupConfig(previous_indexes=[glob], across_kinds=True)
    assert dedup([documents["file"]], tmp_path / "across", across)[0] == set()


def test_an_index_without_kinds_is_refused_unless_across_kinds(documents, tmp_path):
    _, index = dedup([documents["commit"]], tmp_path / "earlier", DedupConfig())
    legacy = tmp_path / "legacy" / "signatures.parquet"
    legacy.parent.mkdir()
    pq.write_table(index.drop_columns(["kind"]).replace_schema_metadata(index.schema.metadata), legacy)
    with pytest.raises(ConfigError, match=r"records no document kinds.*across_kinds: true"):
        dedup([documents["file"]], tmp_path / "later", DedupConfig(previous_indexes=[str(legacy)]))
    across = DedupConfig(previous_indexes=[str(legacy)], across_kinds=True)
    assert dedup([documents["file"]], tmp_path / "across", across)[0] == set()
