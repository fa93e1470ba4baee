"""Layout classes the first two holdouts of issue 45 missed, read by shape on the real files of those
systems (tests/fixtures/transcripts/README.md gives repository, commit, path and license of each excerpt):
posts of several agents kept in rounds, calls logged inside a model turn, steps keyed by numbered names
with a final answer beside them, steps whose model part sits below them, a ReAct run written as text in a
prompt string, Gemini's keyed parts, a prompt-keyed response cache, calls and results kept in parallel
lists, a dataset of separate calls, a mixed log of tool events and the model call that made them. Every
expectation is taken from the raw file with plain ``json``/``re``, never from the reader."""

from __future__ import annotations

import json
import re
import sysconfig
from pathlib import Path

import pytest

from codemix.document import Document
from codemix.mixtures.transcript_formats import has_task, parse_json_value, parse_text
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
SHAPE = FIXTURES / "shape"


def load(name: str):
    return json.loads((SHAPE / name).read_text(encoding="utf-8"))


def said(messages: list[dict]) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in messages]


def test_posts_of_several_agents_kept_in_rounds_are_one_conversation() -> None:
    """TaskWeaver keeps a session as ``rounds[].post_list`` of ``{send_from, send_to, message}``: the
    user's posts are user turns, every agent's (Planner, CodeInterpreter) a model turn, all rounds in order."""
    session = load("taskweaver-raw_exp_test-session-1.json")
    posts = [post for round_ in session["rounds"] for post in round_["post_list"]]
    assert len(session["rounds"]) == 2 and {p["send_from"] for p in posts} == {"User", "Planner", "CodeInterpreter"}
    (transcript,) = parse_json_value(session)
    expected = [("user" if p["send_from"] == "User" else "assistant", p["message"]) for p in posts]
    assert said(transcript.messages) == expected
    assert transcript.extra["record_id"] == session["id"] and has_task(transcript.messages)


def test_calls_logged_inside_a_model_turn_come_before_its_text() -> None:
    """ToolTalk's assistant turns carry their API calls under ``apis`` as ``{request: {api_name,
    parameters}, response, exception}``: each such turn is the calls, their results, then the text."""
    turns = load("tooltalk-golden_conversation_1.json")["conversation"]
    assert sum(bool(t.get("apis")) for t in turns) >= 2, "guard: turns with logged calls"
    expected = []
    for turn in turns:
        if turn.get("apis"):
            expected.append(("assistant", "", [a["request"]["api_name"] for a in turn["apis"]]))
            expected += [("tool", json.dumps(a["response"], ensure_ascii=False), []) for a in turn["apis"]]
        expected.append((turn["role"], turn["text"], []))
    (transcript,) = parse_json_value(load("tooltalk-golden_conversation_1.json"))
    got = [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]]) for m in transcript.messages]
    assert got == expected


def test_steps_keyed_by_numbered_names_then_the_final_answer() -> None:
    """OctoTools keeps its steps as ``memory: {"Action Step 1": {tool_name, sub_goal, command, result}}``
    and its answer as ``final_output``: the query, each step's sub-goal and command, its result, the answer."""
    run = load("octotools-solver_cache-output.json")
    steps = [run["memory"][k] for k in sorted(run["memory"], key=lambda k: int(re.findall(r"\d+", k)[-1]))]
    assert steps and all(re.fullmatch(r"Action Step \d+", k) for k in run["memory"]), "guard: named steps"
    (transcript,) = parse_json_value(run)
    roles = [m["role"] for m in transcript.messages]
    assert roles == ["user"] + ["assistant", "tool"] * len(steps) + ["assistant"]
    assert transcript.messages[0]["content"] == run["query"]
    for step, model in zip(steps, transcript.messages[1::2]):
        assert step["sub_goal"] in model["content"] and step["command"] in model["content"]
    assert transcript.messages[-1]["content"] == run["final_output"].strip()


