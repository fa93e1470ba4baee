"""Reading agent traces by their shape, end to end through the transcript reader, on real published files
(tests/fixtures/transcripts/README.md and tests/fixtures/transcript_inputs/README.md give their origin):
record ids as ``transcript_id``, byte-order marks, empty conversations, a file of no conversation, a
directory given as a path, oversized tool output, tool results written as user text, and near duplicates
judged on what the agent wrote."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
import yaml

from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import exact_jaccard, shingle_hashes
from codemix.dedup.near import compared_text
from codemix.document import Document, Quarantined
from codemix.filters.natural_language import transcript_prose
from codemix.mix.cli import main as mix
from codemix.mixtures.provenance import transcript_provenance
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TAU = FIXTURES / "transcripts/shape/tau-bench-gpt-4o-airline.rows-1-3.json"
NO_CONVERSATION = FIXTURES / "transcript_inputs/medagentbench-baseline_eval.json"
INSTRUCTION = FIXTURES / "transcript_inputs/medagentbench-probe2_train.line-1.jsonl"


def read(path: Path, **limits: int) -> list[Document | Quarantined]:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits(**limits))
    return list(read_location(source, str(path)))


def documents(path: Path, **limits: int) -> list[Document]:
    outcomes = read(path, **limits)
    assert all(isinstance(o, Document) for o in outcomes), outcomes
    return outcomes


def test_every_record_is_a_transcript_traced_to_its_id() -> None:
    rows = json.loads(TAU.read_text())
    docs = documents(TAU)
    assert [transcript_provenance(d.metadata)["transcript_id"] for d in docs] == [str(r["task_id"]) for r in rows]
    assert [d.metadata["location"] for d in docs] == [f"{TAU}#transcript{i}" for i in range(1, len(rows) + 1)]
    assert [len(d.metadata["messages"]) for d in docs] == [len(r["traj"]) for r in rows]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-8-sig"])
def test_a_file_with_a_byte_order_mark_reads_as_in_utf8(tmp_path: Path, encoding: str) -> None:
    text = TAU.read_text(encoding="utf-8")
    path = tmp_path / "runs.json"
    bom = codecs.BOM_UTF16_BE if encoding == "utf-16-be" else b""
    path.write_bytes(bom + text.encode(encoding))
    assert path.read_bytes()[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE[:2],
                                     codecs.BOM_UTF8[:2]), "guard: the file opens with a mark"
    assert [d.metadata["messages"] for d in documents(path)] == [d.metadata["messages"] for d in documents(TAU)]


def test_jsonl_in_utf16_is_read_line_by_line(tmp_path: Path) -> None:
    rows = json.loads(TAU.read_text())
    path = tmp_path / "runs.jsonl"
    path.write_bytes("".join(json.dumps(row) + "\n" for row in rows).encode("utf-16"))
    docs = documents(path)
    assert [len(d.metadata["messages"]) for d in docs] == [len(r["traj"]) for r in rows]


def test_an_empty_conversation_is_quarantined_as_such(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text('{"messages": []}')
    (outcome,) = read(path)
    assert isinstance(outcome, Quarantined) and "empty_conversation: $.messages holds no turns" in outcome.error


def test_a_file_of_no_conversation_is_quarantined_with_the_keys_it_saw() -> None:
    (outcome,) = read(NO_CONVERSATION)
    assert isinstance(outcome, Quarantined)
    assert "an object with keys ['model_id', 'per_task_sr', 'success_rate'] is no transcript layout" in outcome.error
    assert outcome.error.endswith("openai-chat, shape")


def test_a_directory_in_paths_is_refused_by_plan_naming_the_field(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.json").write_text(TAU.read_text())
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"name": "dir", "sources": [{"name": "runs", "type": "transcripts",
                                                                  "paths": [str(folder)]}],
                                    "stages": {"sft": {"sequence_length": 512, "token_budget": 1000,
                                                       "weights": {"runs": 1}}}}))
    assert mix(["plan", str(spec)]) != 0
    captured = capsys.readouterr()
    err = captured.err + captured.out
    assert f"sources[0].paths[0] = {folder}: IsADirectoryError" in err and "list the directory's files" in err


def test_an_oversized_tool_output_is_cut_with_a_note_not_the_run_dropped() -> None:
    whole = documents(TAU)
    limit = 300
    cut = documents(TAU, max_observation_chars=limit)
    long_outputs = [m for d in whole for m in d.metadata["messages"] if m["observation"] and len(m["content"]) > limit]
    assert len(long_outputs) >= 3, "guard: tool outputs longer than the limit"
    for before, after in zip(whole, cut):
        pairs = list(zip(before.metadata["messages"], after.metadata["messages"]))
        assert len(pairs) == len(before.metadata["messages"]) == len(after.metadata["messages"])
        for old, new in pairs:
            if old["observation"] and len(old["content"]) > limit:
                removed = len(old["content"]) - limit
                assert new["content"] == (old["content"][:limit // 2] + f"\n[... {removed:,} characters of output "
                                           f"cut when read ...]\n" + old["content"][-(limit - limit // 2):])
            else:
                assert new == old, "what the model wrote and short outputs are never cut"
    assert sum(d.metadata.get("observations_cut", {}).get("observations", 0) for d in cut) == len(long_outputs)


def test_many_long_tool_outputs_are_cut_to_a_total_not_the_run_dropped() -> None:
    """No output over the one-output cap, but all of them together over ``max_observations_total_chars``: each
    is cut by its share (head and tail around the note), the run's outputs then fit the total, and what the
    model wrote is unchanged."""
    whole = documents(TAU)
    budget = 2_400
    totals = [sum(len(m["content"]) for m in d.metadata["messages"] if m["observation"]) for d in whole]
    assert max(totals) > 2 * budget, "guard: a run whose outputs together are well over the total"
    assert "observations_cut" not in str([d.metadata for d in whole]), "guard: no output over the one-output cap"
    cut = documents(TAU, max_observations_total_chars=budget)
    for before, after, total in zip(whole, cut, totals):
        pairs = list(zip(before.metadata["messages"], after.metadata["messages"]))
        observed = [new for old, new in pairs if old["observation"]]
        if total <= budget:
            assert [new for _, new in pairs] == before.metadata["messages"]
            continue
        assert sum(len(m["content"]) for m in observed) <= budget + 60 * len(observed)  # the notes' own length
        assert all(new == old for old, new in pairs if not old["observation"]), "what the model wrote is never cut"
        assert after.metadata["observations_cut"]["observations"] == sum(
            1 for old, new in pairs if old["observation"] and new["content"] != old["content"])
        assert any("characters of output cut when read" in m["content"] for m in observed)


def test_tool_results_written_as_user_text_are_observations(tmp_path: Path) -> None:
    """A harness that returns tool results as user text (Cline: ``[read_file for 'x'] Result:``): those
    turns are environment output, so the prose filters never judge them."""
    row = json.loads(TAU.read_text())[0]
    names = {c["id"]: c["function"]["name"] for m in row["traj"] for c in m.get("tool_calls") or []}
    turns = [{"role": "user", "content": f"[{names[m['tool_call_id']]}] Result:\n{m['content']}"} if m["role"] == "tool"
             else {"role": m["role"], "content": m["content"] or ""} for m in row["traj"]]
    assert sum(t["content"].startswith("[") for t in turns) >= 5, "guard: tool results as user text"
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"messages": turns}))
    (doc,) = documents(path)
    for raw, message in zip(turns, doc.metadata["messages"]):
        assert message["observation"] is (raw["role"] == "user" and raw["content"].startswith("["))
    assert "] Result:" not in transcript_prose(doc.metadata["messages"])


def test_near_duplicates_are_judged_on_what_the_agent_wrote(tmp_path: Path) -> None:
    """Two runs of different tasks whose first user turn carries the same long instruction block (as every
    MedAgentBench task does) look alike on what the task and the agent said and unalike on what the agent
    wrote. Each run up to the agent's second reply (a real prefix of it), where the block weighs most."""
    instruction = json.loads(INSTRUCTION.read_text())["messages"][0]["content"]
    assert len(instruction) > 10_000, "guard: a long shared instruction block"
    docs = []
    for index, row in enumerate(json.loads(TAU.read_text())[:2]):
        replies = [i for i, m in enumerate(row["traj"]) if m["role"] == "assistant" and m["content"]]
        traj = [dict(m) for m in row["traj"][:replies[1] + 1]]
        first_user = next(m for m in traj if m["role"] == "user")
        first_user["content"] = instruction + "\n\n" + first_user["content"]
        (doc,) = [d for d in read_location(SourceConfig(name="runs", type="transcripts", paths=["unused"]),
                                           str(_write(tmp_path / f"run{index}.json", traj)))]
        docs.append(doc.to_row())
    threshold = DedupConfig().threshold
    said = [" ".join(m["content"] for m in json.loads(d["metadata"])["messages"] if m["role"] != "system"
                     and not m["observation"]) for d in docs]  # what the task and the agent said
    task_and_agent = exact_jaccard(shingle_hashes(said[0], 5, False), shingle_hashes(said[1], 5, False))
    agent = exact_jaccard(shingle_hashes(compared_text(docs[0]), 5, False),
                          shingle_hashes(compared_text(docs[1]), 5, False))
    assert task_and_agent >= threshold > agent, (task_and_agent, agent)
    assert instruction[:200] not in compared_text(docs[0])


