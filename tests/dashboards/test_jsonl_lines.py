"""JSON lines end at "\\n" only: strings written with ``ensure_ascii=False`` keep U+2028, U+2029 and
U+0085 unescaped, and ``str.splitlines`` would cut a record there."""

from __future__ import annotations

import json

from codemix.dashboards.builds import read_jsonl
from codemix.dashboards.runs import _records

RECORDS = [{"error": "bad byte in line one\u2028line two"}, {"text": "a\u2029b\x85c"}, {"plain": 1}]


def test_build_and_run_readers_keep_records_with_unicode_line_separators_whole(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in RECORDS), encoding="utf-8")
    assert "\u2028" in path.read_text(encoding="utf-8"), "the fixture must hold an unescaped separator"

    assert read_jsonl(str(path)) == RECORDS
    assert _records(str(path)) == (RECORDS, "jsonl")