def test_steps_whose_model_part_sits_below_them_read_without_results() -> None:
    """Trae Agent's ``llm_interaction[].steps.llm_response`` (an empty ``tool_calls: []`` on the wrapper
    makes it no step of its own); no step called a tool, so the run is the task and the model's replies."""
    run = load("trae-agent-demo_trajectory.json")
    replies = ["\n".join(b["text"] for b in s["steps"]["llm_response"]["content"]) for s in run["llm_interaction"]]
    assert all(s["tool_calls"] == [] and not s["steps"]["tool_results"] for s in run["llm_interaction"]), "guard"
    (transcript,) = parse_json_value(run)
    assert said(transcript.messages) == [("user", run["task"])] + [("assistant", r) for r in replies]


def test_a_react_run_written_as_text_in_a_prompt_string() -> None:
    """AutoAct keeps each run as the text of ``prompt``: instructions, the question, then Thought/Action/
    Observation lines. The text up to the run is the task; each Thought+Action a model turn, each
    Observation a tool turn."""
    for line in (SHAPE / "autoact-13b-easy.lines-1-2.jsonl").read_text().splitlines():
        row = json.loads(line)
        run = row["prompt"].rsplit("\nQuestion:", 1)[1]
        actions = re.findall(r"^Action(?: \d+)?:", run, re.MULTILINE)
        observations = re.findall(r"^Observation(?: \d+)?:.*", run, re.MULTILINE)
        assert actions and len(observations) == len(actions), "guard: an observation per action"
        (transcript,) = parse_json_value(row)
        assert [m["role"] for m in transcript.messages] == ["user"] + ["assistant", "tool"] * len(actions)
        assert transcript.messages[0]["content"].endswith(row["question"].strip()) or row["question"][:40] in \
            transcript.messages[0]["content"]
        tools = [m["content"] for m in transcript.messages if m["role"] == "tool"]
        assert [t.splitlines()[0] for t in tools] == [o.rstrip() for o in observations]
        assert transcript.extra["layout"] == "text" and transcript.facts.get("tests_passed") == row["correct"]


def test_keyed_parts_calls_results_and_thoughts() -> None:
    """Gemini's contents hold parts named by their key: ``functionCall`` (a call), ``functionResponse`` (a
    result, two in one content here), ``{text, thought: true}`` (reasoning, not the reply)."""
    contents = load("gemini-cli-trajectory.contents-4-7-15-16.json")
    calls = [p["functionCall"]["name"] for c in contents for p in c["parts"] if "functionCall" in p]
    results = [p["functionResponse"]["name"] for c in contents for p in c["parts"] if "functionResponse" in p]
    thoughts = [p["text"] for c in contents for p in c["parts"] if p.get("thought") is True]
    assert len(results) > len([c for c in contents if c["role"] == "user" and "functionResponse" in c["parts"][0]])
    (transcript,) = parse_json_value(contents)
    assert [c["name"] for m in transcript.messages for c in m["tool_calls"]] == calls
    assert sum(m["role"] == "tool" for m in transcript.messages) == len(results)
    reasoning = "\n".join(m["reasoning"] for m in transcript.messages)
    assert thoughts and all(t in reasoning for t in thoughts)
    assert not any(t in m["content"] for t in thoughts for m in transcript.messages)


def test_a_prompt_keyed_response_cache_is_one_call_per_entry() -> None:
    """MetaGPT's ``rsp_cache.json`` maps each prompt (text of several lines, or the JSON of a message
    list) to the response (text, or an object): each entry is its prompt's turns and the response."""
    cache = load("metagpt-rsp_cache.entries-6-7-318.json")
    assert any(isinstance(v, dict) for v in cache.values()) and sum("\n" in k for k in cache) == 2, "guard"
    as_list = [k for k in cache if k.startswith("[{")]
    assert len(as_list) == 1, "guard: one prompt kept as a JSON message list"
    transcripts = parse_json_value(cache)
    expected = [[(m["role"], m["content"]) for m in json.loads(k)] if k in as_list else [("user", k)] for k in cache]
    expected = [turns + [("assistant", v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))]
                for turns, v in zip(expected, cache.values())]
    assert [said(t.messages) for t in transcripts] == expected


