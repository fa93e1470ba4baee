"""Fixtures that more than one module of the pipeline tests builds from."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.mix.cli import main as mix
from tests.pipelines.portable_services import BUCKET, make_corpus, no_process_left, start_store


@pytest.fixture(scope="session")
def portable_reference(tmp_path_factory) -> Path:
    """The portable tests' corpus (``make_corpus``, its source on S3) built in-process into a local
    folder, once: the build that every cluster build of it must match. Its store is stopped after.
    The build runs in this process (its own working directory, no AWS_* variable: S3 through the
    options alone), sparing a `mix` process's start-up."""
    root = tmp_path_factory.mktemp("portable-reference")
    with no_process_left() as ledger, pytest.MonkeyPatch.context() as patch:
        store = start_store(ledger, root / "logs")
        store.s3_client().create_bucket(Bucket=BUCKET)
        spec = make_corpus(root / "corpus", store)
        (root / "driver").mkdir()
        patch.chdir(root / "driver")
        for name in [key for key in os.environ if key.startswith("AWS_")]:
            patch.delenv(name)
        try:
            assert mix(["build", str(spec), "--out", str(root / "out"), "--no-progress", *store.s3_args()]) == 0
        finally:
            FileSystems.set_options(PipelineOptions([]))  # the store is stopped next: forget its endpoint
    return root / "out"
