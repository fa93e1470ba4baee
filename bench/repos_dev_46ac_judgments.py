"""Issue 46, round 17: hand judgments of the drops of bench/repos_dev_46ac.tsv (b46v's development set), made by reading
every (reason, folder) group of main's run (3f91f83, before any code of the round) and of each later run, with the
hand list bench/repos_dev_46ac_vendored.tsv beside them; the builder's, so not independent. Rule as the holdouts': a
drop is wrong when it removes the repository's own code, prose or configuration for a reason that misreads it; files a
tool generated (SMline's Smarty compilations in ``PHP/cache/``, GameMaker's font glyph tables, room layouts and
timeline ``.yy`` files), data and other projects' code are right to drop. SMline's GPL-3.0 and infon's GPL-2.0 are
not allowed by the default policy and NominalPlugin and html5-video-player have no licence file (NominalPlugin's
topic says GPL, not allowed either): those drops are right whatever else the files are.

    python -m bench.repos_dev_46ac_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

SMLINE_COPIES = ("PHP/libs/Smarty.class.php", "PHP/libs/SmartyBC.class.php", "PHP/libs/debug.tpl", "PHP/libs/plugins/",
                 "PHP/libs/sysplugins/", "PHP/libs/JSON.php", "PHP/libs/recaptchalib.php", "PHP/libs/recaptcha.php", "PHP/libs/QueryString.php",
                 "themes/smline/js/jquery.js", "themes/smline/js/jquery.min.js", "themes/smline/js/jquery.imgareaselect.js",
                 "themes/smline/js/jquery.autosize.min.js", "themes/smline/css/img_area_select/")
NOMINAL_COPIES = ("pub/System/NominalPlugin/js/jqplot", "pub/System/NominalPlugin/css/jqplot",
                  "pub/System/NominalPlugin/src/js/excanvas.js")
INFON_COPIES = ("lua-5.1.2/", "gl_mdl.")
PIXELMAN_COPIES = ("extensions/", "scripts/fast_file_", "scripts/b64_to_byte/", "scripts/byte_to_b64/",
                   "scripts/collision_line_lst/", "scripts/dec_to_hex/", "scripts/draw_text_outlined/")
PLAYER_COPIES = ("src/js/jquery-1.8.1.js", "dev/js/jquery-1.8.1.js", "src/js/template.js", "dev/js/template.js")

WRONG = {
    "andygomezb7+SMline": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(SMLINE_COPIES), "SMline's own file read as a copy"),
    ],
    "modell-aachen+NominalPlugin": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(NOMINAL_COPIES), "the plugin's own file read as a copy"),
    ],
    "dividuum+infon": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(INFON_COPIES),
         "infon's own file (a contribution written for it, its packaging) read as a copy"),
    ],
    "RobotoSkunk+PixelMan-GMS2": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(PIXELMAN_COPIES), "the game's own file read as a copy"),
    ],
    "xuanfeng+html5-video-player": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith(PLAYER_COPIES), "the player's own file read as a copy"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