def test_calls_and_results_in_parallel_lists_and_a_final_answer() -> None:
    """EasyTool keeps a question's calls in ``execute_log.api_result_ls`` (per subtask a list of calls, or
    "" for none) and their results in ``call_result_ls``; a question whose subtasks called nothing is its
    question and its final answer."""
    items = load("easytool-FuncQA_one-hop_chatgpt_easytool.items-1-24-10-43.json")
    transcripts = parse_json_value(items)
    assert len(transcripts) == len(items)
    for item, transcript in zip(items, transcripts):
        log = item["execute_log"]
        pairs = [(call, result) for calls, result in zip(log["api_result_ls"], log["call_result_ls"])
                 if isinstance(calls, list) for call in calls]
        roles = [m["role"] for m in transcript.messages]
        assert roles == ["user"] + ["assistant", "tool"] * len(pairs) + ["assistant"]
        assert transcript.messages[0]["content"] == item["question"]
        assert [m["tool_calls"][0]["name"] for m in transcript.messages[1:-1:2]] == [c["api_name"] for c, _ in pairs]
        assert [m["content"] for m in transcript.messages[2:-1:2]] == [r for _, r in pairs]
        assert transcript.messages[-1]["content"] == item["final_answer"]
    assert [t.extra["layout"] for t in transcripts].count("answer") == 1, "guard: one question without calls"


def test_a_list_of_separate_calls_is_a_dataset_not_a_run() -> None:
    """ToolAlpaca's evaluation file: per API, items ``{id, input: [messages], output}``; no call was sent
    what another returned, so each item is its own transcript."""
    data = load("toolalpaca-ToolAlpaca7b.apis-1-2.items-1-2.json")
    items = [item for api in data.values() for item in api]
    transcripts = parse_json_value(data)
    assert [said(t.messages) for t in transcripts] == [
        [(m["role"], m["content"]) for m in item["input"]] + [("assistant", item["output"])] for item in items]


def test_tool_events_and_the_model_call_that_made_them() -> None:
    """CAMEL's WebJudge log: ``communications`` holds browser tool calls (``{tool_name, arguments,
    result}``) and the one ``main_agent_call`` (``{user_task, response}``) that made them: its task opens
    the run, the tool calls and results follow, its response closes it."""
    log = load("camel-webjudge-agent_communication_log.communications-1-4.json")
    events = [c for c in log["communications"] if "tool_name" in c]
    (main,) = [c for c in log["communications"] if "user_task" in c]
    (transcript,) = parse_json_value(log)
    roles = [m["role"] for m in transcript.messages]
    assert roles == ["system", "user"] + ["assistant", "tool"] * len(events) + ["assistant"]
    assert transcript.messages[0]["content"] == log["system_prompt"]
    assert transcript.messages[1]["content"] == main["user_task"]
    assert [m["tool_calls"][0]["name"] for m in transcript.messages[2:-1:2]] == [e["tool_name"] for e in events]
    assert transcript.messages[-1]["content"] == main["response"]


def test_a_jsonl_file_of_one_turn_per_line_is_one_conversation() -> None:
    """A conversation written a turn per line (a tau-bench run, re-laid out one message per line from the
    shape fixture): the file is one transcript, its turns the lines."""
    path = FIXTURES / "turn-lines" / "tau-bench-gpt-4o-airline.row-2.turn-per-line.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    (document,) = list(read_location(source, str(path)))
    assert isinstance(document, Document)
    assert [m["role"] for m in document.metadata["messages"]] == [line["role"] for line in lines]
    assert [m["content"] for m in document.metadata["messages"]] == [line["content"] or "" for line in lines]


# --- layouts re-laid out from real tau-bench runs (tests/fixtures/transcripts/shape/tau-bench-*.json, MIT):
# no licensed published file of these layouts was found; the reference is the run as published.

TAU = json.loads((SHAPE / "tau-bench-gpt-4o-airline.rows-1-3.json").read_text())


def test_each_agents_own_history_is_its_own_transcript_and_a_prefix_is_none() -> None:
    """Two agents' histories in one record (neither repeats the other's model turns) are two transcripts;
    a prompt that repeats the run's first turns beside it is no transcript of its own."""
    solver, critic = TAU[0]["traj"], TAU[2]["traj"]
    record = {"id": "debate-1", "agents": {"solver": {"memory": solver}, "critic": {"memory": critic}}}
    transcripts = parse_json_value({"id": "debate-1", "histories": [solver, critic]})
    assert [len(t.messages) for t in transcripts] == [len(solver), len(critic)]
    assert [len(t.messages) for t in parse_json_value(record)] == [len(solver), len(critic)]
    (run,) = parse_json_value({"id": 1, "prompt": solver[:6], "traj": solver})
    assert len(run.messages) == len(solver)
    runs = [row["traj"] for row in TAU]  # a file that is a list of conversations: each its own
    assert [len(t.messages) for t in parse_json_value(runs)] == [len(r) for r in runs]


