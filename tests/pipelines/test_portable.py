"""Beam's portable runner with an external worker pool and an S3 store, all on 127.0.0.1 (see
portable_services.py): what a build meets on a cluster and the in-process runner hides. The workers
run in another working directory and temporary directory than the driver, reach the object store
only through the pipeline's S3 options, and everything written is read back with boto3, not Beam.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import time
from collections.abc import Iterator

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.mix.cli import main as mix
from tests.pipelines.portable_services import (
    BUCKET,
    STDLIB,
    PortableCluster,
    listing,
    local_files,
    make_corpus,
    no_process_left,
    objects,
    run_mix,
    shard_files,
    start_cluster,
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[PortableCluster]:
    """The three servers, one bucket; at teardown every process they started must be gone."""
    with no_process_left() as ledger:
        running = start_cluster(ledger, tmp_path_factory.mktemp("portable"))
        running.s3_client().create_bucket(Bucket=BUCKET)
        yield running


def where_it_ran(_) -> str:
    """The worker's pid, working directory and temporary directory, for the driver to compare with its own."""
    return json.dumps({"pid": os.getpid(), "cwd": os.getcwd(), "tmp": tempfile.gettempdir()})


def stdlib_rows() -> list[dict]:
    """Real file contents, one of them empty (an empty file is a real input, and an edge for writers)."""
    rows = [{"path": name, "text": (STDLIB / name).read_text()} for name in ("textwrap.py", "shlex.py", "colorsys.py")]
    return [*rows, {"path": "package/__init__.py", "text": ""}]


def test_workers_run_elsewhere_and_write_to_s3_through_pipeline_options(cluster):
    rows = stdlib_rows()
    options = PipelineOptions(cluster.beam_args())
    with beam.Pipeline(options=options) as pipeline:
        _ = (pipeline | "Seeds" >> beam.Create(range(4)) | "WhereItRan" >> beam.Map(where_it_ran)
             | "WriteWhere" >> beam.io.WriteToText(f"s3://{BUCKET}/smoke/where", num_shards=1))
        _ = (pipeline | "Rows" >> beam.Create(rows)
             | "WriteRows" >> beam.io.WriteToParquet(f"s3://{BUCKET}/smoke/rows", pa.schema(
                 [("path", pa.string()), ("text", pa.string())]), num_shards=2, file_name_suffix=".parquet"))
    written = objects(cluster, "smoke/")
    where = [json.loads(line) for name, data in written.items() if name.startswith("where")
             for line in data.decode().splitlines()]
    assert len(where) == 4
    assert {(w["cwd"], w["tmp"]) for w in where} == {(str(cluster.worker_cwd), str(cluster.worker_tmp))}
    assert os.getcwd() != str(cluster.worker_cwd) and tempfile.gettempdir() != str(cluster.worker_tmp)
    assert os.getpid() not in {w["pid"] for w in where}
    parquet = sorted(name for name in written if name.startswith("rows"))
    assert parquet == ["rows-00000-of-00002.parquet", "rows-00001-of-00002.parquet"]
    read_back = [row for name in parquet for row in pq.read_table(io.BytesIO(written[name])).to_pylist()]
    assert sorted(read_back, key=lambda r: r["path"]) == sorted(rows, key=lambda r: r["path"])


# ---------------------------------------------------------------------------------------------------
# `mix build` on the cluster, --out on S3, checked against the same spec built locally in-process.

def run_mix_here(args: list[str], capsys):
    """`mix ARGS` run in this process; it must succeed. Returns what it printed (.out, .err)."""
    capsys.readouterr()
    status = mix(args)
    captured = capsys.readouterr()
    assert status == 0, f"mix {' '.join(args[:2])} exited {status}:\n{captured.err[-4000:]}"
    return captured


