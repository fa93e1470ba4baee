"""The comparison section of ``mix dash OLD NEW``: what changed between two builds, per source and stage.

The tables are ``mixtures.compare``'s, the ones ``mix diff`` prints; the page adds two charts (tokens
per stage and source, drops per reason) with the old build beside the new one.
"""

from __future__ import annotations

import html
import re

import plotly.graph_objects as go

from codemix.dashboards.builds import BuildSummary
from codemix.mixtures.compare import (
    Table,
    drops_table,
    funnel_table,
    source_drops_table,
    spec_changes,
    stages_table,
)

SIDES = (("old", "#9e9e9e"), ("new", "#1f77b4"))


def stage_documents(build: BuildSummary) -> dict[str, dict[str, int]]:
    """``{stage: {source: documents in its shards}}`` from the build's funnel."""
    return {step.removeprefix("shards: "): dict(by_source) for step, by_source in build.funnel_docs.items()
            if step.startswith("shards: ")}


def table_html(table: Table, caption: str) -> str:
    """One wide card holding ``table``; numbers right-aligned."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    rows = "".join("<tr>" + "".join(_cell(value) for value in row) + "</tr>" for row in table.rows)
    return (f'<div class="card wide"><h3>{html.escape(caption)}</h3>'
            f'<table class="comparison"><tr>{head}</tr>{rows}</table></div>')


NUMBER_TEXT = re.compile(r"^([+-]?[\d,.]+%?|<0\.1%|-)$")  # a change, a share or a missing value: right-aligned


def _cell(value) -> str:
    if value is None:
        return '<td class="num">-</td>'
    if isinstance(value, int | float):
        return f'<td class="num">{value:,}</td>'
    numeric = ' class="num"' if NUMBER_TEXT.match(str(value)) else ""
    return f"<td{numeric}>{html.escape(str(value))}</td>"


def paired_bars(labels: list[str], old: list[float], new: list[float], title: str, axis: str) -> go.Figure:
    """Grouped bars, the old build's value beside the new one's for each label."""
    fig = go.Figure([go.Bar(name=name, x=labels, y=values, marker_color=colour)
                     for (name, colour), values in zip(SIDES, (old, new))])
    fig.update_layout(title={"text": title, "font": {"size": 15}}, barmode="group", template="plotly_white",
                      height=380, yaxis_title=axis, margin={"l": 60, "r": 20, "t": 60, "b": 110})
    return fig


def tokens_figure(stages: Table) -> go.Figure:
    rows = [row for row in stages.rows if row[1] != "(all)"]
    return paired_bars([f"{row[0]} / {row[1]}" for row in rows], [row[5] or 0 for row in rows],
                       [row[6] or 0 for row in rows], "Tokens per stage and source: old vs new", "tokens")


def drops_figure(drops: Table) -> go.Figure:
    return paired_bars([row[0] for row in drops.rows], [row[1] for row in drops.rows], [row[2] for row in drops.rows],
                       "Documents dropped per reason: old vs new", "documents")


def add_comparison(page, old: BuildSummary, new: BuildSummary) -> None:
    """The section: spec changes, funnel and dedup rate per source, drops, and per stage and source the
    documents, tokens and weights."""
    parts = page.section("comparison", f"Comparison: {old.name} → {new.name}")
    changes = "".join(f"<li>{html.escape(line)}</li>" for line in spec_changes(old.manifest, new.manifest))
    parts.append(f'<div class="card wide"><h3>what changed in the spec</h3><p>old <code>{html.escape(old.path)}'
                 f"</code><br>new <code>{html.escape(new.path)}</code></p><ul>{changes}</ul></div>")
    stages = stages_table(old.manifest, new.manifest, (stage_documents(old), stage_documents(new)))
    drops = drops_table(old.manifest, new.manifest)
    parts += [page.figure(tokens_figure(stages)), page.figure(drops_figure(drops))]
    parts += [table_html(stages, "per stage and source: documents, tokens, weights"),
              table_html(funnel_table(old.manifest, new.manifest), "per source: funnel and dedup rate"),
              table_html(source_drops_table(old.manifest, new.manifest), "drops per source and reason")]
