"""Plotly figures, one function per chart; each takes loaded data and returns a ``go.Figure``.

Colours are stable per name (a source, a run) across every chart of a page, so "stdlib" is the
same colour in the funnel, the drop reasons and the length histogram.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

from codemix.dashboards.builds import LENGTH_EDGES, BuildSummary
from codemix.dashboards.fit import FORMS_BY_NAME, MetricFit
from codemix.dashboards.runs import EvalRow, RLRow, Scalar

PALETTE = qualitative.Plotly + qualitative.D3 + qualitative.Dark24
# Languages and licenses: a palette of 24 well-separated colours of its own.
CATEGORY_PALETTE = qualitative.Dark24
TOP_CATEGORIES = 12  # languages or licenses shown by name; the rest are summed as "other"
FORM_DASH = {"log_linear": "solid", "power_law": "dash", "sigmoid": "dot"}
FORM_COLOUR = {"log_linear": "#1f77b4", "power_law": "#d62728", "sigmoid": "#2ca02c"}


class Colours:
    """A fixed colour per name, handed out in the order names are first asked for."""

    def __init__(self, palette: list[str] = PALETTE):
        self._palette = palette
        self._assigned: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name not in self._assigned:
            self._assigned[name] = self._palette[len(self._assigned) % len(self._palette)]
        return self._assigned[name]


def _layout(fig: go.Figure, title: str, *, height: int = 380, **kwargs) -> go.Figure:
    # The title sits just above the plot area, under the mode bar (which takes the top ~30 px).
    fig.update_layout(title={"text": title, "font": {"size": 15}, "x": 0, "xref": "paper", "y": 1, "yref": "paper",
                             "yanchor": "bottom", "pad": {"b": 12}},
                      template="plotly_white", height=height, margin={"l": 60, "r": 20, "t": 75, "b": 50},
                      legend={"font": {"size": 11}})
    fig.update_layout(**kwargs)
    return fig


def _si(value: float) -> str:
    """1234567 -> "1.23M"."""
    for unit, scale in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def _sources(build: BuildSummary) -> list[str]:
    return sorted({s for by_source in build.funnel_docs.values() for s in by_source})


def funnel(build: BuildSummary, colours: Colours, what: str) -> go.Figure:
    """Documents (``what="docs"``) or tokens per source through read, crawl, filter, dedup and shards."""
    steps = build.funnel_docs if what == "docs" else build.funnel_tokens
    labels = {step: step if what == "docs" or step.startswith("shards") else f"{step} (≈)" for step in steps}
    fig = go.Figure()
    for source in _sources(build):
        fig.add_trace(go.Funnel(name=source, y=[labels[s] for s in steps], marker={"color": colours(source)},
                                x=[steps[s].get(source, 0) for s in steps], textinfo="value+percent initial",
                                texttemplate="%{value:.3s}"))
    title = ("Documents per source: read → crawled → filtered → deduplicated → shards" if what == "docs" else
             "Tokens per source (≈: bytes × the source's tokens per byte in its shards)")
    return _layout(fig, title, height=420, funnelmode="stack")


def _stacked_bars(counts: collections.Counter, colours: Colours, title: str, *, horizontal: bool,
                  axis_title: str, height: int = 380) -> go.Figure:
    """Bars per category (key[0]) stacked by source (key[1]), largest category first."""
    totals: collections.Counter = collections.Counter()
    for (category, _), n in counts.items():
        totals[category] += n
    order = [c for c, _ in totals.most_common()]
    fig = go.Figure()
    for source in sorted({s for _, s in counts}):
        values = [counts.get((c, source), 0) for c in order]
        axes = {"y": order[::-1], "x": values[::-1], "orientation": "h"} if horizontal else {"x": order, "y": values}
        fig.add_trace(go.Bar(name=source, marker={"color": colours(source)}, **axes))
    totals_text = {"text": [f"{totals[c]:,}" for c in order], "mode": "text", "showlegend": False, "hoverinfo": "skip"}
    if horizontal:  # the totals, so a reason dwarfed by a bigger one still reads
        fig.add_trace(go.Scatter(y=order[::-1], x=[totals[c] for c in order][::-1], textposition="middle right",
                                 **{**totals_text, "text": totals_text["text"][::-1]}))
    else:
        fig.add_trace(go.Scatter(x=order, y=[totals[c] for c in order], textposition="top center", **totals_text))
    if not counts:
        fig.add_annotation(text="none recorded", showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    axis = {"xaxis_title": axis_title} if horizontal else {"yaxis_title": axis_title}
    return _layout(fig, title, height=height, barmode="stack", **axis)


def drop_reasons(build: BuildSummary, colours: Colours) -> go.Figure:
    counts = collections.Counter({(f"{stage}: {reason}", source): n for (stage, reason, source), n
                                  in build.dropped.items()})
    height = max(320, 60 + 22 * len({c for c, _ in counts}))
    return _stacked_bars(counts, colours, "Dropped documents per stage and reason", horizontal=True,
                         axis_title="documents", height=height)


def redactions(build: BuildSummary, colours: Colours) -> go.Figure:
    return _stacked_bars(build.redactions, colours, "Redacted values per type (crawl)", horizontal=False,
                         axis_title="values replaced")


def duplicates_and_quarantine(build: BuildSummary, colours: Colours) -> go.Figure:
    counts = collections.Counter({(f"duplicate: {method}", source): n for (method, source), n
                                  in build.duplicates.items()})
    counts.update({("quarantined", source): n for source, n in build.quarantined.items()})
    return _stacked_bars(counts, colours, "Duplicates removed (per method) and records quarantined",
                         horizontal=False, axis_title="documents")


def mix(build: BuildSummary, colours: Colours, column: int, name: str) -> go.Figure:
    """Kept bytes per source split by language (``column=1``) or license (``column=2``), the
    ``TOP_CATEGORIES`` largest by name and the rest as "other"; ``colours`` should be per category."""
    by_value: collections.Counter = collections.Counter()
    for key, n in build.kept.bytes.items():
        by_value[(key[0], key[column])] += n
    per_value: collections.Counter = collections.Counter()
    for (_, value), n in by_value.items():
        per_value[value] += n
    top = [v for v, _ in per_value.most_common(TOP_CATEGORIES)]
    grouped: collections.Counter = collections.Counter()
    docs: collections.Counter = collections.Counter()
    for key, n in build.kept.docs.items():
        docs[(key[0], key[column] if key[column] in top else "other")] += n
    for (source, value), n in by_value.items():
        grouped[(source, value if value in top else "other")] += n
    sources = sorted({s for s, _ in grouped})
    fig = go.Figure()
    for value in top + (["other"] if any(v == "other" for _, v in grouped) else []):
        fig.add_trace(go.Bar(name=value, y=sources, orientation="h", x=[grouped.get((s, value), 0) / 1e6
                                                                         for s in sources],
                             customdata=[docs.get((s, value), 0) for s in sources],
                             marker={"color": "#bbb" if value == "other" else colours(value)},
                             hovertemplate=f"{value}: %{{x:.2f}} MB, %{{customdata}} documents<extra>%{{y}}</extra>"))
    return _layout(fig, f"{name.capitalize()} mix of kept documents (UTF-8 MB)", barmode="stack",
                   xaxis_title="MB", height=max(300, 120 + 40 * len(sources), 130 + 20 * len(fig.data)),
                   legend_traceorder="normal")


def length_histogram(build: BuildSummary, colours: Colours) -> go.Figure:
    """Kept documents' UTF-8 length per source, and all crawled documents, on a log axis."""
    fig = go.Figure()
    centres = np.sqrt(LENGTH_EDGES[:-1] * LENGTH_EDGES[1:])
    crawled = sum(build.crawled_lengths.values(), np.zeros(len(centres), dtype=int))
    used = np.nonzero(crawled + sum(build.kept.lengths.values(), np.zeros(len(centres), dtype=int)))[0]
    window = slice(max(used.min() - 1, 0), used.max() + 2) if used.size else slice(0, 0)
    if used.size:
        fig.add_trace(go.Scatter(name="crawled (all sources)", x=centres[window], y=crawled[window],
                                 line={"color": "#888", "dash": "dot", "shape": "hvh"}))
    for source, counts in sorted(build.kept.lengths.items()):
        fig.add_trace(go.Scatter(name=f"kept: {source}", x=centres[window], y=counts[window], mode="lines",
                                 line={"color": colours(source), "shape": "hvh"}))
    return _layout(fig, "Document length (UTF-8 bytes, ten bins a decade)", xaxis_type="log",
                   xaxis_title="bytes", yaxis_title="documents")