def test_build_on_s3_matches_local(cluster, portable_reference, tmp_path, monkeypatch, capsys):
    """The same spec (its source on S3) built three times: in-process to a local directory (the
    reference, shared with test_portable_faults); into an S3 prefix by two local worker threads; then
    again into that prefix on the portable cluster. The S3 build must write shards and tokenizer byte-identical to the reference,
    count what the reference counted (a stale file read would count twice), leave nothing of the
    first attempt behind that its manifest does not list, and `mix stats` / `mix inspect` must read
    it from S3 as they read the local build."""
    spec = make_corpus(tmp_path / "corpus", cluster)
    driver_cwd = tmp_path / "driver"
    driver_cwd.mkdir()
    reference = portable_reference
    counts = json.loads((reference / "manifest.json").read_text())["counts"]
    assert counts["duplicates"] >= 2 and counts["kept"] > 0, "guard: the planted duplicates were found"

    out = f"s3://{BUCKET}/build"
    run_mix(["build", str(spec), "--out", out, "--no-progress", "--runner=FnApiRunner", "--direct_num_workers=2",
             "--direct_running_mode=multi_threading", *cluster.s3_args()], driver_cwd)
    first_attempt = listing(cluster, "build/")
    assert "manifest.json" in first_attempt
    assert any(key.endswith("-of-00002.parquet") for key in first_attempt), "guard: two workers' file names"
    time.sleep(1.1)  # S3 times have second resolution: the rebuild's objects must be newer than every old one
    rebuild_started = time.time()
    # --fresh: an unchanged rerun of a finished build would be up to date; this one rebuilds every stage.
    run_mix(["build", str(spec), "--out", out, "--no-progress", "--fresh", *cluster.beam_args()], driver_cwd)

    built = objects(cluster, "build/")
    manifest = json.loads(built["manifest.json"])
    assert manifest["counts"] == counts
    expected = shard_files(local_files(reference))
    assert expected and shard_files(built) == expected
    listed = json.dumps(manifest)
    stale = [key for key, modified in listing(cluster, "build/").items()
             if modified < int(rebuild_started) and f"{out}/{key}".rsplit(".", 1)[0] not in listed]
    assert stale == [], f"objects of the first attempt left in the prefix: {stale}"

    # The readers run in this process (a `mix` process each would only add its imports), in the driver's
    # working directory and with no AWS_* variable: S3 is reached through the options alone, as above.
    monkeypatch.chdir(driver_cwd)
    for name in [key for key in os.environ if key.startswith("AWS_")]:
        monkeypatch.delenv(name)
    stats_local = run_mix_here(["stats", str(reference)], capsys).out
    assert run_mix_here(["stats", out, *cluster.s3_args()], capsys).out == stats_local
    inspect = ["--sample", "2", "--seed", "5", "--max-chars", "300"]
    inspect_local = run_mix_here(["inspect", str(reference / "short"), *inspect], capsys).out
    inspect_s3 = run_mix_here(["inspect", f"{out}/short", *inspect, *cluster.s3_args()], capsys).out
    assert inspect_s3.replace(out, str(reference)) == inspect_local
    dash = run_mix_here(["dash", "--build", out, "--out", str(tmp_path / "dash.html"), *cluster.s3_args()], capsys)
    page = (tmp_path / "dash.html").read_text()
    # The dashboard found the S3 build's ledgers (it says so when a build has no crawled documents).
    assert "wrote" in dash.out and "no crawled documents" not in dash.out + dash.err + page
    assert "portable" in page  # the spec's name, from the manifest on S3


