"""SWE-agent ``.traj`` (``swe-agent``), mini-swe-agent ``.traj.json`` (``mini-swe-agent``) and the rows of
nebius' SWE-agent-trajectories dataset (``swe-agent-rows``).

All three return command output as ``user`` turns (with function calling SWE-agent uses ``tool``): every
user or tool turn after the agent's first turn is an observation, as are SWE-agent demonstrations.
Field names: ``SWE-agent/SWE-agent`` (``sweagent/agent/agents.py`` 0.x, ``docs/usage/trajectories.md``),
``SWE-agent/mini-swe-agent`` (``agents/default.py``, ``docs/usage/output_files.md``), the nebius card.
"""

from __future__ import annotations

import re
from typing import Any

from codemix.mixtures.transcript_formats.base import Format, Transcript, compaction, recorded_facts
from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError, message, string
from codemix.mixtures.transcript_formats.openai import chat_message, container_facts, is_chat_list

# mini-swe-agent's end-of-run command (v1+: COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, v0: MINI_SWE_AGENT_FINAL_OUTPUT).
MINI_SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
MINI_OUTPUT = re.compile(r"^(?:<returncode>|Observation: )")
# The compaction agent's hand-off turn (agents/compaction.py summary_message).
MINI_SUMMARY = re.compile(r"^<conversation_summary>\n(.*)\n</conversation_summary>", re.DOTALL)


def with_observations(messages: list[dict[str, Any]], demo: list[bool] | None = None) -> list[dict[str, Any]]:
    """Flag user/tool turns after the first assistant turn (and demonstration turns) as observations."""
    answered = False
    for index, canonical in enumerate(messages):
        is_demo = bool(demo and demo[index])
        late_output = answered and canonical["role"] in ("user", "tool")
        canonical["observation"] = canonical["observation"] or late_output or is_demo
        answered = answered or (canonical["role"] == "assistant" and not is_demo)
    return messages


# --- SWE-agent ------------------------------------------------------------------------------------


def is_step_list(steps: Any) -> bool:
    """SWE-agent ``trajectory`` steps: ``{response | action, observation, ...}``."""
    return isinstance(steps, list) and bool(steps) and all(
        isinstance(s, dict) and ("response" in s or "action" in s) and "observation" in s for s in steps[:50])


def detect_swe_agent(value: Any) -> bool:
    return isinstance(value, dict) and (is_chat_list(value.get("history")) or is_step_list(value.get("trajectory")))


def parse_swe_agent(value: Any) -> list[Transcript]:
    """``history`` is what the model saw; a file that kept only the ``trajectory`` steps gives each
    step's ``response`` (or thought and action) and its ``observation``."""
    history = value["history"] if is_chat_list(value.get("history")) else steps_history(value["trajectory"])
    messages = [chat_message(m, i) for i, m in enumerate(history)]
    # 0.x marks demonstrations with is_demo; 1.x with message_type "demonstration".
    demo = [bool(m.get("is_demo")) or m.get("message_type") == "demonstration" for m in history]
    info = value.get("info") if isinstance(value.get("info"), dict) else {}
    return [Transcript(format="swe-agent", messages=with_observations(messages, demo), facts=container_facts(value),
                       repo=run_repo(value, info))]


