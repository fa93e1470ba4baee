"""Beam pipeline options: FnApiRunner by default, anything else passed through unchanged.

Also what the driver needs to know of the runner before any work: whether its workers share this
machine's disk (a local ``--out`` is refused otherwise), how many workers it runs, and the
filesystem options (S3 endpoint and keys, GCP project, ...) that the driver's own reads and writes
of ``--out`` must use, set before its first I/O.
"""

from __future__ import annotations

import argparse
import re

from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions, PortableOptions

from codemix.config import ConfigError
from codemix.pipelines import beam_memos

beam_memos.install()  # the driver and the workers forked from a process that imported this module

# Beam 2.77's DirectRunner first tries to download its Prism binary; FnApiRunner runs in-process
# (or in local worker processes with --direct_num_workers/--direct_running_mode) with no download.
DEFAULT_RUNNER = "FnApiRunner"
# Runners whose workers are this process or its children, so they see the driver's disk. Names are
# compared lower-cased without a "Runner" suffix, as Beam itself resolves --runner=direct.
LOCAL_RUNNERS = frozenset({"fnapi", "direct", "bundlebaseddirect", "switchingdirect", "prism", "interactive"})
_NEGATIVE_NUMBER = re.compile(r"^-\d")
# Options that size a runner's parallelism, in the order they are looked for: FnApiRunner's local
# workers, Dataflow's workers (and autoscaling ceiling), Flink's and Spark's default parallelism.
PARALLELISM_OPTIONS = ("direct_num_workers", "max_num_workers", "num_workers", "parallelism",
                       "sdk_worker_parallelism")


def with_default_runner(beam_args: list[str]) -> list[str]:
    """``beam_args`` with ``--runner=FnApiRunner`` added unless the user chose a runner."""
    if any(arg == "--runner" or arg.startswith("--runner=") for arg in beam_args):
        return list(beam_args)
    return [f"--runner={DEFAULT_RUNNER}", *beam_args]


def pipeline_options(beam_args: list[str]) -> PipelineOptions:
    return PipelineOptions(with_default_runner(beam_args))


def runner_name(beam_args: list[str]) -> str:
    args = with_default_runner(beam_args)
    for i, arg in enumerate(args):
        if arg.startswith("--runner="):
            return arg.split("=", 1)[1]
        if arg == "--runner" and i + 1 < len(args):
            return args[i + 1]
    return DEFAULT_RUNNER


def _short_runner(name: str) -> str:
    short = name.rsplit(".", 1)[-1].lower()
    return short.removesuffix("runner") if short.endswith("runner") else short


def runs_fnapi(beam_args: list[str]) -> bool:
    """Whether the runner is FnApiRunner (the default): bundles in this process or in its local workers."""
    return _short_runner(runner_name(beam_args)) == "fnapi"


def shares_local_disk(beam_args: list[str]) -> bool:
    """Whether the runner's workers see this machine's files: local runners, and a portable runner
    whose SDK harness runs in this process (``--environment_type LOOPBACK``)."""
    if _short_runner(runner_name(beam_args)) in LOCAL_RUNNERS:
        return True
    environment = (pipeline_options(beam_args).view_as(PortableOptions).environment_type or "").upper()
    return environment == "LOOPBACK"


def is_local_path(location: str) -> bool:
    return "://" not in location


def check_output_reachable(out: str, beam_args: list[str]) -> None:
    """A local ``--out`` with workers that do not share this disk would be written where the driver
    never looks (the crawl "finishes", the next stage finds no files): refuse it before any work."""
    if is_local_path(out) and not shares_local_disk(beam_args):
        raise ConfigError(
            "--out", f"{out} is a local path, but the {runner_name(beam_args)} runner's workers do not share "
            "this machine's disk, so they would write where this machine never reads",
            "give --out as storage every worker reaches (gs://bucket/prefix, s3://bucket/prefix), or run "
            "with a local runner (the default FnApiRunner)")


def worker_count(beam_args: list[str]) -> int:
    """How many workers the runner's own options ask for (``PARALLELISM_OPTIONS``), 1 when none is
    set. It sizes how finely work is split, never correctness."""
    args = with_default_runner(beam_args)
    for name in PARALLELISM_OPTIONS:
        value = _option_value(args, f"--{name}")
        if value is not None and value.lstrip("-").isdigit() and int(value) > 0:
            return int(value)
    return 1


