"""GitHub issues and pull requests as threads: records recognised by shape, grouped per
(repository, number), judged and written in StarCoder2's issue layout. Pure functions; no I/O.
docs/issues.md says what each marker and drop reason means.

Records come from GitHub's REST API (issues, pulls, issue comments, review comments, a pull's files)
or from the Events API / GH Archive (the same objects inside ``payload``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from codemix.sources import IssuesConfig

ISSUE_START, ISSUE_COMMENT, ISSUE_CLOSED = "<issue_start>", "<issue_comment>", "<issue_closed>"
PR_START, PR_FILE, PR_REVIEW, PR_COMMENT = "<pr_start>", "<pr_file>", "<pr_review_comment>", "<pr_comment>"
PR_MERGED, PR_CLOSED = "<pr_merged>", "<pr_closed>"
_THREAD_URL = re.compile(r"/repos/([^/]+/[^/]+)/(?:issues|pulls)/(\d+)(?:$|/)")
_REPO_URL = re.compile(r"api\.github\.com/repos/([^/]+/[^/]+)/|//github\.com/([^/]+/[^/]+)/blob/")
THREAD_EVENTS = ("IssuesEvent", "IssueCommentEvent", "PullRequestEvent", "PullRequestReviewCommentEvent")


@dataclass(slots=True, kw_only=True)
class Thread:
    """Everything read about one issue or pull request."""

    repo: str
    number: int
    opening: dict[str, Any] | None = None  # the issue or pull object, newest seen
    pull: bool = False
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)  # by id: repeated reads merge
    reviews: dict[int, dict[str, Any]] = field(default_factory=dict)
    files: list[dict[str, Any]] = field(default_factory=list)


# Kinds of GitHub record (``record_kind``), not document kinds: a pull request's changed file, a thread's opening.
PULL_FILE = "file"
THREAD_OPENINGS = ("issue", "pull")


def record_kind(obj: Any) -> str:
    """``issue``, ``pull``, ``comment``, ``review_comment``, ``file``, ``event`` or ``other``."""
    if not isinstance(obj, dict):
        return "other"
    if isinstance(obj.get("payload"), dict) and str(obj.get("type", "")).endswith("Event"):
        return "event"
    if "diff_hunk" in obj and "pull_request_url" in obj:
        return "review_comment"
    if "body" in obj and "number" not in obj and ("issue_url" in obj or "/issues/comments/" in str(obj.get("url"))):
        return "comment"
    if "number" in obj and "title" in obj:
        return "pull" if "head" in obj and "base" in obj else "issue"
    if "filename" in obj and "status" in obj and "sha" in obj:
        return "file"
    return "other"


def thread_of(url: str) -> tuple[str, int] | None:
    """(owner/name, number) from an API URL of an issue, a pull or one of their comments."""
    match = _THREAD_URL.search(url or "")
    return (match.group(1), int(match.group(2))) if match else None


def repo_of(obj: dict[str, Any]) -> str:
    """owner/name from any of a record's URLs ("" when none names it)."""
    for key in ("url", "issue_url", "pull_request_url", "contents_url", "blob_url"):
        match = _REPO_URL.search(str(obj.get(key) or ""))
        if match:
            return match.group(1) or match.group(2)
    return ""


def is_pull(obj: dict[str, Any]) -> bool:
    """A pulls-API object, or an issue whose ``pull_request`` links somewhere (old replies carry
    ``pull_request`` with null links on every issue)."""
    link = obj.get("pull_request")
    return ("head" in obj and "base" in obj) or (isinstance(link, dict) and any(link.values()))


