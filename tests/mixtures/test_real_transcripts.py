"""Real published trace files (tests/fixtures/transcripts/README.md gives their origin): each layout is read
with exactly the messages and roles the file holds, counted here with plain ``json`` over the raw file."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from codemix.document import Document, Quarantined
from codemix.filters.natural_language import (
    TEXT_ACTION,
    NaturalLanguageChecker,
    NaturalLanguageConfig,
    natural_language_drop_reason,
    transcript_prose,
    word_count,
)
from codemix.mixtures import sft
from codemix.mixtures.sft import SFTConfig, rounds, sft_samples
from codemix.mixtures.sft_tokens import tokenize_turns
from codemix.mixtures.tokenizer import train_bpe
from codemix.mixtures.transcript_formats import parse_session, session_format
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
SESSION = FIXTURES / "claude-code-transcripts/sample_session.jsonl"
EXPORT = FIXTURES / "claude-code-transcripts/sample_session.json"
SHAREGPT = FIXTURES / "sharegpt/glaive_toolcall_en_demo.first5.json"
SWE_SMITH = FIXTURES / "swe-smith/getmoto__moto.694ce1f4.pr_6159.json"
SHAREGPT_ROLES = {"human": "user", "gpt": "assistant", "function_call": "assistant", "observation": "tool"}


def read(path: Path, **overrides: Any) -> list[Document | Quarantined]:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits(), **overrides)
    return list(read_location(source, str(path)))


def claude_roles(entries: list[dict[str, Any]]) -> list[str]:
    """An Anthropic message's canonical roles: a tool turn per tool_result block, then the user's text if any."""
    roles = []
    for entry in entries:
        if entry.get("type") not in ("user", "assistant"):
            continue
        content = entry["message"]["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        results = [b for b in blocks if b["type"] == "tool_result"]
        roles += ["tool"] * len(results)
        roles += [entry["type"]] if len(results) < len(blocks) or entry["type"] == "assistant" else []
    return roles


def test_a_session_without_parent_links_is_read_in_file_order() -> None:
    entries = [json.loads(line) for line in SESSION.read_text().splitlines()]
    assert all("uuid" in e and "parentUuid" not in e for e in entries if e["type"] != "summary"), "guard"
    (doc,) = read(SESSION)
    assert [m["role"] for m in doc.metadata["messages"]] == claude_roles(entries)
    assert len(doc.metadata["messages"]) == 7
    assert doc.metadata["messages"][-1]["content"] == entries[-1]["message"]["content"][0]["text"]


def test_the_loglines_export_is_read_with_its_real_compaction() -> None:
    entries = json.loads(EXPORT.read_text())["loglines"]
    (doc,) = read(EXPORT)
    messages = doc.metadata["messages"]
    assert doc.metadata["format"] == "claude-code" and len(messages) == len(entries) == 33
    assert [m["role"] for m in messages] == claude_roles(entries)
    at = next(i for i, e in enumerate(entries) if e.get("isCompactSummary"))
    assert [c["at"] for c in doc.metadata["compactions"]] == [at]
    assert messages[at]["observation"] and messages[at]["content"] == entries[at]["message"]["content"]


def test_a_broken_chain_keeps_every_entry_and_says_so() -> None:
    """The real session linked entry to entry, then one entry lost: the walk back from the last entry
    stops at the gap, so every remaining entry is kept in file order and the break is recorded."""
    entries = [json.loads(line) for line in SESSION.read_text().splitlines()]
    linked, previous = [], None
    for entry in entries:
        linked.append({**entry, "parentUuid": previous} if "uuid" in entry else entry)
        previous = entry.get("uuid", previous)
    lost = next(i for i, e in enumerate(linked) if e.get("uuid") == "msg-004")
    damaged = linked[:lost] + linked[lost + 1:]
    (whole,) = parse_session(session_format(linked[1]), linked)
    (broken,) = parse_session(session_format(damaged[1]), damaged)
    assert len(whole.messages) == 7 and "broken_chain" not in whole.extra
    assert [m["role"] for m in broken.messages] == claude_roles(damaged) and len(broken.messages) == 6
    assert broken.extra["broken_chain"] is True


def test_a_json_array_of_sharegpt_rows_is_one_document_per_row() -> None:
    rows = json.loads(SHAREGPT.read_text())
    outcomes = read(SHAREGPT)
    assert [o.metadata["location"] for o in outcomes] == [f"{SHAREGPT}#row{i}" for i in range(1, 6)]
    for row, doc in zip(rows, outcomes):
        expected = [SHAREGPT_ROLES[turn["from"]] for turn in row["conversations"]]
        assert doc.metadata["format"] == "sharegpt" and [m["role"] for m in doc.metadata["messages"]] == expected
        calls = [turn["value"] for turn in row["conversations"] if turn["from"] == "function_call"]
        made = [c for m in doc.metadata["messages"] for c in m["tool_calls"]]
        assert [(c["name"], json.loads(c["arguments"])) for c in made] == [
            (json.loads(v)["name"], json.loads(v)["arguments"]) for v in calls]
        assert all(m["observation"] == (m["role"] == "tool") for m in doc.metadata["messages"])
    assert sum(len(o.metadata["messages"]) for o in outcomes) == sum(len(r["conversations"]) for r in rows) == 42


@pytest.mark.parametrize("name", ["two_edits.json", "django__django_16379.json"])
def test_moatless_trajectories_in_both_published_versions(name: str) -> None:
    """A model turn per action (its thoughts, the request as a call named after the state), the state's
    output as the observation after it, the task first."""
    raw = json.loads((FIXTURES / "moatless" / name).read_text())
    actions = [(t["name"], a) for t in raw["transitions"] for a in t.get("actions", [])]
    key = "action" if "action" in actions[0][1] else "request"
    assert len(actions) >= 5 and all(key in a for _, a in actions), "guard: one published version per file"
    (doc,) = read(FIXTURES / "moatless" / name)
    messages = doc.metadata["messages"]
    assert len(messages) == 1 + 2 * len(actions) and messages[0]["content"] == raw["initial_message"]
    calls = [m["tool_calls"][0] for m in messages if m["role"] == "assistant"]
    assert [c["name"] for c in calls] == [state for state, _ in actions]
    requests = [{k: v for k, v in a[key].items() if k not in ("thoughts", "scratch_pad")} for _, a in actions]
    assert [json.loads(c["arguments"]) for c in calls] == requests
    assert all(m["observation"] for m in messages[2::2]) and [m["role"] for m in messages[2::2]] == ["tool"] * len(actions)
    assert doc.metadata.get("submitted") is (True if raw["info"].get("submission") else None)


def test_a_bad_row_of_an_array_is_quarantined_alone(tmp_path: Path) -> None:
    rows = json.loads(SHAREGPT.read_text())
    rows[2]["conversations"][0]["from"] = "narrator"
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows))
    outcomes = read(path)
    assert [type(o).__name__ for o in outcomes] == ["Document", "Document", "Quarantined", "Document", "Document"]
    assert outcomes[2].location == f"{path}#row3" and "'narrator'" in outcomes[2].error


def test_text_tool_calls_and_their_observations_are_not_prose() -> None:
    raw = json.loads(SWE_SMITH.read_text())
    (doc,) = read(SWE_SMITH)
    messages = doc.metadata["messages"]
    assert [m["role"] for m in messages] == [m["role"] for m in raw] and len(messages) == 57
    outputs = [i for i, m in enumerate(raw) if m["role"] == "user" and i > 1]  # every user turn after the task
    marked = [i for i in outputs if raw[i]["content"].startswith("OBSERVATION:")]
    # 26 carry the marker; one ("Your command ran successfully and did not produce any output.") is known
    # only by its position, right after a call.
    assert len(outputs) == 27 and len(marked) == 26, "guard: the run returns its output as user turns"
    assert [i for i, m in enumerate(messages) if m["observation"]] == outputs
    prose = transcript_prose(messages)
    assert "<function=" not in prose and "<parameter=" not in prose and "OBSERVATION:" not in prose
    assert sum(len(TEXT_ACTION.findall(m["content"])) for m in raw if m["role"] == "assistant") == 28
    checker = NaturalLanguageChecker(NaturalLanguageConfig())
    model_text = "\n\n".join(m["content"] for m in raw if m["role"] == "assistant")
    assert checker.drop_reason(model_text) == "gopher_repetition:dup_line_frac", "guard: the calls read as prose"
    assert natural_language_drop_reason(doc, checker) is None


@pytest.mark.parametrize(("name", "guard"), [("two_edits.json", "```py\r\n"),
                                             ("django__django_16379.json", "The identified spans are:")])
def test_real_moatless_runs_are_not_dropped_by_prose_filters(name: str, guard: str) -> None:
    """One run's task (a GitHub issue) fences its code with CRLF line ends; the other's model restates
    its reasoning in two states. Neither is prose spam: the fences are code, a restated paragraph counts once."""
    (doc,) = read(FIXTURES / "moatless" / name)
    said = "\n\n".join(m["content"] for m in doc.metadata["messages"] if m["role"] in ("user", "assistant"))
    checker = NaturalLanguageChecker(NaturalLanguageConfig())
    assert said.count(guard) >= 2 and checker.drop_reason(said), "guard: judged as written, the run is dropped"
    assert natural_language_drop_reason(doc, checker) is None


def test_prose_filters_abstain_on_too_little_prose() -> None:
    """The real session says 23 words besides its calls ("Create a hello world function", ...): too little
    to judge, which datatrove would drop for too few stop words."""
    (doc,) = read(SESSION)
    config = NaturalLanguageConfig()
    checker = NaturalLanguageChecker(config)
    prose = transcript_prose(doc.metadata["messages"])
    assert word_count(prose) == 23 < config.min_transcript_prose_words, "guard"
    assert checker.drop_reason(prose) == "gopher_quality:gopher_enough_stop_words", "guard"
    assert natural_language_drop_reason(doc, checker) is None


@pytest.mark.parametrize(("content", "empty"), [(b"", True), (b"  \n\n", True), (b"{}", False)])
def test_an_empty_file_is_quarantined_as_empty(tmp_path: Path, content: bytes, empty: bool) -> None:
    for name in ("run.traj", "runs.jsonl"):
        path = tmp_path / name
        path.write_bytes(content)
        (outcome,) = read(path)
        assert isinstance(outcome, Quarantined) and ("empty:" in outcome.error) == empty, outcome


def test_a_run_that_lost_its_task_reads_from_its_opening_step_or_is_refused(tmp_path: Path) -> None:
    """A ``.traj`` that lost its ``history`` (the task with it) opens with the agent's first step, which says
    what it sets out to do: by default that step is the context (the model's turn, never trained, and the
    output answering it) and the run is marked ``task: absent``; ``no_request: refuse`` quarantines it
    as ``no_task``."""
    run = json.loads((FIXTURES / "swe-agent/6e44b9__sweagenttestrepo-1c2844.traj").read_text())
    (whole,) = read(FIXTURES / "swe-agent/6e44b9__sweagenttestrepo-1c2844.traj")
    assert len(whole.metadata["messages"]) == len(run["history"]) == 10
    assert run["trajectory"][0]["thought"].startswith("To start addressing this issue, I will first search")
    path = tmp_path / "lost-history.traj"
    path.write_text(json.dumps({k: v for k, v in run.items() if k != "history"}))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert isinstance(doc, Document) and doc.metadata["transcript"]["task"] == "absent"
    assert doc.metadata["transcript"]["task_from"] == "opening_step"
    assert messages[0]["role"] == "assistant" and messages[0]["observation"]  # rendered, never trained
    assert run["trajectory"][0]["thought"] in messages[0]["content"]
    assert messages[1]["observation"] and not any(m["role"] == "user" and not m["observation"] for m in messages)
    trained = [m for m in messages if m["role"] == "assistant" and not m["observation"]]
    assert len(trained) == len(run["trajectory"]) - 1
    (outcome,) = read(path, no_request="refuse")
    assert isinstance(outcome, Quarantined) and outcome.error.startswith("TranscriptShapeError: no_task:")


@pytest.mark.parametrize("no_request", ["opening_step", "refuse"])
def test_an_agent_s_action_log_is_no_run_whichever_rule_reads_runs_no_request_reaches(no_request: str) -> None:
    """OmniAgent's on-chain action log (tests/fixtures/transcript_inputs/README.md; the spent eleventh holdout's
    control): epochs of actions, each a step with a description (most a tool, its result and a decision), written by a
    program: no one asks and no model speaks. It is refused under both rules for runs no request reaches (never
    read from an "opening step")."""
    path = FIXTURES.parent / "transcript_inputs" / "not-omniagent.agent_log.json"
    log = json.loads(path.read_text())
    actions = [a for epoch in log["epochs"] for a in epoch["actions"]]
    assert len(actions) >= 10 and all({"step", "description"} <= set(a) for a in actions)
    outcomes = read(path, no_request=no_request)
    assert outcomes and all(isinstance(o, Quarantined) for o in outcomes), outcomes

def test_a_long_observation_is_cut_not_the_model_turn_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a sequence length that the longest output of the real SWE-smith run does not fit, every model
    turn is still trained: the output is cut head and tail around a marker that is never trained."""
    (doc,) = read(SWE_SMITH)
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))]
    tokenizer = train_bpe([*stdlib, doc.text], vocab_size=800)
    config = SFTConfig(outcome_policy="any", min_tokens=1)
    messages = doc.metadata["messages"]
    turns = tokenize_turns(messages, tokenizer, config)
    sizes = {r: sum(len(turns[i][0]) for i in range(*r)) for r in rounds(messages)}
    longest = max(sizes, key=sizes.get)
    limit = sizes[longest] + 1024  # a continuation repeats the system prompt and task (~2,700 tokens here)
    with monkeypatch.context() as patch:
        patch.setattr(sft, "cut_long_observations", lambda m, t, *_: (list(m), list(t)))
        _, uncut = sft_samples(doc, tokenizer, limit, config)
    assert uncut["round_exceeds_sequence_length"] == 1, "guard: the run does not fit uncut"
    samples, reasons = sft_samples(doc, tokenizer, limit, config)
    assert "round_exceeds_sequence_length" not in reasons and all(len(s.tokens) <= limit for s in samples)
    model_turns = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    assert {i for i in model_turns if any(s.turns[0] <= i < s.turns[1] for s in samples)} == set(model_turns)
    decoded = [tokenizer.decode(s.tokens.tolist(), skip_special_tokens=False) for s in samples]
    trained = [tokenizer.decode(s.tokens[s.loss_mask == 1].tolist(), skip_special_tokens=False) for s in samples]
    assert any("characters of output cut" in text for text in decoded)
    assert not any("characters of output cut" in text for text in trained)
    assert all(messages[i]["content"] in "".join(decoded) for i in model_turns)


