"""Issue 46, sixth holdout: hand judgments of the drops, made after the single run (22:47 UTC, main at 1f737c8) by
reading every (reason, folder) group (heads of the files listed per group; every file of the small groups and of the
groups judged wrong) with the collector's hand list beside them, and applied to the group. Rule, as in the earlier
rounds: a drop is wrong when it removes the repository's own code, prose or configuration for a reason that misreads
it (a vendored-tree misattribution, also where the license policy would drop the file anyway; a line-length check on a
hand-written line; a prose check whose premise is false for that file); data files (test vectors), fixtures, generated
files, binaries, stubs, templates, other projects' code (whole or modified) and files whose license is outside the
default permissive policy are right to drop.

    python -m bench.repos_holdout_6_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

# cpanminus: the hand list's copies inside App-cpanminus (fatlib's CPAN modules, the fatpacked cpanm, two copied CPAN
# distributions and a bundled Module::Install among the test distributions).
CPANM_COPIES = ("App-cpanminus/fatlib/", "App-cpanminus/testdist/Hash-MultiValue-1.200/",
                "App-cpanminus/testdist/Spreadsheet-Read-0.48/", "App-cpanminus/testdist/MI-EUMM/inc/")

WRONG = {
    "miyagawa+cpanminus": [
        (lambda p, r, d: r == "vendored" and not p.startswith(CPANM_COPIES) and p != "App-cpanminus/cpanm",
         ("the repository's own distributions (App-cpanminus, Menlo, Menlo-Legacy) and the author's test "
          "distributions, each a folder with its own LICENSE or README and Makefile.PL/Build.PL, read as other "
          "projects' packages")),
    ],
    "pkulchenko+ZeroBraneStudio": [
        (lambda p, r, d: p == "CHANGELOG.md", "the project's changelog, a bullet list by nature (gopher_too_many_bullets)"),
        (lambda p, r, d: p in ("api/lua/baselib.lua", "api/lua/marmalade.lua"),
         "hand-written API description tables with long description strings (max_line_length)"),
        (lambda p, r, d: p == "cfg/scheme-picker.lua", "a hand-written configuration with long macro lines"),
    ],
    "haskell-crypto+cryptonite": [
        (lambda p, r, d: p == "CONTRIBUTING.md", "a real contribution guideline in bullets (gopher_enough_stop_words)"),
        (lambda p, r, d: p == "benchs/Bench.hs", "the project's benchmark driver (max_line_length)"),
    ],
    "RcppCore+RcppArmadillo": [
        (lambda p, r, d: p == "inst/COPYRIGHTS", "the package's own copyright notice read as another project's file"),
    ],
    "novnc+noVNC": [],
    "elixir-sqlite+exqlite": [],
}


if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
