"""Repetition in agent traces is judged as a degenerate loop, on real aider sessions (issue 24).

The excerpts are aider's own tests/fixtures/chat-history.md (Apache-2.0, commit 4b2227c); their lines are
in tests/fixtures/transcripts/README.md. The old judgement, every Gopher check on the whole trace's prose,
is ``checker.drop_reason(transcript_prose(messages))``: the guards below show what it dropped.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from codemix.config import ConfigError, load_config
from codemix.document import Document
from codemix.filters.natural_language import (
    NaturalLanguageChecker,
    NaturalLanguageConfig,
    natural_language_drop_reason,
    natural_language_drop_reasons,
    reply_prose,
    transcript_prose,
    turn_prose,
)
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

AIDER = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "aider-history"
DEEPSEEK = AIDER / "chat-history.lines-10316-10446.md"
PLAN = ("1. Add a cache dictionary to store `TreeContext` instances.\n"
        "2. Modify the `render_tree` method to check the cache before creating a new `TreeContext` instance.\n"
        "3. Update the cache with the new `TreeContext` instance if it doesn't exist.")


@pytest.fixture(scope="module")
def checker() -> NaturalLanguageChecker:
    return NaturalLanguageChecker(NaturalLanguageConfig())


def read(path: Path) -> Document:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    (doc,) = read_location(source, str(path))
    return doc


def first_reply(doc: Document) -> str:
    return next(m["content"] for m in doc.metadata["messages"] if m["role"] == "assistant")


def with_first_reply(doc: Document, content: str) -> Document:
    messages = copy.deepcopy(doc.metadata["messages"])
    next(m for m in messages if m["role"] == "assistant")["content"] = content
    return Document(id=doc.id, text=doc.text, source=doc.source, kind="transcript",
                    metadata={**doc.metadata, "messages": messages})


def test_a_model_restating_its_plan_once_is_kept(checker):
    """DeepSeek-Coder says its three-step plan twice in one reply: a restatement, no loop."""
    doc = read(DEEPSEEK)
    reply = first_reply(doc)
    assert reply.count(PLAN) == 2, "guard: the plan, verbatim, twice in one reply"
    old = checker.drop_reason(transcript_prose(doc.metadata["messages"]))
    assert old == "gopher_repetition:duplicated_5_n_grams", "guard: judged over the whole trace, it was dropped"
    assert natural_language_drop_reason(doc, checker) is None
    (judged, *_) = reply_prose(doc.metadata["messages"], 3)
    assert judged.count("Add a cache dictionary to store `TreeContext` instances.") == 1


def test_a_reply_cut_inside_its_edit_and_the_edit_file_names_are_code(checker):
    """The first reply is cut by ``^C`` inside its fourth edit block (no closing fence), each block under
    the line that names its file: neither is prose."""
    reply = first_reply(read(DEEPSEEK))
    assert reply.rstrip().endswith("self.tree_cache") and reply.count("aider/repomap.py\n```python") == 4, "guard"
    prose = turn_prose(reply)
    assert "<<<<<<< SEARCH" not in prose and "tree_cache" not in prose and "aider/repomap.py\n" not in prose
    assert "Here are the steps and the corresponding" in prose


@pytest.mark.parametrize(("unit", "reason"), [("paragraph", "gopher_repetition:dup_para_frac"),
                                              ("line", "gopher_repetition:dup_line_frac")])
def test_a_loop_of_a_real_paragraph_or_line_is_dropped_for_the_same_reason_as_before(checker, unit, reason):
    """Built from the real reply: its plan (or the plan's first line) said 20 times in a row, as a model
    stuck in a loop says it. The old whole-trace judgement and the new one give the same reason."""
    doc = read(DEEPSEEK)
    reply = first_reply(doc)
    said = PLAN if unit == "paragraph" else PLAN.split("\n")[0]
    loop = ("\n\n" if unit == "paragraph" else "\n").join([said] * 20)
    looping = with_first_reply(doc, reply.replace(said, loop, 1))
    assert checker.drop_reason(transcript_prose(looping.metadata["messages"])) == reason, "guard: the old reason"
    assert natural_language_drop_reason(looping, checker) == reason
    assert natural_language_drop_reasons(looping, checker)[0] == reason


def test_a_loop_inside_one_line_is_repeated_lines(checker):
    """A model looping without a line break ("I'll do it. I'll do it. ..."): a sentence a line, it is a
    repeated line (the old judgement named it by its duplicated 5-grams)."""
    doc = read(DEEPSEEK)
    sentence = PLAN.split("\n")[1][3:]
    looping = with_first_reply(doc, first_reply(doc).replace(sentence, " ".join([sentence] * 20), 1))
    assert checker.drop_reason(transcript_prose(looping.metadata["messages"])) \
        == "gopher_repetition:duplicated_5_n_grams", "guard"
    assert natural_language_drop_reason(looping, checker) == "gopher_repetition:dup_line_frac"


def test_replies_alike_across_turns_are_no_loop(checker):
    """``/ask hi`` 13 times: gpt-4o-mini greets back in alike words each time; each reply is judged alone."""
    doc = read(AIDER / "chat-history.lines-25886-26004.md")
    replies = [m["content"] for m in doc.metadata["messages"] if m["role"] == "assistant"]
    assert len(replies) == 13 and len(set(replies)) == 7, "guard"
    assert checker.drop_reason(transcript_prose(doc.metadata["messages"])).startswith("gopher_repetition:"), "guard"
    assert natural_language_drop_reason(doc, checker) is None


def test_a_trace_in_another_language_is_not_judged_by_english_stop_words(checker):
    doc = read(AIDER / "chat-history.lines-80625-80657.md")
    assert first_reply(doc).startswith("Hola! Puedo ayudarte"), "guard"
    assert checker.drop_reason(transcript_prose(doc.metadata["messages"])) \
        == "gopher_quality:gopher_enough_stop_words", "guard"
    assert natural_language_drop_reason(doc, checker) is None
    strict = NaturalLanguageChecker(load_config(NaturalLanguageConfig, {"min_transcript_stop_words": 2}))
    assert natural_language_drop_reason(doc, strict) == "gopher_quality:gopher_enough_stop_words"


def test_prose_in_a_script_without_spaces_is_not_judged_by_word_statistics(checker):
    """LLaMA-Factory's Chinese glaive rows: datatrove's English tokenizer reads a Chinese sentence as one
    word, so Gopher's quality checks are not run on them; a Chinese loop is still a loop."""
    path = AIDER.parent / "sharegpt-zh" / "glaive_toolcall_zh_demo.rows-2-23-54.json"
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    docs = list(read_location(source, str(path)))
    old = [checker.drop_reason(transcript_prose(d.metadata["messages"])) for d in docs]
    assert old == ["gopher_quality:gopher_above_avg_threshold", "gopher_quality:gopher_short_doc",
                   "gopher_quality:gopher_above_avg_threshold"], "guard"
    assert [natural_language_drop_reason(d, checker) for d in docs] == [None, None, None]
    reply = next(m["content"] for m in docs[2].metadata["messages"] if "蒙提霍尔" in m["content"])
    looping = with_first_reply(docs[2], "\n".join([reply.split("\n")[0]] * 20))
    assert natural_language_drop_reason(looping, checker) == "gopher_repetition:dup_line_frac"


def test_a_loop_threshold_of_two_judges_a_restatement_as_a_loop():
    doc = read(DEEPSEEK)
    strict = NaturalLanguageChecker(load_config(NaturalLanguageConfig, {"min_loop_repeats": 2}))
    assert natural_language_drop_reason(doc, strict) is not None


@pytest.mark.parametrize(("data", "field"), [({"min_loop_repeats": 1}, "min_loop_repeats"),
                                             ({"min_transcript_stop_words": -1}, "min_transcript_stop_words")])
def test_config_errors_name_the_field(data, field):
    with pytest.raises(ConfigError) as error:
        load_config(NaturalLanguageConfig, data, "natural_language")
    assert error.value.field_path == f"natural_language.{field}"
