"""Which command-line options ``mix build`` accepts: its own, and Apache Beam's pipeline options.

Anything else is a typo, and is refused with the closest known name: passed on to Beam, a
``--form-stage dedup`` was dropped with a warning (Beam suggested ``--file_to_stage``) and the
build went on from the crawl, as if the option had never been given.
"""

from __future__ import annotations

import argparse
import difflib
import re

_NEGATIVE_NUMBER = re.compile(r"^-\d")


def beam_option_names() -> set[str]:
    """Every option string of every ``PipelineOptions`` subclass Beam defines (runner, Dataflow,
    portable, Spark, Flink, worker, profiling, ...), as Beam's own parser would accept them."""
    from apache_beam.options.pipeline_options import PipelineOptions, _BeamArgumentParser

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


def option_names(parser: argparse.ArgumentParser) -> set[str]:
    return {name for action in parser._actions for name in action.option_strings}


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


def did_you_mean(name: str, known: set[str]) -> str:
    """' Did you mean --x?' for the closest known option, or ''. Beam spells options with '_', mix
    with '-', so both spellings of ``name`` are tried."""
    candidates = {name, name.replace("-", "_").replace("__", "--", 1), "--" + name.lstrip("-").replace("_", "-")}
    for candidate in sorted(candidates):
        if candidate in known and candidate != name:
            return f" Did you mean {candidate}?"
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return f" Did you mean {close[0]}?" if close else ""
