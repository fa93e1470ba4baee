"""Where documents come from: one named source of the mixture spec, and the caps on reading it.

These types sit in the core because readers (pipelines/) and the spec (mixtures/) both need them,
and the spec composes them rather than owning them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from codemix.config import ConfigError, expand_env, join, require
from codemix.kinds import source_kind

SourceType = Literal["git", "directory", "archive", "dump", "transcripts", "crawl_list", "commits", "issues"]
# Source types whose `.ipynb` files may be read as notebooks (``SourceConfig.notebooks``).
FILE_SOURCE_TYPES = ("git", "directory", "archive", "crawl_list")
# The agent transcript formats a `transcripts` source reads (mixtures.transcript_formats parses them;
# docs/transcript-formats.md says what each is). Listed here so a spec is checked before any reading.
TRANSCRIPT_FORMATS = ("codex", "claude-code", "openhands-events", "swe-agent", "swe-agent-rows", "mini-swe-agent",
                      "openhands-messages", "openai-responses", "anthropic", "sharegpt", "moatless", "openai-chat",
                      "aider", "aider-llm-history", "shape", "turn-lines", "markdown-turns",
                      "logged-calls", "react-text", "speaker-turns", "banner-turns", "printed-messages",
                      "marker-turns", "chain-log", "labelled-dialogue", "html-messages", "printed-objects", "console-log", "template-turns", "cline-ui",
                      "printed-attributes")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.zst", ".tar.zstd", ".tar", ".zip")


# A source's name begins its shard files' names; file systems allow 255 bytes a name, suffixes take up to ~60.
MAX_NAME_BYTES = 100


@dataclass(slots=True, kw_only=True)
class ReadLimits:
    """Caps that keep a hostile or huge input from exhausting memory or disk."""

    max_file_bytes: int = 10_000_000  # a larger blob or member is dropped unread (file_too_large)
    max_archive_members: int = 200_000
    max_archive_bytes: int = 4_000_000_000  # uncompressed total per archive
    max_line_bytes: int = 64_000_000  # one JSONL record
    # One compressed dump, transcript file or crawl list, decompressed; past it the rest of the file
    # is quarantined (a bomb then costs bounded time as well as bounded memory).
    max_decompressed_bytes: int = 64_000_000_000
    # Per file of records (JSONL, Parquet): past this many malformed records the rest of the file is
    # one quarantine record with the count, not one record per line (a 2.9 KB gzip of "{}" lines made
    # a million quarantine records and 17 s of CPU).
    max_malformed_records: int = 100
    # transcripts: a tool output (observation) longer than this many characters is cut to its head and
    # tail around a note of what was cut, so one huge output never drops the whole run for size
    # (``filters.transcript_max_bytes``, 20 MB of rendered text, drops a transcript as ``too_large``).
    max_observation_chars: int = 1_000_000
    # transcripts: a run's tool outputs together; past this many characters each is cut further, its share by
    # size, so that many long outputs (none over the cap above) do not drop the run as ``too_large`` either.
    max_observations_total_chars: int = 16_000_000

    def validate(self, path: str) -> None:
        for name in ("max_file_bytes", "max_archive_members", "max_archive_bytes", "max_line_bytes",
                     "max_decompressed_bytes", "max_malformed_records", "max_observation_chars",
                     "max_observations_total_chars"):
            require(getattr(self, name) > 0, join(path, name), "must be positive")


# Bots by name or e-mail: GitHub apps end in [bot]; the rest are the common dependency updaters.
BOT_AUTHORS = (r"\[bot\]", r"^(dependabot|renovate|greenkeeper|snyk-bot|pyup-bot|github-actions|pre-commit-ci)\b",
               r"^(noreply@github\.com|actions@github\.com)$")
# First lines that bots and merge buttons write.
BOT_MESSAGES = (r"^Bump \S+ from \S+ to \S+", r"^Bump the \S+ group", r"^Merge pull request #\d+",
                r"^Merge (remote-tracking )?branch ", r"^\[pre-commit\.ci\]", r"^chore\(deps(-dev)?\):",
                r"^Update dependency \S+ to ", r"^\[Snyk\]", r"^\[skip ci\] ?(Update|Bump)")
# First lines that say nothing about the change: single words, placeholders, GitHub's web-editor defaults.
_PLACEHOLDER_WORDS = ("wip|fix|fixes|fixed|update|updates|updated|changes|change|minor|misc|tmp|temp|test|tests|commit|"
                      "save|stuff|cleanup|typo|asdf")
UNINFORMATIVE_MESSAGES = (rf"(?i)^\W*({_PLACEHOLDER_WORDS}|\.+|-+)\W*$",
                          r"^(Update|Create|Delete|Rename) [^ ]+\.\w+$", r"^Add files via upload$", r"^\s*$")


@dataclass(slots=True, kw_only=True)
class HistoryConfig:
    """Which commits a ``commits`` source reads, and the commit-level filters a real history needs.

    Commits are read with ``git log`` from the object store (never a checkout); the patterns are
    Python regexes (``re.search``; messages are matched on their first line). What each drop reason
    means and the document layout: docs/commits.md.
    """

    branches: list[str] = field(default_factory=list)  # commit-ish names; empty: the source's ``ref``
    since: str = ""  # git date (``2024-01-01``, ``2 years ago``): commits authored after it
    until: str = ""
    max_commits: int = 0  # 0: every commit; else the newest this many (merges included in the count)
    max_diff_bytes: int = 1_000_000  # a larger unified diff is dropped unread (diff_too_large)
    bot_authors: list[str] = field(default_factory=lambda: list(BOT_AUTHORS))
    bot_messages: list[str] = field(default_factory=lambda: list(BOT_MESSAGES))
    uninformative_messages: list[str] = field(default_factory=lambda: list(UNINFORMATIVE_MESSAGES))
    # Globs (filters' glob rules) of changed paths that make a commit generated-only, on top of the
    # filter stage's vendored and generated path lists.
    generated_paths: list[str] = field(default_factory=list)

    def validate(self, path: str) -> None:
        require(self.max_commits >= 0, join(path, "max_commits"), "must be 0 (every commit) or positive")
        require(self.max_diff_bytes > 0, join(path, "max_diff_bytes"), "must be positive")
        for name in ("bot_authors", "bot_messages", "uninformative_messages"):
            for i, pattern in enumerate(getattr(self, name)):
                try:
                    re.compile(pattern)
                except re.error as error:
                    raise ConfigError(join(join(path, name), i), f"not a regular expression: {error}") from error
        for i, branch in enumerate(self.branches):
            require(bool(branch.strip()) and not branch.startswith("-"), join(join(path, "branches"), i),
                    f"{branch!r} is not a commit-ish", "name a branch, tag or commit")


@dataclass(slots=True, kw_only=True)
class NotebookConfig:
    """How a file source's ``.ipynb`` files become notebook documents (``filters.notebooks``):
    ``script`` (markdown as comments, no outputs) or ``cells`` (StarCoder2's cell markers, text
    outputs each cut at ``max_output_chars``; 0 drops them). docs/notebooks.md."""

    layout: Literal["script", "cells"] = "script"
    max_output_chars: int = 1000

    def validate(self, path: str) -> None:
        require(self.max_output_chars >= 0, join(path, "max_output_chars"), "must be 0 (drop outputs) or positive")


# Logins of bots that are plain GitHub users (apps are ``type: Bot`` already), and comment bodies
# that templates write; both are removed from a thread before it is judged.
_BOT_NAMES = ("stale|codecov|coveralls|dependabot|renovate|greenkeeper|netlify|vercel|sonarcloud|allcontributors|"
              "mergify|pre-commit-ci|github-actions|welcome|boring-cyborg|msftbot")
BOT_LOGINS = (r"\[bot\]$", r"-bot$", rf"^({_BOT_NAMES})\b")
AUTO_COMMENTS = (r"^This (issue|pull request|PR) has been automatically (marked as stale|closed|locked)",
                 r"^<!-- (generated|automatically generated|auto-generated)", r"^## \[Codecov\]",
                 r"^Thanks for opening your first (issue|pull request)")


@dataclass(slots=True, kw_only=True)
class IssuesConfig:
    """How an ``issues`` source turns exported GitHub threads into documents (filters.issues):
    which comments are removed, which threads dropped, where long ones are cut. docs/issues.md."""

    bot_logins: list[str] = field(default_factory=lambda: list(BOT_LOGINS))
    auto_comments: list[str] = field(default_factory=lambda: list(AUTO_COMMENTS))
    min_human_chars: int = 200  # title, description and human comments together; less: too_little_text
    max_bot_participants: float = 0.5  # over this share of a thread's participants are bots: bot_dominated
    max_comments: int = 50  # conversation comments kept, oldest first; the rest are cut (metadata.truncated)
    max_diff_chars: int = 20_000  # a pull request's patches kept up to this many characters; then file names only

    def validate(self, path: str) -> None:
        for name in ("bot_logins", "auto_comments"):
            for i, pattern in enumerate(getattr(self, name)):
                try:
                    re.compile(pattern)
                except re.error as error:
                    raise ConfigError(join(join(path, name), i), f"not a regular expression: {error}") from error
        require(0 <= self.max_bot_participants <= 1, join(path, "max_bot_participants"), "must be between 0 and 1")
        for name in ("min_human_chars", "max_comments", "max_diff_chars"):
            require(getattr(self, name) >= 0, join(path, name), "must be 0 or positive")


@dataclass(slots=True, kw_only=True)
class RepositoryPath:
    """A ``paths`` entry that names its repository: ``{path: /srv/checkouts/repo, name: octo/widget}``."""

    path: str
    name: str

    def validate(self, path: str) -> None:
        require(bool(self.name.strip()) and not self.name.startswith("/"), join(path, "name"),
                f"{self.name!r} is not a repository name", "write owner/name, e.g. octo/widget")


@dataclass(slots=True, kw_only=True)
class TurnMapping:
    """Where a transcripts source's turns sit when no recognition finds them (docs/transcript-formats.md,
    "A mapping per source"): every file (or JSONL line) of the source is read through it, nothing else.

    ``path``: the turn lists, from the value's root ``$``: keys joined by ``.``, ``[N]`` an item of a list,
    ``*`` (or ``[*]``) every key or item (``$.episodes[*].transitions``). ``role``/``content``: the key of each
    turn's speaker and text. ``task``: a key whose text, in the nearest object above a list that has it,
    opens the run as the user's task (when the turns hold none). Speakers are roles by the source's ``speakers``, else by alias,
    else by position."""

    path: str
    role: str
    content: str
    task: str = ""

    def validate(self, path: str) -> None:
        require(self.path.startswith("$"), join(path, "path"), f"{self.path!r} does not start at the root",
                "write it from $, e.g. $.episodes[*].messages")
        require(turn_path_tokens(self.path) is not None, join(path, "path"), f"{self.path!r} is no key path",
                "keys joined by '.', [N] for an item, * or [*] for every key or item")
        require(bool(self.role.strip()), join(path, "role"), "is empty", "name the key of each turn's speaker")
        require(bool(self.content.strip()), join(path, "content"), "is empty", "name the key of each turn's text")
        require(self.role != self.content, join(path, "content"), "is the same key as role",
                "name the text's own key")


def turn_path_tokens(path: str) -> list[str | int] | None:
    """``$.a[*].b[2]`` -> ``["a", "*", "b", 2]``; None when ``path`` is no such path."""
    tokens: list[str | int] = []
    rest = path[1:] if path.startswith("$") else None
    if rest is None:
        return None
    for match in re.finditer(r"\.([^.\[\]]+)|\[(\*|\d+)\]|(.)", rest):
        key, index, stray = match.groups()
        if stray is not None:
            return None
        tokens.append(key if key is not None else "*" if index == "*" else int(index))
    return tokens


@dataclass(slots=True, kw_only=True)
class SourceConfig:
    """One named input: where to read, how, and what kind of documents it yields.

    ``paths`` are local paths or URLs that smart-open understands (s3://, gs://, https://);
    ``${NAME}`` expands from the environment. ``include``/``exclude`` are fnmatch globs on the
    path inside a repository or archive.
    """

    name: str
    type: SourceType
    # A path or URL, or ``{path: ..., name: owner/name}`` to name the repository there (else its remote URL's
    # owner/name, else its folder's name, generic ones such as ``repo`` skipped: pipelines/readers/common.py).
    paths: list[str | RepositoryPath]
    names: dict[str, str] = field(default_factory=dict)  # path -> repository name, filled from ``paths``
    ref: str = "HEAD"  # git: the commit-ish whose tree is read
    # git: ``before_benchmark`` reads each repository of a benchmark instance set at the last commit
    # before its first instance was opened (docs/benchmarks-decontamination.md); ``ref`` otherwise.
    snapshot: Literal["ref", "before_benchmark"] = "ref"
    snapshot_instances: list[str] = field(default_factory=list)  # filled from filters.benchmark_instances
    # git: let a partial clone fetch the blobs it lacks from its promisor remote (network, per blob);
    # off, git is never let out and each missing blob is dropped as ``blob_missing``.
    fetch_missing_blobs: bool = False
    # git: seconds any git call may go without answering (a blob, the next tree entry, a clone) before the
    # repository is quarantined with the fault named; a remote that never answers otherwise hangs the build.
    git_timeout_s: float = 300.0
    # git: submodule paths (gitlinks) to read as part of the repository, from the clone's modules/ or
    # the .gitmodules URL; any other submodule is listed per repository and never followed.
    submodules: list[str] = field(default_factory=list)
    # git: a local repository whose tree has more entries than this is read as one part per this many
    # entries (``pipelines.crawl``), so several workers read its blobs; what is read stays the same.
    files_per_part: int = 10_000
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    text_field: str | None = None  # dump: defaults to 'content', then 'text'
    license: str = ""  # SPDX id declared for every document of this source
    # transcripts: read every file as this format (one of TRANSCRIPT_FORMATS) instead of recognising
    # each file (or JSONL line) by its structure.
    format: str | None = None
    # transcripts: the role of each speaker a multi-agent log names (``{"Planner": "user", "Coder":
    # "assistant"}``); a name not listed is mapped by position (the first to speak set the task).
    speakers: dict[str, str] = field(default_factory=dict)
    # transcripts: a run no request reaches that the model opens by acting, its opening turn saying what it sets out
    # to do: ``opening_step`` reads it with that step as context (``task: absent`` in its metadata), ``refuse``
    # quarantines it as ``no_task`` (docs/agent-transcripts.md, "Runs no request reaches").
    no_request: Literal["opening_step", "refuse"] = "opening_step"
    # transcripts: where the turns sit, for a layout no recognition reads (``TurnMapping``); off by default.
    turns: TurnMapping | None = None
    limits: ReadLimits = field(default_factory=ReadLimits)
    history: HistoryConfig | None = None  # commits: which commits, and the commit-level filters
    # file sources: how .ipynb files are read as notebooks (kind "notebook"); on by default (script layout), as
    # StarCoder2 reads them; ``false`` reads them as JSON files.
    notebooks: NotebookConfig | bool | None = None
    issues: IssuesConfig | None = None  # issues: which comments and threads are kept, and how long

    @property
    def kind(self) -> str:
        """The name of the document kind this source's reader yields (``codemix.kinds.source_kind``)."""
        return source_kind(self.type).name

    def validate(self, path: str) -> None:
        require(bool(self.name) and self.name.replace("_", "").replace("-", "").isalnum(), join(path, "name"),
                f"{self.name!r} is not a simple name", "use letters, digits, '-' and '_' only")
        # Shard files are named SOURCE-SSSSS-of-NNNNN plus suffixes: a longer name fails the last stage's writes.
        size = len(self.name.encode())
        require(size <= MAX_NAME_BYTES, join(path, "name"), f"is {size} bytes long; shard file names begin with it",
                f"shorten it to {MAX_NAME_BYTES} bytes at most")
        require(len(self.paths) > 0, join(path, "paths"), "no input paths", "list at least one path or URL")
        for i, entry in enumerate(self.paths):
            if isinstance(entry, RepositoryPath):
                location = expand_env(entry.path, join(join(join(path, "paths"), i), "path"))
                self.names[location] = entry.name.strip()
                self.paths[i] = location
        self.paths = [expand_env(p, join(join(path, "paths"), i)) for i, p in enumerate(self.paths)]
        for i, location in enumerate(self.paths):
            require(bool(location.strip()), join(join(path, "paths"), i), "empty path")
            # The same location twice would give two records the same id.
            require(self.paths.index(location) == i, join(join(path, "paths"), i), f"{location} is listed twice",
                    "remove the repeated path")
        if self.history is not None:
            require(self.type == "commits", join(path, "history"), "is only read for sources of type 'commits'",
                    "remove it, or set type: commits")
        elif self.type == "commits":
            self.history = HistoryConfig()
        if self.type == "issues" and self.issues is None:
            self.issues = IssuesConfig()
        require(self.issues is None or self.type == "issues", join(path, "issues"),
                "is only read for sources of type 'issues'", "remove it, or set type: issues")
        require(not isinstance(self.notebooks, NotebookConfig) or self.type in FILE_SOURCE_TYPES,
                join(path, "notebooks"), f"is only read for sources of type {', '.join(FILE_SOURCE_TYPES)}",
                "remove it")
        if self.notebooks is True:
            self.notebooks = NotebookConfig()
        if self.format is not None:
            require(self.type == "transcripts", join(path, "format"), "is only read for sources of type 'transcripts'",
                    "remove it, or set type: transcripts")
            require(self.format in TRANSCRIPT_FORMATS, join(path, "format"), f"{self.format!r} is not a transcript format",
                    f"use one of {', '.join(TRANSCRIPT_FORMATS)}, or leave it out to recognise each file")
        require(not self.speakers or self.type == "transcripts", join(path, "speakers"),
                "is only read for sources of type 'transcripts'", "remove it, or set type: transcripts")
        if self.turns is not None:
            require(self.type == "transcripts", join(path, "turns"), "is only read for sources of type 'transcripts'",
                    "remove it, or set type: transcripts")
            require(self.format is None, join(path, "turns"), f"is not read with format: {self.format}",
                    "remove one of format and turns")
            self.turns.validate(join(path, "turns"))
        require(self.no_request in ("opening_step", "refuse"), join(path, "no_request"),
                f"{self.no_request!r} is not a choice", "use opening_step or refuse")
        require(self.no_request == "opening_step" or self.type == "transcripts", join(path, "no_request"),
                "is only read for sources of type 'transcripts'", "remove it, or set type: transcripts")
        for speaker, role in self.speakers.items():
            require(role in ("system", "user", "assistant", "tool"), join(join(path, "speakers"), speaker),
                    f"{role!r} is not a role", "use system, user, assistant or tool")
        require(not self.fetch_missing_blobs or self.type in ("git", "crawl_list"), join(path, "fetch_missing_blobs"),
                "is only read for sources of type 'git' or 'crawl_list'", "remove it")
        require(not self.submodules or self.type in ("git", "crawl_list"), join(path, "submodules"),
                "is only read for sources of type 'git' or 'crawl_list'", "remove it")
        require(self.files_per_part > 0, join(path, "files_per_part"), "must be positive")
        require(self.snapshot == "ref" or self.type in ("git", "crawl_list"), join(path, "snapshot"),
                "is only read for sources of type 'git' or 'crawl_list'", "remove it")
        require(self.git_timeout_s > 0, join(path, "git_timeout_s"), "must be positive", "e.g. 300")

    @property
    def reads_notebooks(self) -> bool:
        """Whether ``.ipynb`` files become notebook documents: every file source, unless ``notebooks: false``."""
        return self.type in FILE_SOURCE_TYPES and self.notebooks is not False