def quality_scores(build: BuildSummary, colours: Colours) -> go.Figure:
    """Learned-quality score histogram per source and language, with the share each kept in the legend."""
    fig = go.Figure()
    for source, languages in sorted(build.quality.items()):
        for language, entry in sorted(languages.items()):
            edges = np.asarray(entry["histogram"]["edges"])
            kept = entry["kept"] / entry["scored"] if entry["scored"] else 0.0
            fig.add_trace(go.Scatter(x=(edges[:-1] + edges[1:]) / 2, y=entry["histogram"]["counts"],
                                     mode="lines", line={"shape": "hvh", "color": colours(f"{source}/{language}")},
                                     name=f"{source}/{language} (kept {kept:.0%})"))
    return _layout(fig, "Learned quality: scores per source and language", xaxis_title="score",
                   yaxis_title="documents")


def token_budgets(build: BuildSummary, colours: Colours) -> go.Figure:
    """Each shard stage's tokens per source, stacked, against its token budget."""
    stages = build.manifest.get("stages", {})
    names = list(stages)
    fig = go.Figure()
    for source in sorted({s for info in stages.values() for s in info.get("tokens_per_source", {})}):
        fig.add_trace(go.Bar(name=source, x=names, marker={"color": colours(source)},
                             y=[stages[n].get("tokens_per_source", {}).get(source, 0) for n in names]))
    budgets = [stages[n].get("token_budget") for n in names]
    fig.add_trace(go.Scatter(name="token budget", x=names, y=budgets, mode="markers+text",
                             marker={"symbol": "line-ew-open", "size": 60, "line": {"width": 3, "color": "#222"}},
                             text=[_budget_label(stages[n]) for n in names], textposition="top center"))
    return _layout(fig, "Token budget vs tokens in shards, per stage", barmode="stack", yaxis_title="tokens",
                   yaxis_rangemode="tozero")


