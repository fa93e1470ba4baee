"""A trace export: the spans (observations, runs) of one traced run, each a record of its own.

An observability tool exports a run as a list of spans (Langfuse's ``{trace, observations: [{type: SPAN |
GENERATION | TOOL, parentObservationId, traceId, input, output}]}``, a LangSmith run's ``child_runs``, a
list of OpenTelemetry spans with their parent ids): each model call logs the conversation it was sent, and the
agent's span its messages again, so every span holds a view of one run. The shape reader finds a turn list in
several of them; they are one run, and the view that holds the most of it (the last call sees the whole
conversation and adds its reply) is kept, once per trace. docs/transcript-formats.md ("Trace exports").
"""

from __future__ import annotations

import itertools
from typing import Any

KIND_KEYS = ("type", "run_type", "span_kind", "spanKind", "kind", "observation_type", "observationType")
PARENT_KEYS = ("parentObservationId", "parent_observation_id", "parent_run_id", "parentRunId", "parent_id",
               "parentId", "parent_span_id", "parentSpanId")
TRACE_KEYS = ("traceId", "trace_id", "traceID")


def is_span_list(items: Any) -> bool:
    """Spans of one trace: two objects or more, each naming its kind, that share one trace id, or most of
    which name a parent among them."""
    if not isinstance(items, list) or len(items) < 2 or not all(isinstance(i, dict) for i in items[:500]):
        return False
    if not all(any(isinstance(i.get(k), str) for k in KIND_KEYS) for i in items[:500]):
        return False
    traces = {str(i.get(k)) for i in items[:500] for k in TRACE_KEYS if i.get(k) not in (None, "")}
    if len(traces) == 1 and all(any(i.get(k) not in (None, "") for k in TRACE_KEYS) for i in items[:500]):
        return True
    ids = {str(i.get("id")) for i in items[:500] if i.get("id") is not None}
    linked = sum(any(str(i.get(k)) in ids for k in PARENT_KEYS if i.get(k) not in (None, "")) for i in items[:500])
    return linked * 2 >= len(items[:500])


def trace_holder(record: Any, ancestors: tuple) -> int | None:
    """The id of the outermost object holding a span list ``record`` (or an object above it) belongs to, or
    None: a run tree nests its spans (LangSmith's ``child_runs`` within ``child_runs``), all one trace."""
    chain, holder = [record, *ancestors], None
    for child, parent in itertools.pairwise(chain):
        if not isinstance(parent, dict):
            continue
        if any(isinstance(value, list) and any(item is child for item in value) and is_span_list(value)
               for value in parent.values()):
            holder = id(parent)
    return holder
