"""Issue 46, round 18: hand judgments of the drops of bench/repos_dev_46ad.tsv (b46v's development set), made by reading
every (reason, folder) group of main's run (4357ff4, before any code of the round) and of each later run, with the
hand list bench/repos_dev_46ad_vendored.tsv beside them; the builder's, so not independent. Rule as the holdouts': a
drop is wrong when it removes the repository's own code, prose or configuration for a reason that misreads it; data
(lua-love2d's Tiled maps and ASCII level tables, methylize's test data line of 2,813 characters), binaries and other
projects' code are right to drop. emacs-config and the RHAC site have no licence file: their drops are right whatever
the reason's name.

    python -m bench.repos_dev_46ad_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

METHYLIZE_COPIES = ("methylize/cpv/",)
TEMPLATE_COPIES = ("lib/inspect.lua", "lib/tween.lua", "lib/lume.lua")
LOVE2D_COPIES = ("crushing-balls/libs/sti/", "platformer/libs/sti/", "signal/spec/lust.lua")
VKAPP_COPIES = ("libs/stb/include/", "libs/tinyobj/include/", "libs/premake/")

WRONG = {
    "FoxoTech+methylize": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(METHYLIZE_COPIES), "methylize's own file read as a copy"),
    ],
    "loustak+love-template": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(TEMPLATE_COPIES),
         "the template's own library (actum, sceneman, lens, love_bind) read as a copy"),
    ],
    "brenobaptista+lua-love2d": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(LOVE2D_COPIES),
         "the owner's own game or module (sokoban's copies of its own mixer and signal) read as a copy"),
    ],
    "CloudCodingSpace+VkApp": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(VKAPP_COPIES),
         "the renderer's own file or build glue (libs/<name>/premake5.lua, src.c) read as a copy"),
    ],
    "nosferalatu+emacs-config": [],
    "AC59852+arnaout_a_bradley_p_caron_a_nguyen_h_RHAC": [],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
