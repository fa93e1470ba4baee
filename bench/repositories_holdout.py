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
from codemix.filters.licenses import is_license_file, is_notice_file, license_ids
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
    trees = next(iter(vendored.values()), ())
    return {"name": repository_names(source)[git_dir], "files": files,
            "trees": [(tree.folder, tree.evidence) for tree in trees]}


def path_of(location: str) -> str:
    where = split_tree_location(location)
    return where[2] if where else location


# --------------------------------------------------------------------------------------------
# ScanCode's reading per path.


def scancode_licenses(report: str, prefix: str) -> dict[str, tuple[str, float]]:
    """``{path: (spdx expression, percentage of license text)}`` for each file ScanCode detected a license in."""
    with open(report) as handle:
        data = json.load(handle)
    found = {}
    for entry in data["files"]:
        expression = entry.get("detected_license_expression_spdx")
        if entry["type"] == "file" and expression:
            path = entry["path"].split("/", 1)[1] if entry["path"].startswith(prefix + "/") else entry["path"]
            found[path] = (expression, entry.get("percentage_of_license_text") or 0.0)
    return found


def scancode_patent_grants(report: str) -> frozenset[str]:
    """The SPDX keys (lower case, ``LicenseRef-scancode-`` prefix dropped) of what ScanCode's own license database
    files under the category "Patent License" (Google's ``PATENTS`` grant beside golang.org/x's BSD-3-Clause): a
    grant of patent rights, not a copyright license; read only with ``scancode --license-references``."""
    with open(report) as handle:
        references = json.load(handle).get("license_references") or []
    return frozenset(re.sub(r"(?i)^LicenseRef-scancode-", "", ref.get("spdx_license_key") or ref["key"]).lower()
                     for ref in references if ref.get("category") == "Patent License")


def independent_license(path: str, scancode: dict[str, tuple[str, float]], own: bool = True,
                        named: bool = False) -> str:
    """The file's own ScanCode detection (``own``), else the nearest license text up the tree, else the root's.
    A license text is a file ScanCode finds >= 50% license text in; with ``named``, only one named like a license
    file (``LICENSE*``, ``COPYING*``, ``NOTICE*``...: a small header that is mostly its license is not its folder's)."""
    if own and path in scancode:
        return scancode[path][0]
    folder = path
    while True:
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
        texts = sorted(expression for p, (expression, share) in scancode.items()
                       if share >= 50 and (p.rsplit("/", 1)[0] if "/" in p else "") == folder
                       and (not named or is_license_file(p) or is_notice_file(p)))
        if texts:
            return " AND ".join(dict.fromkeys(texts))
        if not folder:
            return ""


def comparable(expression: str) -> frozenset[str]:
    """License ids without ScanCode's ``LicenseRef-scancode-`` prefix, case, ``-only``/``-or-later``/``+``,
    and exceptions (``WITH x``, ScanCode's ``AND fmt-exception``)."""
    cleaned = re.sub(r"LicenseRef-scancode-", "", expression, flags=re.IGNORECASE)
    cleaned = re.sub(r"\s+WITH\s+\S+", "", cleaned)
    ids = license_ids(cleaned) or frozenset(re.findall(r"[\w.+-]+", cleaned.lower())) - {"and", "or", "with"}
    return frozenset(i for i in ids if not i.endswith("exception"))


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
    parser.add_argument("--samples", help="folder to write each repository's drops to")
    args = parser.parse_args(argv)
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
        scancode = scancode_licenses(os.path.join(args.scancode, f"{key}.json"), key)
        compared = {p: (f["license_of_path"], independent_license(p, scancode)) for p, f in files.items()
                    if "license_of_path" in f}
        agree = [p for p, (ours, theirs) in compared.items() if comparable(ours) == comparable(theirs)]
        by_texts = sum(comparable(ours) == comparable(independent_license(p, scancode, own=False))
                       for p, (ours, _) in compared.items())
        named = sum(comparable(ours) == comparable(independent_license(p, scancode, named=True))
                    for p, (ours, _) in compared.items())
        patents = scancode_patent_grants(os.path.join(args.scancode, f"{key}.json"))
        grants_aside = sum(comparable(ours) == comparable(theirs) - patents for ours, theirs in compared.values())
        row["licenses"] = {"compared": len(compared), "agree": len(agree), "agree_with_license_texts_only": by_texts,
                           "agree_patent_grants_aside": grants_aside, "agree_folder_texts_by_name": named,
                           "patent_grants": sorted(patents),
                           "disagree": {p: pair for p, pair in sorted(compared.items()) if p not in set(agree)}}
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
