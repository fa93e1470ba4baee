"""Issue 46, round 14: hand judgments of the drops of bench/repos_dev_46z.tsv (b46v's development set), made by reading
every (reason, folder) group of main's run (ae064d6, before any code of the round) and of each later run, with the
hand list bench/repos_dev_46z_vendored.tsv beside them; the builder's, so not independent. Rule as the holdouts': a drop
is wrong when it removes the repository's own code, prose or configuration for a reason that misreads it; data files,
SVG icons, generated files (tsc's declarations and build info compiled from markdown-preview's own src/, lock files),
stubs (MGSPICO's one-line ``playlib.cpp``, "// it's a dummy"), other projects' code (whole or modified) and files
outside the default licence policy (polyphone's GPL-3.0) are right to drop.

    python -m bench.repos_dev_46z_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

POLYPHONE_OWN_CLAVIER = ("combocc", "controllerarea", "pianokeybdcustom", "styledslider")

WRONG = {
    "cliffgraph+MGSPICO": [
        (lambda p, r, d: r == "vendored" and not p.startswith(("RasPiPico/rp2040/mgspico/ff/",
                                                             "RasPiPico/rp2040/mgspico/oled/FONT8X16MIN.h",
                                                             "RasPiPico/rp2040/pico_sdk_import.cmake")),
         "the author's own file read as a copy"),
    ],
    "sandraros+shrinker": [
        (lambda p, r, d: r == "vendored" and p == "src/zshrinker_license.prog.abap",
         "Shrinker's own licence include (it quotes abapGit's MIT text under its own notice)"),
        (lambda p, r, d: r == "vendored" and p.startswith("src/") and not p.startswith(("src/abapgit/",
                                                                                       "src/demo/abap2xlsx/"))
         or r == "vendored" and p.endswith(("zshrinker_demo_abap2xlsx.prog.abap", "zshrinker_demo_abap2xlsx_use.prog.abap")),
         "Shrinker's own code read as a copy"),
    ],
    "mathematic-inc+vscode-pdf": [
        (lambda p, r, d: r.startswith("vendored") and not p.startswith("assets/pdf.js/"),
         "the extension's own file read as a copy"),
    ],
    "iamcco+markdown-preview.nvim": [
        (lambda p, r, d: r.startswith("vendored") and p.startswith(("src/", "plugin/", "autoload/mkdp/", "app/pages/"))
         and p != "app/pages/markdown-it-imsize.js", "the plugin's own file read as a copy"),
    ],
    "davy7125+polyphone": [
        (lambda p, r, d: r == "vendored" and p.startswith("sources/clavier/")
         and p.rsplit("/", 1)[-1].split(".")[0] in POLYPHONE_OWN_CLAVIER, "Davy Triponney's own clavier file"),
        (lambda p, r, d: r == "vendored" and p.startswith("sources/core/"), "Polyphone's own sfArk port (its header)"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