def test_a_history_of_text_pairs_is_its_turns() -> None:
    """A chat UI's history ``[[user text, reply], ...]`` (the texts of a real run's exchanges)."""
    turns = [m for m in TAU[1]["traj"] if m["role"] in ("user", "assistant")]
    pairs = [[turns[i]["content"], turns[i + 1]["content"]] for i in range(0, len(turns) - 1, 2)]
    assert len(pairs) >= 4 and all(turns[i]["role"] == "user" for i in range(0, len(turns) - 1, 2)), "guard"
    (transcript,) = parse_json_value({"session": "s1", "history": pairs})
    assert said(transcript.messages) == [(role, text) for pair in pairs for role, text in zip(("user", "assistant"), pair)]


def test_an_agents_intermediate_steps_between_its_input_and_output() -> None:
    """LangChain's AgentExecutor result ``{input, intermediate_steps: [[{tool, tool_input, log}, observation]],
    output}`` (a real run's calls and results): the input, each call with its log and its result, the output."""
    traj = TAU[2]["traj"]
    calls = [(m["tool_calls"][0]["function"], traj[i + 1]["content"]) for i, m in enumerate(traj) if m.get("tool_calls")]
    steps = [[{"tool": f["name"], "tool_input": json.loads(f["arguments"]), "log": f"Invoking: `{f['name']}`"}, result]
             for f, result in calls]
    final = next(m["content"] for m in reversed(traj) if m["role"] == "assistant" and m["content"])
    task = next(m["content"] for m in traj if m["role"] == "user")
    assert len(steps) >= 4, "guard: several calls"
    (transcript,) = parse_json_value({"input": task, "intermediate_steps": steps, "output": final})
    assert [m["role"] for m in transcript.messages] == ["user"] + ["assistant", "tool"] * len(steps) + ["assistant"]
    assert [m["tool_calls"][0]["name"] for m in transcript.messages[1:-1:2]] == [f["name"] for f, _ in calls]
    assert [m["content"] for m in transcript.messages[2:-1:2]] == [result for _, result in calls]
    assert (transcript.messages[0]["content"], transcript.messages[-1]["content"]) == (task, final)


def test_a_conversation_written_as_speaker_prefixed_text() -> None:
    """TaskWeaver's posts written as ``Name: message`` text: each post a turn, the user's a user turn, every
    agent's a model turn under its name; ``else:`` inside the code fences is nobody speaking."""
    posts = [p for r in load("taskweaver-raw_exp_test-session-1.json")["rounds"] for p in r["post_list"]]
    text = (FIXTURES / "speaker-turns" / "taskweaver-raw_exp_test-session-1.posts.txt").read_text()
    assert "\nelse:" in text or "    else:" in text, "guard: a label-like line inside code"
    (transcript,) = parse_text(text)
    assert transcript.format == "speaker-turns"
    assert [(m["role"], m["name"], m["content"]) for m in transcript.messages] == [
        ("user", "", p["message"].strip()) if p["send_from"] == "User" else ("assistant", p["send_from"], p["message"].strip())
        for p in posts]


def test_prose_with_labelled_lines_is_no_conversation() -> None:
    """A document whose lines open with labels (``Note:``, ``Question:``, ``Answer:``) is no conversation."""
    text = "\n".join(f"Question: what is {i} + {i}?\nAnswer: it is {2 * i}, as the sum shows.\nNote: checked by hand."
                     for i in range(6))
    assert parse_text(text) is None


def test_a_react_run_as_a_text_file() -> None:
    """AutoAct's prompt string written out as a text file reads as the run it holds."""
    text = (FIXTURES / "react-text" / "autoact-13b-easy.line-1.prompt.txt").read_text()
    run = text.rsplit("\nQuestion:", 1)[1]
    actions = re.findall(r"^Action(?: \d+)?:", run, re.MULTILINE)
    (transcript,) = parse_text(text)
    assert transcript.format == "react-text" and len(actions) >= 3
    assert [m["role"] for m in transcript.messages] == ["user"] + ["assistant", "tool"] * len(actions)


