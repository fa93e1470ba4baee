"""A run kept as per-attempt fields of one record (``attempts``): the task beside lists of what each attempt
wrote and was told (``{prompt, implementations: [...], test_feedback: [...], reflections: [...], solution}``,
as self-debugging and self-reflection agents publish their results).

Columns are named by what they hold, so the words are the evidence: an attempt column (implementations,
attempts, drafts...) is the model's, a feedback column (test feedback, results, errors) the environment's,
a reflection column (reflections, critiques) the model's again; per attempt they come in that order (the
cycle Reflexion, Shinn et al. 2023, describes). A closing ``solution`` is the model's last turn.
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.canonical import message

ATTEMPT_WORDS = ("implementation", "attempt", "draft", "revision", "trial", "generation", "completion", "candidate")
FEEDBACK_WORDS = ("feedback", "test_result", "execution", "error", "observation")
REFLECTION_WORDS = ("reflection", "critique", "self_feedback")
SOLUTION_KEYS = ("solution", "final_solution", "final_answer", "final_output")


def column_text(entry: Any) -> str | None:
    """An entry of a column as text: a string, or strings in a list joined by lines; None otherwise."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, list) and all(isinstance(part, str) for part in entry):
        return "\n".join(entry)
    return None


def column_kind(key: str) -> str | None:
    name = key.lower()
    if any(word in name for word in REFLECTION_WORDS):
        return "reflection"
    if any(word in name for word in FEEDBACK_WORDS):
        return "feedback"
    return "attempt" if any(word in name for word in ATTEMPT_WORDS) else None


def attempt_columns(record: Any) -> dict[str, list[tuple[str, list]]] | None:
    """The record's attempt, feedback and reflection columns (lists of text), or None when it keeps no
    attempt or reflection column, or neither text in one nor a solution (a run solved at once keeps an
    empty ``reflections: []`` and its solution)."""
    if not isinstance(record, dict):
        return None
    columns: dict[str, list[tuple[str, list]]] = {"attempt": [], "feedback": [], "reflection": []}
    for key, value in record.items():
        kind = column_kind(str(key))
        if kind and isinstance(value, list) and all(column_text(entry) is not None for entry in value):
            columns[kind].append((str(key), value))
    if not columns["attempt"] and not columns["reflection"]:
        return None
    written = [entry for kind in ("attempt", "reflection") for _, value in columns[kind] for entry in value]
    solved = any(isinstance(record.get(k), str) and record[k].strip() for k in SOLUTION_KEYS)
    return columns if solved or any(column_text(entry).strip() for entry in written) else None


def attempt_messages(record: dict) -> list[dict[str, Any]]:
    """Per attempt: what the model wrote, the feedback it got, its reflection; then its solution."""
    columns = attempt_columns(record) or {}
    rows = max((len(value) for kind in columns.values() for _, value in kind), default=0)
    messages = []
    for index in range(rows):
        for kind in ("attempt", "feedback", "reflection"):
            for _, value in columns.get(kind, []):
                text = column_text(value[index]) if index < len(value) else None
                if text and text.strip():
                    role = "tool" if kind == "feedback" else "assistant"
                    messages.append(message(role, text, observation=role == "tool"))
    solution = next((record[k] for k in SOLUTION_KEYS if isinstance(record.get(k), str) and record[k].strip()), "")
    last = next((m["content"] for m in reversed(messages) if m["role"] == "assistant"), "")
    if solution and solution.strip() != last.strip():
        messages.append(message("assistant", solution))
    return messages
