"""Issue 46, seventeenth holdout: hand judgments of the drops of the run of 2026-12-01 07:43 UTC (main 8196fc6), made by
b46v reading every (reason, folder) group (the heads of its files; every file of small groups) with the collector's hand
list bench/repos_holdout_17_vendored.tsv beside them. Rule as the earlier holdouts': a drop is wrong when it removes the
repository's own code, prose or configuration for a reason that misreads it; data (test fixtures, SVG and OBJ models,
SDL's controller mappings, a spelling dictionary, a list of revisions), generated files (Bundler's binstubs, Rails'
initializers and error pages, lock files), binaries, placeholders (`.keep`), files under the size floor, files that are
mostly comment by their own text (Bash-it's `custom/example.bash`, a two-line test marker), content under a licence
outside the permissive policy (pyglet's CC BY-SA website) and other projects' code are right to drop. Where the hand
list leaves a copy out, the file's own words decide: pyglet's `tools/wraptypes/lex.py` and `yacc.py` are David Beazley's
PLY (his 2001 header), `tools/gl.xml` is Khronos' registry, jekyll-theme-nn's `assets/scripts/navbar.js` says "Code
from https://bulma.io/documentation/components/navbar/": right. A file with a line of data past 1,000 characters is
read as The Stack's rule reads it: right.

    python -m bench.repos_holdout_17_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

LUASNIP_TYPES = ("lua/luasnip/_types.lua", "lua/luasnip/extras/_extra_types.lua", "lua/luasnip/loaders/types.lua")

WRONG = {
    "Bash-it+bash-it": [
        (lambda p, r, d: p == "vendor/.gitattributes", "the project's own attributes file for its vendor/ tree read as a copy"),
        (lambda p, r, d: p == "themes/dos/dos.theme.bash",
         "a one-line theme whose two shellcheck directives are read as its comments"),
    ],
    "tsoding+musializer": [
        (lambda p, r, d: p == "thirdparty/nob.h",
         "the owner's own single-header library (its banner's home under the owner's account) read as a copy"),
    ],
    "nicholasnooney-com+jekyll-theme-nn": [],
    "pyglet+pyglet": [
        (lambda p, r, d: p == "doc/_static/css/custom.css", "the documentation's own stylesheet read as a copied theme"),
        (lambda p, r, d: p == "website/LICENSE.txt", "the website's own licence text read as its copied theme's"),
        (lambda p, r, d: r == "amalgamated", "a later version of the tutorial's own class read as an amalgamation"),
    ],
    "L3MON4D3+LuaSnip": [
        (lambda p, r, d: p in LUASNIP_TYPES, "LuaLS type declarations (`---@class`) read as comments"),
    ],
    "errbit+errbit": [
        (lambda p, r, d: p == "spec/models/fabricators_spec.rb", "an own spec with code commented out read as mostly comments"),
        (lambda p, r, d: p in ("SECURITY.md", "docs/rack-timeout.md"),
         "the project's own documentation (a version table, a settings reference) read as too few stop words"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
