"""Moatless search trees (real files from aorwall/moatless-tree-search, tests/fixtures/transcripts/README.md):
the transcript is the branch that led to the final answer, whichever way the tree is serialised."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from codemix.document import Document
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

TREES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "moatless-tree"
ACTION_VERSION = TREES / "itegration_test_claude-3-5-sonnet-20241022.json"  # node-level action/observation
STEPS_VERSION = TREES / "itegration_test_claude-3-5-haiku-latest.json"  # action_steps, ends in an ActionError


def read_one(path: Path) -> Document:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    (doc,) = read_location(source, str(path))
    assert isinstance(doc, Document), doc
    return doc


def chain(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes of a tree without branches, root first (plain json, not codemix)."""
    nodes, node = [], tree["root"]
    while node:
        nodes.append(node)
        assert len(node.get("children", [])) <= 1, "guard: the published run has no branches"
        node = node["children"][0] if node.get("children") else None
    return nodes


def as_node_list(tree: dict[str, Any]) -> dict[str, Any]:
    """The flat layout, as moatless-tools' ``Node.dump_as_list`` writes it: each node without its
    children, with ``parent_id``."""
    flat, stack = [], [(tree["root"], None)]
    while stack:
        node, parent = stack.pop(0)
        flat.append({**{k: v for k, v in node.items() if k != "children"}, "parent_id": parent})
        stack += [(child, node["node_id"]) for child in node.get("children", [])]
    return {"metadata": tree.get("metadata", {}), "agent": tree.get("agent"), "nodes": flat}


def test_the_action_version_reads_every_step_of_the_run() -> None:
    raw = json.loads(ACTION_VERSION.read_text())
    nodes = chain(raw)
    classes = [n["action"]["action_args_class"].rsplit(".", 1)[-1] for n in nodes]
    assert len(nodes) == 4 and classes[-1] == "FinishArgs" and nodes[-1]["observation"]["terminal"], "guard"
    messages = read_one(ACTION_VERSION).metadata["messages"]
    assert messages[0] == {**messages[0], "role": "user", "content": raw["root"]["message"]}
    assert [m["role"] for m in messages] == ["user"] + ["assistant", "tool"] * 4
    assert [m["tool_calls"][0]["name"] for m in messages[1::2]] == [c.removesuffix("Args") for c in classes]
    assert [m["content"] for m in messages[1::2]] == [n["action"]["scratch_pad"] for n in nodes]
    assert [m["content"] for m in messages[2::2]] == [n["observation"]["message"] for n in nodes]
    arguments = [{k: v for k, v in n["action"].items() if k not in ("scratch_pad", "action_args_class")} for n in nodes]
    assert [json.loads(m["tool_calls"][0]["arguments"]) for m in messages[1::2]] == arguments


def test_the_steps_version_leaves_out_the_harness_action_error() -> None:
    raw = json.loads(STEPS_VERSION.read_text())
    steps = [s for n in chain(raw) for s in n["action_steps"]]
    errors = [s for s in steps if s["action"]["action_args_class"].endswith("ActionError")]
    assert len(steps) == 2 and len(errors) == 1, "guard: one real step, one ActionError"
    doc = read_one(STEPS_VERSION)
    messages = doc.metadata["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool"]
    assert messages[0]["content"] == raw["root"]["user_message"]
    assert messages[1]["tool_calls"][0]["name"] == "SemanticSearch"
    assert messages[2]["content"] == steps[0]["observation"]["message"]
    assert doc.metadata["transcript"] == {"branch_end": 2, "nodes": 3, "finished": False}


@pytest.mark.parametrize("path", [ACTION_VERSION, STEPS_VERSION])
def test_the_flat_node_list_reads_as_the_tree(path: Path, tmp_path: Path) -> None:
    flat = tmp_path / path.name
    flat.write_text(json.dumps(as_node_list(json.loads(path.read_text()))))
    assert "root" not in json.loads(flat.read_text()), "guard"
    assert read_one(flat).metadata["messages"] == read_one(path).metadata["messages"]


def grafted(tree: dict[str, Any], *, finish_reward: float | None) -> dict[str, Any]:
    """The real tree with a second branch under the root: a copy of the run's nodes with new ids, cut
    before its Finish (an abandoned attempt), or whole with ``finish_reward`` on its Finish node (and a
    reward of 50 on the run's)."""
    tree = copy.deepcopy(tree)
    other = copy.deepcopy(tree["root"]["children"][0])
    node, next_id = other, 100
    while node:
        node["node_id"], next_id = next_id, next_id + 1
        node["action"]["scratch_pad"] = f"other attempt {node['node_id']}"
        last, node = node, (node["children"] or [None])[0]
    if finish_reward is None:
        parent = other
        while parent["children"][0]["children"]:
            parent = parent["children"][0]
        parent["children"] = []
    else:
        last["reward"] = {"value": finish_reward}
        chain(tree)[-1]["reward"] = {"value": 50}
    tree["root"]["children"].append(other)
    return tree


@pytest.mark.parametrize(("finish_reward", "chosen"), [(None, "run"), (-10, "run"), (90, "other")])
def test_the_branch_that_led_to_the_final_answer_is_chosen(finish_reward, chosen, tmp_path: Path) -> None:
    """An abandoned branch (no Finish) is never chosen, though its ids are later; of two finished
    branches the one with the higher reward is."""
    raw = json.loads(ACTION_VERSION.read_text())
    for layout, value in (("tree", grafted(raw, finish_reward=finish_reward)),
                          ("flat", as_node_list(grafted(raw, finish_reward=finish_reward)))):
        path = tmp_path / f"{layout}.json"
        path.write_text(json.dumps(value))
        thoughts = [m["content"] for m in read_one(path).metadata["messages"] if m["role"] == "assistant"]
        run = [n["action"]["scratch_pad"] for n in chain(raw)]
        assert len(thoughts) == 4
        if chosen == "run":
            assert thoughts == run, layout
        else:
            assert thoughts[0] == run[0] and thoughts[1:] == [f"other attempt {i}" for i in (100, 101, 102)], layout
