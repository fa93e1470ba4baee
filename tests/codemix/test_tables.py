"""Aligned text tables: every column starts at the same offset on every line; numbers right-aligned."""

from __future__ import annotations

from codemix.tables import format_table, percent


def test_columns_line_up_and_numbers_align_right():
    table = format_table(["source", "read", "%"], [["stdlib", 2362, percent(11, 2362)], ["linux", 7, "-"]],
                         total=["total", 2369, percent(11, 2369)])
    lines = table.splitlines()
    assert len({len(line) for line in lines}) == 1  # every line as wide as the widest
    header, rule, first, second, _, total = lines
    assert header.index("read") + len("read") == rule.index(" ", len("source") + 2)  # header over its column
    assert first.endswith("0.5%") and second.endswith("    -") and total.startswith("total ")
    assert first.index("2,362") + len("2,362") == second.index("7") + 1 == total.index("2,369") + len("2,369")
    assert second.startswith("linux ")  # a name that ends in x stays a name, left-aligned


def test_percent_of_nothing_and_of_a_sliver():
    assert (percent(0, 0), percent(1, 10_000), percent(1, 8)) == ("-", "<0.1%", "12.5%")
