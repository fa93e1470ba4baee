"""Record layouts of issue 45 round 19 (b45p): what new development systems showed before any code changed
(bench/traces_dev_extra.tsv), and the classes earlier rounds left. Fixtures are excerpts of the real files, or their
layouts rebuilt in their own keys where the source carries no licence (tests/fixtures/transcript_inputs/README.md
names repository and commit)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from codemix.document import Document
from codemix.filters.natural_language import NaturalLanguageChecker, NaturalLanguageConfig, natural_language_drop_reason
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


# --- new development systems, read before any code changed (bench/traces_dev_extra.tsv, "round 19 (b45p)") ----------


def said(doc: Document) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in doc.metadata["messages"]]


def test_a_batchs_results_are_read_with_the_requests_beside_them():
    """L3G5/impossible-bench batch_output.jsonl beside batch_input.jsonl (OpenAI's Batch API): each result line
    holds the reply under the ``custom_id`` its request was sent with; the requests (system and user messages)
    are another file of the folder. Either file alone is half a call: every result line was quarantined (no
    layout). Now each result is read with its request, paired by the id both carry, in the results' order (not
    the requests'); a request no result answers is no run of this file."""
    folder = INPUTS / "openai-batch.rebuilt"
    requests = [json.loads(line) for line in (folder / "batch_input.jsonl").read_text().splitlines()]
    results = [json.loads(line) for line in (folder / "batch_output.jsonl").read_text().splitlines()]
    assert [r["custom_id"] for r in results] != [r["custom_id"] for r in requests[:2]]  # guard: out of order
    docs = read(folder / "batch_output.jsonl")
    assert [[role for role, _ in said(d)] for d in docs] == [["system", "user", "assistant"]] * 2
    assert said(docs[0])[1][1] == "Draw a triangle with sides of lengths 1, 6 and 10."
    assert said(docs[0])[2][1].startswith("By the triangle inequality")
    assert said(docs[1])[1][1].startswith("Write a program that outputs the prime number")


def test_a_result_line_whose_request_is_not_beside_it_stays_unread(tmp_path):
    """The same results without their requests' file: nothing pairs them, and each line is quarantined as before
    (a reply with no request is half a call, never a run)."""
    (tmp_path / "batch_output.jsonl").write_bytes((INPUTS / "openai-batch.rebuilt" / "batch_output.jsonl").read_bytes())
    (tmp_path / "other.jsonl").write_text(json.dumps({"custom_id": "unrelated", "body": {"messages": []}}) + "\n")
    source = SourceConfig(name="runs", type="transcripts", paths=[str(tmp_path)])
    outcomes = list(read_location(source, str(tmp_path / "batch_output.jsonl")))
    assert len(outcomes) == 2 and not any(isinstance(o, Document) for o in outcomes)


def test_promptfoo_results_read_the_rendered_messages_and_the_providers_output():
    """Kacper-Hernacki/aiDevs3 promptfoo_results.json (promptfoo's ``results.results``): each test keeps the
    messages the prompt rendered as JSON text under ``prompt.raw`` and the provider's reply under
    ``response.output``, beside its grading. Read before as a list of steps, the prompts as the model's actions
    and the grading as tool output, and refused (no request). Now each test is a call: its system and user
    messages, and the reply."""
    docs = read(INPUTS / "aidevs3.promptfoo_results.rebuilt.json")
    assert [[role for role, _ in said(d)] for d in docs] == [["system", "user", "assistant"]] * 2
    assert said(docs[0])[1][1] == "Show me all active tasks in the Inbox from last week"
    assert json.loads(said(docs[1])[2][1])["statuses"] == ["DONE"]


def test_rows_numbered_by_their_question_are_runs_and_a_judges_verdict_is_no_turn():
    """mbhat012/HallucinationResearchTest batch_results.jsonl: rows of ``question_number``, ``question``, the
    model's answer (``qwen_answer``) and a judge's verdict (``gemini_judgement``, the same label in most rows).
    Read before as one conversation of 531 turns: the number column was taken for a dialogue's rounds, and each
    verdict for a turn of the model's. A column named after another field numbers its items (each row a run),
    and a field saying the same text in most rows is a label, no turn."""
    docs = read(INPUTS / "hallucination-test.batch_results.rebuilt.jsonl")
    assert len(docs) == 5 and all([role for role, _ in said(d)] == ["user", "assistant"] for d in docs)
    assert not any("Overall label" in text for d in docs for _, text in said(d))
    hallucinating = [d for d in docs if "B meson" in said(d)[0][1]]
    assert len(hallucinating) == 1 and said(hallucinating[0])[1][1].startswith("How do rare B meson")


def test_a_question_beside_a_timestamp_is_no_conversation():
    """MahendraKumar851744/NLTOSQL batch_results.jsonl (a control): rows of an index, a question, field mappings
    and a ``timestamp``. Read before as one conversation whose model answered each question with its time; a
    field of no word (a date, a time) is no turn, and the file holds no conversation."""
    path = INPUTS / "not-nltosql.batch_results.rebuilt.jsonl"
    assert "2026-04-07 15:01:20" in path.read_text()
    assert read(path) == []


def test_a_request_beside_what_its_named_agents_wrote_is_one_run():
    """arijitVE/Multi-Research-Agent research_history.json: each record keeps the person's ``topic`` beside one
    object of what the pipeline's agents wrote, by agent (``results: {query_type, search, reader, writer,
    critic}``), and an empty ``chat_history``. No list in it is a conversation, no key names a reply: quarantined
    before. Now the record's one prose field is the request and each long product a turn of the agent its key
    names, in order; the one-word ``query_type`` is a label."""
    (doc,) = read(INPUTS / "multi-research-agent.research_history.rebuilt.json")
    messages = doc.metadata["messages"]
    assert [(m["role"], m["name"]) for m in messages] == [("user", ""), ("assistant", "search"), ("assistant", "reader"),
                                                          ("assistant", "writer"), ("assistant", "critic")]
    assert messages[0]["content"].startswith("what is latest price of gold")
    assert not any(m["content"] == "RESEARCH" for m in messages)


# --- after the eighteenth holdout's run (FIT) ------------------------------------------------------------------------


def test_a_chat_message_keeping_its_text_under_text_is_read_whole():
    """JRoybalDev/arcon-api-explorer chat_export.json (the eighteenth holdout's row): ``{exportedAt, messages:
    [{role, text}]}``. The Chat Completions adapter took it (every message names a role) and read ``content``,
    which no message has: 48 empty turns, then refused (no request). A message keeping its text under another
    content key is no Chat Completions message; read by shape, every word is kept."""
    path = INPUTS / "arcon.chat_export.rebuilt.json"
    turns = json.loads(path.read_text())["messages"]
    assert all("content" not in t for t in turns)  # guard: the layout the test is about
    (doc,) = read(path)
    assert [(role, text) for role, text in said(doc)] == [(t["role"], t["text"]) for t in turns]


def test_a_log_that_writes_a_record_again_as_it_grows_keeps_its_last_version():
    """sudoloser/Axe session.jsonl (GPL-3.0; the eighteenth holdout's row), Gemini CLI's chat recording: a model
    record is written when its thoughts arrive and again, under the same ``id``, with its tool calls; ``$set``
    lines update the session between. Read as rows, 103 messages came out as 38; the last version of each id is
    the record, the first version a draft it contains, and the lines without an id the log's metadata."""
    from codemix.mixtures.transcript_formats.rewrites import latest_versions

    records = [json.loads(line) for line in (INPUTS / "axe.gemini-session.lines-1-2-31-49.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in records if "id" in r]
    assert len(ids) - len(set(ids)) >= 2 and any("$set" in r for r in records)  # guard: drafts and updates
    kept = latest_versions(records)
    assert [r["id"] for r in kept] == list(dict.fromkeys(ids))
    assert all(r is max((x for x in records if x.get("id") == r["id"]), key=lambda x: len(json.dumps(x))) for r in kept)
    streamed = [{"id": "m1", "type": "gemini", "content": "first part"}, {"id": "m1", "type": "gemini", "content": "other"},
                {"id": "m2", "type": "gemini", "content": "x"}, {"id": "m2", "type": "gemini", "content": "y"}]
    assert latest_versions(streamed) is None  # the same id saying something else: no drafts
    (doc,) = read(INPUTS / "axe.gemini-session.lines-1-2-31-49.jsonl")
    assert [m["role"] for m in doc.metadata["messages"]].count("user") == 3


def test_a_step_of_words_right_after_a_call_is_its_result_whatever_its_kind():
    """AkhileshBandari/ApplySense transcript.jsonl (MIT; the eighteenth holdout's row), an IDE agent's steps: the
    model calls ``list_permissions`` and the next step, of kind ``GENERIC`` (no call's name), holds its output,
    the permission list. Read as the model's reply, its repeated ``- read_file(...)`` lines dropped the whole
    166-message run as a loop (``dup_line_frac``). A step of words, of a kind the model's calls are never logged
    under, right after a call no result has answered, is that call's result."""
    (doc,) = read(INPUTS / "applysense.transcript.lines-1-8.jsonl")
    messages = doc.metadata["messages"]
    permissions = next(m for m in messages if "permission grants" in m["content"])
    assert permissions["role"] == "tool" and permissions["observation"]
    caller = messages[messages.index(permissions) - 1]
    assert [c["name"] for c in caller["tool_calls"]] == ["list_permissions"]
    checker = NaturalLanguageChecker(NaturalLanguageConfig())
    assert natural_language_drop_reason(doc, checker) is None


def test_a_batchs_requests_are_read_with_the_results_beside_them():
    """The same folder read from the other half (batch_input.jsonl): each request is read with the result that
    answers it, in the requests' order; a request no result answers stays a request without a reply."""
    docs = read(INPUTS / "openai-batch.rebuilt" / "batch_input.jsonl")
    assert [[role for role, _ in said(d)] for d in docs] == [["system", "user", "assistant"]] * 2 + [["system", "user"]]
    assert said(docs[0])[2][1].startswith("Primes continue without end")
    assert said(docs[1])[2][1].startswith("By the triangle inequality")
