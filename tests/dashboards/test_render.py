"""The written page and its fits: self-contained, every section present, fits exported as JSON,
and what could not be shown said on the page."""

from __future__ import annotations

import json
import math
import re

import pytest

from codemix.dashboards.builds import load_build
from codemix.dashboards.cli import main as dash
from codemix.dashboards.figures import Colours, mix
from codemix.dashboards.render import DashboardInputs, write_dashboard
from tests.dashboards import fixtures
from tests.dashboards.conftest import TARGET_PPL

SECTIONS = ["build-0", "training", "rl", "ppl-vs-rl"]


@pytest.fixture(scope="module")
def page(dashboard) -> str:
    with open(dashboard.html_path, encoding="utf-8") as handle:
        return handle.read()


@pytest.fixture(scope="module")
def fits(dashboard) -> dict:
    with open(dashboard.fits_path, encoding="utf-8") as handle:
        return json.load(handle)


def test_page_embeds_plotly_once_and_loads_nothing_remote(page):
    assert len(page) > 1_000_000  # plotly.js is in the file, not fetched
    assert page.count("window.PlotlyConfig") == 1
    assert 'src="http' not in page and "src='http" not in page
    assert not re.search(r"<link[^>]+href=[\"']https?:", page)
    assert "cdn.plot.ly/plotly" not in page and "<script src=" not in page


def test_page_has_every_section_and_a_figure_per_chart(dashboard, page):
    assert dashboard.sections == SECTIONS
    for anchor in SECTIONS:
        assert f'<section id="{anchor}">' in page
    # 9 pipeline charts, bits per byte, 3 TensorBoard tags (not learning-rate), 2 RL metrics, 2 scatters
    assert dashboard.figures == 17
    assert page.count('class="plotly-graph-div"') == dashboard.figures


def test_fits_json_holds_the_exact_log_linear_parameters(fits):
    humaneval = next(f for f in fits["fits"] if f["benchmark"] == "humaneval")
    log_linear = humaneval["forms"]["log_linear"]
    assert humaneval["n_points"] == len(fixtures.RUNS) * len(fixtures.STEPS)
    assert log_linear["params"]["a"] == pytest.approx(fixtures.HUMANEVAL_A, abs=1e-9)
    assert log_linear["params"]["b"] == pytest.approx(fixtures.HUMANEVAL_B, abs=1e-9)
    assert log_linear["r2"] == pytest.approx(1.0)
    expected = fixtures.HUMANEVAL_A + fixtures.HUMANEVAL_B * math.log(TARGET_PPL)
    assert log_linear["prediction"]["value"] == pytest.approx(expected)
    assert set(humaneval["forms"]) == {"log_linear", "power_law", "sigmoid"}
    assert fits["eval_set"] == "code" and fits["target_ppl"] == TARGET_PPL


def test_too_few_points_say_so_in_the_result_the_json_and_the_page(dashboard, fits, page):
    message = ("tiny / score: only 2 checkpoint(s) have both an RL result and a code perplexity; "
               "a fit needs at least 3.")
    assert dashboard.fit_messages == [message]
    assert next(f for f in fits["fits"] if f["benchmark"] == "tiny")["message"] == message
    assert message in page


def test_unjoined_rl_rows_and_unreadable_lines_are_reported_on_the_page(page, run_files):
    assert "1 RL row(s) have no code eval row at the same run and step." in page
    assert f"{run_files['eval']}: skipped 1 unreadable eval line(s)" in page


def test_nothing_given_still_writes_a_page_that_says_so(tmp_path):
    result = write_dashboard(DashboardInputs(builds=[str(tmp_path / "no-build")], out_html=str(tmp_path / "empty.html")))
    page = (tmp_path / "empty.html").read_text()
    assert result.figures == 0 and result.eval_set is None
    assert "manifest.json not found" in result.messages[0]
    assert "No held-out eval rows were given" in page and "No RL results were given" in page


def test_cli_writes_the_page_and_prints_the_prediction(tmp_path, build_dir, run_files, capsys):
    out = tmp_path / "cli" / "dash.html"
    status = dash(["--build", str(build_dir), "--eval", str(run_files["eval"]), "--rl", str(run_files["rl_jsonl"]),
                   str(run_files["rl_csv"]), "--tensorboard", str(run_files["tensorboard"]), "--target-ppl", "2.5",
                   "--bootstrap", "50", "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0 and out.exists() and (tmp_path / "cli" / "dash.fits.json").exists()
    assert "humaneval / pass@1 log_linear: R² 1.0" in printed
    assert "note: tiny / score: only 2 checkpoint(s)" in printed


def test_cli_rejects_a_non_positive_target_perplexity(tmp_path):
    with pytest.raises(SystemExit) as error:
        dash(["--out", str(tmp_path / "x.html"), "--target-ppl", "0"])
    assert error.value.code == 2


def test_eval_set_can_be_named(tmp_path, run_files):
    result = write_dashboard(DashboardInputs(eval_jsonl=[str(run_files["eval"])], rl_results=[str(run_files["rl_csv"])],
                                             out_html=str(tmp_path / "p.html"), eval_set="prose", n_boot=20))
    assert result.eval_set == "prose"
    humaneval = next(f for f in result.fits if f.benchmark == "humaneval")
    assert all(math.exp(p.loss_nats) == pytest.approx(p.perplexity) for p in humaneval.points)
    assert min(p.loss_nats for p in humaneval.points) > 0.7  # prose is the code loss + 0.7


def test_megatron_validation_loss_stands_in_when_no_eval_rows_are_given(tmp_path, run_files):
    rl = tmp_path / "rl.csv"  # humaneval at the TensorBoard run's steps
    rl.write_text("run_id,step,benchmark,metric,value\n" + "".join(
        f"run-a,{s},humaneval,pass@1,{fixtures.humaneval('run-a', s)}\n" for s in fixtures.STEPS))
    result = write_dashboard(DashboardInputs(rl_results=[str(rl)], tensorboard_dirs=[str(run_files["tensorboard"])],
                                             out_html=str(tmp_path / "tb.html"), n_boot=20))
    assert result.eval_set == "tensorboard: lm loss validation"
    (fit,) = result.fits
    assert len(fit.points) == len(fixtures.STEPS)
    log_linear = fit.forms[0]
    # the TensorBoard loss is the code loss + 0.1, so the intercept moves by -b·0.1
    assert log_linear.params["b"] == pytest.approx(fixtures.HUMANEVAL_B, abs=1e-4)
    assert log_linear.params["a"] == pytest.approx(fixtures.HUMANEVAL_A - 0.1 * fixtures.HUMANEVAL_B, abs=1e-4)


def test_language_mix_names_the_largest_languages_summed_over_sources(build_dir):
    build = load_build(str(build_dir))
    names = [trace.name for trace in mix(build, Colours(), 1, "language").data]
    per_language = build.kept.per(1, "bytes")
    assert names == [language for language, _ in per_language.most_common()]
