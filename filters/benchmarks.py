"""Agentic benchmark instances (SWE-bench and its variants) kept out of the training data.

A benchmark instance is a repository's issue, the fix that closed it (the gold patch) and its
tests. Each document kind meets it differently: its ``DocumentKind.benchmark_instances``
(codemix.kinds) names one of the ``POLICIES``: a trace whose task is the instance, a commit whose
diff is the fix, the issue thread, a file of the repository that holds the fix. What each policy
matches and why: docs/benchmarks-decontamination.md.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pyarrow.parquet as pq

from codemix.config import ConfigError, join, require
from codemix.document import Document
from codemix.filters.decontamination import benchmark_name, ngram_hashes, normalise_tokens, token_hashes
from codemix.filters.patches import parse_patch
from codemix.kinds import document_kind

# The reasons a document is dropped for, one per document kind (``POLICIES``), and the file mark.
TRACE, COMMIT, LATER_COMMIT, ISSUE, FILE = ("benchmark_trace", "benchmark_commit", "benchmark_later_commit",
                                            "benchmark_issue", "benchmark_file")


# --- instances --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Instance:
    """One benchmark task: the issue (``problem_statement``), its fix (``patch``) and tests."""

    benchmark: str
    instance_id: str
    repo: str  # owner/name
    patch: str
    problem_statement: str
    test_patch: str = ""
    base_commit: str = ""
    created_at: str = ""  # ISO 8601, when the issue or pull request was opened
    numbers: tuple[int, ...] = ()  # the pull request's number and the issues it resolves

    @property
    def repo_key(self) -> str:
        return repo_key(self.repo)


def repo_key(repo: str) -> str:
    """``astropy/astropy``, ``https://github.com/astropy/astropy.git`` and ``astropy`` meet at ``astropy``:
    a local clone is named after its folder, and a fork's copy of the fix is the same fix. A mirror named
    ``owner__name.<commit>`` (SWE-smith's ``swesmith/astropy__astropy.26d14786``) is that repository."""
    name = repo.rstrip("/").removesuffix(".git").rsplit("/", 1)[-1].lower()
    if "__" in name:
        name = re.sub(r"\.[0-9a-f]{7,40}$", "", name.split("__", 1)[1])
    return name


# Field names of the shapes in use, first found wins: SWE-bench (and Verified, Lite, Multilingual,
# SWE-Gym, SWE-smith, SWE-rebench rows), evaluation dumps (``golden_patch``), Multi-SWE-bench
# (``org``, ``number``, ``fix_patch``, ``resolved_issues``, ``base.sha``).
PATCH_FIELDS = ("patch", "golden_patch", "gold_patch", "fix_patch", "model_patch_gold")
INSTANCE_FIX = ("write SWE-bench rows: instance_id, repo (owner/name), patch, problem_statement, and optionally "
                "test_patch, base_commit, created_at (see docs/benchmarks-decontamination.md)")
_ID_NUMBER = re.compile(r"-(\d+)$")


def instance_from_record(record: object, benchmark: str, where: str, path: str) -> Instance:
    """An ``Instance`` from one row of any supported shape; a ``ConfigError`` naming the field."""
    if not isinstance(record, dict):
        raise ConfigError(path, f"{where}: not a JSON object", INSTANCE_FIX)
    repo = _text(record, ("repo",), where, path)
    if record.get("org") and "/" not in repo:  # Multi-SWE-bench: org + repo
        repo = f"{record['org']}/{repo}"
    require("/" in repo, path, f"{where}: field 'repo' must be owner/name, got {repo!r}", INSTANCE_FIX)
    instance_id = record.get("instance_id")
    if instance_id is None and isinstance(record.get("number"), int):
        instance_id = f"{repo.replace('/', '__')}-{record['number']}"
    if not isinstance(instance_id, str) or not instance_id.strip():
        raise ConfigError(path, f"{where}: no string field 'instance_id'", INSTANCE_FIX)
    issues = [i for i in record.get("resolved_issues") or [] if isinstance(i, dict)]
    patch = _text(record, PATCH_FIELDS, where, path)
    require("\n+" in patch or patch.startswith("+"), path, f"{where}: field '{_found(record, PATCH_FIELDS)}' "
            "is not a unified diff (no added line)", INSTANCE_FIX)
    base = record.get("base") if isinstance(record.get("base"), dict) else {}
    return Instance(benchmark=benchmark, instance_id=instance_id.strip(), repo=repo, patch=patch,
                    problem_statement=_statement(record, issues, where, path),
                    test_patch=_optional(record, "test_patch", "a unified diff string", where, path),
                    base_commit=str(record.get("base_commit") or base.get("sha") or ""),
                    created_at=_optional(record, "created_at", "an ISO 8601 string", where, path),
                    numbers=_numbers(record, instance_id, issues))


def _statement(record: dict, issues: list[dict], where: str, path: str) -> str:
    """The problem statement, or (Multi-SWE-bench) the titles and bodies of the issues it resolves."""
    statement = record.get("problem_statement")
    if statement is None and issues:
        statement = "\n".join(f"{i.get('title') or ''}\n{i.get('body') or ''}" for i in issues)
    if not isinstance(statement, str):
        raise ConfigError(path, f"{where}: no string field 'problem_statement'", INSTANCE_FIX)
    return statement


def _optional(record: dict, name: str, shape: str, where: str, path: str) -> str:
    value = record.get(name) or ""
    if not isinstance(value, str):
        raise ConfigError(path, f"{where}: field '{name}' must be {shape}", INSTANCE_FIX)
    return value


def _text(record: dict, names: tuple[str, ...], where: str, path: str) -> str:
    for name in names:
        if name in record:
            if not isinstance(record[name], str) or not record[name].strip():
                raise ConfigError(path, f"{where}: field '{name}' must be a non-empty string", INSTANCE_FIX)
            return record[name]
    also = f" (nor {', '.join(names[1:])})" if len(names) > 1 else ""
    raise ConfigError(path, f"{where}: no field '{names[0]}'{also}", INSTANCE_FIX)


def _found(record: dict, names: tuple[str, ...]) -> str:
    return next(name for name in names if name in record)


def _numbers(record: dict, instance_id: str, issues: list) -> tuple[int, ...]:
    """The pull request's number (SWE-bench ids end in it) and the issues it resolves, where given."""
    found = []
    for key in ("pull_number", "number"):
        if isinstance(record.get(key), int):
            found.append(record[key])
    if match := _ID_NUMBER.search(instance_id):
        found.append(int(match.group(1)))
    listed = record.get("issue_numbers") or []
    if isinstance(listed, str):
        listed = re.findall(r"\d+", listed)
    found += [int(n) for n in listed if str(n).isdigit()]
    found += [i["number"] for i in issues if isinstance(i, dict) and isinstance(i.get("number"), int)]
    return tuple(dict.fromkeys(found))


def read_instances(location: str, path: str) -> Iterator[Instance]:
    """Every row of one instance file: a JSON array, JSON lines, or Parquet (optionally .gz/.zst)."""
    benchmark = benchmark_name(location)
    try:
        for where, record in _rows(location, path):
            yield instance_from_record(record, benchmark, where, path)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(path, f"cannot read benchmark instances {location}: {error}") from error


def _rows(location: str, path: str) -> Iterator[tuple[str, object]]:
    import smart_open  # here: it imports boto3 and google-auth, which a spec error need not pay for (issue 49)

    if location.endswith(".parquet"):
        with smart_open.open(location, "rb") as handle:
            for i, row in enumerate(pq.read_table(handle).to_pylist(), start=1):
                yield f"{location} row {i}", row
        return
    with smart_open.open(location, "rt", encoding="utf-8") as handle:
        text = handle.read()
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as error:
            raise ConfigError(path, f"{location}: not a JSON array ({error.msg})", INSTANCE_FIX) from error
        yield from ((f"{location} record {i}", row) for i, row in enumerate(rows, start=1))
        return
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield f"{location} line {lineno}", json.loads(line)
            except json.JSONDecodeError as error:
                raise ConfigError(path, f"{location} line {lineno}: not JSON ({error.msg})", INSTANCE_FIX) from error


# --- patches ----------------------------------------------------------------------------------------


def patch_id(diff: str) -> str:
    """``git patch-id --stable`` of a unified diff (text before the first ``diff `` line is ignored).

    git (builtin/patch-id.c) hashes each file's lines with all whitespace removed, skipping ``index``
    lines, hunk headers (so line numbers do not count) and ``\\ No newline`` markers; ``--stable``
    sums the per-file SHA-1 digests as 160-bit little-endian numbers, so the order of the files does
    not count either. Checked against git itself in tests/filters/test_benchmarks.py.
    """
    files = file_hashes(diff)
    return _hex(sum(value for _, value in files)) if files else ""


def _hex(total: int) -> str:
    return (total % (1 << 160)).to_bytes(20, "little").hex()


def file_hashes(diff: str) -> list[tuple[str, int]]:
    """(path, the file's term of the stable patch id) per ``diff --git`` block: the patch id of the
    part of a diff in some files is the sum of their terms (a fix squashed with its tests)."""
    out, digest, path, before, after, binary, oids = [], hashlib.sha1(), None, -1, -1, False, ""
    for line in diff.split("\n"):
        if line.startswith("\\ ") and len(line) > 11:
            continue
        if path is None and not line.startswith("diff "):
            continue
        if before == -1:  # a file's header
            if line.startswith(("GIT binary patch", "Binary files")):  # the blob ids stand for the content
                digest.update(oids.encode())
                out.append((path, _value(digest)))
                binary, before, digest = True, 0, hashlib.sha1()
                continue
            if line.startswith("index "):
                oids = "".join(line[6:].split(" ", 1)[0].split(".."))
                continue
            if line.startswith("--- "):
                before = after = 1
            elif not line[:1].isalpha():
                break
        if binary:
            if line.startswith("diff "):
                binary, before, path = False, -1, _block_path(line)
            continue
        if before == 0 and after == 0:
            if line.startswith("@@ -"):
                before, after = _hunk_counts(line)
                continue
            if not line.startswith("diff "):
                break
            out.append((path, _value(digest)))
            digest, before, after = hashlib.sha1(), -1, -1
        if line.startswith("diff ") and before == -1:
            path = _block_path(line)
        before -= line[:1] in ("-", " ")
        after -= line[:1] in ("+", " ")
        digest.update("".join(line.split()).encode("utf-8", "surrogateescape"))
    if path is not None and not binary:
        out.append((path, _value(digest)))
    return out


def _block_path(line: str) -> str:
    parsed = parse_patch(line)
    return parsed[0].path if parsed else line


def _value(digest) -> int:
    return int.from_bytes(digest.digest(), "little")


_HUNK_COUNTS = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def _hunk_counts(line: str) -> tuple[int, int]:
    match = _HUNK_COUNTS.match(line)
    if not match:
        return 0, 0
    return int(match.group(1) or 1), int(match.group(2) or 1)


def added_text(diff: str) -> tuple[str, tuple[str, ...]]:
    """(every added line of ``diff``, in order; the paths it changes)."""
    files = parse_patch(diff)
    return "\n".join(line for f in files for line in f.added), tuple(f.path for f in files)


def file_blocks(diff: str) -> list[tuple[str, str]]:
    """(path, its ``diff --git`` block) for each file a unified diff changes."""
    starts = [m.start() for m in re.finditer(r"^diff ", diff, flags=re.MULTILINE)]
    blocks = [diff[a:b] for a, b in zip(starts, [*starts[1:], len(diff)], strict=True)]
    return [(_block_path(block.split("\n", 1)[0]), block) for block in blocks]


def hunk_images(diff: str) -> tuple[list[str], list[str]]:
    """(each hunk's new side: context and added lines; each hunk's old side: context and removed
    lines) of a unified diff. What a fix brings is what its new sides hold and its old sides do not."""
    new, old, hunk = [], [], None
    for line in [*diff.split("\n"), "diff "]:
        if hunk is not None and line[:1] in (" ", "+", "-", "\\") and not line.startswith(("+++ ", "--- ")):
            if line[:1] in (" ", "+"):
                hunk[0].append(line[1:])
            if line[:1] in (" ", "-"):
                hunk[1].append(line[1:])
            continue
        if hunk is not None:
            new.append("\n".join(hunk[0]))
            old.append("\n".join(hunk[1]))
        hunk = ([], []) if line.startswith("@@ ") else None
    return new, old


# --- n-gram index ------------------------------------------------------------------------------------


class NgramIndex:
    """Distinct token n-grams of labelled texts, each text's own. A text is a list of segments (the
    runs of a patch's added lines: an n-gram never bridges two runs, which a file may hold apart); a
    segment shorter than ``ngram`` tokens counts as one gram of its own length. Left out: an n-gram
    the text's ``exclude`` segments hold too (a fix's removed lines: a one-word change leaves most of
    a line as it was), and one that two texts share: a template (an issue form, a common import), so
    that what a match counts is what makes the text this one."""

    __slots__ = ("_keys", "_lengths", "_owners", "_sizes", "labels", "ngram")

    def __init__(self, texts: Iterable[tuple[object, list[str], list[str]]], *, ngram: int, min_grams: int,
                 min_tokens: int = 4):
        self.ngram, self.labels, lengths = ngram, [], {ngram}
        grams = []
        for label, segments, exclude in texts:
            hashed = [token_hashes(normalise_tokens(s)) for s in segments]
            own = {min(len(h), ngram) for h in hashed if len(h) >= min_tokens}
            lengths |= own
            mine = _grams(hashed, own, ngram)
            if exclude:
                mine = np.setdiff1d(mine, _grams([token_hashes(normalise_tokens(s)) for s in exclude], own, ngram, True))
            grams.append(mine)
            self.labels.append(label)
        self._lengths = tuple(sorted(lengths))
        keys = np.concatenate([np.empty(0, np.uint64), *grams])
        owners = np.repeat(np.arange(len(grams), dtype=np.int64), [len(g) for g in grams])
        values, counts = np.unique(keys, return_counts=True)
        single = np.isin(keys, values[counts == 1])
        keys, owners = keys[single], owners[single]
        self._sizes = np.bincount(owners, minlength=len(grams))
        self._sizes[self._sizes < min_grams] = 0  # too little of its own to be matched by text
        order = np.argsort(keys, kind="stable")
        self._keys, self._owners = keys[order], owners[order]

    def overlaps(self, text: str | list[str], exclude: list[str] = ()) -> list[tuple[object, float, int]]:
        """(label, share of its own n-grams found in ``text``, how many) for each text with any;
        n-grams that ``exclude`` holds too do not count (a diff's old sides: what it does not bring)."""
        segments = [text] if isinstance(text, str) else text
        if not len(self._keys) or not any(segments):
            return []
        lengths = set(self._lengths)
        found = _grams([token_hashes(normalise_tokens(s)) for s in segments], lengths, self.ngram, True)
        if exclude:
            found = np.setdiff1d(found, _grams([token_hashes(normalise_tokens(s)) for s in exclude], lengths,
                                               self.ngram, True), assume_unique=True)
        at = np.searchsorted(self._keys, found)  # keys are distinct: at most one owner each
        inside = at < len(self._keys)
        at, found = at[inside], found[inside]
        owners = self._owners[at[self._keys[at] == found]]
        counts = np.bincount(owners, minlength=len(self.labels))
        return [(self.labels[i], counts[i] / self._sizes[i], int(counts[i]))
                for i in np.flatnonzero((counts > 0) & (self._sizes > 0)).tolist()]


def _grams(hashed: list[np.ndarray], lengths: set[int], ngram: int, every: bool = False) -> np.ndarray:
    """Distinct n-grams of each segment: ``ngram``-grams, or one gram of a shorter segment's whole
    length; with ``every``, all grams of each length in ``lengths`` (what a document may hold)."""
    parts = [np.empty(0, np.uint64)]
    for hashes in hashed:
        for n in (lengths if every else {min(len(hashes), ngram)} & lengths):
            parts.append(ngram_hashes(hashes, n))
    return np.unique(np.concatenate(parts))


# --- config ----------------------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class BenchmarkInstancesConfig:
    """Which benchmark instance sets to keep out, and how much of an instance a document must hold.

    ``instances`` are JSON, JSON lines or Parquet files of SWE-bench-style rows (local paths or
    smart-open URLs); the benchmark is named after the file (``swe-bench_verified.jsonl`` ->
    ``swe-bench_verified``). Every row is read and checked when the spec is loaded (``mix plan``).
    """

    instances: list[str] = field(default_factory=list)
    ngram: int = 10  # tokens per n-gram, as filters.decontamination
    # Share of an instance's own n-grams (of its fix's added lines, or of its problem statement) a
    # document must hold: a squashed or rebased fix holds nearly all, an unrelated change almost none.
    min_overlap: float = 0.5
    # A fix's added lines matched in a commit or file that does not touch the fix's paths count only
    # past this many matching n-grams (code moved elsewhere); within the fix's paths any overlap counts.
    min_moved_grams: int = 30
    min_statement_grams: int = 10  # a problem statement with fewer own n-grams is matched by id only
    later_commits: bool = False  # also drop each commit of a benchmark repository after its first instance
    files: Literal["drop", "mark"] = "drop"  # repository files holding a fix: dropped, or kept and marked

    @property
    def enabled(self) -> bool:
        return bool(self.instances)

    def validate(self, path: str) -> None:
        require(self.ngram >= 1, join(path, "ngram"), "must be at least 1")
        require(0 < self.min_overlap <= 1, join(path, "min_overlap"), "must be in (0, 1]")
        require(self.min_moved_grams >= 1, join(path, "min_moved_grams"), "must be at least 1")
        require(self.files in ("drop", "mark"), join(path, "files"), f"{self.files!r} is not a policy",
                "use drop (the default) or mark")
        instances = []
        for i, location in enumerate(self.instances):
            where = join(join(path, "instances"), i)
            require(bool(location.strip()), where, "empty path")
            instances += list(read_instances(location, where))
        if self.later_commits:
            for instance in instances:
                require(bool(instance.created_at), join(path, "later_commits"),
                        f"instance {instance.instance_id} has no 'created_at'",
                        "give created_at in every row, or set later_commits: false")


# --- the index and the per-kind policies ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InstanceHit:
    """Why a document met instance ``instance_id``: the ``policy`` (a drop reason) and its evidence."""

    benchmark: str
    instance_id: str
    policy: str
    evidence: str  # id | repo_number | patch_id | added_lines | problem_statement | created_at
    overlap: float = 1.0
    matched: int = 0


_ID_TOKEN = re.compile(r"[A-Za-z0-9_.-]+__[A-Za-z0-9_.-]+-\d+")
_REPO_NUMBER = re.compile(r"([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?(?:#|/issues/|/pull/|/pulls/)(\d+)\b")


class InstanceIndex:
    """Every instance by id, by (repository, number), by patch id, by its fix's added-line n-grams
    (one index per repository) and by its problem statement; built once per worker, pickled with it."""

    def __init__(self, instances: Iterable[Instance], config: BenchmarkInstancesConfig):
        self.config = config
        self.by_id: dict[str, Instance] = {}
        for instance in instances:
            self.by_id.setdefault(instance.instance_id, instance)
        self.by_number = {(i.repo_key, n): i for i in self.by_id.values() for n in i.numbers}
        self.by_patch_id: dict[str, tuple[Instance, str]] = {}
        # per repository and path, the patches that change it: (instance, kind, their paths, patch id)
        self.by_path: dict[tuple[str, str], list[tuple[Instance, str, frozenset[str], str]]] = {}
        per_repo: dict[str, list] = {}
        for instance in self.by_id.values():
            for kind, diff in (("patch", instance.patch), ("test_patch", instance.test_patch)):
                if diff:
                    terms = file_hashes(diff)
                    key, paths = _hex(sum(v for _, v in terms)), frozenset(p for p, _ in terms)
                    self.by_patch_id.setdefault(key, (instance, kind))
                    for path in paths:
                        self.by_path.setdefault((instance.repo_key, path), []).append((instance, kind, paths, key))
                    for path, block in file_blocks(diff):  # a file holds its own part of a fix
                        new, old = hunk_images(block)
                        per_repo.setdefault(instance.repo_key, []).append(((instance, kind, (path,)), new, old))
        self.patches = {repo: NgramIndex(items, ngram=config.ngram, min_grams=1) for repo, items in per_repo.items()}
        self.statements = NgramIndex(((i, [i.problem_statement], []) for i in self.by_id.values()), ngram=config.ngram,
                                     min_grams=config.min_statement_grams)
        self.first_created: dict[str, Instance] = {}  # per repository, the instance opened first
        for instance in sorted((i for i in self.by_id.values() if i.created_at), key=lambda i: _utc(i.created_at)):
            self.first_created.setdefault(instance.repo_key, instance)

    @classmethod
    def from_config(cls, config: BenchmarkInstancesConfig, path: str = "filters.benchmark_instances") -> InstanceIndex:
        rows = [i for n, location in enumerate(config.instances)
                for i in read_instances(location, join(join(path, "instances"), n))]
        return cls(rows, config)

    def __len__(self) -> int:
        return len(self.by_id)

    def hits(self, doc: Document) -> list[InstanceHit]:
        """What ``doc`` holds of any instance, by the policy of its kind (none for other kinds)."""
        policy = POLICIES.get(document_kind(doc.kind).benchmark_instances)
        return policy(self, doc) if policy else []

    # evidence, each a method so that a policy is the list of what it looks for

    def named(self, text: str, policy: str) -> list[InstanceHit]:
        """Instances named by id (``astropy__astropy-13033``) or by repository and number (``astropy/astropy#13033``)."""
        found = {}
        for token in set(_ID_TOKEN.findall(text)):
            if (instance := self.by_id.get(token)) is not None:
                found[instance.instance_id] = InstanceHit(instance.benchmark, instance.instance_id, policy, "id")
        for _, name, number in set(_REPO_NUMBER.findall(text)):
            instance = self.by_number.get((repo_key(name), int(number)))
            if instance is not None and instance.instance_id not in found:
                found[instance.instance_id] = InstanceHit(instance.benchmark, instance.instance_id, policy, "repo_number")
        return list(found.values())

    def stated(self, text: str, policy: str, repo: str = "") -> list[InstanceHit]:
        """Instances whose problem statement ``text`` holds (``min_overlap`` of its own n-grams)."""
        return [InstanceHit(i.benchmark, i.instance_id, policy, "problem_statement", round(share, 4), n)
                for i, share, n in self.statements.overlaps(text)
                if share >= self.config.min_overlap and (not repo or i.repo_key == repo_key(repo))]

    def patched(self, text: str | list[str], paths: Iterable[str], repo: str, policy: str,
                exclude: list[str] = ()) -> list[InstanceHit]:
        """Instances of ``repo`` whose fix (or test patch) ``text`` holds (less what ``exclude`` holds):
        ``min_overlap`` of the n-grams the fix brings, and ``min_moved_grams`` of them unless ``paths``
        meet the fix's."""
        index = self.patches.get(repo_key(repo)) if repo else None
        if index is None:
            return []
        paths, found = set(paths), {}
        for (instance, kind, fix_paths), share, n in index.overlaps(text, exclude):
            if share >= self.config.min_overlap and (n >= self.config.min_moved_grams or paths & set(fix_paths)):
                hit = InstanceHit(instance.benchmark, instance.instance_id, policy, f"added_lines:{kind}", round(share, 4), n)
                if instance.instance_id not in found or hit.overlap > found[instance.instance_id].overlap:
                    found[instance.instance_id] = hit
        return list(found.values())


def trace_hits(index: InstanceIndex, doc: Document) -> list[InstanceHit]:
    """A trace whose task is an instance: named in it (id, repository and number, in its text, path
    or metadata), or holding the instance's problem statement (the task prompt)."""
    named = index.named(f"{doc.path}\n{json.dumps(doc.metadata, ensure_ascii=False)}\n{doc.text}", TRACE)
    return named or index.stated(doc.text, TRACE)


def commit_hits(index: InstanceIndex, doc: Document) -> list[InstanceHit]:
    """A commit whose diff is a fix or test patch: the same patch id (the whole diff, or the part of it
    in the patch's files), or the fix's added lines (a rebased or squashed fix); with ``later_commits``
    every commit of a benchmark repository dated after its first instance was opened."""
    repo, terms = doc.repo, dict(file_hashes(doc.text))
    found = []
    if (match := index.by_patch_id.get(_hex(sum(terms.values())))) is not None:
        instance, kind = match
        found.append(InstanceHit(instance.benchmark, instance.instance_id, COMMIT, f"patch_id:{kind}"))
    for path in terms if not found else ():
        for instance, kind, paths, key in index.by_path.get((repo_key(repo), path), ()):
            if paths <= terms.keys() and _hex(sum(terms[p] for p in paths)) == key:  # the fix, with more
                found.append(InstanceHit(instance.benchmark, instance.instance_id, COMMIT, f"patch_id_in_files:{kind}"))
                break
    if not found:
        new, old = hunk_images(doc.text)  # what the commit brings: its new sides less its old sides
        found = index.patched(new, terms.keys(), repo, COMMIT, old)
    if not found and index.config.later_commits and repo_key(repo) in index.first_created:
        date = str(doc.metadata.get("date", ""))
        first = index.first_created[repo_key(repo)]
        if date and _utc(date) >= _utc(first.created_at):
            found = [InstanceHit(first.benchmark, first.instance_id, LATER_COMMIT, "created_at")]
    return found


def issue_hits(index: InstanceIndex, doc: Document) -> list[InstanceHit]:
    """The instance's issue or pull request thread: its repository and number, or its problem statement."""
    thread = doc.metadata.get("thread") if isinstance(doc.metadata.get("thread"), dict) else doc.metadata
    number = thread.get("number")
    instance = index.by_number.get((repo_key(doc.repo), int(number))) if str(number).isdigit() else None
    if instance is not None:
        return [InstanceHit(instance.benchmark, instance.instance_id, ISSUE, "repo_number")]
    return index.stated(doc.text, ISSUE, doc.repo)


def file_hits(index: InstanceIndex, doc: Document) -> list[InstanceHit]:
    """A repository file that holds a fix's (or test patch's) added lines: the snapshot postdates it."""
    return index.patched(doc.text, (doc.path,), doc.repo, FILE)


# By ``DocumentKind.benchmark_instances`` (codemix.kinds): how an instance shows in each kind.
POLICIES: dict[str, Callable[[InstanceIndex, Document], list[InstanceHit]]] = {
    "trace": trace_hits, "commit": commit_hits, "issue": issue_hits, "file": file_hits,
}


@functools.cache
def _instances(locations: tuple[str, ...]) -> tuple[Instance, ...]:
    return tuple(i for n, location in enumerate(locations) for i in read_instances(location, f"instances[{n}]"))


def repository_instances(locations: tuple[str, ...], repo: str) -> list[Instance]:
    """The instances of ``repo`` in the files ``locations`` (read once per process)."""
    return [i for i in _instances(locations) if i.repo_key == repo_key(repo)]


def instance_time(instance: Instance) -> str:
    """``created_at`` in UTC as ``2022-11-04 13:49:40 +0000``: what git's ``--before`` reads, and
    text that sorts in time."""
    return _utc(instance.created_at).replace("T", " ") + " +0000"


def _utc(date: str) -> str:
    """An ISO 8601 date as comparable UTC text (``2022-03-03T10:00:00+01:00`` -> ``2022-03-03T09:00:00``)."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(date)
    except ValueError:
        return date
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat()
