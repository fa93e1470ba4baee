"""Issue 46, tenth holdout: hand judgments of the drops, made after the single run (11:05 UTC, main 5e3f9d0) by reading
every (reason, folder) group (the heads the bench's --samples wrote; every file of the small groups and of the groups
judged wrong, and the whole file where the head did not settle it) with the collector's hand list beside them, and
applied to the group. Rule, as in the earlier rounds: a drop is wrong when it removes the repository's own code, prose
or configuration for a reason that misreads it (a vendored-tree or vendored-path misattribution, also where the license
policy would drop the file anyway; a line-length or character-class check on a hand-written file; a prose check on a
real page with sentences of prose); data files, tables, sponsor lists, stubs, generated files (Symbolic Math Toolbox
output, an LSP model's generated bindings, nvfetcher's sources), editor-written scenes and presets, binaries, other
projects' code (whole or modified) and files whose license is outside the default permissive policy (emacs.d's
GPL-3.0, clj-kondo's EPL-1.0) are right to drop. Disagreeing with the hand list once: gptoolbox's `mex/box_up.h` and
`mex/segment_list.h` open "This file is part of libigl" (the same author's other project, MPL-2.0 headers): copies by
the list's own rule for a separate project of the same author, so their `vendored` drops are right though the list
omits them (the evidence the drop names, the repository's holders read from LICENSE.Apache-2.0, is not the reason).

    python -m bench.repos_holdout_10_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

GPTOOLBOX_OWN = {"external/README.md", "external/cmyk2rgb.m", "external/exactgeodesic.m"}
LEM_PROSE = {"specs/001-toml-mode/data-model.md", "specs/001-multi-language-canvas/tasks.md"}

WRONG = {
    "Orama-Interactive+Pixelorama": [],
    "alecjacobson+gptoolbox": [
        (lambda p, r, d: r.startswith("vendored") and p in GPTOOLBOX_OWN,
         "gptoolbox's own README and wrappers in external/ (linguist's external pattern)"),
        (lambda p, r, d: r == "alphabetic_fraction" and p == "mesh/spline_area.m",
         "a hand-written function whose comments derive its formula in Unicode math"),
    ],
    "redguardtoo+emacs.d": [],
    "clj-kondo+clj-kondo": [],
    "lem-project+lem": [
        (lambda p, r, d: r.startswith("gopher") and p in LEM_PROSE, "a real design page with sentences of prose"),
    ],
    "pester+Pester": [
        (lambda p, r, d: r == "mean_line_length" and p == "src/functions/Pester.SafeCommands.ps1",
         "hand-written PowerShell with long lines"),
    ],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
