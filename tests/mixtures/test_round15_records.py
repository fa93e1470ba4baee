"""Record layouts of issue 45 round 15 (b45p), found on new development systems before any code changed
(bench/traces_dev_extra.tsv); the files carry no licence, so each layout is rebuilt in its own keys, the texts
cut short, source and commit named."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from codemix.document import Document
from codemix.mixtures.transcript_formats.events import run_key
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig


def read(path: Path, **options) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], **options)
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


def shape(doc: Document) -> list[tuple]:
    return [(m["role"], m["name"], len(m["tool_calls"])) for m in doc.metadata["messages"]]


def test_a_gemini_cli_session_keeps_each_model_turns_calls_their_results_and_its_thought_summaries(tmp_path):
    """metaphi-agent/figma-eval-010ac575-1280-41fe-be26-130311bef5ed-gemini_cli@621398026d9337ec4435c8678f6343453e89a4dd
    .gemini/tmp/<hash>/chats/session-2026-01-30T06-08-7befeae5.json (Gemini CLI's own session file): ``type: user``
    / ``type: gemini`` messages; a model message keeps ``toolCalls`` with each result inside and ``thoughts`` of
    ``{subject, description}``. The thoughts made each model message read as a bare step: 33 of 94 messages, no
    call and no result read."""
    def call(call_id, name, args, response):
        return {"id": call_id, "name": name, "args": args, "status": "success", "displayName": name,
                "description": "Reads and returns the content of a specified file.",
                "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}]}
    session = {"sessionId": "7befeae5", "projectHash": "f360e83f", "startTime": "2026-01-30T06:08:50.429Z", "messages": [
        {"id": "u1", "type": "user", "content": "Write production grade React frontend code for the given Figma design."},
        {"id": "g1", "type": "gemini", "content": "", "model": "gemini-3-pro-preview",
         "thoughts": [{"subject": "Contemplating Project Setup", "description": "I'm focused on the root directory."}],
         "toolCalls": [call("list_directory-1", "list_directory", {"dir_path": "."}, {"output": "[DIR] .gemini"}),
                       call("activate_skill-1", "activate_skill", {"name": "figma-to-code"},
                            {"error": "Skill \"figma-to-code\" not found."})],
         "tokens": {"input": 14046, "output": 25}},
        {"id": "g2", "type": "gemini", "content": "The dashboard has been implemented.", "model": "gemini-3-pro-preview",
         "thoughts": [{"subject": "Wrapping up", "description": "The build passes."}], "tokens": {"input": 9, "output": 9}}]}
    path = tmp_path / "session-2026-01-30T06-08-7befeae5.json"
    path.write_text(json.dumps(session))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert shape(doc) == [("user", "", 0), ("assistant", "", 2), ("tool", "", 0), ("tool", "", 0), ("assistant", "", 0)]
    assert [m["content"] for m in messages[2:4]] == ["[DIR] .gemini", 'Skill "figma-to-code" not found.']
    assert [m["tool_call_id"] for m in messages[2:4]] == ["list_directory-1", "activate_skill-1"]
    assert messages[1]["reasoning"] == "Contemplating Project Setup: I'm focused on the root directory."


def test_gemini_cli_stream_json_merges_a_streamed_reply_reads_a_status_as_a_result_and_cuts_sessions(tmp_path):
    """The same repository's transcript.jsonl (``gemini -p --output-format stream-json`` appended by the eval
    harness; the spent ninth holdout's file): the harness logs the task, then each session opens with ``{type:
    init, session_id}``; the reply comes as ``message`` records flagged ``delta: true``; a result that printed
    nothing keeps only ``{tool_id, status}``. Read before as one run, the reply in parts, such results left out
    (129 messages for the collector's 138)."""
    task = {"type": "message", "role": "user", "content": "Figma URL: https://www.figma.com/design/V9fF"}
    lines = [
        task,
        {"type": "init", "timestamp": "2026-01-30T06:18:17.750Z", "session_id": "s-1", "model": "gemini-3-pro-preview"},
        {"type": "message", "role": "user", "content": "Write production grade React frontend code."},
        {"type": "tool_use", "tool_name": "write_file", "tool_id": "write_file-1", "parameters": {"file_path": "a.tsx"}},
        {"type": "tool_result", "tool_id": "write_file-1", "status": "success"},
        {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "run-2", "parameters": {"command": "ls"}},
        {"type": "tool_result", "tool_id": "run-2", "status": "success", "output": "dist/"},
        {"type": "message", "role": "assistant", "content": "I have converted the design", "delta": True},
        {"type": "message", "role": "assistant", "content": " to a React application.", "delta": True},
        {"type": "result", "status": "success", "stats": {"total_tokens": 2164148}},
        task,
        {"type": "init", "timestamp": "2026-01-30T22:05:40.638Z", "session_id": "s-2", "model": "gemini-3-pro-preview"},
        {"type": "message", "role": "user", "content": "Write production grade React frontend code."},
        {"type": "tool_use", "tool_name": "read_file", "tool_id": "read-3", "parameters": {"file_path": "a.tsx"}},
        {"type": "tool_result", "tool_id": "read-3", "status": "success", "output": "export default App"}]
    path = tmp_path / "transcript.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    first, second = read(path)
    assert [m["role"] for m in first.metadata["messages"]] == ["user", "user", "assistant", "tool", "assistant", "tool",
                                                               "assistant"]
    assert first.metadata["messages"][3]["content"] == "success"
    assert first.metadata["messages"][-1]["content"] == "I have converted the design to a React application."
    assert [m["role"] for m in second.metadata["messages"]] == ["user", "user", "assistant", "tool"]
    assert second.metadata["messages"][0]["content"] == task["content"]  # the task the harness logged opens it


def envelope(case, sender, recipient, intent, payload, msg_id):
    return {"case_id": case, "sender": sender, "recipient": recipient, "performative": "inform", "intent": intent,
            "payload": payload, "msg_id": msg_id, "reply_to": None, "ts": "2026-08-05T05:30:47.576+00:00"}


def test_envelopes_between_agents_are_one_run_per_case_the_requester_first(tmp_path):
    """Dung205789/K3-Day9-Multi-Agent-A2A-B4_2@2c25e3193eab9dfe6ffffe5e3954b7167381426d trace.jsonl: a customer
    service system's agents message each other in envelopes (``sender``, ``recipient``, ``performative``,
    ``intent``, ``payload``); 50 cases interleave, each envelope has its own ``msg_id`` (a handle, no run) and
    its ``case_id`` (the run); a usage summary line closes the file. Read before: none (every line quarantined)."""
    lines = [
        envelope("EC_001", "customer", "coordinator", "open_case", {"message": "My order arrived late."}, "m1"),
        envelope("EC_002", "customer", "coordinator", "open_case", {"message": "I was charged twice."}, "m2"),
        envelope("EC_002", "coordinator", "payment", "investigate", {"order_id": "8067c5e4"}, "m3"),
        envelope("EC_001", "coordinator", "delivery", "investigate", {"order_id": "e2a03ccf"}, "m4"),
        envelope("EC_001", "delivery", "coordinator", "delivery_findings", {"delay_days": 4, "narrative": "Late."}, "m5"),
        envelope("EC_002", "payment", "coordinator", "payment_findings", {"payment_count": 2}, "m6"),
        envelope("EC_001", "coordinator", "case_file", "final_summary", {"customer_summary": "A refund is due."}, "m7"),
        envelope("EC_002", "coordinator", "case_file", "final_summary", {"customer_summary": "One charge is refunded."}, "m8"),
        {"type": "usage", "cases": 2, "ts": "2026-08-05T05:31:47.576+00:00", "usage": {"prompt_tokens": 353}}]
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines))
    first, second = read(path)
    assert shape(first) == [("user", "customer", 0), ("assistant", "coordinator", 0), ("assistant", "delivery", 0),
                            ("assistant", "coordinator", 0)]
    assert json.loads(first.metadata["messages"][0]["content"]) == {"message": "My order arrived late."}
    assert [m["name"] for m in second.metadata["messages"]] == ["customer", "coordinator", "payment", "coordinator"]


