"""Record layouts of issue 45 round 18 (b45p), found on new development systems before any code changed
(bench/traces_dev_extra.tsv): a conversation kept as TOML, a message tree kept as a flat list of turns naming their
parent, a chatbot's exchange records under compound keys, turn lines of several conversations marked by their id
(and parties the model talks with), an event log whose payload is the event's words or one call. The source files
carry no licence: each fixture is its file's layout rebuilt in its own keys with short texts
(tests/fixtures/transcript_inputs/README.md names repository and commit)."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document
from codemix.mixtures.transcript_formats.events import event_runs
from codemix.mixtures.transcripts import parse_json_value
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def read(path: Path) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)])
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


def said(doc: Document) -> list[tuple[str, str, list[str]]]:
    return [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]]) for m in doc.metadata["messages"]]


def test_a_conversation_kept_as_toml_is_read():
    """shashinvision/smartcat conversation.toml: the CLI's settings, then ``[[messages]]`` tables of ``role`` and
    ``content`` (the reply a multi-line basic string). No JSON, no text format: quarantined before; now the TOML
    document is read as the value it is."""
    path = INPUTS / "smartcat.conversation.rebuilt.toml"
    assert path.read_text().count("[[messages]]") == 3
    (doc,) = read(path)
    roles = [role for role, _, _ in said(doc)]
    assert roles == ["system", "user", "assistant"]
    assert said(doc)[2][1].lstrip().startswith("Here is an example:") and 'console.log("Hello World!")' in said(doc)[2][1]


def test_a_flat_message_tree_reads_the_latest_branch_and_counts_the_others():
    """ardasevinc/Soluna-Gaia-Claude-Hermes chat-export.json (the spent eleventh holdout's row): a flat list of
    turns each naming its parent (``parentMessageId``); the model's regenerated reply (``c2a``, ``c2b``) forks
    it. Read in list order before, both replies were one run; now the branch that ends at the last turn is read
    and the other branch's turn is counted (``branch_unread``), never trained."""
    path = INPUTS / "soluna.chat-export.rebuilt.json"
    nodes = json.loads(path.read_text())["messages"]
    assert [n["parentMessageId"] for n in nodes].count("u2") == 2  # the fork the test is about
    (doc,) = read(path)
    assert [content for _, content, _ in said(doc)] == [
        "<cmd> ls </cmd>", "assets/\nmemory/\nmodels/", "<cmd> ls memory </cmd>", "episodic/\nsemantic/\nworking/",
        "<cmd> cat memory/working </cmd>", "cat: memory/working: Is a directory"]
    assert [role for role, _, _ in said(doc)] == ["user", "assistant"] * 3
    assert doc.metadata["transcript"]["branch_unread"] == 1


def test_a_list_that_names_parents_but_never_forks_keeps_its_order():
    """Turns that name their parent in a line (no turn answered twice) are one conversation as written."""
    path = INPUTS / "soluna.chat-export.rebuilt.json"
    value = json.loads(path.read_text())
    value["messages"] = [n for n in value["messages"] if n["id"] != "c2a"]
    (transcript,) = parse_json_value(value)
    assert len(transcript.messages) == 6 and "branch_unread" not in transcript.extra


def test_a_chatbots_exchange_records_under_compound_keys_are_read():
    """nguyentruongann/demo_agent_vinchat chat_history.jsonl: one exchange per line, the person's words under
    ``user_message`` and the bot's under ``assistant_answer`` beside routing and retrieval fields. No key was a
    role or a response key: every line was quarantined; now a key of the model's side and a reply word is the
    reply."""
    (first, second) = read(INPUTS / "vinchat.chat_history.rebuilt.jsonl")
    assert said(first) == [("user", "Xin chào", []),
                           ("assistant", "Xin chào bạn! Mình là trợ lý ảo Vinpearl. Bạn cần mình giúp gì nào?", [])]
    assert said(second)[0] == ("user", "bạn có thể tư vấn du lịch ở nha trang không", [])


def test_turn_lines_of_several_conversations_and_the_people_the_model_talks_with():
    """nguyenit67/motorbike-marketplace-ai-chat-agent chat_history.jsonl: turn lines of three conversations one
    after another (``conversation_id``), each among a buyer, a seller and the marketplace's agent. Before: one run
    of all, the seller's turns trained as the model's. Now one run per conversation, and where the model is
    named by its role (``agent``) the named parties are people (context, never trained)."""
    docs = read(INPUTS / "motorbike-marketplace.chat_history.rebuilt.jsonl")
    assert len(docs) == 2
    for doc in docs:
        sides = {m["name"] or "agent": m["role"] for m in doc.metadata["messages"]}
        assert sides == {"buyer": "user", "seller": "user", "agent": "assistant"}
    assert said(docs[1])[-1] == ("assistant", "Mình sẽ kiểm tra lại quy trình giấy tờ cho bạn", [])


def test_an_event_log_whose_payload_is_the_words_or_one_call():
    """PavanManchikatla/agents agent_trace.jsonl: events ``{time, kind, data}`` where a thought's and an
    observation's ``data`` is their text and an action's is one call written ``{tool_name: its input}``. No event
    was read (their words sat in no text key). Now each thought is the model's words, each action its call, each
    observation that call's result (the call's input, logged as words, is shown and never trained as the model's
    arguments); the stop decisions are left out."""
    lines = [json.loads(line) for line in (INPUTS / "pavan-agents.agent_trace.rebuilt.jsonl").read_text().splitlines()]
    ((_, messages, left_out),) = event_runs(lines)
    assert [(m["role"], [c["name"] for c in m["tool_calls"]]) for m in messages] == [
        ("assistant", []), ("assistant", ["ask_weather"]), ("tool", []), ("assistant", ["ask_stocks"]), ("tool", []),
        ("assistant", [])]
    assert messages[0]["content"].startswith("Sure! Let me start by fetching")
    call = messages[1]["tool_calls"][0]
    assert call["arguments"] == "Get the current weather for San Francisco, California."
    assert call["kind"] == "described"  # the log's words for the call, not the model's arguments: never trained
    assert messages[2]["observation"] and messages[2]["content"].startswith("San Francisco: 16 C")
    assert left_out == 2


def test_a_nested_message_tree_reads_the_latest_branch_and_counts_the_others():
    """danny-avila/LibreChat's recursive export (api/server/utils/import/__data__/librechat-tree.json): each turn
    holds the turns that answer it under ``children``; the person edited a question (``thanks`` -> ``lol``) and
    the model regenerated a reply. Quarantined before (no list of turns at any one level); now the branch through
    the last answer at every fork is read and the five turns of the other branches are counted."""
    (doc,) = read(INPUTS / "librechat.librechat-tree.rebuilt.json")
    assert [content for _, content, _ in said(doc)] == [
        "How do I use source venv/bin/activate?",
        "It looks like the venv does not exist yet; create it with python3 -m venv venv.",
        "lol", "Glad it amused you! Ask if you need more help."]
    assert [role for role, _, _ in said(doc)] == ["user", "assistant", "user", "assistant"]
    assert doc.metadata["transcript"]["branch_unread"] == 5


# --- after the seventeenth holdout's run (FIT) ---------------------------------------------------------------------


def test_a_runs_product_beside_its_request_is_its_reply():
    """ankitkumar72767/AIResearchAgent agent_history.json (the seventeenth holdout's row): a list of runs, each the
    person's one-word ``input`` and the Markdown ``report`` the agent wrote, under a key that names no response.
    Quarantined before (no layout); now the record's one field of long prose beside a request is the reply."""
    docs = read(INPUTS / "ai-research-agent.agent_history.rebuilt.json")
    assert len(docs) == 2
    for doc in docs:
        (user, assistant) = said(doc)
        assert user == ("user", "NLP", []) and assistant[0] == "assistant" and assistant[1].startswith("# ")


def test_a_short_field_beside_a_request_is_no_reply():
    """The product must be prose (``turns.PRODUCT_WORDS``) and much longer than the request: a record of a request
    and a short note is no run."""
    from codemix.mixtures.transcript_formats.turns import sole_product
    assert sole_product({"input": "NLP", "mode": "Text", "note": "saved for later review"}) is None
    assert sole_product({"input": "NLP", "report": "word " * 60}) == "word " * 60
    assert sole_product({"input": "NLP", "report": "word " * 60, "draft": "word " * 70}) is None  # which one?
    assert sole_product({"input": "NLP", "solution": "word " * 60, "feedback": ["failed"]}) is None  # more than text