def test_utterances_indexed_turns_and_a_conversation_written_in_a_string() -> None:
    """A real run's exchanges kept three more ways: the utterances alone under ``dialog`` (speakers taking
    turns), turns indexed ``"0"``, ``"1"``..., and one string of ``Human:``/``Assistant:`` turns."""
    turns = [m for m in TAU[1]["traj"] if m["role"] in ("user", "assistant")][:-1]
    assert [m["role"] for m in turns] == ["user", "assistant"] * (len(turns) // 2) and len(turns) >= 8, "guard"
    expected = [(m["role"], m["content"]) for m in turns]
    (utterances,) = parse_json_value({"id": 5, "dialog": [m["content"] for m in turns]})
    (indexed,) = parse_json_value({"id": 5, "turns": {str(i): m for i, m in enumerate(turns)}})
    written = "".join(f"\n\n{'Human' if m['role'] == 'user' else 'Assistant'}: {m['content']}" for m in turns)
    (in_string,) = parse_json_value({"id": 5, "chosen": written})
    assert said(utterances.messages) == said(indexed.messages) == expected
    assert said(in_string.messages) == [(role, text.strip()) for role, text in expected]
    assert in_string.extra["layout"] == "text"


def test_turn_lines_with_logged_tool_calls_between_them(tmp_path: Path) -> None:
    """A JSONL file of turns in which each tool call is logged as a line of its own (``{name, arguments,
    result}``, re-laid out from a real tau-bench run): the calls are the model's, their results tool turns."""
    traj = TAU[2]["traj"]
    lines, expected = [], []
    for i, m in enumerate(traj):
        if m["role"] == "tool":
            continue
        if m.get("tool_calls"):
            call = m["tool_calls"][0]["function"]
            lines.append({"name": call["name"], "arguments": json.loads(call["arguments"]), "result": traj[i + 1]["content"]})
            expected += [("assistant", ""), ("tool", traj[i + 1]["content"])]
        else:
            lines.append({"role": m["role"], "content": m["content"]})
            expected.append((m["role"], m["content"]))
    assert sum("name" in line for line in lines) >= 4, "guard: several calls"
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    (document,) = list(read_location(source, str(path)))
    assert [(m["role"], m["content"]) for m in document.metadata["messages"]] == expected


def test_a_conversation_rendered_in_a_chat_template_in_a_string() -> None:
    """A real run's turns rendered as one string in ChatML, Llama 3 and Llama 2 templates (as SFT datasets
    keep a ``text`` field): the turns come back, the template's tokens dropped."""
    turns = [m for m in TAU[1]["traj"] if m["role"] in ("system", "user", "assistant")][:7]
    assert [m["role"] for m in turns][:3] == ["system", "user", "assistant"], "guard"
    expected = [(m["role"], m["content"].strip()) for m in turns]
    chatml = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in turns)
    llama3 = "<|begin_of_text|>" + "".join(
        f"<|start_header_id|>{m['role']}<|end_header_id|>\n\n{m['content']}<|eot_id|>" for m in turns)
    asks = [m["content"] for m in turns if m["role"] == "user"]
    replies = [m["content"] for m in turns if m["role"] == "assistant"]
    llama2 = f"<s>[INST] <<SYS>>\n{turns[0]['content']}\n<</SYS>>\n\n" + "</s><s>[INST] ".join(
        f"{ask} [/INST] {reply} " for ask, reply in zip(asks, replies)) + "</s>"
    for text in (chatml, llama3, llama2):
        (transcript,) = parse_json_value({"id": 9, "text": text})
        assert said(transcript.messages) == expected[:1 + 2 * len(replies)]


