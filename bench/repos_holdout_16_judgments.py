"""Issue 46, sixteenth holdout: hand judgments of the drops of the run of 2026-12-01 04:27 UTC (main e02d911), made by
reading every (reason, folder) group (the heads of its files; every file of small groups) with the collector's hand
list bench/repos_holdout_16_vendored.tsv beside them. Rule as the earlier holdouts': a drop is wrong when it removes the
repository's own code, prose or configuration for a reason that misreads it; data, generated files (the docsets,
gdUnit4's runner settings in its own folder, a Tiled map), binaries, placeholders ("lorem ipsum" pages, `.gdignore`),
link lists (docsify's `_sidebar.md`, esprit's credits) and other projects' code are right to drop. A file with a line
of data past 1,000 characters (SNKRX's key-binding table in ``engine/game/input.lua``, SimLOD's test vector in
``src/main.cpp``) is read as The Stack's rule reads it: right.

    python -m bench.repos_holdout_16_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

FENNEL_COPIES = ("fennel", "deps/", "src/fennel-ls/docs/generated/")
BEEHAVE_COPIES = ("addons/gdUnit4/",)
ESPRIT_COPIES = ("src/include/hardware.inc", "src/include/hUGE.inc", "src/include/hUGE_note_table.inc",
                 "src/include/structs.inc", "src/libs/vwf.asm", "src/libs/fortISSimO.asm", "src/libs/pal_fade_dmgbc.asm",
                 "src/libs/menus.asm", "src/libs/bcd.asm", "src/util/input.asm", "src/util/rand.asm")
SNKRX_OWN = ("engine/love/build_steam.bat", "engine/love/build_web.bat", "engine/love/build_windows.bat",
             "engine/love/steam_appid.txt", "engine/love/steam_rich_presence.txt", "engine/external/init.lua")
SNKRX_COPIES = ("engine/external/", "engine/gamecontrollerdb.txt", "engine/love/", "assets/fonts/", "assets/sounds/")
HUGO_COPIES = ("static/js/", "static/css/", "static/mermaid/", "static/webfonts/", "static/fonts/")
HUGO_PLACEHOLDERS = ("exampleSite/content/shortcodes/children/children-2/",)  # lorem ipsum
HUGO_DOC_PAGES = ("exampleSite/content/shortcodes/button.en.md", "exampleSite/content/shortcodes/expand.en.md",
                  "exampleSite/content/shortcodes/mermaid.en.md", "exampleSite/content/shortcodes/notice.en.md",
                  "exampleSite/content/shortcodes/tabs.en.md", "exampleSite/content/cont/menushortcuts.en.md")
SIMLOD_COPIES = ("libs/", "modules/progressive_octree/helper_math.h")

WRONG = {
    "sourcehut-mirrors+fennel-ls": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(FENNEL_COPIES), "fennel-ls's own file read as a copy"),
    ],
    "bitbrain+beehave": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(BEEHAVE_COPIES), "beehave's own file read as a copy"),
    ],
    "evie-calico+esprit": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(ESPRIT_COPIES), "the game's own file read as a copy"),
    ],
    "a327ex+SNKRX": [
        (lambda p, r, d: r.startswith("vendored") and p in SNKRX_OWN,
         "the game's own build scripts and Steam settings beside the LOVE runtime, or its glue for engine/external/"),
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(SNKRX_COPIES), "the game's own file read as a copy"),
    ],
    "matcornic+hugo-theme-learn": [
        (lambda p, r, d: r.startswith("gopher") and p.startswith("exampleSite/content/") and p.endswith(".fr.md")
         and not p.startswith(HUGO_PLACEHOLDERS), "a French documentation page dropped by English stop words"),
        (lambda p, r, d: r.startswith("gopher") and p in HUGO_DOC_PAGES,
         "a shortcode's documentation page dropped for its examples and directives (the source shown, then rendered)"),
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(HUGO_COPIES), "the theme's own file read as a copy"),
    ],
    "m-schuetz+SimLOD": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(SIMLOD_COPIES), "SimLOD's own file read as a copy"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
