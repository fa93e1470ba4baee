"""Moatless search trees (``moatless``): ``{metadata, agent, root: {node_id, children}}`` or ``{..., nodes:
[{node_id, parent_id, ...}]}`` (the same nodes as a flat list, moatless-tools' ``Node.dump_as_list``).

A search tree holds several attempts; the transcript is the one branch that led to the final answer
(rule: ``final_node``, docs/transcript-formats.md). A node's step is its ``action`` and ``observation``
(moatless-tree-search, late 2024) or each of its ``action_steps`` (later); the root's ``message`` or
``user_message`` is the task. Field names: ``aorwall/moatless-tree-search`` ``tests/`` and
``moatless-tools`` ``moatless/node.py``.
"""

from __future__ import annotations

from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, recorded_facts
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message, string, tool_call

# The model's reasoning beside its request, and what names the request's class (not an argument).
THOUGHT_KEYS = ("thoughts", "scratch_pad")
CLASS_KEY = "action_args_class"
# A step the harness recorded when the model gave no usable call: no model turn to train on.
NO_ACTION = "ActionError"


def detect_moatless_tree(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    root, nodes = value.get("root"), value.get("nodes")
    if isinstance(root, dict):
        return "node_id" in root and isinstance(root.get("children", []), list)
    return isinstance(nodes, list) and bool(nodes) and all(isinstance(n, dict) and "node_id" in n for n in nodes)


def tree_nodes(value: dict[str, Any]) -> tuple[dict[Any, dict], dict[Any, Any]]:
    """``(node by id, parent id by id)`` of either serialisation; the root's parent is None."""
    nodes, parents = {}, {}
    if isinstance(value.get("root"), dict):
        stack = [(value["root"], None)]
        while stack:
            node, parent = stack.pop()
            nodes[node["node_id"]], parents[node["node_id"]] = node, parent
            stack += [(child, node["node_id"]) for child in node.get("children") or [] if isinstance(child, dict)]
    else:
        for node in value["nodes"]:
            nodes[node["node_id"]], parents[node["node_id"]] = node, node.get("parent_id")
    roots = [i for i, p in parents.items() if p is None]
    if len(roots) != 1 or any(p is not None and p not in nodes for p in parents.values()):
        raise TranscriptShapeError(f"the search tree has {len(roots)} roots or a parent_id that names no node")
    return nodes, parents


def steps(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The node's (action, observation) steps, without the harness's ``ActionError`` records."""
    raw = node.get("action_steps")
    if not isinstance(raw, list):
        raw = [{"action": node.get("action"), "observation": node.get("observation")}] if node.get("action") else []
    return [s for s in raw if isinstance(s, dict) and isinstance(s.get("action"), dict)
            and not string(s["action"].get(CLASS_KEY)).endswith(NO_ACTION)]


def action_name(action: dict[str, Any]) -> str:
    """``moatless.actions.find_class.FindClassArgs`` -> ``FindClass``."""
    name = string(action.get(CLASS_KEY)).rsplit(".", 1)[-1] or "action"
    return name[: -len("Args")] if name.endswith("Args") and len(name) > 4 else name


def is_finished(node: dict[str, Any]) -> bool:
    """Whether the node's last step is the model's final answer (a ``Finish`` action)."""
    done = steps(node)
    return bool(done) and action_name(done[-1]["action"]) == "Finish"


def reward_value(node: dict[str, Any]) -> float:
    reward = node.get("reward")
    value = reward.get("value") if isinstance(reward, dict) else reward
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float("-inf")


def final_node(nodes: dict[Any, dict], parents: dict[Any, Any]) -> Any:
    """The node whose branch is the transcript: the finished node (a ``Finish`` step) with the highest
    reward, the later (higher id) on a tie; with none finished, the leaf expanded last (highest id)."""
    finished = [i for i, node in nodes.items() if is_finished(node)]
    if finished:
        return max(finished, key=lambda i: (reward_value(nodes[i]), sortable(i)))
    leaves = set(nodes) - set(parents.values())
    return max(leaves, key=sortable)


def sortable(node_id: Any) -> tuple[int, str]:
    return (node_id, "") if isinstance(node_id, int) else (-1, str(node_id))


def branch(nodes: dict[Any, dict], parents: dict[Any, Any], last: Any) -> list[dict[str, Any]]:
    path = []
    while last is not None:
        path.append(nodes[last])
        last = parents[last]
    return path[::-1]


def node_messages(node: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """A node's turns: a user message it carries, then per step the model's call and the observation."""
    turns = []
    said = string(node.get("message")) or string(node.get("user_message"))
    if said:
        turns.append(message("user", said))
    text = string(node.get("assistant_message"))
    for number, step in enumerate(steps(node)):
        action = step["action"]
        thoughts = next((string(action[k]) for k in THOUGHT_KEYS if string(action.get(k))), "")
        arguments = {k: v for k, v in action.items() if k not in (*THOUGHT_KEYS, CLASS_KEY)}
        content = text if number == 0 and text else thoughts
        turns.append(message("assistant", content, tool_calls=[
            tool_call(None, action_name(action), arguments, where=f"{where} step {number}")]))
        observation = step.get("observation")
        if isinstance(observation, dict) and string(observation.get("message")):
            turns.append(message("tool", observation["message"], name=action_name(action), observation=True))
    return turns


def parse_moatless_tree(value: dict[str, Any]) -> list[Transcript]:
    nodes, parents = tree_nodes(value)
    last = final_node(nodes, parents)
    messages = [turn for node in branch(nodes, parents, last) for turn in node_messages(node, f"node {node['node_id']}")]
    metadata = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
    extra = {"branch_end": last, "nodes": len(nodes), "finished": is_finished(nodes[last])}
    if isinstance(metadata.get("instance_id"), str):
        extra["instance_id"] = metadata["instance_id"]
    return [Transcript(format="moatless", messages=messages, facts=recorded_facts([metadata, value]), extra=extra)]


MOATLESS_TREE = Format(name="moatless", container="json", detect=detect_moatless_tree, parse=parse_moatless_tree)
