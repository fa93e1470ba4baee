"""The mixture-search section: what ``mix search`` wrote, read back and drawn.

Design notes: docs/design/dashboards.md, "dashboards/search.py".
"""

from __future__ import annotations

import html
import json
import math
import os
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from codemix.dashboards import figures
from codemix.dashboards.fit import FORMS_BY_NAME, MetricFit


@dataclass(slots=True, kw_only=True)
class SearchSummary:
    """One search directory as written: settings, proxy rows, and the fit (None while proxies run)."""

    path: str
    record: dict
    rows: list[dict]
    fit: dict | None
    messages: list[str] = field(default_factory=list)

    @property
    def sources(self) -> list[str]:
        return [s["name"] for s in self.record["sources"]]

    @property
    def objective(self) -> str:
        return self.record["objective"]

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.path))


def load_search(path: str) -> SearchSummary:
    """Read a search directory; a missing ``search.json`` is an error, a missing fit is a note."""
    record_path = os.path.join(path, "search.json")
    if not os.path.isfile(record_path):
        raise FileNotFoundError(f"{path}: no search.json (not a `mix search --out` directory)")
    with open(record_path, encoding="utf-8") as handle:
        record = json.load(handle)
    rows, messages = [], []
    proxies = os.path.join(path, "proxies.jsonl")
    if os.path.isfile(proxies):
        with open(proxies, encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
    fit = None
    fit_path = os.path.join(path, "fit.json")
    if os.path.isfile(fit_path):
        with open(fit_path, encoding="utf-8") as handle:
            fit = json.load(handle)
    else:
        messages.append(f"{path}: no fit.json yet (the search has not finished its proxies)")
    return SearchSummary(path=path, record=record, rows=rows, fit=fit, messages=messages)


# ---- figures -----------------------------------------------------------------------------------------

def weights_figure(search: SearchSummary) -> go.Figure:
    """Spec and proposal weight per source, with the feasible range as a bar behind them."""
    sources = search.sources
    bounds = {s["name"]: (s["lower"], s["upper"]) for s in search.record["sources"]}
    spec, proposal = search.fit["spec"], search.fit["proposal"]
    fig = go.Figure()
    fig.add_bar(x=sources, y=[bounds[s][1] - bounds[s][0] for s in sources], base=[bounds[s][0] for s in sources],
                name="bounds (epoch cap included)", marker_color="rgba(150,150,150,0.25)", width=0.9)
    fig.add_bar(x=sources, y=[spec["spec_weights_as_written"][s] for s in sources], name="spec", marker_color="#7f7f7f",
                width=0.3, offset=-0.32)
    fig.add_bar(x=sources, y=[proposal["weights"][s] for s in sources], name="proposal", marker_color="#1f77b4",
                width=0.3, offset=0.02)
    return figures._layout(fig, "Proposed weights vs the spec's", barmode="overlay",
                           yaxis={"title": "share of the stage's tokens", "range": [0, 1.02]})


def fit_quality_figure(search: SearchSummary) -> go.Figure:
    """Measured bits per byte against the held-out prediction, one point per proxy."""
    heldout = search.fit["fit"]["heldout"]
    measured = [row["eval"][search.objective]["bits_per_byte"] for row in search.rows]
    predicted = heldout["predicted_bpb"]
    low, high = min(measured + predicted), max(measured + predicted)
    fig = go.Figure()
    fig.add_scatter(x=[low, high], y=[low, high], mode="lines", name="y = x", line={"color": "#bbb", "dash": "dot"})
    fig.add_scatter(x=measured, y=predicted, mode="markers", name="proxies",
                    text=[f"proxy {row['proxy']}" for row in search.rows], marker={"size": 8, "color": "#1f77b4"})
    fig.add_scatter(x=measured[:1], y=predicted[:1], mode="markers", name="proxy 0 (spec)",
                    marker={"size": 11, "color": "#7f7f7f", "symbol": "diamond"})
    rho = heldout["spearman"]
    title = (f"Fit on held-out proxies: Spearman {'n/a' if rho is None else f'{rho:.3f}'}, "
             f"RMSE {heldout['rmse_bpb']:.4f} bits/byte")
    return figures._layout(fig, title, xaxis={"title": f"measured bits/byte ({search.objective})"},
                           yaxis={"title": "predicted without that proxy"})


def source_effect_figure(search: SearchSummary, colours: figures.Colours) -> go.Figure:
    """Each proxy's weight on each source against its bits per byte."""
    fig = go.Figure()
    bpb = [row["eval"][search.objective]["bits_per_byte"] for row in search.rows]
    for source in search.sources:
        fig.add_scatter(x=[row["weights"].get(source, 0.0) for row in search.rows], y=bpb, mode="markers", name=source,
                        marker={"color": colours(source), "size": 7})
    return figures._layout(fig, "Bits per byte against each source's weight",
                           xaxis={"title": "weight"}, yaxis={"title": f"bits/byte ({search.objective})"})


# ---- tables ------------------------------------------------------------------------------------------

def _cell(value, digits: int = 4) -> str:
    if value is None:
        return '<td class="num"></td>'
    return f'<td class="num">{value:.{digits}f}</td>' if isinstance(value, float) else f'<td class="num">{value:,}</td>'


def summary_table(search: SearchSummary) -> str:
    record, fit = search.record, search.fit
    config = record["config"]
    heldout = fit["fit"]["heldout"]
    outside = fit["proposal"]["sources_outside_proxy_range"]
    rows = [
        ("objective", f"bits per byte on {html.escape(search.objective)}"),
        ("proxies × steps", (f"{len(search.rows)} × {config['steps']} ({html.escape(config['model'])}, "
                            f"{record['tokens_per_step']:,} tokens a step, seed {record['train_seed']})")),
        ("proxy tokens", f"{record['tokens_per_proxy'] * len(search.rows):,} in all"),
        ("regression", (f"{fit['fit']['model']} ridge, alpha {fit['fit']['alpha']:g}, on log bits/byte "
                        f"({fit['fit']['selection']})")),
        ("held-out proxies", (f"RMSE {heldout['rmse_bpb']:.4f} bits/byte; Spearman "
                             f"{'n/a' if heldout['spearman'] is None else format(heldout['spearman'], '.3f')}")),
        ("predicted bits/byte", (f"proposal {fit['proposal']['predicted_bpb']:.4f}; "
                                f"spec {fit['spec']['predicted_bpb']:.4f} "
                                f"(measured {fit['spec']['measured_bpb']:.4f}); best proxy "
                                f"{fit['best_proxy']['bits_per_byte']:.4f} (proxy {fit['best_proxy']['proxy']})")),
        ("optimiser", html.escape(fit["optimiser"])),
        ("seed noise", seed_noise_text(fit.get("seed_noise"))),
        ("extrapolation", html.escape(f"the proposal is outside the proxies' range for {', '.join(outside)}" if outside
                                      else "none: the proposal is inside the range of weights the proxies covered")),
    ]
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<div class="card wide"><table>{body}</table></div>'


def seed_noise_text(noise: dict | None) -> str:
    if not noise:
        return "not measured (--no-seed-check)"
    ratio = "n/a" if noise["signal_to_noise"] is None else f"{noise['signal_to_noise']:.2f}"
    return (f"the spec's mixture at seeds {noise['seeds'][0]} and {noise['seeds'][1]}: "
            f"{noise['bits_per_byte'][0]:.4f} vs {noise['bits_per_byte'][1]:.4f} bits/byte (one run's sigma "
            f"{noise['sigma']:.4f}); the proxies' sd {noise['proxies_sd']:.4f}, {ratio} sigmas")


def proxies_table(search: SearchSummary) -> str:
    sets = list(search.record["config"]["eval_sets"])
    predicted = search.fit["fit"]["heldout"]["predicted_bpb"] if search.fit else [None] * len(search.rows)
    head = ("<tr><th>proxy</th>" + "".join(f"<th>{html.escape(s)}</th>" for s in search.sources) +
            "".join(f"<th>bits/byte {html.escape(s)}</th>" for s in sets) +
            "<th>held-out prediction</th><th>tokens seen</th><th>seconds</th></tr>")
    body = []
    for row, guess in zip(search.rows, predicted):
        cells = "".join(_cell(row["weights"].get(s, 0.0)) for s in search.sources)
        cells += "".join(_cell(row["eval"].get(s, {}).get("bits_per_byte")) for s in sets)
        cells += _cell(guess) + _cell(row["tokens_seen"]) + _cell(float(row["seconds"]), 1)
        body.append(f"<tr><td>{row['proxy']}{' (spec)' if row['proxy'] == 0 else ''}</td>{cells}</tr>")
    return f'<div class="card wide"><table>{head}{"".join(body)}</table></div>'


def rl_rows(search: SearchSummary, eval_set: str) -> list[tuple[str, float, bool]]:
    """(label, perplexity on ``eval_set``, predicted?) for every proxy, then the spec and the proposal."""
    out = [(f"proxy {row['proxy']}", math.exp(row["eval"][eval_set]["loss_nats"]), False)
           for row in search.rows if eval_set in row["eval"]]
    if search.fit and eval_set == search.objective:
        per_byte = search.fit["tokens_per_byte"]
        for name in ("spec", "proposal"):
            loss = search.fit[name]["predicted_bpb"] * math.log(2) / per_byte
            out.append((f"{name} (predicted)", math.exp(loss), True))
    return out


def rl_table(search: SearchSummary, fit: MetricFit, eval_set: str) -> str:
    """The RL metric each fitted form predicts at each mixture's perplexity."""
    forms = [f for f in fit.forms if f.params]
    ppl_range = (min(p.perplexity for p in fit.points), max(p.perplexity for p in fit.points))
    head = ("<tr><th>mixture</th><th>ppl</th>" + "".join(f"<th>{html.escape(f.form)}</th>" for f in forms) +
            "<th>note</th></tr>")
    body = []
    for label, ppl, _ in rl_rows(search, eval_set):
        values = [float(FORMS_BY_NAME[f.form].predict(np.array([f.params[p] for p in FORMS_BY_NAME[f.form].params]),
                                                          np.array([ppl]))[0]) for f in forms]
        outside = not ppl_range[0] <= ppl <= ppl_range[1]
        body.append(f"<tr><td>{html.escape(label)}</td>{_cell(ppl)}{''.join(_cell(v) for v in values)}"
                    f"<td>{'extrapolated: outside the calibration perplexities' if outside else ''}</td></tr>")
    caption = (f"<p>{html.escape(fit.benchmark)} / {html.escape(fit.metric)} predicted from perplexity on "
               f"{html.escape(eval_set)} (calibration perplexities {ppl_range[0]:.4g} to {ppl_range[1]:.4g}).</p>")
    return f'<div class="card wide">{caption}<table>{head}{"".join(body)}</table></div>'


def add_search(page, index: int, search: SearchSummary, fits: list[MetricFit], eval_set: str | None,
               colours: figures.Colours) -> None:
    """The section of one search: summary, weights, fit quality, source effects, proxies, RL predictions."""
    parts = page.section(f"search-{index}", f"Mixture search: {search.name}")
    for message in search.messages:
        parts.append(_message(message))
    if search.fit:
        parts += [_message(f"Warning: {warning}.") for warning in search.fit.get("warnings", [])]
        parts.append(summary_table(search))
        parts += [page.figure(weights_figure(search)), page.figure(fit_quality_figure(search))]
        parts.append(page.figure(source_effect_figure(search, colours), wide=True))
    if search.rows:
        parts.append(proxies_table(search))
    fitted = [fit for fit in fits if any(f.params for f in fit.forms)]
    if not fitted:
        parts.append(_message("No RL calibration was given (--eval and --rl, as for the RL-vs-perplexity fits), so "
                              "no RL value is predicted for the proxies."))
    elif not any(eval_set in row["eval"] for row in search.rows):
        parts.append(_message(f"The RL fits use perplexity on {eval_set!r}, which the search did not measure "
                              f"(it measured {', '.join(search.record['config']['eval_sets'])}): rerun it with "
                              f"--eval-set {eval_set}=PATH to predict RL values."))
    else:
        parts += [rl_table(search, fit, eval_set) for fit in fitted]


def _message(text: str) -> str:
    return f'<div class="card wide"><div class="message">{html.escape(text)}</div></div>'