def test_an_observation_before_the_first_model_turn_is_cut_not_the_run() -> None:
    """SWE-agent's demonstration turn (30,977 characters, shown before the task as context): at a sequence
    length where it and the first round do not fit, it is cut around the marker, never trained, and the
    run is kept instead of ending at its first round (``round_exceeds_sequence_length``)."""
    (doc,) = read(FIXTURES / "swe-agent-demo/swe-agent__test-repo-i1.traj")
    messages = doc.metadata["messages"]
    head = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    (demo,) = [i for i in range(head) if messages[i].get("observation")]
    assert len(messages[demo]["content"]) > 30_000, "guard: the opening holds the long demonstration"
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))]
    tokenizer = train_bpe([*stdlib, doc.text], vocab_size=800)
    config = SFTConfig(outcome_policy="any", min_tokens=1)
    turns = tokenize_turns(messages, tokenizer, config)
    first_stop = rounds(messages)[0][1]
    limit = sum(len(turns[i][0]) for i in range(first_stop) if i != demo) + len(turns[demo][0]) // 2
    assert sum(len(t[0]) for t in turns[:first_stop]) > limit, "guard: the first sample does not fit uncut"
    samples, reasons = sft_samples(doc, tokenizer, limit, config)
    assert "round_exceeds_sequence_length" not in reasons and all(len(s.tokens) <= limit for s in samples)
    assert samples and samples[0].turns[0] == 0 and head < samples[0].turns[1]
    opening = tokenizer.decode(samples[0].tokens.tolist(), skip_special_tokens=False)
    trained = [tokenizer.decode(s.tokens[s.loss_mask == 1].tolist(), skip_special_tokens=False) for s in samples]
    assert "characters of output cut" in opening and not any("characters of output cut" in t for t in trained)
    assert messages[demo]["content"][:200] in opening and messages[head]["content"] in opening


def test_json_lines_under_a_json_suffix_are_read_as_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(SESSION.read_bytes())
    with pytest.raises(ValueError, match="Extra data"):
        json.loads(path.read_text())  # guard: not one JSON value
    (doc,) = read(path)
    assert doc.metadata["format"] == "claude-code" and len(doc.metadata["messages"]) == 7
