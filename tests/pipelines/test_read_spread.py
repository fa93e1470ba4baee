"""A stage's read of the previous stage's Parquet spreads the files over a local runner's workers, so the steps
fused after it (judging, tokenizing) run on every worker, and reads every document once."""

from __future__ import annotations

import itertools
import json
import os
import re
from pathlib import Path

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.document import DOCUMENT_SCHEMA, Document
from codemix.pipelines import jobs, ledger, sdk_workers

MULTI_PROCESS = ["--runner=FnApiRunner", "--direct_num_workers=2", "--direct_running_mode=multi_processing"]
# Two files of ~10 MB, as a 2-worker stage writes them: Beam's ReadFromParquet read both in one worker (a few
# small files it spreads, so the case needs sizes like a build's).
FILES, MODULES = 2, 3000


def _texts(stdlib: Path):
    for path in sorted(stdlib.rglob("*.py")):
        try:
            yield path, path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):  # a few test modules of other encodings
            continue


def _write_files(folder: Path) -> set[str]:
    """The standard library's first modules as documents (~19 MB), spread over ``FILES`` files as a stage writes them."""
    texts = list(itertools.islice(_texts(Path(re.__file__).parent.parent), MODULES))
    docs = [Document(id=f"doc-{i:05d}", text=text, source="stdlib", kind="file", path=str(path), language="python")
            for i, (path, text) in enumerate(texts)]
    assert sum(len(doc.text) for doc in docs) > 15_000_000
    for shard in range(FILES):
        rows = [doc.to_row() for doc in docs[shard::FILES]]
        pq.write_table(pa.Table.from_pylist(rows, schema=DOCUMENT_SCHEMA), folder / f"docs-{shard:05d}-of-{FILES:05d}.parquet")
    return {doc.id for doc in docs}


def _where(doc: Document) -> str:
    return json.dumps([doc.id, os.getpid()])


def test_the_files_of_a_stage_are_read_by_every_worker(tmp_path):
    ids = _write_files(tmp_path)
    with sdk_workers.forked_workers(), jobs.Pipeline(options=PipelineOptions(MULTI_PROCESS)) as pipeline:
        _ = (pipeline | ledger.read_documents(f"{tmp_path}/docs-*.parquet") | beam.Map(_where)
             | beam.io.WriteToText(f"{tmp_path}/read", shard_name_template=""))
    read = [json.loads(line) for line in (tmp_path / "read").read_text().splitlines()]
    assert sorted(doc_id for doc_id, _ in read) == sorted(ids)  # each document once
    assert len({pid for _, pid in read}) == 2
