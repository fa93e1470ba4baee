"""FnApiRunner's local workers forked from one pre-imported server (``pipelines.sdk_workers``): the
DoFns really run in forked workers that got the runner's environment, failures surface as Beam's
own, and nothing outlives the block."""

from __future__ import annotations

import json

import apache_beam as beam
import psutil
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from codemix.pipelines import jobs, sdk_workers

MULTI_PROCESS = ["--runner=FnApiRunner", "--direct_num_workers=2", "--direct_running_mode=multi_processing"]
SERVER = f"-m {sdk_workers.__name__} serve"


def where_it_ran(x: int) -> tuple[int, int, str, bool]:
    """(x squared, the worker's pid, its parent's command line, whether Beam's control address is set)."""
    import os

    import psutil

    parent = " ".join(psutil.Process(os.getppid()).cmdline())
    return x * x, os.getpid(), parent, "CONTROL_API_SERVICE_DESCRIPTOR" in os.environ


def descendants() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def run(pipeline_args: list[str], tmp_path, name: str) -> list[tuple]:
    out = tmp_path / name
    with jobs.Pipeline(options=PipelineOptions(pipeline_args)) as pipeline:
        _ = (pipeline | beam.Create(range(200)) | beam.Reshuffle() | beam.Map(where_it_ran)
             | beam.Map(json.dumps) | beam.io.WriteToText(str(out)))
    return [tuple(json.loads(line)) for path in tmp_path.glob(f"{name}*") for line in path.read_text().splitlines()]


def test_workers_are_forked_by_the_server_and_get_the_runners_environment(tmp_path):
    before = descendants()
    with sdk_workers.forked_workers():
        first = run(MULTI_PROCESS, tmp_path, "first")
        servers = [" ".join(p.cmdline()) for p in descendants() if SERVER in " ".join(p.cmdline())]
        second = run(MULTI_PROCESS, tmp_path, "second")  # a second pipeline: the same server forks again
    assert sorted(x for x, *_ in first) == sorted(x * x for x in range(200))
    assert len(servers) == 1
    for rows in (first, second):
        assert {parent for _, _, parent, _ in rows} == set(servers)  # forked by it
        assert all(has_control for *_, has_control in rows)  # the client's environment, not the server's
    assert {pid for _, pid, _, _ in first}.isdisjoint({pid for _, pid, _, _ in second})  # fresh workers per pipeline
    assert descendants() == before  # the server and every worker ended with the block


def test_outside_the_block_beams_own_workers_run(tmp_path):
    rows = run(MULTI_PROCESS, tmp_path, "plain")
    assert rows and not [parent for _, _, parent, _ in rows if SERVER in parent]
    with sdk_workers.forked_workers():  # other runners and modes are left to Beam, inside the block too
        assert sdk_workers.runner_for(PipelineOptions(["--runner=FnApiRunner"])) is None
        assert sdk_workers.runner_for(PipelineOptions(["--runner=PortableRunner",
                                                       "--direct_running_mode=multi_processing"])) is None


def fail_on_seven(x: int) -> int:
    if x == 7:
        raise ValueError("seven is not welcome here")
    return x


def test_a_failing_dofn_fails_the_pipeline_with_its_error_and_leaves_nothing_running():
    before = descendants()
    with (sdk_workers.forked_workers(), pytest.raises(Exception, match="seven is not welcome here"),
          jobs.Pipeline(options=PipelineOptions(MULTI_PROCESS)) as pipeline):
        assert_that(pipeline | beam.Create(range(10)) | beam.Map(fail_on_seven), equal_to(list(range(10))))
    assert descendants() == before


def test_a_killed_server_is_replaced_for_the_next_pipeline(tmp_path):
    with sdk_workers.forked_workers():
        run(MULTI_PROCESS, tmp_path, "first")
        [server] = [p for p in descendants() if SERVER in " ".join(p.cmdline())]
        server.kill()
        server.wait(timeout=10)
        rows = run(MULTI_PROCESS, tmp_path, "second")
        [replacement] = [p for p in descendants() if SERVER in " ".join(p.cmdline())]
        replacement_command = " ".join(replacement.cmdline())
    assert replacement.pid != server.pid
    assert sorted(x for x, *_ in rows) == sorted(x * x for x in range(200))
    assert {parent for _, _, parent, _ in rows} == {replacement_command}