def test_beams_s3_filesystem_shares_one_client_per_configuration(cluster):
    """Beam would build a boto3 session and client per S3 call (~0.26 s each); codemix's package
    import makes them share one (pipelines/s3_clients.py). The calls still do what they say."""
    from apache_beam.io.filesystems import FileSystems

    from codemix.pipelines import s3_clients

    FileSystems.set_options(PipelineOptions(cluster.s3_args()))
    path = f"s3://{BUCKET}/clients/hello.txt"
    before = set(map(id, s3_clients._CLIENTS.values()))
    with FileSystems.create(path) as handle:
        handle.write(b"hello")
    assert FileSystems.exists(path) and [m.path for m in FileSystems.match([f"s3://{BUCKET}/clients/*"])[0].metadata_list] == [path]
    with FileSystems.open(path) as handle:
        assert handle.read() == b"hello"
    created = set(map(id, s3_clients._CLIENTS.values())) - before
    assert len(created) <= 1  # five calls, at most one new client (none if an earlier test made it)
    assert objects(cluster, "clients/") == {"hello.txt": b"hello"}


def test_a_directory_on_s3_reads_as_the_same_tree_on_disk_does(cluster, tmp_path):
    """The directory reader on an S3 prefix (Beam's listing, its own options) gives every file the
    outcome the local walk gives it: contents, binary and oversize drops, the .git folder skipped,
    with the same text for the same relative path."""
    from apache_beam.io.filesystems import FileSystems

    from codemix.pipelines.readers import read_counted
    from tests.pipelines.readers_fixtures import CONTENT_OUTCOMES, FILES, outcome_table, source, write_files

    tree = {**FILES, ".git/config": b"[core]\n"}
    write_files(tmp_path / "project", tree)
    client = cluster.s3_client()
    for name, data in tree.items():
        client.put_object(Bucket=BUCKET, Key=f"trees/project/{name}", Body=data)
    FileSystems.set_options(PipelineOptions(cluster.s3_args()))
    local = list(read_counted(source("directory"), str(tmp_path / "project")))
    stored = list(read_counted(source("directory"), f"s3://{BUCKET}/trees/project"))
    counts = [o for o in stored if type(o).__name__ == "ReadCount"]
    assert outcome_table([o for o in stored if o not in counts], f"s3://{BUCKET}/trees/project/") == \
        outcome_table([o for o in local if type(o).__name__ != "ReadCount"], f"{tmp_path / 'project'}/") == CONTENT_OUTCOMES
    def texts(outcomes, prefix):
        return {o.metadata["location"].removeprefix(prefix): o.text for o in outcomes if hasattr(o, "text")}

    assert texts(stored, f"s3://{BUCKET}/trees/project/") == texts(local, f"{tmp_path / 'project'}/") != {}
    assert [c.records for c in counts] == [len(FILES)]  # every file counted once; .git/ never read


def test_inputs_on_s3_are_fingerprinted_through_beams_options(cluster):
    """A resumed build reruns its crawl when an input on S3 changed: the fingerprints list the prefix
    (a directory source) or the object with the build's S3 options, not boto3's environment."""
    from apache_beam.io.filesystems import FileSystems

    from codemix.pipelines.fingerprints import location_fingerprint
    from tests.pipelines.readers_fixtures import source

    FileSystems.set_options(PipelineOptions(cluster.s3_args()))
    client = cluster.s3_client()
    client.put_object(Bucket=BUCKET, Key="prints/tree/a.py", Body=b"a = 1\n")
    client.put_object(Bucket=BUCKET, Key="prints/dump.jsonl", Body=b'{"content": "x"}\n')
    tree, dump = f"s3://{BUCKET}/prints/tree", f"s3://{BUCKET}/prints/dump.jsonl"
    before = location_fingerprint(source("directory"), tree), location_fingerprint(source("dump"), dump)
    assert before[0]["files"] == 1 and "error" not in before[0] and "error" not in before[1]
    assert location_fingerprint(source("directory"), tree) == before[0]  # unchanged input, same print
    client.put_object(Bucket=BUCKET, Key="prints/tree/b.py", Body=b"b = 2\n")
    client.put_object(Bucket=BUCKET, Key="prints/dump.jsonl", Body=b'{"content": "longer now"}\n')
    after = location_fingerprint(source("directory"), tree), location_fingerprint(source("dump"), dump)
    assert after[0]["files"] == 2 and after[0] != before[0] and after[1] != before[1]
