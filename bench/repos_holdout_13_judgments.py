"""Issue 46, thirteenth holdout: hand judgments of the drops of its single run (FRESH, main cf6fd29, 19:40 UTC), made
afterwards by reading every (reason, folder) group of the samples with the collector's hand list
(bench/repos_holdout_13_vendored.tsv) beside them; b46v's, so not independent. Rule as the earlier holdouts': a drop is
wrong when it removes the repository's own code, prose or configuration for a reason that misreads it. Right: every
licence drop (StAC's GPL-3.0; sfdc-customui and dokku-ansible have no licence file), the copies the list names, frog's
example post of "Bullshit Ipsum" filler (Gopher's stop words: it is nonsense by design), xindi's empty ``index.cfm``,
stallar's palettes, maps, NES Screen Tool session and ``.ruby-version`` ("3.0.1": a version number is digits, as the
check says). Wrong: xindi's ``_install/setup.sql`` (its sample articles' HTML in one INSERT line: a hand-written install
script, ``max_line_length``) and ``admin/views/pages/savesort.cfm`` (a one-line hand-written CFML view of 130
characters, ``mean_line_length``).

    python -m bench.repos_holdout_13_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

WRONG = {
    "sapphonie+StAC-tf2": [],
    "greghendershott+frog": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(("example/css/bootstrap", "example/js/",
                                                                        "example/fonts/", "example/css/scribble.css",
                                                                        "example/css/pygments.css", "example/img/feed.png")),
         "Frog's own file read as a copy"),
    ],
    "gradeducationtoolkit+sfdc-customui": [],
    "simonbingham+xindi": [
        (lambda p, r, d: p == "_install/setup.sql" and r == "max_line_length",
         "a hand-written install script whose sample data is one long INSERT line"),
        (lambda p, r, d: p == "admin/views/pages/savesort.cfm" and r == "mean_line_length",
         "a one-line hand-written view"),
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(("admin/assets/ckeditor/", "framework/one.cfc",
                                                                        "framework/ioc.cfc", "admin/assets/js/jquery.",
                                                                        "admin/assets/css/imgareaselect-animated.css",
                                                                        "admin/assets/img/border-anim-",
                                                                        "public/assets/js/outbound-link-tracking.js")),
         "Xindi's own file read as a copy"),
    ],
    "MiguelVeiro+dokku-ansible": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith("roles/"), "the playbooks' own file read as a copy"),
    ],
    "wendelscardua+stallar": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(("src/lib/neslib.", "src/lib/nesdoug.", "src/lib/unrle.",
                                                                        "src/crt0.s", "src/mmc3/", "src/music/famitone5.s",
                                                                        "src/music/soundtrack.", "src/music/soundfx.")),
         "the game's own file read as a copy"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