def test_a_server_that_cannot_start_leaves_beams_own_workers(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(sdk_workers, "PRELOAD", ("codemix_no_such_module",))
    with sdk_workers.forked_workers():
        rows = run(MULTI_PROCESS, tmp_path, "fallback")
    assert sorted(x for x, *_ in rows) == sorted(x * x for x in range(200))
    assert not [parent for _, _, parent, _ in rows if SERVER in parent]
    assert "fork server did not start" in caplog.text


def test_the_server_ends_promptly_while_the_driver_blocks_stop_signals(tmp_path):
    """A build's driver blocks SIGINT/SIGTERM in its threads (``pipelines.interrupts``) and children
    inherit the mask: the server must still end at once when its block ends, not after a timeout."""
    import signal
    import time

    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        with sdk_workers.forked_workers():
            run(MULTI_PROCESS, tmp_path, "masked")
            started = time.monotonic()
        assert time.monotonic() - started < 5  # stop() waits up to 10 s for a server that ignores SIGTERM
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def test_a_malformed_request_is_refused_and_the_server_serves_the_next(tmp_path):
    """A connection that sends no streams (not a client) is closed; the server goes on forking workers."""
    import socket

    with sdk_workers.forked_workers():
        run(MULTI_PROCESS, tmp_path, "first")
        [server] = [p for p in descendants() if SERVER in " ".join(p.cmdline())]
        path = server.cmdline()[server.cmdline().index("serve") + 1]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stray:
            stray.connect(path)
            stray.sendall(b"\x05\x00\x00\x00hello")  # a length and a request, but no standard streams
            stray.settimeout(15)
            assert stray.recv(4) == b""  # refused: closed without a status
        rows = run(MULTI_PROCESS, tmp_path, "second")
    assert sorted(x for x, *_ in rows) == sorted(x * x for x in range(200))


def what_the_worker_holds(x: int) -> tuple[int, bool, float]:
    """(the worker's pid, whether ``codemix.filters.gitleaks`` was imported before this call and the
    server's objects are frozen out of the collector's reach, the worker's CPU so far)."""
    import gc
    import os
    import resource
    import sys

    loaded = "codemix.filters.gitleaks" in sys.modules and gc.get_freeze_count() > 0
    sum(i * i for i in range(20_000))  # some work of the worker's own
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return os.getpid(), loaded, usage.ru_utime + usage.ru_stime


def run_holding(tmp_path, name: str) -> list[tuple]:
    out = tmp_path / name
    with jobs.Pipeline(options=PipelineOptions(MULTI_PROCESS)) as pipeline:
        _ = (pipeline | beam.Create(range(40)) | beam.Reshuffle() | beam.Map(what_the_worker_holds)
             | beam.Map(json.dumps) | beam.io.WriteToText(str(out)))
    return [tuple(json.loads(line)) for path in tmp_path.glob(f"{name}*") for line in path.read_text().splitlines()]


def test_a_shared_block_uses_the_outer_server_with_its_preloads_and_counts_its_workers_cpu(tmp_path):
    """A build opens one block with the modules its driver loaded; each stage's ``shared`` block forks
    from that server, whose workers find the modules imported, and ``cpu_seconds()`` counts the CPU
    the workers themselves measured (``getrusage`` in the worker) once they are reaped."""
    with sdk_workers.forked_workers():  # no preload: the worker imports nothing of codemix.filters
        plain = run_holding(tmp_path, "plain")
    assert plain and not any(loaded for _, loaded, _ in plain)
    before = descendants()
    with sdk_workers.forked_workers(["codemix.filters.gitleaks"]):
        assert sdk_workers.cpu_seconds() == 0  # no server until a pipeline runs
        with sdk_workers.forked_workers(shared=True):
            first = run_holding(tmp_path, "first")
        counted = sdk_workers.cpu_seconds()
        servers = [" ".join(p.cmdline()) for p in descendants() if SERVER in " ".join(p.cmdline())]
        with sdk_workers.forked_workers(shared=True):
            second = run_holding(tmp_path, "second")
        assert [" ".join(p.cmdline()) for p in descendants() if SERVER in " ".join(p.cmdline())] == servers  # one
        counted_after = sdk_workers.cpu_seconds()
    assert len(servers) == 1 and "codemix.filters.gitleaks" in servers[0].split()
    assert all(loaded for _, loaded, _ in first + second)  # preloaded by the server, before any worker forked
    # The second pipeline's workers: what the counter grew by holds at least what they measured themselves.
    own: dict[int, float] = {}
    for pid, _, cpu in second:
        own[pid] = max(own.get(pid, 0.0), cpu)  # each worker's last (largest) reading of its own CPU
    assert own and counted > 0 and counted_after - counted >= sum(own.values()) > 0
    assert sdk_workers.cpu_seconds() == 0 and descendants() == before  # the server ended with the outer block


def test_the_worker_client_needs_only_the_standard_library():
    """The client runs as ``python -I -S FILE``: no site-packages, no codemix on its path, so an import
    of anything else would fail every worker's start; the command must name the file so."""
    import ast
    import sys
    from pathlib import Path

    from codemix.pipelines import sdk_worker_client

    tree = ast.parse(Path(sdk_worker_client.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert "socket" in imported, "guard: the client's imports were read"
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)
    command = sdk_workers._ForkServer(None, "", "/tmp/socket").client_command.split()
    assert command[1:4] == ["-I", "-S", sdk_worker_client.__file__]


FORKED_DRIVER = """
import json, os, sys
import apache_beam as beam
import psutil
from apache_beam.options.pipeline_options import PipelineOptions
from codemix.pipelines import jobs, sdk_workers

def parent(x):
    import os, psutil
    return x * x, os.getppid()

from codemix.pipelines.interrupts import exit_cleanly_on_interrupt
import contextlib
# WATCHED: as ``mix build`` runs a build, in the interrupt watcher's block (a thread besides the main one)
watched = exit_cleanly_on_interrupt("interrupted") if os.environ.get("WATCHED") else contextlib.nullcontext()
with watched, sdk_workers.forked_workers(["codemix.pipelines.jobs"], start=True):
    [server] = psutil.Process().children()  # started at once, before any pipeline
    with jobs.Pipeline(options=PipelineOptions(sys.argv[1:])) as pipeline:
        _ = (pipeline | beam.Create(range(50)) | beam.Reshuffle() | beam.Map(parent)
             | beam.Map(json.dumps) | beam.io.WriteToText(os.environ["OUT"]))
    print(json.dumps({"server": server.pid, "server_command": server.cmdline(), "own_command": psutil.Process().cmdline(),
                      "server_parent": server.ppid(), "own": os.getpid(), "left": len(psutil.Process().children())}))
"""


@pytest.mark.parametrize("watched", [False, True], ids=["plain", "under_the_interrupt_watcher"])
def test_a_started_block_forks_its_server_from_the_driver_which_imports_nothing_again(tmp_path, watched):
    """``start=True`` (a build's block): the server is this process forked before any pipeline ran, so it
    has the driver's imports (its command line is the driver's, not ``-m ... serve``), and its workers run
    the pipeline; also within ``exit_cleanly_on_interrupt``, whose watcher thread ``mix build`` runs (a build
    from the CLI spawned its server, ~2 CPU s of imports again, while this test forked). A fresh driver:
    this test process has run pipelines, whose gRPC threads refuse a fork."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "OUT": str(tmp_path / "forked"), **({"WATCHED": "1"} if watched else {})}
    run_ = subprocess.run([sys.executable, "-c", FORKED_DRIVER, *MULTI_PROCESS], capture_output=True, text=True,
                          env=env, timeout=300, check=True)
    seen = json.loads(run_.stdout.strip().splitlines()[-1])
    rows = [json.loads(line) for path in tmp_path.glob("forked*") for line in path.read_text().splitlines()]
    assert seen["server_command"] == seen["own_command"] and seen["server_parent"] == seen["own"]
    assert sorted(x for x, _ in rows) == sorted(x * x for x in range(50))
    assert {parent for _, parent in rows} == {seen["server"]}  # the workers were forked by it
    assert seen["left"] == 1  # the server lives as long as its block, and only it


def test_a_process_that_ran_a_pipeline_spawns_its_server(tmp_path):
    """After a pipeline ran here (gRPC's threads), ``start=True`` does not fork this process: the block's
    server is started as a process of its own when a pipeline needs it, as without ``start``."""
    run(MULTI_PROCESS, tmp_path, "before")  # gRPC has run in this process now
    before = descendants()  # a session's loopback servers, started by earlier tests, stay
    with sdk_workers.forked_workers(start=True):
        assert descendants() == before  # nothing forked or started yet
        rows = run(MULTI_PROCESS, tmp_path, "after")
    assert sorted(x for x, *_ in rows) == sorted(x * x for x in range(200))
    assert {SERVER in parent for _, _, parent, _ in rows} == {True}


AFTER_A_PIPELINE = """
import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from codemix.pipelines import jobs, sdk_workers

print(sdk_workers._threads_fork_safe())
with jobs.Pipeline(options=PipelineOptions(["--runner=FnApiRunner"])) as pipeline:
    _ = pipeline | beam.Create([1, 2]) | beam.Map(str)
print(sdk_workers._threads_fork_safe())
"""


def test_a_process_whose_pipeline_has_ended_is_not_forked():
    """A fresh driver may be forked into the server; once a pipeline has run here it may not, though that
    pipeline has ended and left no gRPC thread (a test process in that state hung its forked server's workers)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", AFTER_A_PIPELINE], capture_output=True, text=True, timeout=300,
                         check=True).stdout.split()
    assert out == ["True", "False"]


def wait_then_square(x: int) -> int:
    import time

    time.sleep(0.02)  # waiting, not working: no CPU
    return x * x


def test_worker_profiles_count_cpu_not_the_time_spent_waiting(tmp_path, monkeypatch):
    """With ``CODEMIX_PROFILE_DIR``, each forked worker writes its cProfile there, on each thread's CPU clock:
    a DoFn that sleeps 1.2 s in all shows the sleep's calls but next to none of its seconds (a wall clock shows them
    all, which on a shared machine charges every function for its waits for a core)."""
    import pstats

    profiles = tmp_path / "profiles"
    profiles.mkdir()
    monkeypatch.setenv(sdk_workers.PROFILE_ENV, str(profiles))
    with sdk_workers.forked_workers(), jobs.Pipeline(options=PipelineOptions(MULTI_PROCESS)) as pipeline:
        squares = pipeline | beam.Create(range(60)) | beam.Reshuffle() | beam.Map(wait_then_square)
        assert_that(squares, equal_to([x * x for x in range(60)]))
    files = sorted(profiles.glob("worker-*.prof"))
    assert files
    stats = pstats.Stats(*map(str, files)).stats
    waits = [(calls, cumulative) for (path, _, name), (_, calls, _, cumulative, _) in stats.items()
             if name == "wait_then_square"]
    assert sum(calls for calls, _ in waits) == 60  # guard: the DoFn ran in the profiled workers
    assert sum(cumulative for _, cumulative in waits) < 0.3  # of the 1.2 s it slept


class CountBundles(beam.DoFn):
    """Passes elements on; each bundle it starts leaves a file in ``directory`` (workers share the disk)."""

    def __init__(self, directory: str):
        self.directory = directory

    def start_bundle(self):
        import os
        import uuid

        with open(os.path.join(self.directory, f"{os.getpid()}-{uuid.uuid4().hex}"), "w"):
            pass

    def process(self, element):
        yield element


def bundles_of(pipeline_args: list[str], tmp_path, name: str, elements: int) -> tuple[list, int, int]:
    """(the pipeline's output, the bundles of its counted step, the worker processes that ran them): ``elements``
    go through a reshuffle into the counted step, so the runner splits them into one part per worker."""
    counted, out = tmp_path / f"{name}-bundles", tmp_path / name
    counted.mkdir()
    with jobs.Pipeline(options=PipelineOptions(pipeline_args)) as pipeline:
        _ = (pipeline | beam.Create(range(elements)) | beam.Reshuffle() | beam.ParDo(CountBundles(str(counted)))
             | beam.Map(json.dumps) | beam.io.WriteToText(str(out)))
    rows = sorted(json.loads(line) for path in tmp_path.glob(f"{name}-0*") for line in path.read_text().splitlines())
    files = [path.name for path in counted.iterdir()]
    return rows, len(files), len({name.split("-")[0] for name in files})


def test_a_worker_gets_a_bundle_only_when_its_part_of_the_input_holds_elements(tmp_path):
    with sdk_workers.forked_workers():
        one = bundles_of(MULTI_PROCESS, tmp_path, "one", 1)
        many = bundles_of(MULTI_PROCESS, tmp_path, "many", 40)
    assert one[0] == [0] and many[0] == list(range(40))  # every element written once
    assert one[1:] == (1, 1)  # one element: one bundle (FnApiRunner alone sends the other worker an empty one)
    assert many[1:] == (2, 2)  # both workers still share real input


def test_busy_parts_are_those_with_elements_and_the_first_when_timers_fired():
    empty, full = {"in": [b""]}, {"in": [b"", b"\x01"]}
    assert sdk_workers.busy_parts([empty, full, {}], timers=False) == [1]
    assert sdk_workers.busy_parts([empty, full], timers=True) == [0, 1]
    assert sdk_workers.busy_parts([full, full], timers=False) == [0, 1]
    assert sdk_workers.busy_parts([empty, {}], timers=False) == [0]  # a stage with no input still runs once