def _option_value(args: list[str], flag: str) -> str | None:
    for i, arg in enumerate(args):
        if arg.startswith(f"{flag}="):
            return arg.split("=", 1)[1]
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
    return None


def use_filesystem_options(beam_args: list[str]) -> None:
    """Hand Beam's ``FileSystems`` the filesystem options (``--s3_endpoint_url``, keys, GCP project)
    the driver's own reads and writes need: without them Beam's S3 filesystem refuses every call
    ("Must provide one of client or options"). Call before the first driver I/O."""
    FileSystems.set_options(pipeline_options(beam_args))


def beam_option_names() -> set[str]:
    """Every option string of every ``PipelineOptions`` subclass Beam defines (runner, Dataflow,
    portable, Spark, Flink, worker, profiling, ...), as Beam's own parser would accept them."""
    from apache_beam.options.pipeline_options import _BeamArgumentParser

    parser = _BeamArgumentParser(allow_abbrev=False)
    pending, seen = list(PipelineOptions.__subclasses__()), {}
    while pending:
        cls = pending.pop()
        if str(cls) not in seen:
            seen[str(cls)] = cls
            pending += cls.__subclasses__()
    for cls in seen.values():
        try:
            cls._add_argparse_args(parser)
        except argparse.ArgumentError:
            continue  # a test subclass re-declaring an option; the first declaration stands
    return {name for name in parser._option_string_actions if name.startswith("--")}


def unknown_options(args: list[str], known: set[str]) -> list[str]:
    """Options in ``args`` (``--name`` or ``--name=value``) that are not in ``known``."""
    unknown = []
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("-") and arg != "-" and not _NEGATIVE_NUMBER.match(arg):
            name = arg.split("=", 1)[0]
            if name not in known:
                unknown.append(name)
    return unknown



# Runners that start a Java job server unless --job_endpoint names a running one: the option that
# gives its jar, and Beam's class that finds (or downloads, from Maven) the default one.
JOB_SERVER_JARS = {"flink": ("--flink_job_server_jar", "flink_runner", "FlinkJarJobServer"),
                   "spark": ("--spark_job_server_jar", "spark_runner", "SparkJarJobServer")}
JAR_CHECK_SECONDS = 10


def check_job_server(beam_args: list[str]) -> None:
    """Flink and Spark need a Beam job server: ``--job_endpoint`` of a running one, or a jar to start
    (given, cached by Beam, or downloadable from Maven). Without any, say so in one line before
    anything is submitted (Beam would print several tracebacks first)."""
    short = _short_runner(runner_name(beam_args))
    if short not in JOB_SERVER_JARS or _option_value(beam_args, "--job_endpoint"):
        return
    flag, module, name = JOB_SERVER_JARS[short]
    import importlib

    server = getattr(importlib.import_module(f"apache_beam.runners.portability.{module}"), name)
    try:
        jar = server(pipeline_options(beam_args)).path_to_jar()
    except ValueError:  # a --*_job_server_jar that is neither a file nor a URL
        raise ConfigError(flag, f"no job server jar at {_option_value(beam_args, flag)}",
                          f"give {flag}=PATH of an existing job server jar (or its URL), or "
                          "--job_endpoint=HOST:PORT of a running job server") from None
    problem = _jar_problem(jar)
    if problem:
        raise ConfigError(
            "--runner", f"{runner_name(beam_args)} needs a Beam job server, and none is available: no --job_endpoint "
            f"and no {flag} given, and the default jar {problem}",
            f"give {flag}=PATH (the jar {jar.rsplit('/', 1)[-1]}), or --job_endpoint=HOST:PORT of a running job server")


def _jar_problem(jar: str) -> str | None:
    """Why the job server jar Beam would use cannot be had: not on disk, not cached, not downloadable."""
    import os
    import urllib.request

    from apache_beam.utils.subprocess_server import JavaJarServer

    if "://" not in jar or os.path.exists(os.path.join(JavaJarServer.JAR_CACHE, jar.rsplit("/", 1)[-1])):
        return None
    try:
        with urllib.request.urlopen(urllib.request.Request(jar, method="HEAD"), timeout=JAR_CHECK_SECONDS):
            return None
    except Exception as error:  # noqa: BLE001 - any failure means Beam's download would fail too
        return f"is not cached in {JavaJarServer.JAR_CACHE} and cannot be downloaded from {jar} ({error})"
