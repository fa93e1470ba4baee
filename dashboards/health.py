"""The dashboard's health card: what ``mix build`` concluded about its own mixture, read from
``manifest.json`` (``health``, written by ``pipelines.health``): warnings first, then per stage the
budget filled and each source's weight, tokens and epochs, then each source's quarantine and drop
rates, and the notes (allowed missing sources, renormalised weights, contamination hits)."""

from __future__ import annotations

import html


def _cell(value, *, digits: int = 0, suffix: str = "") -> str:
    if value is None:
        return '<td class="num">-</td>'
    text = f"{value:,.{digits}f}{suffix}" if isinstance(value, float) else f"{value:,}{suffix}"
    return f'<td class="num">{text}</td>'


def _rate(value: float | None) -> str:
    return _cell(None if value is None else 100 * value, digits=1, suffix="%")


def _list(items: list[str], css: str) -> str:
    return f'<ul class="{css}">' + "".join(f"<li>{html.escape(item)}</li>" for item in items) + "</ul>" if items else ""


def stage_table(stage: str, info: dict, max_epochs: float) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(source)}</td>{_cell(s['weight'], digits=3)}{_cell(s['tokens'])}"
        f"{_cell(s['epochs'], digits=2, suffix='x')}<td>{'above ' + format(max_epochs, 'g') + 'x' if s['warn'] else ''}"
        f"</td></tr>" for source, s in info["sources"].items())
    return (f"<h3>stage {html.escape(stage)}: {info['tokens']:,} of {info['token_budget']:,} budget tokens "
            f"({100 * info['budget_filled']:.1f}% filled)</h3><table><tr><th>source</th><th>weight</th>"
            f"<th>tokens</th><th>epochs</th><th></th></tr>{rows}</table>")


def source_table(sources: dict) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td>{_cell(s['read'])}{_cell(s['kept'])}{_cell(s['dropped'])}"
        f"{_cell(s.get('duplicates'))}{_cell(s['quarantined'])}{_rate(s['drop_rate'])}{_rate(s['quarantine_rate'])}</tr>"
        for name, s in sources.items())
    return ("<h3>sources</h3><table><tr><th>source</th><th>read</th><th>kept</th><th>dropped</th><th>duplicates</th>"
            f"<th>quarantined</th><th>filter drop rate</th><th>quarantine rate</th></tr>{rows}</table>")


def health_card(manifest: dict) -> str:
    """One wide card of HTML; says so when the manifest predates health summaries."""
    health = manifest.get("health")
    if not health:
        return ('<div class="card wide"><div class="message">this build\'s manifest has no health summary '
                "(written by a codemix from before builds checked their own mixture)</div></div>")
    verdict = "ok" if health["ok"] else f"{len(health['warnings'])} warning(s)"
    parts = [f"<h3>health: {html.escape(verdict)}</h3>", _list(health["warnings"], "message"),
             *(stage_table(stage, info, health["thresholds"]["max_epochs"]) for stage, info in health["stages"].items()),
             source_table(health["sources"]), _list(health["notes"], "notes")]
    return '<div class="card wide">' + "".join(parts) + "</div>"
