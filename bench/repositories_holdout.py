"""Issue 46's holdout: each repository of ``bench/repos_holdout.tsv`` read by the git reader and judged as the
filter stage judges (``pipelines.filter.filter_outcomes`` with each repository's licenses, vendored trees and
amalgamations resolved from its own files; default ``FiltersConfig``, decontamination off).

    python -m bench.repositories_holdout --mirrors /work/.mirror [--truth TSV] [--scancode DIR] [--samples DIR]

Per repository: files read, kept, dropped per reason; the vendored trees found with their evidence; the
vendored share of kept tokens against a hand-made list of vendored folders (``--truth``: repo, folder,
why); each file's license against ScanCode's reading (``--scancode DIR`` holds ``OWNER+NAME.json`` from
``scancode --license --json``): the file's own detection where ScanCode finds one, else ScanCode's
reading of the nearest file up the tree that it calls a license text (>= 50% license text), else the
root's (and, as ``agree_with_license_texts_only``, against the license texts alone, per-file notices aside). ``--samples DIR`` writes every drop with its first lines to ``DIR/OWNER+NAME.jsonl`` to judge by
hand. Tokens are ``\\w+`` words and single symbols (a tokenizer-free count; shares, not totals, matter).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re

from codemix.config import load_config
from codemix.document import Document, Dropped
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.licenses import license_ids
from codemix.filters.reuse import names_package, package_text
from codemix.pipelines.filter import (
    document_license,
    filter_outcomes,
    license_evidence,
    repository_amalgamations,
    repository_lines,
    resolve_repository_license,
    resolve_vendored,
    vendoring_evidence,
)
from codemix.pipelines.readers import read_location, repository_names
from codemix.pipelines.readers.common import split_tree_location
from codemix.sources import SourceConfig

TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> int:
    return sum(1 for _ in TOKEN.finditer(text))


def judge(git_dir: str, config: FiltersConfig) -> dict:
    """Every file of the repository at ``git_dir``: kept (with license, tokens) or dropped (reason, detail)."""
    source = load_config(SourceConfig, {"name": "holdout", "type": "git", "paths": [git_dir]})
    outcomes = list(read_location(source, git_dir))
    docs = [o for o in outcomes if isinstance(o, Document)]
    evidence, facts, lines = (collections.defaultdict(list) for _ in range(3))
    for doc in docs:
        for key, value in license_evidence(doc):
            evidence[key].append(value)
        for key, fact in vendoring_evidence(doc):
            facts[key].append(fact)
        for key, value in repository_lines(doc, config):
            lines[key].append(value)
    licenses = dict(resolve_repository_license(key, values) for key, values in evidence.items())
    vendored = dict(found for key, values in facts.items() for found in resolve_vendored(key, values))
    amalgamations = dict(found for key, values in lines.items() for found in repository_amalgamations(key, values))
    document_filter, files = DocumentFilter(config), {}
    for outcome in outcomes:
        if isinstance(outcome, Dropped):  # at crawl
            files[path_of(outcome.location)] = {"reason": f"crawl:{outcome.reason}", "detail": outcome.detail}
        elif not isinstance(outcome, Document):
            files[path_of(outcome.location)] = {"reason": "quarantined", "detail": outcome.error}
    for doc in docs:
        for result in filter_outcomes(doc, document_filter, licenses, amalgamations, vendored):
            if isinstance(result, Document):
                files[doc.path] = {"reason": None, "license": result.license, "tokens": tokens(result.text),
                                   "language": result.language}
            elif isinstance(result, Dropped):
                files[doc.path] = {"reason": result.reason, "detail": result.detail, "license": "",
                                   "text": doc.text, "language": doc.language}
        files[doc.path]["license_of_path"] = document_license(doc, licenses)
    trees = next(iter(vendored.values())).trees if vendored else ()
    return {"name": repository_names(source)[git_dir], "files": files,
            "trees": [(tree.folder, tree.evidence) for tree in trees]}


def path_of(location: str) -> str:
    where = split_tree_location(location)
    return where[2] if where else location


# --------------------------------------------------------------------------------------------
# ScanCode's reading per path.


# The reference reading of a path, from ScanCode's report by one rule (docs/repositories.md, "Checking licenses per
# path"): the file's own detection where ScanCode matched a grant in the file itself (a license text, notice or tag;
# not a pointer such as "governed by a BSD-style license that can be found in the LICENSE file", whose rule names a
# referenced file, and not matches ScanCode followed into another file); else the license files of the nearest folder
# up the tree that has any (files ScanCode's own classifier calls legal by name, ``summarycode.classify``), a license
# text named after a package there (``python_dotenv.LICENSE``) answering for that package only, as codemix reads it.

# summarycode/classify.py LEGAL_STARTS_ENDS (scancode-toolkit 32.5.0): a file is legal when its name or base name
# starts or ends with one of these.
SCANCODE_LEGAL = ("copying", "copyright", "copyrights", "copyleft", "notice", "license", "licenses", "licence",
                  "licences", "licensing", "licencing", "legal", "eula", "agreement", "patent", "patents")
POINTER_KEYS = ("unknown-license-reference", "unknown-spdx", "unknown")
POINTER_TOKENS = 100


def scancode_legal(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    base = name.rsplit(".", 1)[0] if "." in name else name
    return any(n.startswith(SCANCODE_LEGAL) or n.endswith(SCANCODE_LEGAL) for n in (name, base))


# ScanCode's categories for what is not a license to copy the file: a patent grant (Google's ``PATENTS`` beside
# golang.org/x's BSD-3-Clause), a contributor agreement (the DCO in CONTRIBUTING.md), a bare warranty disclaimer.
NOT_A_COPYRIGHT_LICENSE = ("Patent License", "CLA", "Unstated License")


class RuleKinds:
    """What ScanCode's own data says of a match: whether its rule is a pointer (it names a referenced file, or is a
    bare reference, intro or clue), read from the rule files of the ScanCode install (``--scancode-rules``), and
    whether its license key is in a ``NOT_A_COPYRIGHT_LICENSE`` category (the install's license files, else the
    report's ``license_references``). Without the install, only followed matches and ScanCode's unknown-reference
    keys count as pointers."""

    def __init__(self, rules_dir: str | None, references: list[dict]):
        self._dir, self._cache = rules_dir, {}
        self.not_licenses = {ref["key"] for ref in references if ref.get("category") in NOT_A_COPYRIGHT_LICENSE}
        licenses_dir = os.path.join(os.path.dirname(rules_dir), "licenses") if rules_dir else ""
        for name in os.listdir(licenses_dir) if licenses_dir and os.path.isdir(licenses_dir) else ():
            with open(os.path.join(licenses_dir, name)) as handle:
                category = re.search(r"^category: (.+)$", handle.read(4000), re.MULTILINE)
            if category and category.group(1).strip() in NOT_A_COPYRIGHT_LICENSE:
                self.not_licenses.add(name.removesuffix(".LICENSE"))

    def pointer(self, identifier: str) -> bool:
        if not self._dir or not identifier.endswith(".RULE"):
            return False
        if identifier not in self._cache:
            try:
                with open(os.path.join(self._dir, identifier)) as handle:
                    head = handle.read().split("---", 2)[1]
            except (OSError, IndexError):
                head = ""
            self._cache[identifier] = bool(re.search(r"^(?:referenced_filenames:|is_license_(?:reference|intro|clue): yes)",
                                                     head, re.MULTILINE))
        return self._cache[identifier]

    def grant(self, match: dict, path: str) -> bool:
        """Whether a match is a grant the file itself makes."""
        keys = set(re.findall(r"[\w.+-]+", match["license_expression"])) - {"AND", "OR", "WITH"}
        # A text that quotes conditions is a grant even where it points elsewhere for part of it (rubygems' LICENSE.txt:
        # "under either the terms of the MIT license (see the file MIT.txt), or the conditions below", 400 tokens); a
        # pointer alone is a sentence (Go's "governed by a BSD-style license that can be found in the LICENSE file").
        pointer = self.pointer(match.get("rule_identifier", "")) and (match.get("matched_length") or 0) < POINTER_TOKENS
        return (match["from_file"] == path and not pointer and not keys & set(POINTER_KEYS)
                and not keys <= self.not_licenses)


def scancode_readings(report: str, prefix: str, rules_dir: str | None) -> dict[str, str]:
    """``{path: expression}``: for each file, the grants ScanCode matched in the file itself ("" when none)."""
    with open(report) as handle:
        data = json.load(handle)
    kinds, found = RuleKinds(rules_dir, data.get("license_references") or []), {}
    for entry in data["files"]:
        if entry["type"] != "file":
            continue
        path = entry["path"].split("/", 1)[1] if entry["path"].startswith(prefix + "/") else entry["path"]
        grants = [m["license_expression_spdx"] for d in entry.get("license_detections") or () for m in d["matches"]
                  if kinds.grant(m, entry["path"])]
        found[path] = " AND ".join(dict.fromkeys(grants))
    return found


def scancode_patent_grants(report: str) -> frozenset[str]:
    """The SPDX keys (lower case, ``LicenseRef-scancode-`` prefix dropped) of what ScanCode's own license database
    files under the category "Patent License" (Google's ``PATENTS`` grant beside golang.org/x's BSD-3-Clause): a
    grant of patent rights, not a copyright license; read only with ``scancode --license-references``."""
    with open(report) as handle:
        references = json.load(handle).get("license_references") or []
    return frozenset(re.sub(r"(?i)^LicenseRef-scancode-", "", ref.get("spdx_license_key") or ref["key"]).lower()
                     for ref in references if ref.get("category") == "Patent License")


def legal_files(readings: dict[str, str]) -> dict[str, list[str]]:
    """``{folder: legal files in it with a grant}``."""
    by_folder = collections.defaultdict(list)
    for path, grant in readings.items():
        if grant and scancode_legal(path):
            by_folder[path.rsplit("/", 1)[0] if "/" in path else ""].append(path)
    return by_folder


def independent_license(path: str, readings: dict[str, str], legal: dict[str, list[str]], own: bool = True) -> str:
    """The reference reading of ``path`` (the rule above); ``own=False``: the folder's license files only."""
    if own and readings.get(path):
        return readings[path]
    parts = path.split("/")
    for depth in range(len(parts) - 1, -1, -1):
        legal_here = legal.get("/".join(parts[:depth]), [])
        named = [p for p in legal_here if package_text(p)]
        mine = [readings[p] for p in named if names_package(package_text(p), parts[depth])]
        texts = mine or [readings[p] for p in legal_here if p not in named]
        if texts:
            return " AND ".join(dict.fromkeys(texts))
    return ""


def comparable(expression: str) -> frozenset[str]:
    """License ids without ScanCode's ``LicenseRef-scancode-`` prefix or ours, ``LicenseRef-`` (ScanCode's
    ``public-domain`` is our ``LicenseRef-public-domain``), case, ``-only``/``-or-later``/``+``, and exceptions
    (``WITH x``, ScanCode's ``AND fmt-exception``)."""
    cleaned = re.sub(r"LicenseRef-(?:scancode-)?", "", expression, flags=re.IGNORECASE)
    cleaned = re.sub(r"\s+WITH\s+\S+", "", cleaned)
    ids = license_ids(cleaned) or frozenset(re.findall(r"[\w.+-]+", cleaned.lower())) - {"and", "or", "with"}
    return frozenset(i for i in ids if "exception" not in i)  # also a versioned one, GCC-exception-3.1


# --------------------------------------------------------------------------------------------


def in_truth(path: str, folders: list[str]) -> bool:
    """Whether ``path`` is a hand-listed vendored file or lies in a hand-listed vendored folder."""
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def vendored_share(files: dict, folders: list[str]) -> tuple[int, int, list[str]]:
    """(kept tokens in the hand-listed vendored folders and files, all kept tokens, kept files there)."""
    inside = [path for path, f in files.items() if f["reason"] is None and in_truth(path, folders)]
    total = sum(f["tokens"] for f in files.values() if f["reason"] is None)
    return sum(files[p]["tokens"] for p in inside), total, sorted(inside)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tsv", default="bench/repos_holdout.tsv")
    parser.add_argument("--mirrors", required=True, help="folder of OWNER+NAME/repo bare mirrors")
    parser.add_argument("--truth", help="TSV of hand-judged vendored folders: repo, folder, why")
    parser.add_argument("--scancode", help="folder of OWNER+NAME.json ScanCode reports")
    parser.add_argument("--scancode-rules", help="ScanCode's licensedcode/data/rules folder (tells pointers from grants)")
    parser.add_argument("--licensecheck", action="store_true", help="read each disagreeing file with Debian's licensecheck")
    parser.add_argument("--samples", help="folder to write each repository's drops to")
    args = parser.parse_args(argv)
    args.mirror_of = lambda key: os.path.join(args.mirrors, key, "repo")
    config = load_config(FiltersConfig, {"decontamination": {"enabled": False}})
    truth = collections.defaultdict(list)
    for line in read_lines(args.truth) if args.truth else []:
        repo, folder = line.split("\t")[:2]
        truth[repo].append(folder.strip().rstrip("/"))
    for line in read_lines(args.tsv):
        repo_at, language = line.split("\t")[:2]
        repo = repo_at.split("@")[0]
        key = repo.replace("/", "+")
        judged = judge(os.path.join(args.mirrors, key, "repo"), config)
        report(repo, language, judged, truth.get(repo, []), args, key)


def read_lines(path: str) -> list[str]:
    """A TSV's lines, without blank lines and ``#`` comments."""
    with open(path) as handle:
        return [line for line in handle if line.strip() and not line.startswith("#")]


def compare_licenses(files: dict, report_path: str, key: str, args) -> dict:
    """Each file's license (``license_of_path``) against the reference reading: plain agreement, with the folder's
    license files only, with patent grants aside; disagreements grouped in classes (ours, reference, folder) and,
    with ``--licensecheck``, Debian's licensecheck reading of each disagreeing file as a second reader."""
    readings = scancode_readings(report_path, key, args.scancode_rules)
    legal = legal_files(readings)
    compared = {p: (f["license_of_path"], independent_license(p, readings, legal)) for p, f in files.items()
                if "license_of_path" in f}
    disagree = {p: pair for p, pair in sorted(compared.items()) if comparable(pair[0]) != comparable(pair[1])}
    by_texts = sum(comparable(ours) == comparable(independent_license(p, readings, legal, own=False))
                   for p, (ours, _) in compared.items())
    patents = scancode_patent_grants(report_path)
    grants_aside = sum(comparable(ours) == comparable(theirs) - patents for ours, theirs in compared.values())
    classes = collections.defaultdict(list)
    for path, (ours, theirs) in disagree.items():
        classes[(ours, theirs, "/".join(path.split("/")[:-1][:3]))].append(path)
    second = licensecheck(args.mirror_of(key), sorted(disagree)) if args.licensecheck else {}
    return {"compared": len(compared), "agree": len(compared) - len(disagree), "agree_folder_texts_only": by_texts,
            "agree_patent_grants_aside": grants_aside, "patent_grants": sorted(patents),
            "classes": [{"ours": o, "reference": t, "folder": f, "files": len(ps), "example": ps[0],
                         "licensecheck": sorted({second.get(p, "") for p in ps})}
                        for (o, t, f), ps in sorted(classes.items(), key=lambda item: -len(item[1]))],
            "disagree": {p: [*pair, second.get(p, "")] for p, pair in disagree.items()}}


def licensecheck(git_dir: str, paths: list[str]) -> dict[str, str]:
    """Debian's ``licensecheck`` (SPDX short names) on each file's head, as a second reader; "" where it finds none."""
    import subprocess
    import tempfile
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(paths):
            blob = subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{path}"], check=True, capture_output=True).stdout
            with open(os.path.join(tmp, str(i)), "wb") as out:
                out.write(blob)
        if paths:
            listing = subprocess.run(["licensecheck", "--shortname-scheme=spdx", "-m", *(os.path.join(tmp, str(i))
                                      for i in range(len(paths)))], check=False, capture_output=True, text=True).stdout
            for line in listing.splitlines():
                name, _, reading = line.partition("\t")
                if reading and reading != "UNKNOWN":
                    found[paths[int(os.path.basename(name))]] = reading.replace(" and/or ", " OR ").replace(" and ", " AND ")
    return found


def report(repo: str, language: str, judged: dict, truth: list[str], args, key: str) -> None:
    files = judged["files"]
    reasons = collections.Counter(f["reason"] for f in files.values() if f["reason"] is not None)
    kept = sum(1 for f in files.values() if f["reason"] is None)
    row = {"repo": repo, "language": language, "name": judged["name"], "read": len(files), "kept": kept,
           "dropped": dict(reasons.most_common()), "trees": judged["trees"]}
    inside, total, missed = vendored_share(files, truth)
    row["vendored_share"] = {"kept_tokens_in_vendored": inside, "kept_tokens": total,
                             "share": round(inside / total, 4) if total else 0.0, "kept_files_there": missed}
    row["vendored_outside_truth"] = sorted(p for p, f in files.items() if f["reason"] == "vendored"
                                           and not in_truth(p, truth))
    if args.scancode and os.path.exists(os.path.join(args.scancode, f"{key}.json")):
        row["licenses"] = compare_licenses(files, os.path.join(args.scancode, f"{key}.json"), key, args)
    if args.samples:
        os.makedirs(args.samples, exist_ok=True)
        with open(os.path.join(args.samples, f"{key}.jsonl"), "w") as out:
            for path, f in sorted(files.items()):
                if f["reason"] is not None:
                    head = "".join((f.get("text") or "").splitlines(keepends=True)[:8])[:600]
                    out.write(json.dumps({"path": path, "reason": f["reason"], "detail": f.get("detail", ""),
                                          "head": head}) + "\n")
    print(json.dumps(row))


if __name__ == "__main__":
    main()
