"""What a crew of agents returned, task by task: a list of records that each name the agent, the task it
was given and what it returned (Swarms' ``outputs: [{agent_name, task, result}]``, a crew's task outputs
``{agent, description, raw}``). Each record is one exchange: the task is the request, the output the named
agent's reply; each is its own run (the agents worked on their tasks apart). Read by ``shape`` where no list in
the value reads as a conversation.
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.canonical import is_spoken, message
from codemix.mixtures.transcript_formats.turns import TASK_KEYS

# The fields a task output keeps the agent, its task and what it returned under (one signal each; the
# record needs all three).
AGENT_KEYS = ("agent_name", "agent", "agent_role", "agent_id", "assignee", "worker", "member")
REQUEST_KEYS = (*TASK_KEYS, "description", "task_description")
OUTPUT_KEYS = ("result", "output", "raw", "answer", "response", "final_output", "final_answer")


def agent_name(record: dict) -> str:
    """The agent a record names: a one-line label, or the ``name``/``role`` of an agent object."""
    for key in AGENT_KEYS:
        value = record.get(key)
        value = value.get("name") or value.get("role") if isinstance(value, dict) else value
        if isinstance(value, str) and value.strip() and "\n" not in value.strip() and len(value) <= 80:
            return value.strip()
    return ""


def spoken_field(record: dict, keys: tuple[str, ...]) -> str:
    return next((v for k in keys if isinstance(v := record.get(k), str) and is_spoken(v) and len(v.split()) >= 3), "")


def task_output(record: Any) -> list[dict[str, Any]] | None:
    """One record's task and the named agent's output as two turns, or None when it keeps not all three."""
    if not isinstance(record, dict) or not (name := agent_name(record)):
        return None
    task, output = spoken_field(record, REQUEST_KEYS), spoken_field(record, OUTPUT_KEYS)
    if not task or not output or task == output:
        return None
    return [message("user", task), message("assistant", output, name=name)]


def task_output_lists(value: Any, path: str = "$", depth: int = 0) -> list[tuple[str, list[dict], dict, str]]:
    """Every list (up to three objects deep) whose records are all task outputs: (path, messages, record, key)
    for each record."""
    if depth > 3:
        return []
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        runs = [task_output(item) for item in value]
        if all(run is not None for run in runs):
            return [(f"{path}[{i}]", run, item, str(i)) for i, (run, item) in enumerate(zip(runs, value))]
    children = value.items() if isinstance(value, dict) else ()
    return [found for key, child in children if isinstance(child, (dict, list))
            for found in task_output_lists(child, f"{path}.{key}", depth + 1)]


# --- what several named agents wrote for one request --------------------------------------------------------------
# A research run's record keeps the request beside one object of the products its agents wrote, by agent
# (``{topic, results: {search, reader, writer, critic}}``): prose this long is a product, not a label.
PRODUCT_WORDS = 50


def agent_products(record: Any) -> list[dict[str, Any]] | None:
    """A record's request and the products of its named agents as turns: its one prose field (the request), and
    its one object whose two or more prose fields of at least ``PRODUCT_WORDS`` words, each longer than the
    request, are what the agents under those keys wrote (a short field beside them, ``query_type``, is a
    label). None for any other record."""
    if not isinstance(record, dict):
        return None
    requests = [v for v in record.values() if isinstance(v, str) and is_spoken(v) and len(v.split()) >= 3]
    holders = [v for v in record.values() if isinstance(v, dict)]
    if len(requests) != 1 or len(holders) != 1:
        return None
    request = requests[0]
    products = [(k, v) for k, v in holders[0].items() if isinstance(v, str) and is_spoken(v)
                and len(v.split()) >= PRODUCT_WORDS and len(v) > len(request)]
    if len(products) < 2:
        return None
    return [message("user", request), *(message("assistant", text, name=str(key)) for key, text in products)]


def product_lists(value: Any) -> list[tuple[str, list[dict], dict, str]]:
    """Every top-level record (the value, or the items of a list that is the value) holding a request and its
    agents' products (``agent_products``): (path, messages, record, key) each; [] unless every record does."""
    records = value if isinstance(value, list) else [value]
    runs = [agent_products(record) for record in records]
    if not runs or not all(runs):
        return []
    if not isinstance(value, list):
        return [("$", runs[0], value, "")]
    return [(f"$[{i}]", run, record, str(i)) for i, (run, record) in enumerate(zip(runs, records))]
