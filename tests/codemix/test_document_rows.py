"""A Document's Parquet row holds every field as it is, its metadata as JSON in the order it was read."""

from __future__ import annotations

import dataclasses
import json

import pyarrow as pa

from codemix.document import DOCUMENT_SCHEMA, Document


def test_row_is_every_field_with_metadata_as_ordered_json() -> None:
    # a transcript's metadata: a tool call whose arguments are not in sorted order, nested lists and dicts
    messages = [{"role": "assistant", "tool_calls": [{"name": "edit", "arguments": {"path": "a.py", "new": "x"}}]},
                {"role": "tool", "content": "ok"}]
    doc = Document(id="d", text="t", source="s", kind="transcript", repo="r", path="p", language="python",
                   license="MIT", metadata={"messages": messages, "location": "x:1"})
    row = doc.to_row()
    assert list(row) == [field.name for field in dataclasses.fields(Document)] == DOCUMENT_SCHEMA.names
    assert {name: value for name, value in row.items() if name != "metadata"} == {
        name: getattr(doc, name) for name in row if name != "metadata"}
    assert row["metadata"] == '{"messages": [{"role": "assistant", "tool_calls": [{"name": "edit", "arguments": ' \
                              '{"path": "a.py", "new": "x"}}]}, {"role": "tool", "content": "ok"}], "location": "x:1"}'
    assert json.loads(row["metadata"]) == doc.metadata
    # through Arrow and back, the same document
    table = pa.Table.from_pylist([row], schema=DOCUMENT_SCHEMA)
    assert Document.from_row(table.to_pylist()[0]) == doc
