"""`mix build` and `mix plan` check every location before any stage (missing path, bad git ref, cut
archive, refused URL, empty object-store prefix), set aside sources no stage uses, refuse an --out
that is not a build or cannot be written, name what an S3 endpoint or a Flink/Spark job server
lacks in one paragraph, and never hang on S3. Each runs `mix` as a user does, in a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

import pytest
import yaml

from tests.pipelines.portable_services import S3_KEY_ID, S3_REGION, S3_SECRET, free_port, no_process_left

REPO_ROOT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_path("stdlib"))
REFUSED_URL = "http://127.0.0.1:9/dump.jsonl"  # the discard port: refused at once, no network needed


def mix(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemix.mix", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=env, timeout=timeout, check=False)


def write_spec(root: Path, sources: list[dict], weights: dict) -> Path:
    spec = {"name": "t", "sources": sources,
            "stages": {"short": {"sequence_length": 128, "token_budget": 1000, "weights": weights}},
            "tokenizer": {"vocab_size": 300, "train_sample_documents": 20}}
    path = root / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> dict:
    """A readable directory, and one location of each kind the crawl could not read: a missing folder,
    a real tar.gz cut short, a refused URL, a git clone URL with no such tag; and an unused source."""
    root = tmp_path_factory.mktemp("broken")
    code = root / "code"
    code.mkdir()
    (code / "textwrap.py").write_bytes((STDLIB / "textwrap.py").read_bytes())
    whole = root / "whole.tar.gz"
    with tarfile.open(whole, "w:gz") as tar:
        tar.add(STDLIB / "shlex.py", arcname="pkg/shlex.py")
    cut = root / "cut.tar.gz"
    cut.write_bytes(whole.read_bytes()[:20])
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "colorsys.py").write_bytes((STDLIB / "colorsys.py").read_bytes())
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"],
                   check=True)
    sources = [{"name": "code", "type": "directory", "paths": [str(code)]},
               {"name": "gone", "type": "directory", "paths": [str(root / "gone")]},
               {"name": "cut", "type": "archive", "paths": [str(cut)]},
               {"name": "web", "type": "dump", "paths": [REFUSED_URL]},
               {"name": "repo", "type": "git", "paths": [f"file://{repo}"], "ref": "v9.9"},
               {"name": "spare", "type": "directory", "paths": [str(root / "also-gone")]}]
    spec = write_spec(root, sources, {"code": 1, "gone": 1, "cut": 1, "web": 1, "repo": 1})
    return {"root": root, "spec": spec, "cut": cut, "repo": repo}


EXPECTED = {  # field of each unreadable location -> what its line must say
    "sources[1].paths[0]": "FileNotFoundError",
    "sources[2].paths[0]": "EOFError",
    "sources[3].paths[0]": "Connection refused",
    "sources[4].paths[0]": "no branch or tag 'v9.9'",
}


def test_build_refuses_every_unreadable_location_before_any_stage(broken):
    assert tarfile.is_tarfile(broken["root"] / "whole.tar.gz")  # guard: the cut archive was a real one
    out = broken["root"] / "out"
    result = mix("build", str(broken["spec"]), "--out", str(out))
    assert result.returncode == 1, result.stderr
    assert "mix build: preflight: a location cannot be read (checked before any stage ran)" in result.stderr
    problems = [line for line in result.stderr.splitlines() if line.startswith("  - source ")]
    assert len(problems) == len(EXPECTED)
    for field, error in EXPECTED.items():
        line = next(p for p in problems if field in p)
        assert error in line
    assert result.stderr.count("    fix: ") == len(EXPECTED) and "--allow-missing web" in result.stderr
    assert "not crawled: source(s) spare are weighted by no stage" in result.stdout
    assert "Traceback" not in result.stderr and not out.exists()


def test_plan_runs_the_same_preflight_and_says_it_as_json(broken):
    result = mix("plan", str(broken["spec"]), "--json")
    assert result.returncode == 1, result.stderr
    plan = json.loads(result.stdout)
    assert plan["schema"] == "codemix.plan/1" and [s["name"] for s in plan["sources"]][-1] == "spare"
    assert plan["stages"]["short"]["weights"]["code"] == pytest.approx(0.2)
    preflight = plan["preflight"]
    assert preflight["ok"] is False and preflight["not_crawled"] == ["spare"]
    found = {p["where"].split(" = ")[0]: p for p in preflight["problems"]}
    assert set(found) == set(EXPECTED)
    assert all(error in found[field]["error"] and found[field]["fix"] for field, error in EXPECTED.items())


def test_allowed_sources_pass_the_preflight(broken):
    allowed = [arg for name in ("gone", "cut", "web", "repo") for arg in ("--allow-missing", name)]
    result = mix("plan", str(broken["spec"]), "--json", *allowed)
    assert result.returncode == 0, result.stderr
    preflight = json.loads(result.stdout)["preflight"]
    assert preflight["ok"] is True and preflight["problems"] == [] and preflight["not_crawled"] == ["spare"]


def test_each_crawl_list_entry_is_checked_before_any_stage(broken, tmp_path):
    """A crawl list's entries are locations too: a missing folder, a cut archive and a repository
    without the ref are named by entry, before any stage, while the readable entries pass."""
    listing = tmp_path / "lists" / "mirrors.txt"
    listing.parent.mkdir()
    listing.write_text(f"# mirrors\n{broken['root'] / 'code'}\n../gone\n{broken['cut']}\n{broken['repo']}\n")
    spec = write_spec(tmp_path, [{"name": "listed", "type": "crawl_list", "paths": [str(listing)], "ref": "v9.9"}],
                      {"listed": 1})
    result = mix("plan", str(spec), "--json")
    assert result.returncode == 1, result.stderr
    problems = json.loads(result.stdout)["preflight"]["problems"]
    where = [p["where"].split(", entry ", 1)[1] for p in problems]
    assert where == [f"2 (git) {tmp_path / 'gone'}", f"3 (archive) {broken['cut']}", f"4 (git) {broken['repo']}"]
    assert all(p["where"].startswith(f"sources[0].paths[0] = {listing}, entry") for p in problems)
    gone, cut, repo = (p["error"] for p in problems)
    assert gone.startswith("FileNotFoundError") and "Error" in cut and "no commit 'v9.9'" in repo
    assert all("remove the entry from the list" in p["fix"] and "--allow-missing listed" in p["fix"] for p in problems)
    listing.write_text(f"{broken['root'] / 'code'}\n")  # the one good entry alone passes
    assert mix("plan", str(spec), "--json").returncode == 0


# --- --out -------------------------------------------------------------------------------------------


def test_a_non_empty_out_that_is_not_a_build_is_refused_naming_what_is_there(broken, tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "thesis.tex").write_text("\\section{Results}\n")
    (out / "data").mkdir()
    result = mix("build", str(broken["spec"]), "--out", str(out))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"mix: option error: --out: {out} is not empty and is not a codemix build (no codemix manifest.json, no work/ "
        "of stages): it holds data, thesis.tex. Fix: give an empty or new directory, or add --force to build into it")
    forced = mix("build", str(broken["spec"]), "--out", str(out), "--force")
    assert forced.returncode == 1 and "preflight: a location cannot be read" in forced.stderr  # past the --out check
    assert sorted(p.name for p in out.iterdir()) == ["data", "thesis.tex"]


def test_another_tools_manifest_is_not_taken_for_a_build_even_with_force(broken, tmp_path):
    """A build is recognised by its manifest's schema, not by the name manifest.json: another tool's
    manifest (a Hugging Face dataset export's, here) is refused, --force or not, and left as it was."""
    out = tmp_path / "export"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"version": 3, "files": ["train-00000.parquet"]}))
    (out / "work").mkdir()  # a work/ folder that holds no stage of a build
    (out / "work" / "notes.txt").write_text("draft\n")
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for extra in ([], ["--force"]):
        result = mix("build", str(broken["spec"]), "--out", str(out), *extra)
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines()[-1] == (
            f"mix: option error: --out: {out} holds a manifest.json that is not a codemix build's (no \"schema\": "
            "\"codemix.manifest/1\"); the build would replace it. Fix: give an empty or new directory")
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