def _budget_label(info: dict) -> str:
    budget, tokens = info.get("token_budget"), info.get("tokens", 0)
    if not budget:
        return ""
    return f"{tokens / budget:.0%} of {_si(budget)}"


def bits_per_byte(rows: list[EvalRow], colours: Colours) -> go.Figure:
    """Bits per byte per checkpoint, one line per (run, held-out set); x is tokens seen where known."""
    fig = go.Figure()
    by_line: dict[tuple[str, str], list[EvalRow]] = collections.defaultdict(list)
    for row in rows:
        if row.bits_per_byte is not None:
            by_line[(row.run_id, row.eval_set)].append(row)
    use_tokens = all(r.tokens_seen is not None for line in by_line.values() for r in line)
    dashes = ("solid", "dash", "dot", "dashdot", "longdash")
    eval_sets = sorted({e for _, e in by_line})
    for (run, eval_set), line in sorted(by_line.items()):
        line.sort(key=lambda r: r.step)
        fig.add_trace(go.Scatter(
            name=f"{run} · {eval_set}", mode="lines+markers", y=[r.bits_per_byte for r in line],
            x=[r.tokens_seen if use_tokens else r.step for r in line], customdata=[r.step for r in line],
            line={"color": colours(run), "dash": dashes[eval_sets.index(eval_set) % len(dashes)]},
            hovertemplate="step %{customdata}: %{y:.4f} bits/byte<extra>%{fullData.name}</extra>"))
    return _layout(fig, "Bits per byte per checkpoint and held-out set (colour: run, dash: set)",
                   xaxis_title="tokens seen" if use_tokens else "step", yaxis_title="bits per byte")


def rl_curves(rows: list[RLRow], benchmark: str, metric: str, colours: Colours) -> go.Figure:
    fig = go.Figure()
    for run in sorted({r.run_id for r in rows}):
        line = sorted((r for r in rows if r.run_id == run), key=lambda r: r.step)
        fig.add_trace(go.Scatter(name=run, x=[r.step for r in line], y=[r.value for r in line],
                                 mode="lines+markers", line={"color": colours(run)}))
    return _layout(fig, f"RL: {benchmark} / {metric}", xaxis_title="step", yaxis_title=metric, height=320)