def test_a_run_key_groups_several_records_and_opens_each_run_as_the_log_opens():
    """The statistics ``run_key`` decides from: a case id most records share, each case opened by the customer,
    is the run key; a message id each record holds alone is none; an agent's id, whose groups open with the
    agents' own findings rather than a request, does not follow the conversation and is none either."""
    records = [envelope(case, sender, "x", "i", {"t": "y"}, f"m{n}")
               for n, (case, sender) in enumerate([("c1", "customer"), ("c2", "customer"), ("c1", "coordinator"),
                                                   ("c2", "coordinator"), ("c1", "delivery"), ("c2", "delivery")])]
    sender = lambda record: record["sender"]
    assert run_key(records, sender) == "case_id"
    assert run_key([{k: v for k, v in r.items() if k != "case_id"} for r in records], sender) is None  # msg_id alone
    by_agent = [{**r, "agent_id": r["sender"]} for r in records]
    assert run_key([{k: v for k, v in r.items() if k != "case_id"} for r in by_agent], sender) is None
    # a task handle one busy task shares and three more hold alone (two events per value on average): no run key,
    # however the runs would open (the spent thirteenth holdout's ops room cut one-event runs by such a handle)
    tasks = [{"type": "result", "task_id": task} for task in ("t1",) * 5 + ("t2", "t3", "t4")]
    assert run_key(tasks) is None
    assert run_key([{"type": "result", "task_id": task} for task in ("t1",) * 5 + ("t2",) * 3]) == "task_id"


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def test_a_notice_the_harness_repeats_and_the_model_never_answers_is_the_harnesss_with_what_follows_it():
    """Mentat's benchmark transcripts (AbanteAI/exercism-python, MIT; four runs, unchanged): after the model's edit
    the harness writes "User chose to apply all your changes." and then the pytest report it ran, both as user
    turns the model never answers. The notice recurs in the file's runs word for word: in every run (the file's
    first rows are learnt in a first pass before any is flagged, round 16; before, the notice was known from the
    third run on) it and the report after it are the environment's output, not the person's words; the request and
    the model's turns are unchanged."""
    path = FIXTURES / "mentat.exercism-python.transcript.lines-104-126-165-183.json"
    runs = [json.loads(line)["messages"] for line in path.read_text().splitlines()]
    notice = "User chose to apply all your changes."
    assert all(sum(m["content"] == notice for m in run) >= 1 for run in runs)
    docs = read(path)
    assert [len(d.metadata["messages"]) for d in docs] == [len(run) for run in runs]
    for doc in docs:
        messages = doc.metadata["messages"]
        after = [i for i, m in enumerate(messages) if m["content"] == notice]
        assert after and all(messages[i]["observation"] and messages[i + 1]["observation"] for i in after)
        assert all(messages[i + 1]["role"] == "user" and messages[i + 1]["content"].strip() for i in after)
        first_request = next(m for m in messages if m["role"] == "user")
        assert not first_request["observation"]