def test_a_message_tree_is_read_along_the_branch_shown() -> None:
    """A conversation kept as a tree of message nodes (``mapping: {id: {message, parent, children}}``, as
    ChatGPT exports it), re-laid out from a real run with one regenerated reply: the branch to
    ``current_node`` is the conversation; without it, the last child at every fork."""
    turns = [m for m in TAU[1]["traj"] if m["role"] in ("user", "assistant")][:6]
    nodes = {"root": {"message": None, "parent": None, "children": ["n0"]}}
    for i, turn in enumerate(turns):
        nodes[f"n{i}"] = {"message": {"author": {"role": turn["role"]}, "content": {"parts": [turn["content"]]}},
                          "parent": "root" if i == 0 else f"n{i - 1}", "children": [f"n{i + 1}"] if i + 1 < len(turns) else []}
    nodes["alt"] = {"message": {"author": {"role": "assistant"}, "content": {"parts": ["a reply regenerated away"]}},
                    "parent": "n0", "children": []}
    nodes["n0"]["children"] = ["alt", "n1"]
    (shown,) = parse_json_value({"conversation_id": "c1", "current_node": f"n{len(turns) - 1}", "mapping": nodes})
    assert said(shown.messages) == [(t["role"], t["content"]) for t in turns]
    nodes["n0"]["children"] = ["n1", "alt"]
    (last,) = parse_json_value({"conversation_id": "c1", "mapping": nodes})
    assert said(last.messages) == [(turns[0]["role"], turns[0]["content"]), ("assistant", "a reply regenerated away")]


