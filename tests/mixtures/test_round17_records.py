"""Record layouts of issue 45 round 17 (b45p), found on new development systems before any code changed
(bench/traces_dev_extra.tsv): runs kept inside other containers (a TypeScript module's literals, JSON text in a
span's attributes, a Jaeger export's tags, a logger's line prefix), messages serialised with their class, a message
tree's other branches counted. Excerpts of the real files (tests/fixtures/transcript_inputs/README.md names source,
commit and licence), or, for a file that carries no licence, its layout rebuilt in its own keys with short texts."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document, Quarantined
from codemix.mixtures.transcript_formats.log_records import prefixed_records
from codemix.mixtures.transcript_formats.modules import module_value, module_values
from codemix.mixtures.transcripts import parse_json_value
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def outcomes(path: Path) -> list:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)])
    return list(read_location(source, str(path)))


def read(path: Path) -> list[Document]:
    return [o for o in outcomes(path) if isinstance(o, Document)]


def said(doc: Document) -> list[tuple[str, str, list[str]]]:
    return [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]]) for m in doc.metadata["messages"]]


def test_langchain_messages_a_typescript_module_writes_as_literals_are_read():
    """lajy-enterprise/test_api_reserve_agent src/message.ts (MIT): two ``const`` statements, each a list of
    LangChain messages serialised as their constructor (``{lc: 1, type: "constructor", id: [..., "HumanMessage"],
    kwargs: {...}}``) written as JavaScript object literals (keys unquoted, trailing commas, a single-quoted
    string). Quarantined as no JSON; now each statement is a conversation, the role taken from the class's name
    and the call from ``kwargs.tool_calls``."""
    path = INPUTS / "test-api-reserve-agent.message.ts"
    text = path.read_text(encoding="utf-8")
    assert "lc: 1," in text and "'{\"nombre\"" in text  # unquoted keys and a single-quoted string: no JSON
    assert [name for name, _ in module_values(text)] == ["state", "stateBeforeInterrupt"]
    first, second = read(path)
    assert said(first) == [("user", "quiero reservar un turno para crossfit", []),
                           ("assistant", first.metadata["messages"][1]["content"], [])]
    assert first.metadata["messages"][1]["content"].startswith("Claro, puedo ayudarte con eso.")
    assert said(second) == [("user", "mariano 325 11:00", []), ("assistant", "", ["reservacion_de_turno_para_crossfit"])]
    call = second.metadata["messages"][1]["tool_calls"][0]
    assert json.loads(call["arguments"]) == {"nombre": "mariano", "dni": "325", "turn": "11:00"}


def test_a_module_that_runs_code_is_no_data():
    """The literal grammar reads data only: a module that also calls something, or a literal that holds an
    expression (a variable, a template that interpolates, a spread), is a program."""
    assert module_value("export const messages = [{role: 'user', content: `hi`}];\nrender(messages);\n") is None
    assert module_value("const a = [{role: 'user', content: name}];") is None
    assert module_value("const a = [{role: 'user', content: `hi ${name}`}];") is None
    assert module_value("const a = [{...base, role: 'user'}];") is None
    assert module_value("// a note\nexport default {messages: [{role: 'user', content: 'hi',},],} as const;") == {
        "messages": [{"role": "user", "content": "hi"}]}


def test_a_span_export_keeps_the_call_as_json_text_in_attributes_of_its_own_naming():
    """microsoft/assistant-pf-demo spans.json (MIT): promptflow's span export, pretty-printed span objects back
    to back; the chat call's request is JSON text under ``inputs`` (``{messages, model, tools}``), its reply
    under ``llm.generated_message`` and ``output`` (a ``chat.completion``), and a function span beside it re-sends
    the same messages as ``message_history``. Read as six rows (the same exchange twice, four quarantined); now
    the trace is one run: system, request, reply, once."""
    path = INPUTS / "assistant-pf-demo.spans.json"
    assert path.read_text(encoding="utf-8").count('"span_type"') == 5  # spans of one trace, back to back
    [doc] = read(path)
    roles = [m["role"] for m in doc.metadata["messages"]]
    assert roles == ["system", "user", "assistant"]
    assert doc.metadata["messages"][2]["content"].startswith("It looks like you are testing the functionality.")


def test_a_jaeger_export_of_two_agents_is_one_run_per_agent():
    """ponchotitlan/packet-panic-agntcy traces.json (Apache-2.0), an excerpt of one trace: Jaeger's JSON
    (``{data: [{traceID, spans}]}``, each span's ``tags`` a list of ``{key, type, value}``), a supervisor agent and
    a detector agent it calls over A2A, each model call re-sending its own conversation as
    ``gen_ai.input.messages`` (JSON text of ``{role, parts}``; calls as ``tool_call`` parts, results as
    ``tool_call_response`` parts), the system prompt in ``gen_ai.system_instructions``. Read before as eight
    overlapping pieces (44 messages for 12); now each agent's conversation once, calls and results paired, the
    tool's own span not read twice."""
    path = INPUTS / "packet-panic-agntcy.traces.genai-spans.json"
    trace = json.loads(path.read_text(encoding="utf-8"))["data"][0]
    assert all(isinstance(span["tags"], list) for span in trace["spans"])  # the fixture keeps Jaeger's tag lists
    docs = read(path)
    by_request = {doc.metadata["messages"][1]["content"]: doc for doc in docs}
    supervisor = by_request["¿Hay errores o descartes en las interfaces de R1?"]
    assert [r for r, _, _ in said(supervisor)] == ["system", "user", "assistant", "tool", "assistant"]
    assert said(supervisor)[2][2] == ["query_detector"]
    detector = next(doc for doc in docs if doc is not supervisor)
    assert [calls for _, _, calls in said(detector)] == [[], [], ["pyats_list_devices"], [], ["pyats_run_show_command"],
                                                        [], []]
    results = [m for m in detector.metadata["messages"] if m["role"] == "tool"]
    calls = [c for m in detector.metadata["messages"] for c in m["tool_calls"]]
    assert [m["tool_call_id"] for m in results] == [c["id"] for c in calls]


def test_a_list_whose_kinds_name_no_event_is_no_event_log():
    """keonheek/clinical-trial-agent-demo traces.json (no licence: rebuilt in its keys, texts short): a trial's
    eligibility criteria, each ``{text, type: inclusion | exclusion, verdict, evidence, reasoning}``. Read as an
    agent's event log (four to twelve model turns per trial, 374 messages in the file); a list whose kinds name no
    side, call, result or step is records of something else."""
    criteria = [{"text": "Age ≥ 18 years", "type": "inclusion", "verdict": "MET", "effect": "PASS",
                 "evidence": "54-year-old man", "reasoning": "Patient is 54 years old, which satisfies the age limit."},
                {"text": "Age < 18 years", "type": "exclusion", "verdict": "NOT_MET", "effect": "PASS",
                 "evidence": "54-year-old man", "reasoning": "Patient is 54 years old, not under 18."},
                {"text": "Pregnancy", "type": "exclusion", "verdict": "NOT_MET", "effect": "PASS", "evidence": None,
                 "reasoning": "Patient is male, so pregnancy does not apply."}]
    record = {"patient_id": "S001", "trials": [{"nct_id": "NCT0", "title": "A registry", "criteria": criteria,
                                                "eligibility": "UNCERTAIN", "rank": 1}]}
    transcripts = []
    try:
        transcripts = parse_json_value(record)
    except Exception as error:  # noqa: BLE001 - any refusal is the point; a reading is the failure
        assert "no transcript" in str(error) or "no_conversation" in str(error)
    assert not any(t.messages for t in transcripts)


def test_log_lines_ending_in_json_records_are_read_as_the_records():
    """A logger's lines each ending with a JSON message behind its stamp (``<time> INFO agent: {...}``) were read
    as text: the stamp taken for a speaker, each message's JSON for prose. The records are the conversation; a
    line of plain text among them is counted (``lines_left_out``), not read. (Written here: the published logs of
    this layout we found log no conversation; the MCP proxy's log of bench/traces_dev_extra.tsv holds calls only.)"""
    lines = ['2026-03-31 16:31:22,101 INFO agent: {"role": "user", "content": "List the files and summarise the README."}',
             ('2026-03-31 16:31:23,552 INFO agent: {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", '
              '"type": "function", "function": {"name": "list_files", "arguments": "{\\"path\\": \\".\\"}"}}]}'),
             "2026-03-31 16:31:23,601 DEBUG tools: running list_files",
             '2026-03-31 16:31:23,602 INFO agent: {"role": "tool", "tool_call_id": "c1", "content": "README.md\\nsrc/"}',
             '2026-03-31 16:31:25,010 INFO agent: {"role": "assistant", "content": "A README and a src folder."}']
    assert prefixed_records("\n".join(lines)).other_lines == 1
    assert prefixed_records("\n".join(["a note", "another", lines[0]])) is None  # most lines say no record


def test_a_chatgpt_trees_other_branches_are_counted():
    """A ChatGPT-style message tree (LLMFarm/llmfarm-front's dialog-data.js layout, rebuilt in its keys as in
    round 16's test): the branch shown is read (the last child at each fork, the latest regeneration) and the
    turns on the other branches are counted (``branch_unread``), never lost silently."""
    def node(node_id, parent, children, role=None, text=""):
        out = {"id": node_id, "children": children, **({"parent": parent} if parent else {})}
        if role:
            out["message"] = {"id": node_id, "author": {"role": role}, "content": {"content_type": "text", "parts": [text]}}
        return out
    tree = {"root": node("root", None, ["u1"]),
            "u1": node("u1", "root", ["a1", "a2"], "user", "How do I repair a broken jpg?"),
            "a1": node("a1", "u1", ["u3"], "assistant", "An earlier answer, regenerated."),
            "u3": node("u3", "a1", [], "user", "A follow-up on the earlier answer."),
            "a2": node("a2", "u1", [], "assistant", "Try opening it in another viewer first.")}
    [transcript] = parse_json_value({"title": "jpg", "mapping": tree})
    assert [m["content"] for m in transcript.messages] == ["How do I repair a broken jpg?",
                                                          "Try opening it in another viewer first."]
    assert transcript.extra["branch_unread"] == 2


def test_prefixed_log_file_is_read_through_the_reader(tmp_path):
    """The same log as a file: one conversation, the plain line counted on it."""
    path = tmp_path / "agent.log"
    lines = ['2026-03-31 16:31:22,101 INFO agent: {"role": "user", "content": "Summarise the README of this repository."}',
             "2026-03-31 16:31:23,601 DEBUG tools: loading",
             '2026-03-31 16:31:25,010 INFO agent: {"role": "assistant", "content": "It describes a small CLI tool."}']
    path.write_text("".join(line + "\n" for line in lines))
    found = outcomes(path)
    assert not any(isinstance(o, Quarantined) for o in found)
    [doc] = read(path)
    assert [m["role"] for m in doc.metadata["messages"]] == ["user", "assistant"]
    assert doc.metadata["transcript"]["lines_left_out"] == 1


def test_a_short_request_counts_when_the_run_acts_on_it():
    """openai/openai-agents-js's RunState fixture v1.17-side-effect-committed.json (MIT; round 16's fixture): its
    request is ``originalInput: "run once"``, two words, below the three a request found under a key must have;
    the run's model calls ``side_effect_tool`` and the result comes back, so the words set the work: read as the
    request. A run of talk only (no call, no result) with a short input stays without one."""
    path = INPUTS / "openai-agents-js.run-state.v1.17-side-effect-committed.json"
    assert json.loads(path.read_text(encoding="utf-8"))["originalInput"] == "run once"
    [doc] = read(path)
    assert said(doc) == [("user", "run once", []), ("assistant", "", ["side_effect_tool"]),
                         ("tool", "side effect completed", [])]
    talk = {"originalInput": "hello", "history": [{"role": "assistant", "content": "Hello! How can I help you today?"},
                                                   {"role": "assistant", "content": "I am still here if you need me."}]}
    try:
        transcripts = parse_json_value(talk)
    except Exception:  # noqa: BLE001 - a refusal is the point
        transcripts = []
    assert not any(m["role"] == "user" and m["content"] == "hello" for t in transcripts for m in t.messages)


def test_a_web_page_keeps_its_run_as_data_in_a_script_element(tmp_path):
    """A page that carries its chat as a JSON data island (``<script type="application/json">``, as Next.js's
    ``__NEXT_DATA__`` does) or in a script assigning a literal (``window.__CHAT__ = {...}``) holds the run as data;
    a script that runs code holds none. (Written here: no published page of this layout was found in time.)"""
    island = {"conversation": [{"from": "human", "value": "How do I list the files of a folder in Python?"},
                               {"from": "gpt", "value": "Use pathlib.Path.iterdir to list a folder's entries."}]}
    page = tmp_path / "chat.html"
    page.write_text('<html><body><div id="app"></div>\n<script src="app.js"></script>\n'
                    f'<script type="application/json" id="__NEXT_DATA__">{json.dumps(island)}</script>\n'
                    "<script>render(document.getElementById('app'));</script></body></html>\n")
    [doc] = read(page)
    assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == [
        ("user", island["conversation"][0]["value"]), ("assistant", island["conversation"][1]["value"])]
    code = tmp_path / "app.html"
    code.write_text("<html><body><script>const chat = load(); render(chat);</script></body></html>\n")
    assert read(code) == []


def test_a_run_pasted_as_json_into_a_python_modules_strings_is_read(tmp_path):
    """bdhammel/agent_sandbox test_msg_convert.py (the spent eighth holdout's row; no licence: rebuilt in its keys,
    texts short): a Python module of two triple-quoted strings, the first a pydantic-ai run as JSON (its ``args``
    written ``"{\\"password\\":42}"``: escapes Python's reading undoes, so the literal's written text is the JSON),
    the second the same run converted, with a ``{ ... }`` placeholder (no JSON). Quarantined ("Extra data"); now the
    run of the first string is read (4 of the collector's 5 here; 5 of 5 on the real file)."""
    run = [{"parts": [{"content": "pw=42", "part_kind": "user-prompt"}], "kind": "request"},
           {"parts": [{"tool_name": "secret_plan", "args": "{\"password\":42}", "tool_call_id": "call_1",
                       "part_kind": "tool-call"}], "kind": "response"},
           {"parts": [{"tool_name": "secret_plan", "content": "The secret plan is revealed.", "tool_call_id": "call_1",
                       "part_kind": "tool-return"}], "kind": "request"},
           {"parts": [{"content": "The secret plan has been revealed!", "part_kind": "text"}], "kind": "response"}]
    path = tmp_path / "test_msg_convert.py"
    path.write_text('\n"""\n' + json.dumps(run, indent=2) + '\n"""\n"""\n[\n  {"role": "event", '
                    '"content": { ... }}\n]\n"""\n')
    assert '\\"password\\"' in path.read_text()  # the escapes the literal's reading undoes
    [doc] = read(path)
    assert said(doc) == [("user", "pw=42", []), ("assistant", "", ["secret_plan"]),
                         ("tool", "The secret plan is revealed.", []), ("assistant", "The secret plan has been revealed!", [])]


def test_ai_sdk_steps_with_camel_case_keys_are_steps():
    """zxkevinxz/ai-hero examples/vercel-ai-sdk/15-react-to-tool-results/example.ts (CC BY-NC-SA: rebuilt in its
    keys, texts short): the Vercel AI SDK's step results (``{stepType, text, toolCalls: [{type: tool-call,
    toolCallId, toolName, args}], toolResults: [{toolCallId, toolName, result}], finishReason}``) under a run's
    prompt. Its camelCase keys were no step's keys and the call's name was read from its ``type``; now the step is
    the model's words and its call, then the result. (The real file keeps one step and no prompt: refused, no
    request.)"""
    step = {"stepType": "initial", "text": "I'll check the weather in London.",
            "toolCalls": [{"type": "tool-call", "toolCallId": "toolu_1", "toolName": "getWeather", "args": {"city": "London"}}],
            "toolResults": [{"type": "tool-result", "toolCallId": "toolu_1", "toolName": "getWeather",
                             "args": {"city": "London"}, "result": "The weather in London is 25°C and sunny."}],
            "finishReason": "tool-calls", "usage": {"promptTokens": 373}, "request": {}, "isContinued": False}
    [transcript] = parse_json_value({"prompt": "What is the weather in London today?", "steps": [step]})
    assert [(m["role"], m["content"], [(c["name"], c["id"]) for c in m["tool_calls"]]) for m in transcript.messages] == [
        ("user", "What is the weather in London today?", []),
        ("assistant", "I'll check the weather in London.", [("getWeather", "toolu_1")]),
        ("tool", "The weather in London is 25°C and sunny.", [])]


def test_span_and_module_readers_never_crash_on_a_real_files_values_moved_around():
    """Round 16's fuzz (``test_round16_records``: each value replaced in turn by one of another shape) over this
    round's real files: the Jaeger export, the promptflow spans, the TypeScript module's records. The readers read
    the value or refuse it with a shape error, never crash (3,705 mutations found none when this was written)."""
    from tests.mixtures.test_round16_records import fuzz_record_readers
    spans = (INPUTS / "assistant-pf-demo.spans.json").read_text(encoding="utf-8")
    values = [json.loads((INPUTS / "packet-panic-agntcy.traces.genai-spans.json").read_text(encoding="utf-8")),
              json.loads("[" + spans.replace("}\n{", "},\n{") + "]"),
              module_value((INPUTS / "test-api-reserve-agent.message.ts").read_text(encoding="utf-8"))]
    tried = fuzz_record_readers(values, samples=15)
    assert tried > 500


def test_a_call_whose_arguments_json_has_no_type_for_is_kept():
    """The sixteenth traces holdout (round 17): an Ollama session pasted into Markdown whose model printed a call
    with Python literals in its arguments was quarantined by a crash (``TypeError: Object of type set is not JSON
    serializable``: a printed call's arguments serialised once, ``canonical.tool_call``). A set is kept as the
    list of its members, bytes as text; the file is read, not lost."""
    from codemix.mixtures.transcript_formats.canonical import tool_call
    call = tool_call("c1", "search_news", {"tags": {"b", "a"}, "raw": b"x", "more": ...})
    assert json.loads(call["arguments"]) == {"tags": ["a", "b"], "raw": "x", "more": "Ellipsis"}


def test_a_step_s_parameters_printed_as_a_python_dict_are_the_call_s_object():
    """The sixteenth holdout's ReflecTool log (b45l's rebuilt layout, tests/mixtures/test_round17_text.py): each
    step's ``params: {'drug_name': 'nitrofurantoin'}`` is the object the call carried, printed with ``repr``. Kept
    as that text, SFT dropped every call as malformed with its result (24 and 24 of the real log's 53 messages);
    read with ``ast.literal_eval`` (literals only), the arguments are its JSON and the calls reach the shards."""
    from codemix.mixtures.sft import arguments_object
    from codemix.mixtures.transcripts import parse_text
    from tests.mixtures.test_round17_text import NUMBERED_LOG
    first, _ = parse_text(NUMBERED_LOG)
    calls = [c for m in first.messages for c in m["tool_calls"]]
    assert "params: {'drug_name': 'nitrofurantoin'}" in NUMBERED_LOG  # the fixture prints a Python dict
    assert [json.loads(c["arguments"]) for c in calls] == [{"response": "Search the drug database."},
                                                          {"drug_name": "nitrofurantoin"}]
    assert all(arguments_object(c) is not None for c in calls)  # well formed for SFT
