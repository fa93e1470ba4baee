"""A log that rewrites a record by writing it again: each line a record under its own ``id``, and a later line with
the same id the record as it grew (Gemini CLI's chat recording: a model record written when its thoughts arrive,
again with its text and tool calls, with ``{"$set": {...}}`` lines updating the session between). The last line of
an id is the record; the earlier ones are drafts of it, and the lines that carry no id are the log's own metadata
(its header, its updates), no turns. A record written twice that says something else the second time (a streamed
message's parts sharing one id) is no rewrite: nothing is dropped unless every earlier version is contained in the
later one.
"""

from __future__ import annotations

from typing import Any

ID_KEY = "id"


def contained(earlier: Any, later: Any) -> bool:
    """Whether ``later`` says everything ``earlier`` did: equal, an empty earlier value, a string it extends, a
    list it extends (item by item), an object whose every field it contains."""
    if earlier == later or earlier in ("", None, [], {}):
        return True
    if isinstance(earlier, str) and isinstance(later, str):
        return later.startswith(earlier)
    if isinstance(earlier, list) and isinstance(later, list):
        return len(earlier) <= len(later) and all(contained(a, b) for a, b in zip(earlier, later))
    if isinstance(earlier, dict) and isinstance(later, dict):
        return all(key in later and contained(value, later[key]) for key, value in earlier.items())
    return False


def latest_versions(records: list) -> list | None:
    """The records of a log that rewrites its records by id (at least two ids written again, each earlier version
    contained in the last): each id's last version at its first place, the lines without an id left out; None
    for any other list of records."""
    if not records or not all(isinstance(r, dict) for r in records):
        return None
    last: dict[Any, dict] = {}
    rewritten = 0
    for record in records:
        key = record.get(ID_KEY)
        if not isinstance(key, str) or not key:
            continue
        if key in last:
            if not contained(last[key], record):
                return None  # the same id saying something else: parts of one message, not drafts
            rewritten += 1
        last[key] = record
    if rewritten < 2:
        return None
    seen: set = set()
    kept = []
    for record in records:
        key = record.get(ID_KEY)
        if isinstance(key, str) and key in last and key not in seen:
            seen.add(key)
            kept.append(last[key])
    return kept
