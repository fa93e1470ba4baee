"""Issue 46, round 16: hand judgments of the drops of bench/repos_dev_46ab.tsv (b46v's development set), made by reading
every (reason, folder) group of main's run (feabc82, before any code of the round) and of each later run, with the
hand list bench/repos_dev_46ab_vendored.tsv beside them; the builder's, so not independent. Rule as the holdouts': a
drop is wrong when it removes the repository's own code, prose or configuration for a reason that misreads it; files a
tool generated (binjgb's Emscripten build ``docs/binjgb.js``, Casper's gulp output in ``assets/built/``, skull-quest's
cc65 output and FamiStudio export), data (NES nametables, collision maps, palettes, inline SVG icons in Casper's
``partials/icons/``) and other projects' code are right to drop. Clipjump states Apache-2.0 in its NOTICE.txt only:
its ``no_license`` drops misread that (licence reading, not vendoring), so they count wrong.

    python -m bench.repos_dev_46ab_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

BINJGB_COPIES = ("docs/idb.min.js", "docs/vue.min.js", "docs/reset.css", "docs/simple.css", "docs/simple.html", "docs/LICENSE.gbstudio",
                 "docs/porklike.gb", "docs/binjgb.js", "third_party/", "test/", "cmake/FindSDL2.cmake")
NERDLE_COPIES = ("LIB/", "MUSIC/famitone2.s", "crt0.s", "nrom_32k_vert.cfg")
SKULL_COPIES = ("LIB/nes", "MMC3/", "MUSIC/famistudio_", "MUSIC/famitone2.", "MUSIC/music.s", "crt0.s", "BUILD/")
CLIPJUMP_COPIES = ("lib/Gdip_All.ahk", "lib/gdip_min.ahk", "lib/SQLiteDB/", "lib/TooltipEx.ahk",
                   "plugins/pformat.commonformats.lib/unhtml.ahk", "plugins/external.inieditor.ahk",
                   "website/assets/mojombo.css", "sqlite3.dll")

WRONG = {
    "aviaryan+Clipjump": [
        (lambda p, r, d: r == "no_license", "under the Apache-2.0 its NOTICE.txt states (licence reading)"),
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(CLIPJUMP_COPIES), "Clipjump's own file read as a copy"),
    ],
    "binji+binjgb": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(BINJGB_COPIES), "the emulator's own page or script read as a copy"),
    ],
    "z-10+nerdle-nes": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(NERDLE_COPIES), "the game's own file read as a copy"),
    ],
    "jroweboy+skull-quest": [
        (lambda p, r, d: p.startswith(".vscode/"), "its own VS Code task settings"),
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(SKULL_COPIES), "the game's own file read as a copy"),
    ],
    "TryGhost+Casper": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(("assets/js/lib/", "assets/built/casper.js")),
         "the theme's own file read as a copy"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
