"""A run's request kept in a record beside it: a run folder whose log holds no request but whose task record
(a feature, issue or task JSON/YAML in the same folder) states it.

Automaker writes ``features/<id>/agent-output.md`` (the model's turns) beside ``features/<id>/feature.json``
(``{id, title, description, status, ...}``); the request the agent was given is the record's. A record states a
run's request when it holds a task field (``turns.TASK_KEYS``: ``task``, ``instruction``, ``problem_statement``
...), or a ``description`` and it is the folder's own record (its id or name is the folder's name, or it
carries a title): a work item, not a package manifest (a manifest is versioned, and says what a package
is, not what to do). Reading the folder is the reader's (pipelines/readers/transcripts.py); this module only
judges a record.
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.turns import TASK_KEYS

# Extensions of the records read beside a run, and the most read of each (a task record is small).
RECORD_SUFFIXES = (".json", ".yaml", ".yml")
MAX_RECORD_BYTES = 1_000_000
# A folder holding more records than this is a data set (one record per item), not a run's folder.
MAX_RECORDS = 20
# ``input`` names a model call's input as often as a task; alone it says nothing about the folder.
REQUEST_KEYS = tuple(key for key in TASK_KEYS if key != "input")
OWN_KEYS = ("id", "name", "slug", "key")


def worded(value: Any) -> str:
    """``value`` when it is text of three or more words, else ""."""
    return value.strip() if isinstance(value, str) and len(value.split()) >= 3 else ""


def folders_record(record: dict, folder: str) -> bool:
    """Whether ``record`` is about the folder it sits in (a work item, not a manifest)."""
    if "version" in record:
        return False
    return any(isinstance(record.get(key), str) and record[key].strip() == folder for key in OWN_KEYS) or (
        isinstance(record.get("title"), str) and bool(record["title"].strip()))


def stated_request(record: Any, folder: str) -> str:
    """The request ``record`` (a sibling of a run in the folder named ``folder``) states, or "" (none)."""
    if not isinstance(record, dict):
        return ""
    for key in REQUEST_KEYS:
        if text := worded(record.get(key)):
            return text
    if not folders_record(record, folder) or not (text := worded(record.get("description"))):
        return ""
    title = record.get("title").strip() if isinstance(record.get("title"), str) else ""
    return f"{title}\n\n{text}" if title and title not in text else text


# --- a batch's results beside its requests ---------------------------------------------------------------------------
# A batch API (OpenAI's, Anthropic's) returns a JSONL file of replies, each under the id its request was sent with
# (``custom_id``); the requests are another JSONL file of the same folder. Either file alone is half a call.

PAIRED_SUFFIXES = (".jsonl", ".ndjson")
MAX_PAIRED_BYTES = 50_000_000
# How deep a record's one object is followed to what it carries (``response`` -> ``body`` -> the completion).
MAX_WRAPPERS = 3


def id_keys(records: list) -> list[str]:
    """The keys naming each of ``records`` by text of its own: every record has one, no two the same."""
    if not records or not all(isinstance(r, dict) for r in records):
        return []
    return [key for key in records[0] if all(isinstance(r.get(key), str) and r[key].strip() for r in records)
            and len({r[key] for r in records}) == len(records)]


def shared_id(results: list, requests: list) -> str | None:
    """The id key the first ``results`` and the ``requests`` read from another file share (by name, and by
    value for at least half of the results): what pairs each result with its request; None when none does."""
    ids = {key: {r[key] for r in requests if isinstance(r, dict) and isinstance(r.get(key), str)}
           for key in id_keys(results)}
    return next((key for key, found in ids.items() if 2 * sum(r[key] in found for r in results) >= len(results)), None)


def carried(record: Any, key: str) -> Any:
    """What a batch record carries, less its id: while the rest of it is one object (``{id, response: {...},
    error: null}``, ``{method, url, body: {...}}``, ``{result: {type, message}}``), that object."""
    value = {k: v for k, v in record.items() if k != key} if isinstance(record, dict) else record
    for _ in range(MAX_WRAPPERS):
        held = [v for v in value.values() if isinstance(v, (dict, list))] if isinstance(value, dict) else []
        if len(held) != 1 or not isinstance(held[0], dict):
            break
        value = held[0]
    return value


def sends(body: Any) -> bool:
    """Whether a batch record's body is a request: it sends messages (or a Responses API ``input``)."""
    return isinstance(body, dict) and isinstance(body.get("messages") or body.get("input"), (list, str))


def paired_call(request: dict, result: dict, key: str) -> dict:
    """One call of a batch, as a recorded HTTP exchange (``scored.http_calls`` reads it): the request's body
    and the result's body, under the id both carry (the two told apart by which one sends messages)."""
    sent, got = carried(request, key), carried(result, key)
    if sends(got) and not sends(sent):
        sent, got = got, sent
    return {"interactions": [{"request": {"body": sent}, "response": {"body": got}}], key: result[key]}
