"""Google Cloud Storage and Dataflow are checked before any work, in seconds, with one paragraph naming
the service, the field and what to check, and never a credential. No Google endpoint is contacted:
the metadata server is pointed at a closed loopback port, a service-account key's token endpoint at
a loopback server the test starts, and buckets are those of gcp-storage-emulator on 127.0.0.1."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from typing import ClassVar

import pytest

from codemix.mix.cli import main as mix
from codemix.pipelines import gcp
from codemix.pipelines.object_store import ObjectStoreUnreachable
from tests.mix.test_runner_reach import write_spec

SILENT_SECONDS = 60  # how long a silent loopback endpoint keeps a request unanswered
DATAFLOW = ["--runner", "DataflowRunner", "--project", "fake-proj-123", "--region", "europe-west4",
            "--temp_location", "gs://codemix-test-bucket/tmp"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def no_google_credentials(tmp_path, monkeypatch):
    """This machine as one with no Google credentials: no key file, no gcloud login, no metadata server."""
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.delenv("STORAGE_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud"))
    monkeypatch.setenv("GCE_METADATA_IP", f"127.0.0.1:{closed_port()}")
    monkeypatch.setenv("GCE_METADATA_HOST", f"127.0.0.1:{closed_port()}")


def one_paragraph(error: str) -> str:
    lines = [line for line in error.splitlines() if line.startswith("mix build:")]
    assert len(lines) == 1 and "Traceback" not in error, error
    return lines[0]


def test_a_gs_out_without_credentials_fails_in_seconds_naming_the_field(tmp_path, capsys, no_google_credentials):
    start = time.monotonic()
    code = mix(["build", write_spec(tmp_path, ["gs://codemix-test-bucket/src"]), "--out", "gs://codemix-test-bucket/out"])
    elapsed = time.monotonic() - start
    line = one_paragraph(capsys.readouterr().err)
    # the bound (imports included, on a loaded machine); Beam's own lookup and listing took 98 s, then a traceback
    assert code == 1 and elapsed < 60, (code, elapsed)
    assert line.startswith("mix build: Google Cloud Storage: no Google Cloud credentials were found")
    assert "--out = gs://codemix-test-bucket/out needs them" in line and "GOOGLE_APPLICATION_CREDENTIALS" in line


def test_dataflow_with_a_fake_project_and_no_credentials_names_dataflow(tmp_path, capsys, no_google_credentials):
    code = mix(["build", write_spec(tmp_path, ["gs://codemix-test-bucket/src"]), "--out",
                "gs://codemix-test-bucket/out", *DATAFLOW])
    line = one_paragraph(capsys.readouterr().err)
    assert code == 1 and line.startswith("mix build: Dataflow: no Google Cloud credentials")
    assert "--project = fake-proj-123 needs them" in line


def test_dataflow_without_a_project_is_an_option_error(tmp_path, capsys, no_google_credentials):
    args = [a for a in DATAFLOW if a not in ("--project", "fake-proj-123")]
    code = mix(["build", write_spec(tmp_path, ["gs://b/src"]), "--out", "gs://b/out", *args])
    assert code == 2 and "--project: DataflowRunner needs the Google Cloud project" in capsys.readouterr().err


def test_a_missing_key_file_is_named(tmp_path, capsys, no_google_credentials, monkeypatch):
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "nowhere.json"))
    code = mix(["plan", write_spec(tmp_path, ["gs://codemix-test-bucket/src"])])
    error = capsys.readouterr().err
    assert code == 1 and f"GOOGLE_APPLICATION_CREDENTIALS names {tmp_path / 'nowhere.json'}" in error


def reply_json(handler: http.server.BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class TokenEndpoint(http.server.BaseHTTPRequestHandler):
    """OAuth 2.0's token endpoint refusing a key, as RFC 6749 section 5.2 and Google's answer it; or
    (``hang``) accepting the request and never answering."""

    hang = False
    grant = False  # answer with a token, as the endpoint does for a valid key

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.hang:
            time.sleep(SILENT_SECONDS)
            return
        refusal = {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
        body = json.dumps({"access_token": "ya29.codemix-test", "expires_in": 3600, "token_type": "Bearer"}
                          if self.grant else refusal).encode()
        reply_json(self, 200 if self.grant else 400, body)

    def log_message(self, *args):
        pass


@pytest.fixture
def service_account_key(tmp_path, no_google_credentials, monkeypatch):
    """A service-account key file made here (a fresh RSA key) whose token endpoint is a loopback server."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), TokenEndpoint)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    key = {"type": "service_account", "project_id": "fake-proj-123", "private_key_id": "f" * 40,
           "private_key": pem, "client_email": "codemix-test@fake-proj-123.iam.gserviceaccount.com",
           "client_id": "1", "token_uri": f"http://127.0.0.1:{server.server_port}/token"}
    path = tmp_path / "key.json"
    path.write_text(json.dumps(key))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    yield key
    server.shutdown()


def test_a_refused_key_is_named_and_never_printed(tmp_path, capsys, service_account_key):
    code = mix(["build", write_spec(tmp_path, ["gs://codemix-test-bucket/src"]), "--out",
                "gs://codemix-test-bucket/out", *DATAFLOW])
    captured = capsys.readouterr()
    line = one_paragraph(captured.err)
    assert code == 1 and "Dataflow: the Google Cloud credentials found (Credentials) could not be used" in line
    assert "RefreshError" in line and "invalid_grant" in line
    body = service_account_key["private_key"].splitlines()[1]
    assert body not in captured.out + captured.err and service_account_key["private_key_id"] not in captured.err