def test_a_log_of_prompts_and_responses_is_its_calls() -> None:
    """LATS logs each value call as ``... - INFO - VALUE PROMPT: ...`` (many lines) then ``... - INFO - VALUE
    OUTPUTS: [...]``; no call was sent what another returned, so each call is a transcript: the prompt's
    text and the response's, the log prefixes dropped. ``PROMPT:`` with no response after it is no call."""
    text = (FIXTURES / "logged-calls" / "lats-webshop-example.lines-1-651.log").read_text()
    records = re.split(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d+ - INFO - ", text, flags=re.MULTILINE)
    prompts = [r.removeprefix("VALUE PROMPT: ").strip() for r in records if r.startswith("VALUE PROMPT: ")]
    outputs = [r.removeprefix("VALUE OUTPUTS: ").strip() for r in records if r.startswith("VALUE OUTPUTS: ")]
    assert len(prompts) == len(outputs) == 2 and any(r.startswith("PROMPT: ") for r in records), "guard"
    transcripts = parse_text(text)
    assert [t.format for t in transcripts] == ["logged-calls"] * 2
    assert [said(t.messages) for t in transcripts] == [[("user", p), ("assistant", o)] for p, o in zip(prompts, outputs)]


@pytest.mark.parametrize("module", ["contextlib", "datetime", "ftplib", "ipaddress", "optparse", "selectors",
                                    "socketserver", "turtle"])
def test_source_code_with_labelled_docstrings_is_no_conversation(module: str) -> None:
    """Standard-library modules whose docstrings label sections (``Args:``/``Returns:``, ``Methods:``,
    ``Typical usage:``) the way a chat labels speakers, each repeated and alternating: no conversation."""
    text = (Path(sysconfig.get_paths()["stdlib"]) / f"{module}.py").read_text(encoding="utf-8")
    assert len(re.findall(r"^\s*[A-Z][A-Za-z ]{2,30}:\s*$", text, re.MULTILINE)) >= 4, "guard: labelled lines"
    assert parse_text(text) is None


def test_labels_alone_are_no_speakers_and_a_test_runners_input_is_no_prompt() -> None:
    """Found by the third holdout (after its one run): a console log whose lines open with ``Tokens:``,
    ``Analysis:``, ``Next Steps:`` and a game log of ``To <country>:`` lines were read as speaker turns,
    and a test runner's ``input:`` record paired with a later ``response:``. Labels with no role alias among
    them are no speakers; a prompt's response must be the next labelled record, with the same qualifier."""
    console = "\n".join(f"Tokens: {i},000 sent, 900 received. Cost: $0.0{i} request.\nApplied edit to run.py\n"
                        f"Analysis: the run {i} improved the loss by a few points over the baseline.\n"
                        f"Next Steps: try a larger learning rate and compare with run {i}." for i in range(1, 6))
    game = "\n".join(f"To Russia: Britain has chosen to Request Military Alliance to Russia on day {d}\n"
                     f"To USA: Britain has chosen to Request Non-Intervention Treaty to USA on day {d}" for d in range(4))
    assert parse_text(console) is None and parse_text(game) is None
    stamp = "2024-01-02 15:26:03.258 | INFO     | runners:print_test_results:97 - "
    log = (f"{stamp}input:\n5 2\nAA\n{stamp}expected vs code output:\n5 2 1\n"
           f"{stamp}response:\ndef solve(): pass\n{stamp}PROMPT: write a sorter\n{stamp}RESPONSE: sorted(xs)\n")
    (transcript,) = parse_text(log)
    assert said(transcript.messages) == [("user", "write a sorter"), ("assistant", "sorted(xs)")]


def test_exchanges_kept_as_fields_named_by_role_and_a_camel_case_task() -> None:
    """Found by the third holdout (after its one run): exchanges kept as ``{user, assistant, tool_calls:
    [{tool_name, args, result}]}`` (a real run's turns and calls laid out so here), and a step list whose
    task sits under ``taskDescription``. Under a key the exchanges are one conversation (the calls before the
    reply that reports them); a file that is a list of them is a dataset, one transcript per exchange."""
    traj = TAU[2]["traj"]
    task = next(m["content"] for m in traj if m["role"] == "user")
    calls = [(m["tool_calls"][0]["function"], traj[i + 1]["content"]) for i, m in enumerate(traj) if m.get("tool_calls")]
    final = next(m["content"] for m in reversed(traj) if m["role"] == "assistant" and m["content"])
    exchange = {"user": task, "assistant": final, "tool_calls": [
        {"tool_name": f["name"], "args": json.loads(f["arguments"]), "result": result} for f, result in calls]}
    (run,) = parse_json_value({"id": "x1", "chat_history": [exchange, {"user": "thanks!", "assistant": "You are welcome."}]})
    assert [m["role"] for m in run.messages] == ["user"] + ["assistant", "tool"] * len(calls) + ["assistant", "user", "assistant"]
    assert [m["content"] for m in run.messages[2:2 * len(calls) + 1:2]] == [result for _, result in calls]
    assert len(parse_json_value([exchange, {"user": "thanks!", "assistant": "You are welcome."}])) == 2
    steps = [{"action": m["tool_calls"][0]["function"]["name"], "observation": r} for m, r in
             ((m, traj[i + 1]["content"]) for i, m in enumerate(traj) if m.get("tool_calls"))]
    (episode,) = parse_json_value({"7": {"history": {"taskDescription": task, "history": steps}}})
    assert episode.messages[0]["role"] == "user" and episode.messages[0]["content"] == task


def test_a_log_of_prompts_written_message_by_message() -> None:
    """Found by the third holdout (after its run): a loguru log whose calls are logged as ``system:``,
    ``user:`` and ``response:`` records (the prompt message by message): each is a call."""
    stamp = "2024-01-02 15:24:36.627 | DEBUG    | llm.ai_handler:chat_completion:{} - "
    log = "".join(f"{stamp.format(112)}system:\nBe brief.\n{stamp.format(113)}user:\nname a {kind} number\n"
                  f"{stamp.format(137)}response:\n{n}\n" for kind, n in (("prime", 7), ("square", 9)))
    transcripts = parse_text(log)
    assert [said(t.messages) for t in transcripts] == [
        [("system", "Be brief."), ("user", f"name a {kind} number"), ("assistant", str(n))]
        for kind, n in (("prime", 7), ("square", 9))]


def test_json_written_with_comments_is_read_as_the_json_it_holds(tmp_path: Path) -> None:
    """Found by the third holdout (after its run): a run file with ``//`` comments (JSONC) was a JSON
    error. The comments are cut outside strings; a ``//`` inside a string stays."""
    original = SHAPE / "taskweaver-raw_exp_test-session-1.json"
    text = original.read_text()
    commented = "// a session, kept by hand\n" + text.replace('"rounds": [', '"rounds": [ /* two rounds */', 1)
    commented = commented.replace('"enabled": true,', '"enabled": true, // see https://example.org/x', 1)
    assert commented != text and "https://" in commented, "guard: comments added"
    path = tmp_path / "session.json"
    path.write_text(commented)
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    (document,) = list(read_location(source, str(path)))
    (reference,) = list(read_location(source, str(original)))
    assert document.metadata["messages"] == reference.metadata["messages"]
