"""Issue 46, fifteenth holdout: hand judgments of the drops of its single run (FRESH, main 5e35626, 01:18 UTC), made
afterwards by reading every (reason, folder) group of the samples with the collector's hand list
(bench/repos_holdout_15_vendored.tsv) beside them; b46v's, so not independent. Rule as the earlier holdouts': a drop is
wrong when it removes the repository's own code, prose or configuration for a reason that misreads it. Right: every
licence drop of the four repositories with no licence file (GlucoTT, SyntaxAnteinoDerby, rv32soc, fishconfig; the
derby filterscript's `license_not_allowed` and `samp.ban`'s `vendored`, beside the SA-MP package's licence text, are
their own files dropped under another name, right to drop all the same), the copies the list names (hackhosting's
Forge modules and DokuWiki plugin, GlucoTT's WinHttp UDF, the SA-MP package and its includes, picorv32, fishconfig's
docx2txt and catppuccin flavour, BOSL2 whole), binaries, symbolic links and submodules. Wrong: hackhosting's own
`Vagrantfile`, dropped by linguist's path list (`vendored_path`).

    python -m bench.repos_holdout_15_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

WRONG = {
    "yuvipanda+hackhosting": [
        (lambda p, r, d: p == "Vagrantfile", "its own Vagrant configuration, by linguist's path list"),
    ],
    "Matze1985+GlucoTT": [],
    "Anteino+SyntaxAnteinoDerby": [],
    "tomverbeure+rv32soc": [],
    "JakeJing+fishconfig": [],
    "charmaur+PolyDiceGenerator": [],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
