"""Issue 46, round 19: hand judgments of the drops of bench/repos_dev_46ae.tsv (b46v's development set), made by reading
every (reason, folder) group of main's run (4494b78, before any code of the round) and of each later run, with the hand
list bench/repos_dev_46ae_vendored.tsv beside them; the builder's, so not independent. Rule as the holdouts': a drop is
wrong when it removes the repository's own code, prose or configuration for a reason that misreads it; data
(BYTEPATH's skill tree table, its tutorial's exported HTML answers), generated files (glad's loader, a Steamworks FFI
binding), binaries, files under the size floor and other projects' code are right to drop. ranger is GPL-3.0, outside
the default permissive policy: its licence drops are right.

    python -m bench.repos_dev_46ae_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

BYTEPATH_OWN = ("libraries/STALKER-X/", "libraries/chrono/", "libraries/boipushy/", "libraries/windfield/init.lua",
                "libraries/grid/", "libraries/enhanced_timer/", "libraries/sound.lua")
DOCDOCK_PAGES = "exampleSite/content/"

WRONG = {
    "a327ex+BYTEPATH": [
        (lambda p, r, d: r.startswith("vendored") and p.startswith(BYTEPATH_OWN),
         "the owner's own library (published under an earlier handle, SSYGEN) read as a copy"),
    ],
    "vjeantet+hugo-theme-docdock": [
        (lambda p, r, d: p.startswith(DOCDOCK_PAGES) and r.startswith("gopher"),
         "the example site's shortcode pages (shown-then-rendered examples read as repetition, a list of icons)"),
    ],
    "ranger+ranger": [],
    "Codiad+Codiad": [
        (lambda p, r, d: r.startswith("vendored") and p.startswith(("components/fileext_textmode/", "components/finder/",
                                                                   "components/worker_manager/")),
         "a contributor's component read as a copy"),
    ],
    "jdah+minecraft-weekend": [
        (lambda p, r, d: p.startswith("src/") and r == "comment_fraction_high",
         "the game's own source with code commented out, read as mostly comments"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