def steps_history(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    history = []
    for step in steps:
        response = string(step.get("response")) or "\n".join(
            part for part in (string(step.get("thought")), string(step.get("action"))) if part)
        history += [{"role": "assistant", "content": response}, {"role": "user", "content": string(step["observation"])}]
    return history


def run_repo(value: dict[str, Any], info: dict[str, Any]) -> str:
    """The repository the agent worked on, from ``info`` or the run config when recorded; else ""."""
    holders = [info, value]
    for key in ("environment", "replay_config"):
        if isinstance(value.get(key), dict):
            holders.append(value[key])
    for holder in holders:
        for key in ("repo_name", "repo", "github_url"):
            found = holder.get(key)
            if isinstance(found, dict):  # SWE-agent config: environment.repo = {github_url | path | repo_name}
                found = found.get("repo_name") or found.get("github_url") or found.get("path")
            if isinstance(found, str) and found:
                return found
    return ""


SWE_AGENT = Format(name="swe-agent", container="json", detect=detect_swe_agent, parse=parse_swe_agent)


# --- mini-swe-agent -------------------------------------------------------------------------------


def mini_messages_of(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    return value.get("messages") if isinstance(value, dict) and isinstance(value.get("messages"), list) else None


def detect_mini(value: Any) -> bool:
    """Its own markers: ``trajectory_format``, ``info.mini_version``, an ``exit`` message, or the shape
    of its turns (the submit command, or output returned as ``<returncode>``/``Observation:`` turns)."""
    messages = mini_messages_of(value)
    if not is_chat_list(messages):
        return False
    info = value.get("info") if isinstance(value, dict) and isinstance(value.get("info"), dict) else {}
    if string(value.get("trajectory_format") if isinstance(value, dict) else "").startswith("mini-swe-agent") \
            or "mini_version" in info or any(m.get("role") == "exit" for m in messages):
        return True
    texts = [(m.get("role"), m.get("content")) for m in messages if isinstance(m.get("content"), str)]
    return any(role == "assistant" and any(k in text for k in MINI_SUBMIT_MARKERS) for role, text in texts) or any(
        role == "user" and MINI_OUTPUT.match(text) for role, text in texts[2:])


def parse_mini(value: Any) -> list[Transcript]:
    raw = mini_messages_of(value) or []
    exits = [m for m in raw if isinstance(m, dict) and m.get("role") == "exit"]
    messages = with_observations([chat_message(m, i) for i, m in enumerate(raw) if m not in exits])
    if not messages:
        raise TranscriptShapeError("no messages")
    info = value.get("info") if isinstance(value, dict) else None
    exit_extra = [m.get("extra") for m in exits]
    facts = recorded_facts([info, value if isinstance(value, dict) else None, *exit_extra])
    return [Transcript(format="mini-swe-agent", messages=messages, facts=facts, compactions=mini_compactions(messages))]


def mini_compactions(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records = []
    for index, canonical in enumerate(messages):
        found = MINI_SUMMARY.match(canonical["content"]) if canonical["role"] == "user" else None
        if found:
            records.append(compaction(index, "mini-swe-agent", text=canonical["content"],
                                      summary=found.group(1).strip()))
    return records


MINI_SWE_AGENT = Format(name="mini-swe-agent", container="json", detect=detect_mini, parse=parse_mini)


# --- nebius SWE-agent-trajectories rows -----------------------------------------------------------

ROW_ROLES = {"system": "system", "user": "user", "ai": "assistant"}


def detect_rows(value: Any) -> bool:
    turns = value.get("trajectory") if isinstance(value, dict) else None
    return isinstance(turns, list) and bool(turns) and all(
        isinstance(t, dict) and isinstance(t.get("role"), str) and t["role"] in ROW_ROLES and ("text" in t or "system_prompt" in t) for t in turns[:50])


def parse_rows(value: Any) -> list[Transcript]:
    messages = []
    for index, turn in enumerate(value["trajectory"]):
        role = ROW_ROLES.get(turn.get("role")) if isinstance(turn, dict) else None
        if role is None:
            raise TranscriptShapeError(f"turn {index} has role {turn.get('role')!r}, not system, user or ai")
        text = string(turn.get("system_prompt")) or string(turn.get("text")) if role == "system" else string(
            turn.get("text"))
        messages.append(message(role, text))
    facts = recorded_facts([value])
    if isinstance(value.get("target"), bool):  # the dataset card: the patch passed the linked PR's tests
        facts["resolved"] = value["target"]
    extra = {k: value[k] for k in ("instance_id", "model_name") if isinstance(value.get(k), str)}
    return [Transcript(format="swe-agent-rows", messages=with_observations(messages), facts=facts, extra=extra)]


SWE_AGENT_ROWS = Format(name="swe-agent-rows", container="json", detect=detect_rows, parse=parse_rows)
