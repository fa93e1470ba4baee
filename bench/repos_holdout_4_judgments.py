"""Issue 46, fourth holdout: hand judgments of the drops, made after the single run (16:40 UTC) by reading every
(reason, folder) group (heads of the files listed per group; every file of the small groups and of the groups
judged wrong) and applied to the group. Rule, as in the earlier rounds: a drop is wrong when it removes the
repository's own code, prose or configuration for a reason that misreads it (a vendored-path or vendored-tree
misattribution; a line-length check on a hand-written line; an English stop-word check on a real reference page
with sentences of prose; Markdown headings' closing '###' read as hashtags); data files, fixtures, generated files,
binaries, stubs, link lists, tables, placeholder text, other projects' code and files whose own license is outside
the default permissive policy are right to drop (The Stack v2's thresholds and the policy are the rule). ccache's
`no_license` drops are counted right: its root license (GPL-3.0-or-later, LICENSE.adoc) is not resolved, but that
license is outside the permissive default too, so the outcome is the policy's.

    python -m bench.repos_holdout_4_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

# Real reference pages of hugo's documentation (each with at least one sentence of prose) dropped by Gopher's
# stop-word, repetition or character-class checks.
HUGO_PAGES = tuple(f"docs/content/en/{page}" for page in (
    "_common/_index.md", "_common/methods/output-formats/to-use-this-method.md",
    "_common/methods/pages/group-sort-order.md", "commands/hugo_deploy.md", "commands/hugo_import.md",
    "commands/hugo_import_jekyll.md", "commands/hugo_list.md", "commands/hugo_mod_clean.md", "commands/hugo_mod_npm.md",
    "configuration/minify.md", "content-management/diagrams.md", "functions/hugo/Environment.md",
    "functions/math/Rand.md", "functions/urls/Anchorize.md", "methods/menu-entry/HasChildren.md",
    "methods/page/Draft.md", "methods/page/RegularPagesRecursive.md", "methods/pages/ByParam.md",
    "methods/shortcode/Page.md", "methods/site/Role.md", "methods/site/Version.md",
    "quick-reference/glossary/cicd.md", "quick-reference/glossary/cli.md", "quick-reference/glossary/content-format.md",
    "quick-reference/glossary/default-sort-order.md", "quick-reference/glossary/headless-bundle.md",
    "quick-reference/glossary/marshal.md", "quick-reference/glossary/page-kind.md",
    "quick-reference/glossary/segment.md", "quick-reference/glossary/zero-time.md", "templates/embedded.md"))
CYBERCHEF_DESCRIBED = tuple(f"src/core/operations/{name}.mjs" for name in (
    "Bombe", "Enigma", "Lorenz", "Magic", "Typex", "XTEADecrypt", "XTEAEncrypt"))
PREMAKE_PAGES = ("website/docs/implibsuffix.md", "website/docs/locale.md", "website/docs/structmemberalign.md",
                 "website/docs/visibility.md", "website/docs/term/term.getTextColor.md")

WRONG = {
    "pex-tool+pex": [
        (lambda p, r, d: r == "vendored_path" and p.startswith(("pex/cache/", "pex/cli/commands/cache/", "docker/cache/")),
         "pex's own cache code and Docker cache image (linguist `cache/`)"),
        (lambda p, r, d: r == "vendored_path" and p.startswith("docs/_templates/"),
         "its own Sphinx templates (linguist `docs/_templates/`)"),
        (lambda p, r, d: p in ("pex/vendor/README.md", "pex/vendor/__init__.py", "pex/vendor/__main__.py",
                               "pex/third_party/__init__.py"),
         "pex's own vendoring tool and import hooks beside the vendored code (`*/vendor/*`, `*/third_party/*`)"),
    ],
    "ccache+ccache": [
        (lambda p, r, d: r == "vendored" and p.startswith("src/third_party/") and p.endswith("/CMakeLists.txt"),
         "ccache's own build files for each third-party folder, taken with the folder (manifest rule)"),
    ],
    "gchq+CyberChef": [
        (lambda p, r, d: r == "max_line_length" and p in CYBERCHEF_DESCRIBED,
         "an operation's hand-written description string on one line (max_line_length)"),
        (lambda p, r, d: p == "src/core/vendor/ascon.mjs", "CyberChef's own Ascon implementation in vendor/ (`*/vendor/*`)"),
    ],
    "FreshRSS+FreshRSS": [
        (lambda p, r, d: r == "vendored" and p.startswith("p/themes/Nord/"),
         "the Nord theme written for FreshRSS, read as a copy by its own LICENSE's holder (Joel Garcia)"),
    ],
    "premake+premake-core": [
        (lambda p, r, d: p in PREMAKE_PAGES,
         "a short real reference page (stop words; a '### Parameters ###' heading read as hashes)"),
    ],
    "gohugoio+hugo": [
        (lambda p, r, d: p in HUGO_PAGES, "a short real reference page of hugo's docs (Gopher's prose checks)"),
        (lambda p, r, d: r == "vendored_path" and p.startswith(("cache/", "deps/deps")),
         "hugo's own cache and deps packages (linguist `(^|/)cache/`, `^deps/`)"),
        (lambda p, r, d: r == "vendored_path" and p.startswith("docs/static/") and not p.endswith(".json")
         or p == "docs/static/manifest.json",
         "hugo's own site images, icons and web manifest (linguist `docs/static/`; its example data is right)"),
    ],
}


if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
