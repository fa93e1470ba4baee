"""The page in a real headless Chromium, with the network made unreachable: the plots render, the
page asks for nothing beyond the machine, and a screenshot comes out."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from PIL import Image

from codemix.dashboards.browser import dump_dom, page_requests, rendered_plots, screenshot


@pytest.fixture(scope="module")
def loaded(chromium, dashboard, tmp_path_factory) -> tuple[str, str]:
    """The page's DOM after its scripts ran, and Chromium's net log of that load."""
    net_log = str(tmp_path_factory.mktemp("chromium") / "net.json")
    return dump_dom(dashboard.html_path, net_log=net_log), net_log


def test_every_figure_renders_with_the_network_unreachable(loaded, dashboard):
    dom, _ = loaded
    assert dom.count("js-plotly-plot") >= dashboard.figures  # plotly marks each div it drew into
    assert rendered_plots(dom) >= dashboard.figures  # and each drawn figure has its SVG layers
    assert "humaneval / pass@1 vs code perplexity" in dom


def test_the_page_requests_nothing_beyond_the_machine(loaded):
    _, net_log = loaded
    assert page_requests(net_log) == []


def test_a_page_using_the_cdn_is_caught_by_both_checks(chromium, tmp_path):
    """The control: a figure that loads plotly.js from the CDN draws nothing and shows in the net log."""
    page = tmp_path / "cdn.html"
    go.Figure(go.Scatter(x=[1, 2], y=[3, 4])).write_html(str(page), include_plotlyjs="cdn")
    dom = dump_dom(str(page), budget_ms=3000, net_log=str(tmp_path / "net.json"))
    assert rendered_plots(dom) == 0
    assert any("cdn.plot.ly" in url for url in page_requests(str(tmp_path / "net.json")))


def test_screenshot_is_a_png_of_the_rendered_page(chromium, dashboard, tmp_path):
    png = screenshot(dashboard.html_path, str(tmp_path / "dash.png"), width=1400, height=3000)
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size == (1400, 3000)
        colours = image.convert("RGB").crop((0, 0, 1400, 1500)).getcolors(maxcolors=1_000_000)
    assert len(colours) > 500  # charts in many colours, not a blank or error page