def event_records(event: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue, pull and comment objects an issue or pull-request event carries ([] for other events)."""
    if event.get("type") not in THREAD_EVENTS:
        return []
    payload = event["payload"]
    records = [payload[key] for key in ("issue", "pull_request", "comment") if isinstance(payload.get(key), dict)]
    parent = payload.get("issue") or payload.get("pull_request")
    if isinstance(payload.get("comment"), dict) and isinstance(parent, dict):  # old replies: no issue_url
        key = "issue_url" if event.get("type") == "IssueCommentEvent" else "pull_request_url"
        records[-1] = {key: parent.get("url"), **payload["comment"]}
    return records


def add_record(threads: dict[tuple[str, int], Thread], obj: dict[str, Any], kind: str,
               number_hint: int | None = None) -> bool:
    """File ``obj`` under its thread; False when it names none. ``number_hint`` is the thread number
    an export file's name gives (``issues-28-comments.json``) for records that do not carry it."""
    url = obj.get({"comment": "issue_url", "review_comment": "pull_request_url"}.get(kind, "url")) or ""
    found = thread_of(url) if kind != PULL_FILE else None
    key = found or ((repo_of(obj), number_hint) if number_hint is not None else None)
    if key is None or not key[0]:
        return False
    thread = threads.setdefault(key, Thread(repo=key[0], number=key[1]))
    if kind in THREAD_OPENINGS:
        thread.pull = thread.pull or is_pull(obj)
        thread.opening = {**(thread.opening or {}), **obj} if kind == "pull" or thread.opening is None \
            or _newer(obj, thread.opening) else {**obj, **thread.opening}
    elif kind == "comment":
        thread.comments[int(obj.get("id") or len(thread.comments))] = obj
    elif kind == "review_comment":
        thread.pull = True
        thread.reviews[int(obj.get("id") or len(thread.reviews))] = obj
    else:
        thread.pull = True
        thread.files.append(obj)
    return True


def _newer(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return str(a.get("updated_at") or "") > str(b.get("updated_at") or "")


# --- judging ---------------------------------------------------------------------------------------

def is_bot(user: Any, config: IssuesConfig) -> bool:
    """GitHub marks apps ``type: Bot``; older bots are plain users whose login says what they are."""
    if not isinstance(user, dict):
        return False
    login = str(user.get("login") or "")
    return user.get("type") == "Bot" or any(re.search(p, login, re.IGNORECASE) for p in config.bot_logins)


def is_automatic(comment: dict[str, Any], config: IssuesConfig) -> bool:
    """A comment a bot or a template wrote: by a bot, or a body matching ``auto_comments``."""
    body = str(comment.get("body") or "")
    return is_bot(comment.get("user"), config) or any(re.search(p, body) for p in config.auto_comments)


def human_comments(thread: Thread, config: IssuesConfig) -> list[dict[str, Any]]:
    """Conversation comments without bots and auto-generated ones, oldest first."""
    kept = [c for c in thread.comments.values() if not is_automatic(c, config)]
    return sorted(kept, key=lambda c: (str(c.get("created_at") or ""), int(c.get("id") or 0)))


def thread_drop_reason(thread: Thread, config: IssuesConfig) -> str | None:
    if thread.opening is None:
        return "no_opening_record"  # comments of an issue the export does not hold
    if is_bot(thread.opening.get("user"), config):
        return "bot_opened"
    people = [c.get("user") for c in [*thread.comments.values(), *thread.reviews.values()]]
    logins = {str((u or {}).get("login")): is_bot(u, config) for u in [thread.opening.get("user"), *people]}
    if sum(logins.values()) / len(logins) > config.max_bot_participants:
        return "bot_dominated"
    human = len(str(thread.opening.get("title") or "")) + len(str(thread.opening.get("body") or "")) + sum(
        len(str(c.get("body") or "")) for c in human_comments(thread, config))
    if human < config.min_human_chars:
        return "too_little_text"
    return None


# --- the layout ------------------------------------------------------------------------------------

class Usernames:
    """Logins replaced by ``username_0`` (the opener), ``username_1``... in order of appearance, in
    authors and in ``@mentions`` of known logins."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def of(self, user: Any) -> str:
        login = str((user or {}).get("login") or "ghost").lower()
        return self.names.setdefault(login, f"username_{len(self.names)}")

    def scrub(self, text: str) -> str:
        """Known logins replaced: after ``@`` at any length, as a bare word (a path in a pasted
        traceback, a signature) from four characters up, where a short login would hit ordinary words."""
        if not self.names:
            return text
        logins = sorted(self.names, key=len, reverse=True)
        mention = "|".join(re.escape(login) for login in logins)
        text = re.sub(rf"@({mention})(?![\w-])", lambda m: "@" + self.names[m.group(1).lower()], text, flags=re.IGNORECASE)
        word = "|".join(re.escape(login) for login in logins if len(login) >= 4)
        return re.sub(rf"(?<![\w@-])({word})(?![\w-])", lambda m: self.names[m.group(1).lower()], text,
                      flags=re.IGNORECASE) if word else text


def thread_text(thread: Thread, config: IssuesConfig) -> tuple[str, dict[str, Any]]:
    """The thread's document text and what its metadata records (truncation, counts)."""
    opening, names = thread.opening or {}, Usernames()
    author = names.of(opening.get("user"))
    comments = human_comments(thread, config)
    for comment in comments:
        names.of(comment.get("user"))
    reviews = sorted(thread.reviews.values(), key=lambda c: (str(c.get("created_at") or ""), int(c.get("id") or 0)))
    reviews = [c for c in reviews if not is_automatic(c, config)]
    for comment in reviews:
        names.of(comment.get("user"))
    kept = comments[: config.max_comments]
    head = f"Title: {names.scrub(str(opening.get('title') or ''))}\n{author}: {names.scrub(str(opening.get('body') or ''))}"
    if not thread.pull:
        parts = [ISSUE_START, head, *(f"{ISSUE_COMMENT}{names.of(c.get('user'))}: {names.scrub(str(c.get('body') or ''))}"
                                      for c in kept)]
        parts += [ISSUE_CLOSED] if opening.get("state") == "closed" else []
    else:
        parts = [PR_START, head, *_files(thread.files, config), *_reviews(reviews, names),
                 *(f"{PR_COMMENT}{names.of(c.get('user'))}: {names.scrub(str(c.get('body') or ''))}" for c in kept)]
        parts += [PR_MERGED if opening.get("merged") or opening.get("merged_at") else PR_CLOSED] \
            if opening.get("state") == "closed" else []
    metadata = {"number": thread.number, "pull": thread.pull, "comments": len(kept),
                "comments_removed": len(thread.comments) - len(comments), "truncated": len(comments) - len(kept),
                "participants": len(names.names)}
    return "".join(parts), metadata


def _files(files: list[dict[str, Any]], config: IssuesConfig) -> list[str]:
    """Each changed file and its patch while the patches fit ``max_diff_chars``; past it, names only."""
    parts, budget = [], config.max_diff_chars
    for record in files:
        patch = str(record.get("patch") or "")
        fits = bool(patch) and len(patch) <= budget
        budget -= len(patch) if fits else 0
        parts.append(f"\n{PR_FILE}{record.get('filename')}\n" + (patch if fits else ""))
    return parts


def _reviews(reviews: list[dict[str, Any]], names: Usernames) -> list[str]:
    """Review comments under the hunk they were made on, the hunk written once per (path, hunk)."""
    parts, last = [], None
    for comment in reviews:
        hunk = (comment.get("path"), comment.get("diff_hunk"))
        if hunk != last:
            parts.append(f"\n{PR_REVIEW}{hunk[0]}\n{hunk[1]}\n")
            last = hunk
        parts.append(f"{names.of(comment.get('user'))}: {names.scrub(str(comment.get('body') or ''))}\n")
    return parts


def pull_code(text: str) -> str:
    """The lines a pull request's patches add ('+' removed): what decontamination reads as code."""
    return "\n".join(line[1:] for line in text.split("\n") if line.startswith("+") and not line.startswith("+++"))


_FENCE = re.compile(r"^(```|~~~)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
FENCE_LANGUAGES = {"py": "python", "python3": "python", "ipython": "python", "js": "javascript", "ts": "typescript",
                   "sh": "shell", "bash": "shell", "c++": "cpp", "rs": "rust", "rb": "ruby"}


def fenced_code(text: str) -> list[tuple[str, str]]:
    """(code, language) of each fenced code block of a thread (language from the fence's info
    string, "" when it names none): what decontamination reads as code."""
    return [(match.group(3), FENCE_LANGUAGES.get(match.group(2).lower(), match.group(2).lower()))
            for match in _FENCE.finditer(text)]
