"""Record layouts of issue 45 round 19 (b45p): what new development systems showed before any code changed
(bench/traces_dev_extra.tsv), and the classes earlier rounds left. Fixtures are excerpts of the real files, or their
layouts rebuilt in their own keys where the source carries no licence (tests/fixtures/transcript_inputs/README.md
names repository and commit)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from codemix.document import Document
from codemix.mixtures.transcripts import MAX_JSON_DEPTH, nested_deeper_than
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def read(path: Path) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)])
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


def test_a_nested_message_tree_deeper_than_the_depth_cap_reads_its_branch(tmp_path):
    """LibreChat's recursive export (the round 18 fixture, librechat.librechat-tree.rebuilt.json) nests each turn in
    the one it answers: two levels a turn, so a conversation of about fifty turns passed ``MAX_JSON_DEPTH`` and was
    refused whole (``nested deeper than 100 levels``). Here the fixture's conversation is continued fifteen times
    under its own last answer (every copy a fork of four turns read and five on other branches): the branch through
    the last answer at every fork is read, 60 turns, and the 75 others are counted."""
    export = json.loads((INPUTS / "librechat.librechat-tree.rebuilt.json").read_text(encoding="utf-8"))
    tree, leaf = export["messages"], None
    for copy_no in range(15):
        part = copy.deepcopy(export["messages"])
        stack = list(part)
        while stack:  # ids of each copy its own
            turn = stack.pop()
            turn["messageId"] = f"{turn['messageId']}-{copy_no}"
            stack += turn["children"]
        if leaf is None:
            tree = part
        else:
            leaf["children"] = part
        leaf = part[-1]
        while leaf["children"]:
            leaf = leaf["children"][-1]
    deep = dict(export, messages=tree)
    assert nested_deeper_than(deep, MAX_JSON_DEPTH)  # guard: the cap bites this tree
    path = tmp_path / "librechat-long.json"
    path.write_text(json.dumps(deep), encoding="utf-8")
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert len(messages) == 60 and doc.metadata["transcript"]["branch_unread"] == 75
    assert [m["role"] for m in messages] == ["user", "assistant"] * 30
    assert [m["content"] for m in messages[:4]] == [
        "How do I use source venv/bin/activate?",
        "It looks like the venv does not exist yet; create it with python3 -m venv venv.",
        "lol", "Glad it amused you! Ask if you need more help."]
    assert messages[4]["content"] == messages[0]["content"]  # the next copy follows the last answer
