"""Which command-line options ``mix build`` accepts: its own, and Apache Beam's pipeline options.

Anything else is a typo, and is refused with the closest known name: passed on to Beam, a
``--form-stage dedup`` was dropped with a warning (Beam suggested ``--file_to_stage``) and the
build went on from the crawl, as if the option had never been given.
"""

from __future__ import annotations

import argparse
import difflib

from codemix.pipelines.options import beam_option_names, unknown_options

__all__ = ["beam_option_names", "did_you_mean", "option_names", "unknown_options"]


def option_names(parser: argparse.ArgumentParser) -> set[str]:
    return {name for action in parser._actions for name in action.option_strings}


def did_you_mean(name: str, known: set[str]) -> str:
    """' Did you mean --x?' for the closest known option, or ''. Beam spells options with '_', mix
    with '-', so both spellings of ``name`` are tried."""
    candidates = {name, name.replace("-", "_").replace("__", "--", 1), "--" + name.lstrip("-").replace("_", "-")}
    for candidate in sorted(candidates):
        if candidate in known and candidate != name:
            return f" Did you mean {candidate}?"
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return f" Did you mean {close[0]}?" if close else ""
