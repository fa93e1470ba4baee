"""`mix dash`: the data-pipeline and perplexity-versus-RL dashboard, as one offline HTML page.

    mix dash [OLD NEW] --build DIR [--build DIR2] --eval FILE... --rl FILE... --tensorboard DIR... [--search DIR...]
             [--eval-set NAME] [--target-ppl X] --out dash.html [--serve [--host H] [--port N]]

Two builds (``mix dash OLD NEW`` or two ``--build``) add a comparison section. Every input is
optional; what is missing becomes a note on the page, but a build that is not a finished build
(mistyped, or still running) is refused in one line. Exit status 0 when the page was written (also
when a fit was impossible: the page says why), 2 for bad arguments or builds.
"""

from __future__ import annotations

import argparse
import logging
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mix dash", description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="*", metavar="BUILD",
                        help="`mix build --out` directories; two (OLD NEW) add a comparison of them")
    parser.add_argument("--build", action="append", default=[], metavar="DIR",
                        help="a `mix build --out` directory (repeat for several builds)")
    parser.add_argument("--eval", nargs="+", action="extend", default=[], metavar="FILE",
                        help="eval JSON lines {run_id, step, tokens_seen, eval_set, loss_nats, bits_per_byte}")
    parser.add_argument("--rl", nargs="+", action="extend", default=[], metavar="FILE",
                        help="RL results, JSON lines or CSV {run_id, step, benchmark, metric, value}")
    parser.add_argument("--tensorboard", nargs="+", action="extend", default=[], metavar="[RUN=]DIR",
                        help="Megatron TensorBoard folders (runs are the sub-folders holding event files)")
    parser.add_argument("--search", action="append", default=[], metavar="DIR",
                        help="a `mix search --out` directory: proxies, fit, proposal, RL predictions (repeatable)")
    parser.add_argument("--eval-set", default=None,
                        help="held-out set whose perplexity the RL fits use (default: one named *code*)")
    parser.add_argument("--target-ppl", type=float, default=None,
                        help="predict each RL metric at this perplexity")
    parser.add_argument("--out", required=True, help="the HTML file to write (fits go to OUT.fits.json)")
    parser.add_argument("--title", default="codemix dashboard")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples per fit")
    parser.add_argument("--serve", action="store_true", help="serve on localhost and rebuild as inputs change")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8050)
    parser.add_argument("--poll-seconds", type=float, default=2.0, help="how often --serve checks the inputs")
    return parser


def missing_build(builds: list[str], *, serving: bool) -> str | None:
    """Why a ``--build`` cannot be drawn: it is not a finished build (``--serve`` waits for one that
    has begun: work/ without manifest.json), in one line; None when every one can."""
    from codemix.mixtures.inspect import NotABuild, read_manifest

    for build in builds:
        try:
            read_manifest(build)
        except NotABuild as error:
            if not (serving and "has not finished" in str(error)):
                return str(error)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, beam_args = parser.parse_known_args(argv)
    if beam_args:  # Beam's filesystem options (--s3_endpoint_url, --project, ...) for builds on object stores
        from codemix.pipelines.options import beam_option_names, unknown_options

        unknown = unknown_options(beam_args, beam_option_names())
        if unknown or not beam_args[0].startswith("--"):
            parser.error(f"unrecognized arguments: {' '.join(unknown or beam_args)}")
    if args.target_ppl is not None and args.target_ppl <= 0:
        parser.error("--target-ppl must be a positive perplexity")
    if args.bootstrap < 0:
        parser.error("--bootstrap must be zero or more")
    logging.getLogger("apache_beam").setLevel(logging.WARNING)
    from codemix.pipelines.options import use_filesystem_options

    use_filesystem_options(beam_args)  # before the first read of a build: S3 refuses every call without it
    problem = missing_build(args.builds + args.build, serving=args.serve)
    if problem:
        print(f"mix dash: {problem}", file=sys.stderr)
        return 2
    from codemix.dashboards.render import DashboardInputs, write_dashboard

    inputs = DashboardInputs(builds=args.builds + args.build, eval_jsonl=args.eval, rl_results=args.rl,
                             tensorboard_dirs=args.tensorboard, out_html=args.out, target_ppl=args.target_ppl,
                             eval_set=args.eval_set, title=args.title, seed=args.seed, n_boot=args.bootstrap,
                             searches=args.search)
    if args.serve:
        from codemix.dashboards.serve import serve

        serve(inputs, host=args.host, port=args.port, poll_seconds=args.poll_seconds)
        return 0
    result = write_dashboard(inputs)
    print(f"wrote {result.html_path} ({result.figures} figures) and {result.fits_path}")
    for fit in result.fits:
        for form in fit.forms:
            if form.prediction:
                p = form.prediction
                band = "" if p["low"] is None else f" [{p['low']:.4g}, {p['high']:.4g}]"
                print(f"  {fit.benchmark} / {fit.metric} {form.form}: R² {form.r2 if form.r2 is None else round(form.r2, 3)}"
                      f", {p['value']:.4g}{band} at ppl {p['ppl']:g}{' (extrapolated)' if p['extrapolated'] else ''}")
    for message in result.messages:
        print(f"  note: {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
