"""Aligned plain-text tables for the command line: numbers right-aligned with thousands separators,
names left-aligned, an optional totals row under a rule. Plain text so it reads the same in a
terminal, a log file and a test."""

from __future__ import annotations

import re
from collections.abc import Sequence

Cell = str | int | float | None


def cell_text(value: Cell) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return value


def percent(part: float, whole: float) -> str:
    """``part`` as a share of ``whole``: '12.5%', '<0.1%' for a small non-zero share, '-' of nothing."""
    if not whole:
        return "-"
    share = 100 * part / whole
    return "<0.1%" if 0 < share < 0.1 else f"{share:.1f}%"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], *,
                 total: Sequence[Cell] | None = None, indent: str = "") -> str:
    """Columns as wide as their widest cell; a column is right-aligned when its cells are numbers
    (or percentages), left-aligned otherwise. ``total`` is printed under a rule."""
    body = [list(row) for row in rows] + ([list(total)] if total is not None else [])
    texts = [[cell_text(value) for value in row] for row in body]
    widths = [max([len(h), *(len(row[i]) for row in texts)]) for i, h in enumerate(headers)]
    numeric = [all(_is_number(row[i]) for row in body) and bool(body) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if right else c.ljust(w) for c, w, right in zip(cells, widths, numeric)]
        return (indent + "  ".join(parts)).rstrip()

    rule = (indent + "  ".join("-" * w for w in widths)).rstrip()
    lines = [line(headers), rule]
    lines += [line(row) for row in texts[: len(rows)]]
    if total is not None:
        lines += [rule, line(texts[-1])]
    return "\n".join(lines)


_NUMBER_TEXT = re.compile(r"^(|-|<?[\d.,]+(%|x)?)$")  # "", "-", "1,234", "12.5%", "<0.1%", "3.20x"


def _is_number(value: Cell) -> bool:
    if value is None or isinstance(value, (int, float)):
        return True
    return bool(_NUMBER_TEXT.match(value))