def test_words_a_person_repeats_in_every_run_stay_the_persons_when_the_model_answers_them():
    """FastChat's generated conversations (lm-sys/FastChat, Apache-2.0; four rows): the person says "Who are you?"
    and "Goodbye" in every run and the model answers each, so they stay the person's words."""
    docs = read(FIXTURES / "fastchat.dummy_conversation.rows-2-5-8-11.json")
    said = [m for d in docs for m in d.metadata["messages"] if m["content"] in ("Who are you?", "Goodbye")]
    assert len(said) >= 6 and all(m["role"] == "user" and not m["observation"] for m in said)


def test_a_user_turn_claude_code_marks_synthetic_is_the_harnesss_not_the_persons():
    """marquex/trackgentic@8b8fbffae7393cba23e245c47f809e6bce03dc8c stream.jsonl (MIT; lines 1, 3, 9-16, 18 and 19
    unchanged): ``claude -p --output-format stream-json`` with hooks; the Stop hook's feedback comes back as a user
    record Claude Code flags ``isSynthetic`` ("Stop hook feedback: ..."): the harness's words, an observation, as
    its ``isMeta`` records are."""
    path = FIXTURES / "trackgentic.stream.lines-1-3-9-16-18-19.jsonl"
    synthetic = [json.loads(line) for line in path.read_text().splitlines() if json.loads(line).get("isSynthetic")]
    assert len(synthetic) == 1
    (doc,) = read(path)
    (hook,) = [m for m in doc.metadata["messages"] if m["content"].startswith("Stop hook feedback:")]
    assert hook["role"] == "user" and hook["observation"]
    assert [m["role"] for m in doc.metadata["messages"]].count("assistant") == 2


