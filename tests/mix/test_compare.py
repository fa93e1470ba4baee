"""Two real builds compared: `mix diff` in text, and `mix dash OLD NEW`'s comparison section in a real
headless Chromium (the network unreachable). The new build is the old one with its short stage
reweighted (eta dropped, tree doubled), so what must differ, and what must not, is known."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pyarrow.parquet as pq

from codemix.dashboards.browser import dump_dom, page_requests, rendered_plots
from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from tests.dashboards.conftest import chromium  # noqa: F401  (the fixture)


def documents(build: Path, stage: str, source: str) -> int:
    """The source's documents in the stage, counted from its provenance sidecars by pyarrow."""
    return sum(pq.read_metadata(path).num_rows for path in (build / stage).glob(f"{source}-*.provenance.parquet"))


def test_mix_diff_says_what_a_reweighted_rebuild_changed(build, reweighted, capsys):
    capsys.readouterr()
    assert mix(["diff", str(build), str(reweighted)]) == 0
    printed = capsys.readouterr().out
    old, new = read_manifest(str(build))["stages"]["short"], read_manifest(str(reweighted))["stages"]["short"]
    rows = {tuple(line.split()[:2]): line.split() for line in printed.splitlines() if line.startswith("short ")}
    eta, eta_docs = old["tokens_per_source"]["eta"], documents(build, "short", "eta")
    assert eta_docs > 0 and documents(reweighted, "short", "eta") == 0
    assert rows["short", "eta"][2:8] == [f"{eta_docs:,}", "0", f"{-eta_docs:+,}", f"{eta:,}", "-", f"{-eta:+,}"]
    assert rows["short", "tree"][8:] == [f"{old['weights']['tree']:.3f}", f"{new['weights']['tree']:.3f}"]
    assert rows["short", "tree"][4] == rows["short", "tree"][7] == "-"  # the same documents, tokenized the same
    assert "spec provenance" in printed and "source " not in printed.split("\n\n")[1]  # inputs unchanged
    assert all(line.split()[-1] == "-" for line in printed.splitlines() if line.split()[1:2] == ["read"])


def table_rows(dom: str, caption: str) -> list[list[str]]:
    """The cells of the comparison table under ``caption``, as the browser's DOM holds them."""
    section = dom.split(f"<h3>{caption}</h3>", 1)[1].split("</table>", 1)[0]
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", section)[1:]]


def test_mix_dash_old_new_draws_the_comparison(chromium, build, reweighted, tmp_path):  # noqa: F811
    page = tmp_path / "dash.html"
    assert mix(["dash", str(build), str(reweighted), "--out", str(page)]) == 0
    dom = dump_dom(str(page), net_log=str(tmp_path / "net.json"))
    assert "Comparison: provenance → provenance" in dom
    assert rendered_plots(dom) >= 2 and "Tokens per stage and source: old vs new" in dom
    assert page_requests(str(tmp_path / "net.json")) == []
    old, new = read_manifest(str(build)), read_manifest(str(reweighted))
    stages = {(row[0], row[1]): row for row in table_rows(dom, "per stage and source: documents, tokens, weights")}
    eta = old["stages"]["short"]["tokens_per_source"]["eta"]
    assert stages["short", "eta"][2:8] == [f"{documents(build, 'short', 'eta'):,}", "0",
                                           f"{-documents(build, 'short', 'eta'):+,}", f"{eta:,}", "-", f"{-eta:+,}"]
    assert stages["short", "tree"][8:] == [f"{old['stages']['short']['weights']['tree']:.3f}",
                                           f"{new['stages']['short']['weights']['tree']:.3f}"]
    assert stages["long", "zeta"][4] == "-" and stages["sft", "runs"][4] == "-"  # other stages unchanged
    funnel = {(row[0], row[1]): row for row in table_rows(dom, "per source: funnel and dedup rate")}
    assert funnel["runs", "kept"][2] == f"{old['sources']['runs']['kept']:,}"
    drops = table_rows(dom, "drops per source and reason")
    assert drops and all(row[4] == "-" for row in drops)  # the same crawl and filter
    assert "spec and inputs unchanged" not in dom and "<li>spec provenance" in dom