@contextlib.contextmanager
def read_only_folder(path: Path):
    """``path`` on a read-only filesystem (a tmpfs mounted ro, as root, whom permission bits do not
    stop); chmod 555 for anyone else."""
    path.mkdir()
    if os.geteuid() != 0:
        path.chmod(0o555)
        yield path
        path.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(path)], capture_output=True,
                             check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


def test_a_read_only_out_is_refused_before_any_work(broken, tmp_path):
    with read_only_folder(tmp_path / "ro") as folder:
        with pytest.raises(OSError):
            (folder / "probe").write_text("x")  # guard: the folder really refuses writes
        result = mix("build", str(broken["spec"]), "--out", str(folder / "out"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(f"mix: option error: --out: cannot write to {folder}/out: ")


# --- object stores and job servers -------------------------------------------------------------------


def no_aws_environment(**extra: str) -> dict:
    """This environment without AWS credentials or config, the instance metadata lookup off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull, **extra}


def test_stats_on_s3_without_endpoint_options_says_what_to_pass():
    result = mix("stats", "s3://codemix-nowhere/build", env=no_aws_environment(), timeout=120)
    assert result.returncode == 1
    [paragraph] = result.stderr.strip().splitlines()
    assert paragraph.startswith("mix stats: cannot read s3://codemix-nowhere/build from Amazon S3 "
                                "(no --s3_endpoint_url given): NoCredentialsError")
    assert "--s3_endpoint_url=URL" in paragraph and "--s3_access_key_id" in paragraph


SILENT_SERVER = ("import socket, sys, time\n"
                 "s = socket.socket()\n"
                 "s.bind(('127.0.0.1', int(sys.argv[1])))\n"
                 "s.listen(64)\n"
                 "held = []\n"
                 "while True:\n"
                 "    held.append(s.accept())  # accepted, never answered\n")


PROBE_READ_SECONDS = 2  # the probe's real read wait here, set through its variable (15 s by default)


def test_stats_on_a_silent_s3_endpoint_ends_with_the_endpoint_named(tmp_path):
    """An endpoint that accepts connections and never answers (a hung store) ends the command within
    bounded waits (the probe's read wait, shortened through CODEMIX_S3_PROBE_READ_SECONDS), naming the
    endpoint, instead of Beam's minutes of retries."""
    with no_process_left() as ledger:
        port = free_port()
        ledger.start("silent S3 endpoint", [sys.executable, "-c", SILENT_SERVER, str(port)], port,
                     tmp_path / "silent.log")
        endpoint = f"http://127.0.0.1:{port}"
        result = mix("stats", "s3://bucket/build", f"--s3_endpoint_url={endpoint}", f"--s3_access_key_id={S3_KEY_ID}",
                     f"--s3_secret_access_key={S3_SECRET}", f"--s3_region_name={S3_REGION}",
                     env=no_aws_environment(CODEMIX_S3_PROBE_READ_SECONDS=str(PROBE_READ_SECONDS)), timeout=180)
    assert result.returncode == 1
    [paragraph] = result.stderr.strip().splitlines()
    assert f"from the S3 endpoint {endpoint} (--s3_endpoint_url): ReadTimeoutError" in paragraph
    assert S3_SECRET not in paragraph


def test_the_probe_reads_with_the_wait_its_variable_gives(monkeypatch):
    from codemix.pipelines.object_store import PROBE_READ_SECONDS as DEFAULT
    from codemix.pipelines.object_store import _s3_client

    args = ["--s3_endpoint_url=http://127.0.0.1:9", f"--s3_region_name={S3_REGION}"]
    monkeypatch.delenv("CODEMIX_S3_PROBE_READ_SECONDS", raising=False)
    assert _s3_client(args).meta.config.read_timeout == DEFAULT == 15
    monkeypatch.setenv("CODEMIX_S3_PROBE_READ_SECONDS", "2.5")
    assert _s3_client(args).meta.config.read_timeout == 2.5


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf", "nan"])
def test_a_probe_read_wait_that_is_not_a_positive_number_is_refused_naming_the_variable(value, monkeypatch, capsys):
    from codemix.mix.cli import main

    monkeypatch.setenv("CODEMIX_S3_PROBE_READ_SECONDS", value)
    assert main(["stats", "s3://bucket/build", "--s3_endpoint_url=http://127.0.0.1:9"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"mix: environment error: $CODEMIX_S3_PROBE_READ_SECONDS: expected a positive number of seconds, got "
        f"{value!r}. Fix: unset it for the default 15 s, or give e.g. CODEMIX_S3_PROBE_READ_SECONDS=30")


def test_plan_names_an_empty_prefix_and_a_missing_object_on_s3(tmp_path):
    with no_process_left() as ledger:
        port = free_port()
        ledger.start("moto S3 server", [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], port,
                     tmp_path / "moto.log")
        import boto3

        endpoint = f"http://127.0.0.1:{port}"
        client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=S3_KEY_ID,
                              aws_secret_access_key=S3_SECRET, region_name=S3_REGION)
        client.create_bucket(Bucket="corpus")
        client.put_object(Bucket="corpus", Key="code/textwrap.py", Body=(STDLIB / "textwrap.py").read_bytes())
        spec = write_spec(tmp_path, [
            {"name": "code", "type": "directory", "paths": ["s3://corpus/code"]},
            {"name": "empty", "type": "directory", "paths": ["s3://corpus/no-such-prefix"]},
            {"name": "dump", "type": "dump", "paths": ["s3://corpus/dumps/missing.jsonl"]}],
            {"code": 1, "empty": 1, "dump": 1})
        s3_args = (f"--s3_endpoint_url={endpoint}", f"--s3_access_key_id={S3_KEY_ID}",
                   f"--s3_secret_access_key={S3_SECRET}", f"--s3_region_name={S3_REGION}")
        result = mix("plan", str(spec), "--json", *s3_args, env=no_aws_environment())
        into_corpus = mix("build", str(spec), "--out", "s3://corpus", *s3_args, env=no_aws_environment())
        keys = [o["Key"] for o in client.list_objects_v2(Bucket="corpus").get("Contents", [])]
    assert into_corpus.returncode == 2 and keys == ["code/textwrap.py"]  # refused before anything was written
    assert into_corpus.stderr.strip().splitlines()[-1].startswith(
        "mix: option error: --out: s3://corpus is not empty and is not a codemix build (no codemix manifest.json, no "
        "work/ of stages): it holds code.")
    assert result.returncode == 1, result.stderr
    problems = {p["source"]: p for p in json.loads(result.stdout)["preflight"]["problems"]}
    assert set(problems) == {"empty", "dump"}  # the prefix with an object passes
    assert problems["empty"]["error"].startswith("no objects under this prefix")
    assert problems["dump"]["error"].startswith("no object at this location")
    assert "check the bucket and prefix" in problems["empty"]["fix"]


@pytest.mark.parametrize(("runner", "flag"), [("FlinkRunner", "--flink_job_server_jar"),
                                              ("SparkRunner", "--spark_job_server_jar")])
def test_flink_and_spark_without_a_job_server_say_so_in_one_line(tmp_path, runner, flag):
    """No jar given or cached, and Maven not reachable (a proxy on a refused loopback port stands for a
    machine without Internet): one line naming the options, before anything is submitted. The source
    is on an object store: a local one is refused first, as no remote worker could read it."""
    env = no_aws_environment(HOME=str(tmp_path), https_proxy="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
    spec = write_spec(tmp_path, [{"name": "code", "type": "directory", "paths": ["s3://bucket/src"]}], {"code": 1})
    result = mix("build", str(spec), "--out", "s3://bucket/out", f"--runner={runner}", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"mix: option error: --runner: {runner} needs a Beam job server, and none is available")
    assert f"Fix: give {flag}=PATH" in line and "--job_endpoint=HOST:PORT of a running job server" in line
    missing = mix("build", str(spec), "--out", "s3://bucket/out", f"--runner={runner}",
                  f"{flag}={tmp_path / 'no.jar'}", env=env)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines()[-1].startswith(
        f"mix: option error: {flag}: no job server jar at {tmp_path / 'no.jar'}. Fix: give {flag}=PATH")


def test_plan_and_build_run_one_list_of_checks_in_one_order(tmp_path):
    """`mix plan` runs `mix build`'s checks (``pipelines.preflight.CHECKS``) in the same order, so both
    stop at the same first mistake: here a local source on a runner whose workers cannot read it, a
    configuration mistake found before the S3 endpoint (refused at once) is ever asked."""
    env = no_aws_environment(HOME=str(tmp_path))
    spec = write_spec(tmp_path, [{"name": "code", "type": "directory", "paths": [str(tmp_path)]},
                                 {"name": "far", "type": "directory", "paths": ["s3://bucket/src"]}],
                      {"code": 1, "far": 1})
    options = ["--runner=FlinkRunner", "--s3_endpoint_url=http://127.0.0.1:9"]
    planned = mix("plan", str(spec), *options, env=env)
    built = mix("build", str(spec), "--out", "s3://bucket/out", *options, env=env)
    first = f"mix: spec error: sources[0].paths[0]: {tmp_path} is a local path, but the FlinkRunner runner's workers"
    assert built.returncode == planned.returncode == 2, (built.stderr, planned.stderr)
    assert built.stderr.strip().splitlines()[-1].startswith(first)
    assert planned.stderr.strip().splitlines()[-1] == built.stderr.strip().splitlines()[-1]