def _write(path: Path, messages: list[dict]) -> Path:
    path.write_text(json.dumps({"traj": messages}))
    return path


def test_speaker_names_take_the_roles_a_source_gives_them(tmp_path: Path) -> None:
    """A multi-agent log names its speakers. By position the first name to speak set the task and every
    other name is the model; where the first name is the harness's (its policy), a source's
    ``speakers`` says who is who."""
    row = json.loads(TAU.read_text())[1]
    names = {"system": "Policy", "user": "Traveller", "assistant": "AirlineBot"}
    turns = [{**m, "role": names.get(m["role"], m["role"])} for m in row["traj"]]
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"log": turns}))
    (by_position,) = documents(path)
    positional = {"system": "user", "user": "assistant", "assistant": "assistant"}
    assert [m["role"] for m in by_position.metadata["messages"]] == [positional.get(m["role"], m["role"])
                                                                      for m in row["traj"]]
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits(),
                          speakers={"Policy": "system", "Traveller": "user", "AirlineBot": "assistant"})
    (configured,) = list(read_location(source, str(path)))
    assert [m["role"] for m in configured.metadata["messages"]] == [m["role"] for m in row["traj"]]
    assert [m["name"] for m in configured.metadata["messages"][:3]] == ["Policy", "Traveller", "AirlineBot"]