def test_a_bare_string_after_the_models_turn_is_the_persons_request_and_crashes_nothing(tmp_path):
    """taimoor-shan/immo212@a64ced789e73d1cae8047269079d7d1301dc534e gemini-conversation.json (no licence; its keys
    kept; the spent fourteenth holdout, FIT): Gemini CLI's report of a failed request, ``{error: {message, stack},
    context: [Content, ...]}``, the history sent as Gemini API ``{role, parts}`` and the new request that failed as
    a bare string after the model's last turn. The string past the first 200 entries had crashed the stream merger
    (``AttributeError``, the file quarantined); read, it is the person's message."""
    turns = [{"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the context for our chat."}]},
             {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]}]
    for index in range(105):
        turns += [{"role": "user", "parts": [{"text": f"Step {index}: check the booking form."}]},
                  {"parts": [{"functionCall": {"name": "run_shell_command", "args": {"command": f"ls {index}"}}}],
                   "role": "model"}]
    turns += [{"role": "user", "parts": [{"functionResponse": {"id": "run_shell_command-1", "name": "run_shell_command",
                                                               "response": {"output": "Stdout: (empty)"}}}]},
              {"parts": [{"text": "The cleanup is complete."}], "role": "model"},
              "Congratulations, we have nothing. No calender, no form"]
    path = tmp_path / "gemini-conversation.json"
    path.write_text(json.dumps({"error": {"message": "got status: UNAVAILABLE.", "stack": "ApiError"}, "context": turns}))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert len(messages) == len(turns)
    assert (messages[-1]["role"], messages[-1]["content"]) == ("user", turns[-1])
    assert messages[-2]["role"] == "assistant" and messages[-3]["role"] == "tool"


def test_a_tool_results_record_lists_one_result_per_call_and_a_calls_own_fields_are_its_arguments(tmp_path):
    """matweldon/astro-blog@75c61f87c9e12d7f2e08c1c42f6e8cbd129a6fcf conversation.yaml (no licence; its keys kept;
    the spent fourteenth holdout, FIT): a Claude Code web session rewritten as YAML, a list of ``{type: user, text}``,
    ``{type: assistant, content: [{thinking} | {text} | {tool_call: {tool, file | params}}]}`` and ``{type:
    tool_results, results: [{result}]}``. The results had been left out (125 of 178 messages) and the calls read
    with no arguments."""
    events = [{"type": "context_change", "cwd": "/home/user/astro-blog"},
              {"type": "user", "text": "In my week 8 blog post I want to add two images as a carousel."},
              {"type": "assistant", "content": [{"text": "Let me first read the blog post."}]},
              {"type": "assistant", "content": [{"tool_call": {"tool": "Read", "file": "src/content/blog/week8.md"}}]},
              {"type": "assistant", "content": [{"tool_call": {"tool": "Glob", "params": {"pattern": "**/package.json"}}}]},
              {"type": "tool_results", "results": [{"result": "1→--- 2→date: \"2025-11-29\""}]},
              {"type": "tool_results", "results": [{"result": "/home/user/astro-blog/package.json"}]},
              {"type": "assistant", "content": [{"text": "The carousel goes after line 33."}]}]
    path = tmp_path / "conversation.yaml"
    path.write_text(yaml.safe_dump(events, allow_unicode=True))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant", "assistant", "tool", "tool", "assistant"]
    assert [m["content"] for m in messages[4:6]] == ["1→--- 2→date: \"2025-11-29\"", "/home/user/astro-blog/package.json"]
    assert [json.loads(m["tool_calls"][0]["arguments"]) for m in messages[2:4]] == [
        {"file": "src/content/blog/week8.md"}, {"pattern": "**/package.json"}]
