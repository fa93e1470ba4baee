"""Cline's task UI log (``transcript_formats.cline_ui``).

The layout is the spent eleventh holdout's (haram-333/fineye@a95a94b5, ui_messages.json, 269 entries; no licence,
so read in the development corpus, ``bench.traces_dev_corpus``), rebuilt here in Cline's own keys and kinds
(``ClineSay``/``ClineAsk``, src/shared/ExtensionMessage.ts), values shortened."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

REQUEST = "[read_file for 'pubspec.yaml'] Result:\nname: fineye\n\n\n<environment_details>\n# Current Mode\nACT MODE\n</environment_details>"
ENTRIES = [
    {"ts": "1", "type": "say", "say": "text", "text": "look at this project and tell me what it is about", "conversationHistoryIndex": "-1"},
    {"ts": "2", "type": "say", "say": "checkpoint_created", "lastCheckpointHash": "e053303"},
    {"ts": "3", "type": "say", "say": "api_req_started", "text": json.dumps({"request": "<task>\nlook at this project\n</task>"})},
    {"ts": "4", "type": "say", "say": "reasoning", "text": "I should read the project's manifest first.", "partial": "False"},
    {"ts": "5", "type": "say", "say": "text", "text": "", "partial": "True"},
    {"ts": "6", "type": "say", "say": "tool", "text": json.dumps({"tool": "readFile", "path": "pubspec.yaml"})},
    {"ts": "7", "type": "say", "say": "task_progress", "text": "- [ ] Read project configuration files"},
    {"ts": "8", "type": "say", "say": "api_req_started", "text": json.dumps({"request": REQUEST})},
    {"ts": "9", "type": "say", "say": "error_retry", "text": "{\"attempt\": 1}"},
    {"ts": "10", "type": "say", "say": "completion_result", "text": "This is FinEye, a Flutter app for UAE tax compliance."},
    {"ts": "11", "type": "ask", "ask": "completion_result", "text": ""},
    {"ts": "12", "type": "say", "say": "user_feedback", "text": "ok, now look at the OCR code"},
    {"ts": "13", "type": "ask", "ask": "resume_task"},
]


def test_a_cline_ui_log_reads_the_persons_words_each_requests_response_and_the_results_it_carried(tmp_path: Path) -> None:
    """The task and each ``user_feedback`` are the person's; what a request's response showed (reasoning, a tool
    use, text or a completion result) is one model turn; the next request's ``[tool for 'x'] Result:`` is the
    tool's turn, without Cline's environment details; checkpoints, retries, progress and resume prompts are left out."""
    path = tmp_path / "ui_messages.json"
    path.write_text(json.dumps(ENTRIES))
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"])
    (doc,) = [o for o in read_location(source, str(path)) if isinstance(o, Document)]
    got = [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]], m["reasoning"]) for m in doc.metadata["messages"]]
    assert got == [("user", ENTRIES[0]["text"], [], ""),
                   ("assistant", "", ["readFile"], ENTRIES[3]["text"]),
                   ("tool", "name: fineye", [], ""),
                   ("assistant", ENTRIES[9]["text"], [], ""),
                   ("user", ENTRIES[11]["text"], [], "")]
    assert doc.metadata["format"] == "cline-ui"