def test_a_speakers_role_that_is_no_role_is_refused() -> None:
    from codemix.config import ConfigError

    source = SourceConfig(name="runs", type="transcripts", paths=["x"], speakers={"Coder": "programmer"})
    with pytest.raises(ConfigError, match=r"speakers\.Coder"):
        source.validate("sources[0]")


def test_a_utf8_byte_order_mark_opening_a_jsonl_file_is_not_json(tmp_path: Path) -> None:
    rows = json.loads(TAU.read_text())
    path = tmp_path / "runs.jsonl"
    path.write_bytes(codecs.BOM_UTF8 + "".join(json.dumps(row) + "\n" for row in rows).encode())
    assert [len(d.metadata["messages"]) for d in documents(path)] == [len(r["traj"]) for r in rows]


BIODISCO = FIXTURES / "transcript_inputs/biodisco-run_log.lines-2-12-13.jsonl"


def test_a_log_of_model_calls_is_one_transcript_per_answered_call() -> None:
    """BioDisco's ``run_log.jsonl`` (one ``{agent, input, output}`` call per line): each answered call a
    document with its prompt and reply, the call that returned nothing quarantined as an empty
    conversation: every line accounted for."""
    lines = [json.loads(line) for line in BIODISCO.read_text().splitlines()]
    outcomes = read(BIODISCO)
    assert len(outcomes) == len(lines) == 3
    for outcome, line in zip(outcomes, lines):
        if line["output"]:
            assert isinstance(outcome, Document)
            assert [m["role"] for m in outcome.metadata["messages"]] == ["user", "assistant"]
            assert outcome.metadata["messages"][1]["content"] == line["output"]
        else:
            assert isinstance(outcome, Quarantined) and "empty_conversation" in outcome.error


def test_a_run_started_by_its_system_prompt_is_read_with_that_prompt_as_its_task(tmp_path: Path) -> None:
    """A saved agent state with no user turn (here a real tau-bench run with its user turns left out)
    is read, not refused as ``no_task``: its system prompt is the task, marked ``task_from: system``."""
    traj = [m for m in json.loads(TAU.read_text())[2]["traj"] if m["role"] != "user"]
    path = tmp_path / "agent-state.json"
    path.write_text(json.dumps({"messages": traj}))
    (doc,) = documents(path)
    assert doc.metadata["transcript"]["task_from"] == "system"
    assert [m["role"] for m in doc.metadata["messages"]] == ["user"] + [m["role"] for m in traj[1:]]


def test_a_record_with_no_conversation_in_a_list_of_runs_is_accounted_for(tmp_path: Path) -> None:
    """In a file that is a list of runs (real tau-bench rows), a row that kept no run (here only its
    ``task_id`` and ``reward``, as a crashed run is recorded) is quarantined at its place as
    ``no_conversation``, never silently absent."""
    rows = json.loads(TAU.read_text())
    rows[1] = {"task_id": rows[1]["task_id"], "reward": rows[1]["reward"]}
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(rows))
    outcomes = read(path)
    assert [type(o).__name__ for o in outcomes] == ["Document", "Quarantined", "Document"]
    assert outcomes[1].location == f"{path}#transcript2" and "no_conversation: $[1]" in outcomes[1].error
