"""One self-contained HTML page: the data-pipeline funnel of each build (and, for two builds, what
changed between them), held-out bits per byte,
TensorBoard scalars, RL results, and how the RL metrics follow code perplexity.

The page embeds plotly.js (``include_plotlyjs=True`` on the first figure) and loads nothing from
the network, so it opens from a laptop, an air-gapped cluster or a CI artifact alike. The fitted
parameters go to ``<page>.fits.json`` beside it (``dashboard.html`` → ``dashboard.fits.json``).
"""

from __future__ import annotations

import datetime
import html
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field

import plotly.graph_objects as go

from codemix.dashboards import figures
from codemix.dashboards.builds import BuildSummary, load_build
from codemix.dashboards.compare import add_comparison
from codemix.dashboards.fit import MetricFit, fit_all, fits_json
from codemix.dashboards.health import health_card
from codemix.dashboards.runs import (
    Loaded,
    default_eval_set,
    input_files,
    parse_tensorboard_arg,
    read_eval_rows,
    read_rl_rows,
    read_tensorboard,
    tensorboard_eval_rows,
)
from codemix.dashboards.search import SearchSummary, add_search, load_search

# TensorBoard tags plotted: Megatron's losses and perplexities (its event files hold dozens of others).
TENSORBOARD_TAG_WORDS = ("loss", "ppl")
MAX_TENSORBOARD_TAGS = 12
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


@dataclass(slots=True, kw_only=True)
class DashboardResult:
    """What ``write_dashboard`` wrote and what it could not show, in the words the page uses."""

    html_path: str
    fits_path: str
    eval_set: str | None
    sections: list[str]
    figures: int
    fits: list[MetricFit]
    messages: list[str] = field(default_factory=list)

    @property
    def fit_messages(self) -> list[str]:
        """Why a (benchmark, metric) got no fit, e.g. fewer than three joined checkpoints."""
        return [fit.message for fit in self.fits if fit.message]


def fits_path_for(out_html: str) -> str:
    root, _ = os.path.splitext(out_html)
    return f"{root}.fits.json"


