"""Issue 46, second holdout: hand judgments of the drops, made by reading every (reason, folder) group (heads of the
files listed per group; all files of small groups) and applied to the group. Rule: a drop is wrong when it
removes the repository's own code, prose or configuration for a reason that misreads it (a vendored-path or
vendored-tree misattribution, a misread license, a heuristic whose premise is false for that file: an ASCII-art
banner, a short real prose page); data files, fixtures, generated files, binaries, other projects' code and
files whose own license is outside the default permissive policy are right to drop (The Stack v2's thresholds
and the policy are the rule, as in the first holdout's judging)."""
import collections
import json
import sys

OWN_EXTERNAL = ('external/builder/', 'external/ccov/', 'external/check_l10n/', 'external/chromium/',
                'external/cmapscompress/', 'external/dist/', 'external/eslint_plugins/', 'external/importL10n/',
                'external/stylelint/', 'external/color_utils.mjs')
WRONG = {
  'mozilla+pdf.js': [
    (lambda p, r, d: r == 'vendored_path' and p.startswith(OWN_EXTERNAL), "pdf.js's own build tools, dist packaging and their fixtures under external/ (linguist `extern(als?)/`, `dist/`)"),
    (lambda p, r, d: p == 'src/pdf.worker.js', "pdf.js's own worker entry (linguist's `pdf.worker.js` name pattern, in pdf.js itself)"),
    (lambda p, r, d: p == 'external/.gitignore', "its own .gitignore of external/ (linguist `extern(als?)/`, no longer exempt there)"),
    (lambda p, r, d: p == 'docs/templates/layout.njk', "its own docs template (linguist `docs/templates/`)"),
    (lambda p, r, d: r == 'encoded_data' and p in ('.prettierignore', '.stylelintignore'), "its own ignore lists read as encoded data")],
  'pypa+pipenv': [
    (lambda p, r, d: p in ('docs/_static/custom.css', 'docs/_templates/hacks.html', 'docs/_templates/sidebarlogo.html'), "its own Sphinx CSS and templates (linguist `docs/_static|_templates/`)"),
    (lambda p, r, d: p == 'docs/quick_start.md', "a real Markdown guide dropped for its heading hashes (gopher_too_many_hashes)"),
    (lambda p, r, d: p == 'pipenv/__version__.py', "an ASCII-art banner over the version line (alphanumeric_fraction)")],
  'opencontainers+runc': [
    (lambda p, r, d: p in ('SECURITY.md', 'man/README.md', 'man/runc-start.8.md'), "short real prose / a man page (gopher_enough_stop_words)"),
    (lambda p, r, d: p == 'tests/integration/testdata/.gitignore', "its own .gitignore of testdata/ (linguist `testdata/`, no longer exempt there)")],
  'valkey-io+valkey': [
    (lambda p, r, d: p in ('deps/Makefile', 'deps/README.md'), "valkey's own Makefile and README for its deps/ (linguist `^deps/`)")],
  'ocornut+imgui': [
    (lambda p, r, d: p == 'misc/debuggers/README.txt', "a short real README (dup_line_char_frac)")],
  'rust-lang+mdBook': [],
}


def tally(folder, wrong_rules):
    """Print, per repository and in all, how many drops the hand rules judge right. Each rule is asked
    ``rule(path, reason, detail)`` of a drop row in FOLDER/<key>.jsonl; the first rule that holds names why it is
    wrong."""
    all_n = all_w = 0
    for key, rules in wrong_rules.items():
        with open(f'{folder}/{key}.jsonl') as handle:
            rows = [json.loads(line) for line in handle]
        wrong = collections.Counter()
        for row in rows:
            for rule, why in rules:
                if rule(row['path'], row['reason'], row.get('detail', '')):
                    wrong[why] += 1
                    break
        n, w = len(rows), sum(wrong.values())
        all_n, all_w = all_n + n, all_w + w
        print(json.dumps({'repo': key, 'drops': n, 'right': n - w, 'share_right': round((n - w) / n, 4) if n else 1,
                          'wrong': dict(wrong)}))
    print(json.dumps({'all': all_n, 'right': all_n - all_w, 'share_right': round((all_n - all_w) / all_n, 4)}))


# Usage: python -m bench.repos_holdout_2_judgments SAMPLES_DIR (the --samples folder of bench.repositories_holdout)
if __name__ == '__main__':
    tally(sys.argv[1], WRONG)
