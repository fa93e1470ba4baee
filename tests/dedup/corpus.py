"""Real-ish code for the dedup tests: Python standard-library modules on this machine, and edited copies."""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

# Modules that are single files from 3.11 on and at least a few kilobytes, so shingles are plentiful.
STDLIB_MODULES = (
    "difflib.py",
    "textwrap.py",
    "shlex.py",
    "fractions.py",
    "heapq.py",
    "calendar.py",
    "csv.py",
    "gettext.py",
    "pprint.py",
    "glob.py",
    "tokenize.py",
    "string.py",
    "statistics.py",
    "ftplib.py",
)


def stdlib_texts(count: int) -> dict[str, str]:
    """``count`` stdlib module sources by file name; fails (not skips) if this Python lacks them."""
    root = Path(sysconfig.get_path("stdlib"))
    texts = {name: (root / name).read_text(encoding="utf-8") for name in STDLIB_MODULES if (root / name).is_file()}
    if len(texts) < count:
        raise AssertionError(f"need {count} stdlib modules under {root}, found {len(texts)}")
    return dict(list(texts.items())[:count])


def edit_lines(text: str, edits: int, seed: int) -> str:
    """A copy with ``edits`` non-blank lines replaced by new code, the way a fork or vendored copy drifts."""
    lines = text.splitlines()
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    rng = random.Random(seed)
    for n, i in enumerate(rng.sample(candidates, edits)):
        lines[i] = f"    patched_value_{seed}_{n} = compute_{n}(context, retries={n})"
    return "\n".join(lines) + "\n"


def true_jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0