class Page:
    """Sections of HTML; the first figure added carries plotly.js, the others reuse it."""

    def __init__(self, title: str):
        self.title = title
        self.sections: list[tuple[str, str, list[str]]] = []
        self.figures = 0

    def section(self, anchor: str, heading: str) -> list[str]:
        parts: list[str] = []
        self.sections.append((anchor, heading, parts))
        return parts

    def figure(self, fig: go.Figure, *, wide: bool = False) -> str:
        self.figures += 1
        div = fig.to_html(full_html=False, include_plotlyjs=self.figures == 1, div_id=f"figure-{self.figures}",
                          config=PLOTLY_CONFIG)
        return f'<div class="card{" wide" if wide else ""}">{div}</div>'

    def render(self, messages: list[str], inputs: list[str]) -> str:
        nav = "".join(f'<a href="#{a}">{html.escape(h)}</a>' for a, h, _ in self.sections)
        notes = "".join(f"<li>{html.escape(m)}</li>" for m in messages)
        body = "".join(f'<section id="{a}"><h2>{html.escape(h)}</h2><div class="grid">{"".join(p)}</div></section>'
                       for a, h, p in self.sections)
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        sources = "".join(f"<li><code>{html.escape(i)}</code></li>" for i in inputs)
        return PAGE.format(title=html.escape(self.title), stamp=stamp, nav=nav, body=body, sources=sources,
                           notes=f'<ul class="notes">{notes}</ul>' if notes else "")


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, sans-serif; margin: 0 24px 48px; color: #222; background: #fafafa; }}
header {{ padding: 16px 0 4px; }} h1 {{ margin: 0 0 4px; font-size: 24px; }}
nav a {{ margin-right: 16px; font-size: 14px; }} .stamp {{ color: #666; font-size: 13px; }}
details {{ font-size: 13px; color: #444; }}
h2 {{ border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 32px; }}
.grid {{ display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 16px; }}
.card {{ background: #fff; border: 1px solid #e4e4e4; border-radius: 6px; padding: 8px; min-width: 0; }}
.wide {{ grid-column: 1 / -1; }}
.notes {{ background: #fff8e1; border: 1px solid #f0d58c; border-radius: 6px; padding: 8px 8px 8px 28px; }}
.message {{ background: #fff3f3; border: 1px solid #e8b4b4; border-radius: 6px; padding: 12px; font-size: 15px; }}
table {{ border-collapse: collapse; font-size: 13px; width: 100%; }}
th, td {{ border-bottom: 1px solid #eee; padding: 4px 8px; text-align: left; vertical-align: top; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
</style></head>
<body><header><h1>{title}</h1><div class="stamp">generated {stamp}</div>
<details><summary>inputs</summary><ul>{sources}</ul></details><nav>{nav}</nav></header>
{notes}
{body}
</body></html>
"""


def _summary_table(build: BuildSummary) -> str:
    counts = build.manifest.get("counts", {})
    cells = [("read", counts.get("read")), ("kept", counts.get("kept")),
             ("dropped", sum(counts.get("dropped", {}).values())), ("duplicates", counts.get("duplicates")),
             ("quarantined", counts.get("quarantined")), ("redacted values", sum(counts.get("redactions", {}).values()))]
    head = "".join(f"<th>{name}</th>" for name, _ in cells)
    row = "".join(f'<td class="num">{"" if v is None else f"{v:,}"}</td>' for _, v in cells)
    return (f'<div class="card wide"><table><tr><th>build</th>{head}</tr><tr><td><code>{html.escape(build.path)}'
            f"</code></td>{row}</tr></table></div>")


def add_build(page: Page, index: int, build: BuildSummary, colours: figures.Colours) -> None:
    parts = page.section(f"build-{index}", f"Data pipeline: {build.name}")
    parts += [_summary_table(build), health_card(build.manifest)]
    parts += [page.figure(figures.funnel(build, colours, "docs")), page.figure(figures.funnel(build, colours, "tokens"))]
    parts.append(page.figure(figures.drop_reasons(build, colours), wide=True))
    parts += [page.figure(figures.redactions(build, colours)),
              page.figure(figures.duplicates_and_quarantine(build, colours)),
              page.figure(figures.mix(build, figures.Colours(figures.CATEGORY_PALETTE), 1, "language")),
              page.figure(figures.mix(build, figures.Colours(figures.CATEGORY_PALETTE), 2, "license")),
              page.figure(figures.length_histogram(build, colours)), page.figure(figures.token_budgets(build, colours))]
    if build.quality:
        parts += [page.figure(figures.quality_scores(build, colours)), _quality_examples(build)]


def _quality_examples(build: BuildSummary) -> str:
    """Per source and language: kept share, p10/p50/p90 and the document scored nearest each."""
    rows = "".join(
        f"<tr><td>{html.escape(source)}</td><td>{html.escape(language)}</td>"
        f'<td class="num">{entry["kept"]:,} / {entry["scored"]:,}</td><td class="num">p{ex["percentile"]} = '
        f'{ex["score"]}</td><td><code>{html.escape(ex["path"])}</code>{"" if ex["kept"] else " (dropped)"}</td></tr>'
        for source, languages in sorted(build.quality.items()) for language, entry in sorted(languages.items())
        for ex in entry["examples"])
    return ('<div class="card wide"><table><tr><th>source</th><th>language</th><th>kept / scored</th>'
            f"<th>score</th><th>example document</th></tr>{rows}</table></div>")


def _message(text: str) -> str:
    return f'<div class="card wide"><div class="message">{html.escape(text)}</div></div>'


def add_training(page: Page, eval_rows: list, scalars: list, colours: figures.Colours) -> None:
    parts = page.section("training", "Held-out evaluation and TensorBoard")
    if any(row.bits_per_byte is not None for row in eval_rows):
        parts.append(page.figure(figures.bits_per_byte(eval_rows, colours), wide=True))
    else:
        parts.append(_message("No eval rows with bits_per_byte were given (--eval FILE.jsonl)."))
    tags = sorted({s.tag for s in scalars if any(w in s.tag.lower() for w in TENSORBOARD_TAG_WORDS)})
    for tag in tags[:MAX_TENSORBOARD_TAGS]:
        parts.append(page.figure(figures.scalar_curves([s for s in scalars if s.tag == tag], tag, colours)))


def add_rl(page: Page, rl_rows: list, colours: figures.Colours) -> None:
    parts = page.section("rl", "RL results")
    keys = sorted({(r.benchmark, r.metric) for r in rl_rows})
    for benchmark, metric in keys:
        rows = [r for r in rl_rows if (r.benchmark, r.metric) == (benchmark, metric)]
        parts.append(page.figure(figures.rl_curves(rows, benchmark, metric, colours)))
    if not keys:
        parts.append(_message("No RL results were given (--rl FILE.jsonl or FILE.csv)."))


def _number(value, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}g}"


def fit_table(fit: MetricFit, target_ppl: float | None) -> str:
    head = ("<tr><th>form</th><th>formula</th><th>parameters</th><th>R²</th><th>bootstrap fits</th>"
            f"<th>at target ppl {_number(target_ppl)} [95% band]</th><th>note</th></tr>")
    rows = []
    for form in fit.forms:
        params = ", ".join(f"{k} = {_number(v)}" for k, v in form.params.items())
        p = form.prediction
        at = "" if not p else f"{_number(p['value'])} [{_number(p['low'])}, {_number(p['high'])}]" + (
            " (extrapolated)" if p["extrapolated"] else "")
        rows.append(f"<tr><td>{form.form}</td><td>{html.escape(form.formula)}</td><td>{params}</td>"
                    f'<td class="num">{_number(form.r2, 3)}</td><td class="num">{form.bootstrap_fits}</td>'
                    f"<td>{at}</td><td>{html.escape(form.message or '')}</td></tr>")
    return f'<div class="card wide"><table>{head}{"".join(rows)}</table></div>'


def add_fits(page: Page, fits: list[MetricFit], eval_set: str | None, target_ppl: float | None,
             unmatched: int, colours: figures.Colours) -> None:
    parts = page.section("ppl-vs-rl", "RL metric vs code perplexity")
    if eval_set is None:
        parts.append(_message("No held-out eval rows were given, so there is no perplexity to fit RL metrics to."))
        return
    if unmatched:
        parts.append(_message(f"{unmatched} RL row(s) have no {eval_set} eval row at the same run and step."))
    if not fits:
        parts.append(_message("No RL results were given, so there is nothing to fit against perplexity."))
    for fit in fits:
        if fit.message:
            parts.append(_message(fit.message))
        if fit.points:
            parts.append(page.figure(figures.perplexity_vs_metric(fit, eval_set, target_ppl, colours), wide=True))
        if fit.forms:
            parts.append(fit_table(fit, target_ppl))


def load_scalars(tensorboard_dirs: list[str]) -> list:
    scalars = []
    for arg in tensorboard_dirs:
        run_id, path = parse_tensorboard_arg(arg)
        scalars += read_tensorboard(path, run_id)
    return scalars


def _write_atomically(path: str, text: str) -> None:
    """Readers (the ``--serve`` server, a browser) never see a half-written page."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=directory, delete=False, suffix=".tmp") as handle:
        handle.write(text)
    os.chmod(handle.name, 0o644)
    os.replace(handle.name, path)


@dataclass(slots=True, kw_only=True)
class DashboardInputs:
    """What a dashboard page is drawn from, and where it is written."""

    out_html: str
    builds: list[str] = field(default_factory=list)
    eval_jsonl: list[str] = field(default_factory=list)
    rl_results: list[str] = field(default_factory=list)
    tensorboard_dirs: list[str] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)  # mix search --out directories
    target_ppl: float | None = None
    eval_set: str | None = None
    title: str = "codemix dashboard"
    seed: int = 0
    n_boot: int = 1000

    def watched(self) -> list[str]:
        """The files whose change changes the page."""
        return input_files(self.eval_jsonl + self.rl_results + [f"{b.rstrip('/')}/manifest.json" for b in self.builds],
                           self.tensorboard_dirs)


def write_dashboard(inputs: DashboardInputs, *,
                    build_loader: Callable[[str], BuildSummary] = load_build) -> DashboardResult:
    """Read every input, fit the RL metrics to perplexity and write the page and its ``.fits.json``.

    ``eval_set`` picks the held-out set whose perplexity the fits use (default: one named "code",
    else the first; Megatron's TensorBoard validation loss when no eval rows are given). Inputs that
    cannot be shown (a build without a manifest, a half-written line) become messages on the page
    and in the result, never an exception. ``searches`` are ``mix search --out`` directories, each a
    section whose RL predictions use these fits; a page of searches alone leaves out the training
    and RL sections that would only say no runs were given.
    """
    builds, eval_jsonl, rl_results, searches = inputs.builds, inputs.eval_jsonl, inputs.rl_results, inputs.searches
    tensorboard_dirs, out_html, target_ppl, eval_set = (inputs.tensorboard_dirs, inputs.out_html, inputs.target_ppl,
                                                        inputs.eval_set)
    title, seed, n_boot = inputs.title, inputs.seed, inputs.n_boot
    messages: list[str] = []
    loaded_builds = []
    for path in builds:
        try:
            loaded_builds.append(build_loader(path))
        except FileNotFoundError as error:
            messages.append(str(error))
    loaded_searches: list[SearchSummary] = []
    for path in searches:
        try:
            loaded_searches.append(load_search(path))
        except FileNotFoundError as error:
            messages.append(str(error))
    evals: Loaded = read_eval_rows(eval_jsonl)
    rl: Loaded = read_rl_rows(rl_results)
    scalars = load_scalars(tensorboard_dirs)
    messages += evals.messages("eval") + rl.messages("RL") + [m for b in loaded_builds for m in b.messages]
    eval_rows = evals.rows + tensorboard_eval_rows(scalars)
    chosen = eval_set or default_eval_set(eval_rows)
    if eval_set and not any(r.eval_set == eval_set for r in eval_rows):
        messages.append(f"no eval rows for eval set {eval_set!r}; sets found: "
                        f"{sorted({r.eval_set for r in eval_rows})}")
    fits, unmatched = fit_all(rl.rows, eval_rows, chosen, target_ppl, seed=seed, n_boot=n_boot) if chosen else ([], 0)
    messages += [fit.message for fit in fits if fit.message]

    page, colours = Page(title), figures.Colours()
    if len(loaded_builds) == 2:  # mix dash OLD NEW: what changed, before each build's own section
        add_comparison(page, *loaded_builds)
    for index, build in enumerate(loaded_builds):
        add_build(page, index, build, colours)
    if not searches or eval_jsonl or tensorboard_dirs:
        add_training(page, evals.rows, scalars, colours)
    if not searches or rl_results:
        add_rl(page, rl.rows, colours)
        add_fits(page, fits, chosen, target_ppl, unmatched, colours)
    for index, search in enumerate(loaded_searches):
        add_search(page, index, search, fits, chosen, colours)  # its notes are in its section
    inputs = builds + eval_jsonl + rl_results + tensorboard_dirs + list(searches)
    _write_atomically(out_html, page.render(messages, inputs))
    messages += [m for search in loaded_searches for m in search.messages]
    fits_file = fits_path_for(out_html)
    _write_atomically(fits_file, json.dumps(fits_json(fits, eval_set=chosen, target_ppl=target_ppl,
                                                      unmatched=unmatched, seed=seed, n_boot=n_boot), indent=2) + "\n")
    return DashboardResult(html_path=out_html, fits_path=fits_file, eval_set=chosen,
                           sections=[a for a, _, _ in page.sections], figures=page.figures, fits=fits,
                           messages=messages)