def test_a_silent_token_endpoint_is_waited_for_a_bounded_time(tmp_path, service_account_key, monkeypatch):
    monkeypatch.setattr(TokenEndpoint, "hang", True)
    monkeypatch.setattr(gcp, "READ_SECONDS", 1)
    start = time.monotonic()
    with pytest.raises(ObjectStoreUnreachable, match="could not be used: .*(Timeout|timed out)"):
        gcp.check_gcp([("--out", "gs://codemix-test-bucket/out")], [])
    assert time.monotonic() - start < SILENT_SECONDS / 2  # a 1 s read timeout, not the endpoint's silence


@pytest.fixture
def storage_emulator(monkeypatch, no_google_credentials):
    """gcp-storage-emulator (an independent implementation of the GCS JSON API) on 127.0.0.1, one bucket."""
    from gcp_storage_emulator.server import create_server

    port = closed_port()
    server = create_server("127.0.0.1", port, in_memory=True, default_bucket="codemix-present")
    server.start()
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{port}")
    yield
    server.stop()


def test_a_missing_bucket_is_named_by_its_field(storage_emulator):
    gcp.check_gcp([("--out", "gs://codemix-present/out"), ("sources[0].paths[0]", "gs://codemix-present/src")], [])
    with pytest.raises(ObjectStoreUnreachable) as refused:
        gcp.check_gcp([("--out", "gs://codemix-present/out"), ("sources[0].paths[1]", "gs://codemix-absent/src")], [])
    assert str(refused.value).startswith("Google Cloud Storage: cannot read sources[0].paths[1] = gs://codemix-absent/src: "
                                         "there is no bucket 'codemix-absent'")


def test_secret_looking_text_is_cleaned_from_messages():
    pem = "-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----"
    assert gcp.clean(f"bad key {pem} token ya29.a0AfB_abc") == "bad key <redacted> token <redacted>"


def test_a_gs_path_without_the_google_client_library_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "google.cloud.storage", None)  # as if not installed
    code = mix(["plan", write_spec(tmp_path, ["gs://codemix-test-bucket/src"])])
    error = capsys.readouterr().err
    assert code == 2 and "sources[0].paths[0]: gs://codemix-test-bucket/src needs Google Cloud Storage" in error
    assert "pip install 'apache-beam[gcp]'" in error and "Traceback" not in error


class DataflowEndpoint(http.server.BaseHTTPRequestHandler):
    """Dataflow's jobs.list answering for a project that does not exist, in Google's JSON error shape
    (https://cloud.google.com/apis/design/errors), or (``hang``) never answering."""

    hang = False
    asked: ClassVar[list[str]] = []

    def do_GET(self):
        DataflowEndpoint.asked.append(self.path)
        if self.hang:
            time.sleep(SILENT_SECONDS)
            return
        body = json.dumps({"error": {"code": 404, "status": "NOT_FOUND",
                                     "message": "Project 'fake-proj-123' not found or deleted."}}).encode()
        reply_json(self, 404, body)

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("hang", [False, True], ids=["no-such-project", "silent"])
def test_dataflow_project_is_asked_for_one_job_with_a_bounded_wait(storage_emulator, service_account_key, monkeypatch,
                                                                   hang):
    monkeypatch.setattr(TokenEndpoint, "grant", True)
    monkeypatch.setattr(DataflowEndpoint, "hang", hang)
    monkeypatch.setattr(DataflowEndpoint, "asked", [])
    monkeypatch.setattr(gcp, "READ_SECONDS", 1)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), DataflowEndpoint)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    args = [*DATAFLOW, "--temp_location", "gs://codemix-present/tmp",
            f"--dataflow_endpoint=http://127.0.0.1:{server.server_port}"]
    start = time.monotonic()
    try:
        with pytest.raises(ObjectStoreUnreachable) as refused:
            gcp.check_gcp([("--out", "gs://codemix-present/out")], args)
    finally:
        server.shutdown()
    assert time.monotonic() - start < SILENT_SECONDS / 2
    assert DataflowEndpoint.asked == ["/v1b3/projects/fake-proj-123/locations/europe-west4/jobs?pageSize=1"]
    message = str(refused.value)
    assert message.startswith("Dataflow: cannot use --project = fake-proj-123 in --region = europe-west4: ")
    assert ("it did not answer" in message) if hang else \
        ("there is no such project or region (404: Project 'fake-proj-123' not found or deleted.)" in message)
    assert "ya29.codemix-test" not in message and "Nothing was submitted" in message


def test_a_gs_object_is_fingerprinted_by_its_generation(storage_emulator):
    """The preflight's fingerprint of a gs:// file (one bounded metadata call): its generation, None when absent."""
    from google.cloud import storage

    from codemix.pipelines.fingerprints import remote_fingerprint

    storage.Client.create_anonymous_client().bucket("codemix-present").blob("dumps/a.jsonl").upload_from_string(
        b'{"content": "x = 1\\n"}\n')
    present = remote_fingerprint("gs://codemix-present/dumps/a.jsonl")
    assert isinstance(present["generation"], int)
    assert remote_fingerprint("gs://codemix-present/dumps/absent.jsonl")["generation"] is None
