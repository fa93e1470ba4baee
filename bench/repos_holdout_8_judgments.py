"""Issue 46, eighth holdout: hand judgments of the drops, made after the single run (05:10 UTC, branch i46v at 3b13b5e,
main's code) by reading every (reason, folder) group (the heads the bench's --samples wrote; every file of the small
groups and of the groups judged wrong) with the collector's hand list beside them, and applied to the group. Rule, as in
the earlier rounds: a drop is wrong when it removes the repository's own code, prose or configuration for a reason that
misreads it (a vendored-tree misattribution, also where the license policy would drop the file anyway; a line-length
check on a hand-written line; a prose check whose premise is false for that file; a linguist path pattern on the
project's own files); data files, fixtures, generated, built or minified files (Stipple's `stipplecore.js` bundle),
binaries, stubs, templates, other projects' code (whole or modified) and files whose license is outside the default
permissive policy (numfort's LGPL-3.0, v2-core's GPL-3.0) are right to drop.

    python -m bench.repos_holdout_8_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

WRONG = {
    "cashapp+zipline": [
        (lambda p, r, d: r == "vendored_path" and "/cache/" in p,
         "its own SQLDelight schema files in its `cache` package (linguist `(^|/)cache/`)"),
        (lambda p, r, d: p == "zipline/proguard-rules.pro", "its own ProGuard rules (linguist `proguard-rules.pro`)"),
        (lambda p, r, d: p == "zipline/README.md", "its own README, whose box-drawn module diagram lowers the alphanumeric share"),
        (lambda p, r, d: p.endswith("wycheproof/README.md"), "its own note on the copied test data (a prose check on a short note)"),
    ],
    "GenieFramework+Stipple.jl": [
        (lambda p, r, d: p == "src/Layout.jl", "its own Julia module, dropped for one long line"),
    ],
    "Tencent+rapidjson": [
        (lambda p, r, d: r == "vendored" and p.startswith("contrib/natvis/"),
         "the Visual Studio visualizer written for rapidjson by a contributor (its own LICENSE in his name)"),
        (lambda p, r, d: p == "doc/performance.zh-cn.md", "the Chinese translation of its own performance page (English stop words)"),
        (lambda p, r, d: p == "doc/misc/doxygenextra.css", "its own hand-written Doxygen stylesheet, dropped for one long line"),
    ],
    "richardfoltyn+numfort": [
        (lambda p, r, d: r == "vendored" and p.startswith("src/external/sobol/") and p.rsplit("/", 1)[-1] not in ("LICENSE.txt", "new-joe-kuo-6.21201.txt"),
         "numfort's own Sobol module, generator script, CMakeLists and README beside Joe and Kuo's direction numbers"),
    ],
    "johnnovak+nim-glfw": [],
    "Uniswap+v2-core": [],
}


if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
