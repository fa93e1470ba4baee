"""Fixtures that more than one module of the pipeline tests builds from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipelines.portable_services import BUCKET, make_corpus, no_process_left, run_mix, start_store


@pytest.fixture(scope="session")
def portable_reference(tmp_path_factory) -> Path:
    """The portable tests' corpus (``make_corpus``, its source on S3) built in-process into a local
    folder, once: the build that every cluster build of it must match. Its store is stopped after."""
    root = tmp_path_factory.mktemp("portable-reference")
    with no_process_left() as ledger:
        store = start_store(ledger, root / "logs")
        store.s3_client().create_bucket(Bucket=BUCKET)
        spec = make_corpus(root / "corpus", store)
        (root / "driver").mkdir()
        run_mix(["build", str(spec), "--out", str(root / "out"), "--no-progress", *store.s3_args()], root / "driver")
    return root / "out"
