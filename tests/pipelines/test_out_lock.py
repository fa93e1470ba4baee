"""One build at a time per --out. A second `mix build` into a folder another process holds is
refused in one line naming the holder (exit 75) and changes nothing there; a lock whose holder is
gone (killed: its flock dropped by the kernel; on S3, its lease expired) is taken over with a note.
S3 runs against moto's server on 127.0.0.1, whose conditional writes (If-None-Match, If-Match) are
what the lease relies on."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from codemix.mix.cli import LOCKED
from codemix.pipelines import out_lock
from tests.pipelines.portable_services import S3_KEY_ID, S3_REGION, S3_SECRET, free_port, no_process_left

REPO_ROOT = Path(__file__).resolve().parents[2]
HOLD = ("import sys, time\n"
        "from codemix.pipelines.out_lock import hold\n"
        "with hold(sys.argv[1], [], 'mix build spec.yaml --out ' + sys.argv[1]):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(600)\n")


def holder_process(out: Path) -> subprocess.Popen:
    """Another process holding ``out``'s lock, as a running build does (the same code takes it)."""
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True,
                               cwd=REPO_ROOT)
    assert process.stdout.readline().strip() == "held"
    return process


def tiny_spec(root: Path) -> Path:
    (root / "code").mkdir()
    (root / "code" / "a.py").write_text("def f():\n    return 1\n")
    spec = {"name": "t", "sources": [{"name": "code", "type": "directory", "paths": [str(root / "code")],
                                      "license": "MIT"}],
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": {"code": 1}}},
            "tokenizer": {"vocab_size": 300, "train_sample_documents": 20}}
    (root / "spec.yaml").write_text(yaml.safe_dump(spec))
    return root / "spec.yaml"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_second_build_into_a_held_out_is_refused_naming_the_holder(tmp_path):
    out = tmp_path / "out"
    holder = holder_process(out)
    try:
        before = snapshot(out)
        result = subprocess.run([sys.executable, "-m", "codemix.mix", "build", str(tiny_spec(tmp_path)), "--out",
                                 str(out)], capture_output=True, text=True, cwd=REPO_ROOT, timeout=300, check=False)
        after = snapshot(out)
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == LOCKED == 75, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"mix build: {out} is being built by another mix build (pid {holder.pid} on "
                           f"{socket.gethostname()}, started 20")
    assert line.endswith(f"(mix build spec.yaml --out {out})); wait for it to end, or give another --out")
    assert after == before and list(before) == [out_lock.LOCK_NAME]  # not a file added or changed


def test_a_killed_holders_lock_is_taken_over_with_a_note(tmp_path):
    out = tmp_path / "out"
    holder = holder_process(out)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    left = json.loads((out / out_lock.LOCK_NAME).read_text())
    assert left["pid"] == holder.pid  # guard: the dead holder's lock is still there
    notes: list[str] = []
    with out_lock.hold(str(out), [], "mix build again", notes.append):
        mine = json.loads((out / out_lock.LOCK_NAME).read_text())
        with pytest.raises(out_lock.OutputLocked, match=f"pid {os.getpid()} on"), \
                out_lock.hold(str(out), [], "a third", notes.append):
            pass
    assert mine["pid"] == os.getpid() and mine["command"] == "mix build again"
    [note] = notes
    assert note.startswith(f"note: took over the lock of pid {holder.pid} on {socket.gethostname()}, started ")
    assert note.endswith(": that process is no longer running")
    assert not (out / out_lock.LOCK_NAME).exists()  # released at the end of the block


S3_ARGS_TEMPLATE = ("--s3_endpoint_url={endpoint}", f"--s3_access_key_id={S3_KEY_ID}",
                    f"--s3_secret_access_key={S3_SECRET}", f"--s3_region_name={S3_REGION}")


def test_on_s3_the_lease_is_exclusive_and_an_expired_one_is_taken_over(tmp_path):
    with no_process_left() as ledger:
        port = free_port()
        ledger.start("moto S3 server", [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], port,
                     tmp_path / "moto.log")
        import boto3

        endpoint = f"http://127.0.0.1:{port}"
        args = [arg.format(endpoint=endpoint) for arg in S3_ARGS_TEMPLATE]
        client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=S3_KEY_ID,
                              aws_secret_access_key=S3_SECRET, region_name=S3_REGION)
        client.create_bucket(Bucket="builds")
        out, key = "s3://builds/mix", f"mix/{out_lock.LOCK_NAME}"
        notes: list[str] = []
        with out_lock.hold(out, args, "first build", notes.append):
            held = json.loads(client.get_object(Bucket="builds", Key=key)["Body"].read())
            with pytest.raises(out_lock.OutputLocked) as refused, out_lock.hold(out, args, "second build", notes.append):
                pass
        assert held["command"] == "first build" and held["expires"] > time.time()
        assert f"(pid {os.getpid()} on {socket.gethostname()}" in str(refused.value)
        assert "Contents" not in client.list_objects_v2(Bucket="builds")  # released: the lease deleted
        # A build that died holding the lease left it; once it has expired, the next build takes it over.
        dead = out_lock.Holder(4242, "gone-host", "2026-01-01T00:00:00Z", "dead build", time.time() - 1)
        client.put_object(Bucket="builds", Key=key, Body=dead.to_json())
        with out_lock.hold(out, args, "third build", notes.append):
            taken = json.loads(client.get_object(Bucket="builds", Key=key)["Body"].read())
    assert taken["command"] == "third build"
    assert notes == [("note: took over the lock of pid 4242 on gone-host, started 2026-01-01T00:00:00Z (dead build): "
                      "its lease expired, so that build is no longer running")]
