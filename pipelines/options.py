"""Beam pipeline options: FnApiRunner by default, anything else passed through unchanged."""

from __future__ import annotations

from apache_beam.options.pipeline_options import PipelineOptions

# Beam 2.77's DirectRunner first tries to download its Prism binary; FnApiRunner runs in-process
# (or in local worker processes with --direct_num_workers/--direct_running_mode) with no download.
DEFAULT_RUNNER = "FnApiRunner"


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
