"""Command lines as codemix prints them: the values of options that hold credentials redacted.

Light on purpose (no Beam): ``mix build`` formats its resume hint before it enters
``pipelines.interrupts``, which must come before any import that starts threads.
"""

from __future__ import annotations

import re
import shlex

# Option names that say their value is a credential: never printed, logged or recorded.
SECRET_NAME = re.compile(r"key|secret|token|password|credential", re.IGNORECASE)
REDACTED = "<redacted>"


def redacted(args: list[str]) -> list[str]:
    """``args`` with the value of every option whose name says key, secret, token, password or
    credential replaced by ``REDACTED`` (``--name=value`` and ``--name value`` alike)."""
    shown, hide_next = [], False
    for arg in args:
        name, has_value, _ = arg.partition("=")
        if hide_next and not arg.startswith("--"):
            shown.append(REDACTED)
        elif arg.startswith("--") and SECRET_NAME.search(name) and has_value:
            shown.append(f"{name}={REDACTED}")
        else:
            shown.append(arg)
        hide_next = arg.startswith("--") and not has_value and bool(SECRET_NAME.search(name))
    return shown


def command_line(args: list[str]) -> str:
    """A command line to print (a resume hint), its secret option values redacted, with a note to give them again."""
    shown = redacted(args)
    note = " (redacted values: give them again)" if shown != list(args) else ""
    return shlex.join(shown) + note
