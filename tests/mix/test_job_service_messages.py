"""A worker pool that dies as the job service starts a job's SDK worker: the job service logs the
refused StartWorker with a traceback, and Beam's PortableRunner relays it into the driver's logging.
The messages here are the real ones a `mix build` received (tests/fixtures/beam_job_service), fed
through Beam's own ``PipelineResult`` from a recorded stream instead of the job service's gRPC one.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from apache_beam.portability.api import beam_job_api_pb2 as api
from apache_beam.runners.portability.portable_runner import PipelineResult

from codemix.mix.cli import configure_logging, service_failure
from codemix.pipelines import jobs

FIXTURE = Path(__file__).parents[1] / "fixtures" / "beam_job_service" / "start_worker_refused.stderr.txt"
LOG_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ ERROR root: ", re.MULTILINE)


def relayed_messages() -> list[str]:
    """The job service's messages in the captured stderr (each a log record of the driver's root logger)."""
    text = FIXTURE.read_text()
    relayed = LOG_PREFIX.split(text[:text.index("mix build: ")])[1:]
    assert len(relayed) == 2 and all("StartWorker" in m and "Connection refused" in m for m in relayed)
    return [message.rstrip("\n") for message in relayed]


def recorded_failed_job(messages: list[str]) -> PipelineResult:
    """Beam's PortableRunner result for a job that sent ``messages`` (errors) and then failed."""
    stream = [api.JobMessagesResponse(message_response=api.JobMessage(
        importance=api.JobMessage.JOB_MESSAGE_ERROR, message_text=text)) for text in messages]
    states = [api.JobStateEvent(state=api.JobState.RUNNING), api.JobStateEvent(state=api.JobState.FAILED)]
    return PipelineResult(None, "filter-job", iter(stream), iter(states))


def pool_args(port: int) -> list[str]:
    return ["--runner=PortableRunner", "--environment_type=EXTERNAL", f"--environment_config=127.0.0.1:{port}"]


@pytest.fixture
def silent_port() -> int:
    """A loopback port nobody listens on (the OS's pick, closed again): the killed pool's."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fail_with_the_pool_gone(port: int) -> jobs.ServiceLost:
    watch = jobs._Watch(jobs.services(pool_args(port)), stall_seconds=1.0)
    with pytest.raises(jobs.ServiceLost) as lost:
        jobs.wait_watched(recorded_failed_job(relayed_messages()), watch)
    return lost.value


def test_the_relayed_traceback_stays_off_the_terminal_and_the_pool_is_named(capsys, silent_port):
    configure_logging(0, None)
    paragraph = service_failure(fail_with_the_pool_gone(silent_port), pool_args(silent_port))
    stderr = capsys.readouterr().err
    assert "Traceback" not in stderr and "StartWorker" not in stderr, stderr
    assert paragraph.startswith(f"the build stopped: the Beam worker pool at 127.0.0.1:{silent_port} "
                                "(--environment_config) has not answered for 1 s (--stall-timeout)")
    assert "Traceback" not in paragraph


def test_with_verbose_the_job_services_traceback_is_shown_in_full(capsys, silent_port):
    configure_logging(1, None)
    fail_with_the_pool_gone(silent_port)
    stderr = capsys.readouterr().err
    for message in relayed_messages():
        assert message in stderr


def test_a_job_failure_while_every_service_answers_is_the_jobs_own_error(capsys):
    configure_logging(0, None)
    with socket.socket() as pool:
        pool.bind(("127.0.0.1", 0))
        pool.listen()
        watch = jobs._Watch(jobs.services(pool_args(pool.getsockname()[1])), stall_seconds=1.0)
        with pytest.raises(RuntimeError, match="failed in state FAILED") as failed:
            jobs.wait_watched(recorded_failed_job(relayed_messages()), watch)
    assert not isinstance(failed.value, jobs.ServiceLost)
    assert "StartWorker" in str(failed.value) and "Traceback" not in capsys.readouterr().err
