"""Issue 46, fifth holdout: hand judgments of the drops, made after the single run (19:29 UTC, main at e0d5de4) by
reading every (reason, folder) group (heads of the files listed per group; every file of the small groups and of the
groups judged wrong) with the collector's hand list beside them, and applied to the group. Rule, as in the earlier
rounds: a drop is wrong when it removes the repository's own code, prose or configuration for a reason that misreads
it (a vendored-path or vendored-tree misattribution, also where the license policy would drop the file anyway; a
line-length check on a hand-written line; a prose or encoded-data check whose premise is false for that file); data
files, fixtures, generated files, binaries, stubs, templates, other projects' code (whole or modified) and files whose
own license is outside the default permissive policy are right to drop.

    python -m bench.repos_holdout_5_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

# SteamKit's own library: its license.txt names "Ryan Stecker & SteamRE Team", the project itself; the root's LGPL text
# names only the FSF (the license text's own copyright), so the holder rule took the folder for another project's. The
# LZMA SDK files inside it are copies (the hand list names them).
STEAMKIT_LZMA = "SteamKit2/SteamKit2/Util/LZMA/"

WRONG = {
    "SteamRE+SteamKit": [
        (lambda p, r, d: r == "vendored" and p.startswith("SteamKit2/SteamKit2/") and not p.startswith(STEAMKIT_LZMA),
         "SteamKit's own library, its license.txt naming SteamRE, read as a copy against the root LGPL text's FSF line"),
    ],
    "YOURLS+YOURLS": [
        (lambda p, r, d: p == "js/common.js",
         "YOURLS's own script, the jQuery cookie plugin appended below it (its first copyright line is the plugin's)"),
        (lambda p, r, d: p == "README.md", "a real README, its HTML header's long words (gopher_above_avg_threshold)"),
    ],
    "ben-manes+caffeine": [
        (lambda p, r, d: r == "vendored_path" and "/com/github/benmanes/caffeine/cache/" in p,
         "caffeine's own Java package com.github.benmanes.caffeine.cache (linguist `(^|/)cache/`)"),
        (lambda p, r, d: p == ".claude/hooks/audit-report-guard.sh",
         "a hand-written message string on one line (max_line_length)"),
        (lambda p, r, d: p == ".github/SECURITY.md", "a real security policy, its badge URLs read as encoded data"),
    ],
    "jesseduffield+lazydocker": [],
    "sparklemotion+sqlite3-ruby": [],
    "trifectatechfoundation+bzip2-rs": [],
}


if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
