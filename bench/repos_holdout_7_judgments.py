"""Issue 46, seventh holdout: hand judgments of the drops, made after the single run (01:57 UTC, main at 9f0ba7e) by
reading every (reason, folder) group (heads of the files listed per group; every file of the small groups and of the
groups judged wrong) with the collector's hand list beside them, and applied to the group. Rule, as in the earlier
rounds: a drop is wrong when it removes the repository's own code, prose or configuration for a reason that misreads
it (a vendored-tree misattribution, also where the license policy would drop the file anyway; a license read from a
text that is not the file's; a line-length check on a hand-written line; a prose check whose premise is false for that
file; linguist's `.vscode/` on the project's own settings); data files, fixtures, generated or compiled files
(dartdoc's `styles.css`, compiled from `web/styles/*.scss`), binaries, stubs, templates, other projects' code (whole or
modified) and files whose license is outside the default permissive policy are right to drop.

    python -m bench.repos_holdout_7_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

WRONG = {
    "sqlitebrowser+sqlitebrowser": [
        (lambda p, r, d: r == "vendored" and p.startswith("installer/windows/"),
         ("the project's own WiX installer (build.cmd, product.wxs, strings.wxl...) and the GPL text it shows, read as "
          "another project's because license.rtf's FSF line, in RTF markup, was not seen as the license document's "
          "own")),
        (lambda p, r, d: r == "vendored" and p in ("cmake/FindQCustomPlot.cmake", "cmake/FindQHexEdit.cmake"),
         "CMake modules a contributor wrote for the project (Scott Furry, 2019; 25 commits), BSD-3-Clause in his name"),
    ],
    "fabioarnold+nanovg-zig": [
        (lambda p, r, d: r == "license_not_allowed" and p.endswith(".zig"),
         ("the project's own examples (Zlib, its root LICENSE.txt), given the OFL of examples/LICENSE_OFL.txt, the "
          "Noto Emoji font's license beside them")),
        (lambda p, r, d: p.startswith(".vscode/"), "its own VS Code launch and task settings (linguist `.vscode/`)"),
    ],
    "jpsim+Yams": [
        (lambda p, r, d: p == "CHANGELOG.md",
         "the project's changelog, whose repeated '* None.' entries are its structure (gopher_repetition)"),
    ],
    "ReactiveCocoa+ReactiveObjC": [],
    "janestreet+re2": [],
    "dart-lang+dartdoc": [],
}


if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