def scalar_curves(scalars: list[Scalar], tag: str, colours: Colours) -> go.Figure:
    fig = go.Figure()
    for run in sorted({s.run_id for s in scalars}):
        line = sorted((s for s in scalars if s.run_id == run), key=lambda s: s.step)
        fig.add_trace(go.Scatter(name=run, x=[s.step for s in line], y=[s.value for s in line],
                                 mode="lines+markers" if len(line) < 60 else "lines", line={"color": colours(run)}))
    return _layout(fig, f"TensorBoard: {tag}", xaxis_title="iteration", yaxis_title=tag, height=320)


def perplexity_vs_metric(fit: MetricFit, eval_set: str, target_ppl: float | None, colours: Colours) -> go.Figure:
    """Checkpoints (metric against perplexity, log axis), each fitted form with its bootstrap band,
    and the predictions at the target perplexity."""
    fig = go.Figure()
    for run in sorted({p.run_id for p in fit.points}):
        points = [p for p in fit.points if p.run_id == run]
        fig.add_trace(go.Scatter(
            name=run, x=[p.perplexity for p in points], y=[p.value for p in points], mode="markers",
            marker={"color": colours(run), "size": 9}, customdata=[[p.step, p.loss_nats] for p in points],
            hovertemplate="step %{customdata[0]}<br>ppl %{x:.4f} (loss %{customdata[1]:.4f})<br>"
                          "%{y:.4f}<extra>%{fullData.name}</extra>"))
    observed = [p.perplexity for p in fit.points] + ([target_ppl] if target_ppl is not None else [])
    grid = np.geomspace(min(observed), max(observed), 60) if observed else np.array([])
    for form_fit in fit.forms:
        if form_fit.params:
            _add_form(fig, form_fit, grid, band=form_fit.form == "log_linear")
    if target_ppl is not None:
        fig.add_vline(x=target_ppl, line={"dash": "dash", "color": "#555"})
        # Annotations on a log axis take log10(x), unlike shapes and traces.
        fig.add_annotation(x=math.log10(target_ppl), xref="x", y=1, yref="paper", yanchor="top", xanchor="left",
                           xshift=4, text=f"target ppl {target_ppl:g}", showarrow=False, font={"size": 11})
    return _layout(fig, f"{fit.benchmark} / {fit.metric} vs {eval_set} perplexity", height=440,
                   xaxis_type="log", xaxis_title=f"perplexity on {eval_set} (log axis)", yaxis_title=fit.metric)


def _add_form(fig: go.Figure, form_fit, grid: np.ndarray, *, band: bool) -> None:
    """The fitted curve and its prediction at the target; its bootstrap band shown only if ``band``
    (three overlapping bands hide the points), else one legend click away."""
    form = FORMS_BY_NAME[form_fit.form]
    group, colour = form_fit.form, FORM_COLOUR[form_fit.form]
    r2 = "n/a" if form_fit.r2 is None else f"{form_fit.r2:.3f}"
    if form_fit.band_ppl:
        fig.add_trace(go.Scatter(
            name=f"{form.name} 95% band", legendgroup=group, showlegend=False, visible=True if band else "legendonly",
            hoverinfo="skip",
            x=form_fit.band_ppl + form_fit.band_ppl[::-1], y=form_fit.band_high + form_fit.band_low[::-1],
            fill="toself", fillcolor=colour, opacity=0.15, line={"width": 0}))
    params = np.array([form_fit.params[p] for p in form.params])
    fig.add_trace(go.Scatter(name=f"{form.name} (R² {r2})", legendgroup=group, mode="lines",
                             x=grid, y=form.predict(params, grid), line={"color": colour, "dash": FORM_DASH[form.name]}))
    prediction = form_fit.prediction
    if prediction and all(v is not None and math.isfinite(v) for v in (prediction["low"], prediction["high"])):
        fig.add_trace(go.Scatter(
            name=f"{form.name} at target", legendgroup=group, showlegend=False,
            x=[prediction["ppl"]], y=[prediction["value"]], mode="markers",
            marker={"color": colour, "size": 12, "symbol": "diamond"},
            error_y={"type": "data", "symmetric": False, "array": [prediction["high"] - prediction["value"]],
                     "arrayminus": [prediction["value"] - prediction["low"]]}))
