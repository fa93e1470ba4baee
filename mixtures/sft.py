"""Agent transcripts -> supervised fine-tuning samples: token ids plus a loss mask of the tokens trained on.
Design notes: docs/design/mixtures.md, "mixtures/sft.py".
"""
from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
from tokenizers import Tokenizer

from codemix.config import join, require
from codemix.document import Document
from codemix.mixtures.chat import ChatTemplate, ReasoningMode, is_model_turn, render_turn
from codemix.mixtures.sft_summaries import (
    MIN_SUMMARY_TOKENS,
    Compaction,
    arguments_object,
    continuation_summary,
    fit_to_tokens,
)
from codemix.mixtures.sft_tokens import tokenize_segments, tokenize_turns
from codemix.mixtures.transcript_formats.base import compaction_summary
from codemix.mixtures.transcript_formats.canonical import DESCRIBED
from codemix.mixtures.transcript_formats.outcomes import ended_with_submit

OutcomePolicy = Literal["any", "submitted", "exit_ok", "tests_passed", "resolved"]
# Which metadata fact each policy reads (facts are recorded by the transcript reader).
POLICY_FACT = {"submitted": "submitted", "exit_ok": "exit_status", "tests_passed": "tests_passed",
               "resolved": "resolved"}
# What stands in for the middle of an observation cut to fit (masked like the observation around it).
OBSERVATION_CUT = "\n[... {n:,} characters of output cut ...]\n"


@dataclass(slots=True, kw_only=True)


class SFTConfig:
    """Which transcripts become SFT samples, and how they are rendered and split.
    ``outcome_policy`` (facts as the transcript reader records them):
      * ``any``: every run, whatever its outcome;
      * ``submitted``: the agent submitted a result (``info.submission``/``exit_status``, or its
        last action was the submit action); autosubmissions on a cost limit count;
      * ``exit_ok``: the run ended with an ``exit_status`` in ``ok_exit_statuses`` (default only
        a clean ``submitted``, not ``submitted (exit_cost)`` nor ``exit_error``/``exit_format``);
      * ``tests_passed``: a recorded ``tests_passed`` or ``resolved``, or else the last test run in
        the environment's output passed;
      * ``resolved``: SWE-bench's harness said the patch resolves the issue (SWE-Gym and nebius
        rows, OpenHands evaluation reports).
    The same facts are read from every format (``mixtures.transcripts``); a run whose fact is not
    recorded is ``outcome_unknown``: dropped unless ``unknown_outcome: keep``.
    ``reasoning``: what thinking written before an answer (Anthropic ``thinking``, Codex and OpenAI
    reasoning) becomes: ``masked`` context (default: the model sees how it reasoned but is not
    trained to reproduce reasoning it may have been shown only in summary), ``trained``, or
    ``dropped`` from the samples.
    """
    outcome_policy: OutcomePolicy = "submitted"
    unknown_outcome: Literal["drop", "keep"] = "drop"
    # Compared case-insensitively: SWE-agent and mini-swe-agent "submitted", the nebius OpenHands rows'
    # "submit", OpenHands' final agent state "finished" (the agent called finish). Not SWE-agent's
    # "submitted (exit_cost)" (an autosubmission at the cost limit) nor exit_error/exit_format.
    ok_exit_statuses: list[str] = field(default_factory=lambda: ["submitted", "submit", "finished"])
    # The agent's "I am done" actions (a call, tool tag or action line in its last turn) that count as a
    # submission when the file records none; empty = the default list (``outcomes.SUBMIT_TOOLS``:
    # submit, finish, attempt_completion, task_complete, final_answer...).
    submit_actions: list[str] = field(default_factory=list)
    # What a continuation's templated summary (written by codemix from the turns it replaces, not by the
    # model) is: ``masked`` context (default: the model is not taught to write our heuristic's
    # summaries) or ``trained``. A real compaction summary the agent wrote is always trained.
    templated_summary: Literal["masked", "trained"] = "masked"
    # Tool names a call may use; empty = the tools the transcript declares (metadata["tools"]), or
    # any name when it declares none.
    known_tools: list[str] = field(default_factory=list)
    min_turns: int = 2  # messages after cleaning, per transcript
    # messages in one sample: a longer run continues in the next sample, as a run too long in tokens does (a
    # run's length says nothing of its quality; the IDE trajectory of round 18's dev corpus, 1,139 messages, was
    # dropped whole by a per-transcript cap)
    max_turns: int = 1000
    min_tokens: int = 16  # trained tokens per sample; fewer teach little and cost a pack slot
    summary_max_tokens: int = 1024  # content tokens of a continuation's summary turn
    summary_prefix: str = "Summary of the work so far:\n"
    reasoning: ReasoningMode = "masked"
    template: ChatTemplate = field(default_factory=ChatTemplate)
    def validate(self, path: str) -> None:
        require(self.reasoning in ("masked", "trained", "dropped"), join(path, "reasoning"),
                f"{self.reasoning!r} is not a reasoning mode", "use masked, trained or dropped")
        require(self.min_turns >= 1, join(path, "min_turns"), "must be at least 1")
        require(self.max_turns >= self.min_turns, join(path, "max_turns"), "is below min_turns")
        require(self.min_tokens >= 0, join(path, "min_tokens"), "must not be negative")
        require(self.summary_max_tokens > 0, join(path, "summary_max_tokens"), "must be positive")
        require(self.templated_summary in ("masked", "trained"), join(path, "templated_summary"),
                f"{self.templated_summary!r} is not masked or trained", "use masked or trained")
        require(all(isinstance(n, str) and n for n in self.submit_actions), join(path, "submit_actions"),
                "must be a list of tool names", "list names such as submit, finish, attempt_completion")


@dataclass(slots=True, kw_only=True, eq=False)


class SFTSample:
    """One training sequence. ``tokens`` int32 [T], ``loss_mask`` uint8 [T] (1 = trained), T <= the
    sequence length. ``turns`` is the ``[start, end)`` range of the cleaned messages whose turns it
    carries after its preamble (a continuation's system prompt, task and summary are not counted)."""
    tokens: np.ndarray
    loss_mask: np.ndarray
    turns: tuple[int, int]
    is_continuation: bool
    summary: str = ""  # what opens a continuation: "real" (a model-written compaction summary) or "templated"
    messages: tuple = ()  # the messages its tokens render, in order (the summary turn included): what exports read


# --- outcome and cleaning -------------------------------------------------------------------------


def outcome_drop_reason(doc: Document, config: SFTConfig) -> str | None:
    """``outcome_unknown``, ``outcome_not_submitted``, ``outcome_exit_not_ok``, ``outcome_tests_failed``, or None to keep."""
    if config.outcome_policy == "any":
        return None
    value = doc.metadata.get(POLICY_FACT[config.outcome_policy])
    if config.outcome_policy == "submitted" and config.submit_actions and _inferred(doc, "submitted"):
        value = ended_with_submit(doc.metadata.get("messages") or [], frozenset(config.submit_actions)) or None
    if value is None:
        return None if config.unknown_outcome == "keep" else "outcome_unknown"
    if config.outcome_policy == "submitted":
        return None if value else "outcome_not_submitted"
    if config.outcome_policy == "exit_ok":
        return None if str(value).lower() in {s.lower() for s in config.ok_exit_statuses} else "outcome_exit_not_ok"
    return None if value else "outcome_tests_failed"


def _inferred(doc: Document, fact: str) -> bool:
    """Whether ``fact`` was read from the messages (or is absent), not recorded by the file."""
    evidence = doc.metadata.get("outcome_evidence")
    return not (isinstance(evidence, dict) and evidence.get(fact) == "recorded")


def clean_turns(
    messages: Sequence[dict[str, Any]], config: SFTConfig, declared_tools: Iterable[str] = ()
) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The messages without assistant turns whose tool calls are malformed, nor the results answering them.
    Training on such a turn teaches the model to call tools that do not exist or to emit arguments
    no tool can parse. A result is the tool message whose ``tool_call_id`` names a dropped call, or,
    when results carry no ids, the tool messages right after the dropped turn. Reasons, one per
    dropped message: ``malformed_tool_call_unknown_tool``, ``malformed_tool_call_arguments``,
    ``tool_result_of_malformed_call``. The kept messages are the input's own dicts, in order.
    """
    known = set(config.known_tools or declared_tools)
    kept, reasons = [], Counter()
    dropped_ids, after_dropped_turn = set(), False
    for message in messages:
        if is_model_turn(message):
            reason = malformed_call_reason(message, known)
            after_dropped_turn = reason is not None
            if reason:
                reasons[reason] += 1
                dropped_ids |= {call["id"] for call in message["tool_calls"] if call["id"]}
                continue
        elif message["role"] == "tool":
            call_id = message["tool_call_id"]
            if call_id in dropped_ids or (not call_id and after_dropped_turn):
                reasons["tool_result_of_malformed_call"] += 1
                continue
        else:
            after_dropped_turn = False
        kept.append(message)
    return kept, reasons


def masked_calls(messages: Sequence[dict[str, Any]]) -> Counter[str]:
    """The calls a transcript holds that SFT shows as context and never trains, by reason: calls an export
    described in its own words (``tool_call_described``: the reader's ``DESCRIBED`` calls, in observation turns;
    docs/agent-transcripts.md, "Calls an export describes")."""
    return Counter("tool_call_described" for m in messages for call in m["tool_calls"] if call.get("kind") == DESCRIBED)


def malformed_call_reason(message: dict[str, Any], known_tools: set[str]) -> str | None:
    """Why the first bad tool call of an assistant turn is bad; None when all are well formed.
    A function call's arguments must be a JSON object (the reader keeps the model's exact text, so
    anything else is what the model emitted and no tool could parse); a free-text call (Codex
    ``apply_patch``) takes any text. ``known_tools`` empty accepts any name. A call an export described (its
    verb, ``Viewed``, and its words) is never trained, so neither its name nor its words can be bad.
    """
    for call in message["tool_calls"]:
        if call.get("kind") == DESCRIBED:
            continue
        if known_tools and call["name"] not in known_tools:
            return "malformed_tool_call_unknown_tool"
        if call.get("kind", "function") == "function" and arguments_object(call) is None:
            return "malformed_tool_call_arguments"
    return None


# --- samples --------------------------------------------------------------------------------------


def sft_samples(
    doc: Document, tokenizer: Tokenizer, sequence_length: int, config: SFTConfig
) -> tuple[list[SFTSample], Counter[str]]:
    """The SFT samples of one transcript, each at most ``sequence_length`` tokens, and the reasons
    (with counts) for everything dropped on the way: the whole transcript (outcome, turn counts),
    assistant turns with malformed tool calls, or a sample.
    A trajectory is split only between *rounds* (a model turn and the results answering it), so a
    tool call and its result stay together, and always at a real compaction (the model never saw
    the turns before it and after it together). The first sample starts at the first message;
    every later one starts with the system prompt and the task (masked), then an assistant summary
    turn of what came before (trained when the agent wrote it, masked context when codemix wrote it:
    ``templated_summary``): at a compaction, the model-written summary it left (origin
    ``real``); elsewhere the latest real summary plus what happened since, or the extractive one
    (``templated``; see ``continuation_summary``); then the next rounds.
    A round too long for a fresh continuation first has its observations (and a person's turns in it: a pasted
    page) cut to fit, head and tail kept around a marker (``cut_long_observations``; masked like the
    observation), and so have the
    observations before the first model turn when they and the first round do not fit: a model turn is
    never lost because the environment's reply to it (or what it was shown first) was long. A round whose model turn alone does
    not fit ends the trajectory there (``round_exceeds_sequence_length``; the samples before it are
    kept): cutting an assistant turn would teach stopping mid-action. A sample with fewer than ``min_tokens`` trained tokens is dropped
    (``sample_too_few_trained_tokens``).
    """
    reason = outcome_drop_reason(doc, config)
    if reason:
        return [], Counter([reason])
    raw = doc.metadata.get("messages") or []
    messages, reasons = clean_turns(raw, config, doc.metadata.get("tools") or ())
    reason = turns_drop_reason(messages, config)
    if reason:
        return [], reasons + Counter([reason])
    compactions = cleaned_compactions(raw, messages, doc.metadata.get("compactions") or [])
    turns = tokenize_turns(messages, tokenizer, config)
    messages, turns = cut_long_observations(messages, turns, tokenizer, sequence_length, config)
    turns = [_Turn(ids, mask, message) for (ids, mask), message in zip(turns, messages)]
    builder = _SampleBuilder(messages, turns, tokenizer, sequence_length, config, compactions)
    samples, cut = builder.build()
    reasons += Counter(["round_exceeds_sequence_length"] * cut)
    kept = [s for s in samples if int(s.loss_mask.sum()) >= config.min_tokens]
    reasons += Counter(["sample_too_few_trained_tokens"] * (len(samples) - len(kept)))
    return kept, reasons


def cleaned_compactions(raw: Sequence[dict[str, Any]], messages: Sequence[dict[str, Any]],
                        records: Sequence[dict[str, Any]]) -> list[Compaction]:
    """The reader's compaction records (indices into ``raw``) as positions in the cleaned ``messages``
    (``clean_turns`` keeps the reader's own dicts, so positions follow by identity)."""
    position = {id(m): i for i, m in enumerate(raw)}
    kept_raw = [position[id(m)] for m in messages]
    result = []
    for record in sorted(records, key=lambda r: r["at"]):
        at = bisect.bisect_left(kept_raw, record["at"])
        injected = record.get("summary_message") and at < len(messages) and kept_raw[at] == record["at"]
        result.append(Compaction(at, at + 1 if injected else at, compaction_summary(list(raw), record)))
    return result


def cut_long_observations(messages: Sequence[dict[str, Any]], turns: list[tuple[np.ndarray, np.ndarray]],
                          tokenizer: Tokenizer, sequence_length: int, config: SFTConfig) -> tuple[list, list]:
    """``(messages, turns)`` with the observations of each round too long for a fresh continuation cut
    to fit it, and those before the first model turn when the first sample does not fit: every observation
    cut keeps a head and a tail in proportion to its size, around ``OBSERVATION_CUT``. A cut message is a copy; the others (and the caller's) are left as they were."""
    messages, turns = list(messages), list(turns)
    if not any(is_model_turn(m) for m in messages):
        return messages, turns
    reserve = MIN_SUMMARY_TOKENS + len(tokenize_segments(render_turn(_assistant(config.summary_prefix), config.template,
                                                                     config.reasoning), tokenizer)[0])
    preamble = preamble_indices(messages)
    room = sequence_length - _length([turns[i] for i in preamble]) - reserve
    for begin, stop in rounds(messages):
        observed = [i for i in range(begin + 1, stop) if _observed(messages[i]) or _pasted(messages[i])]
        _cut_share(messages, turns, observed, sum(len(turns[i][0]) for i in range(begin, stop)) - room, tokenizer, config)
    # The first sample opens with everything before the first model turn: a tool result there (files attached
    # before the request, a demonstration) is cut so that it and the first round fit, as a round's output is.
    (begin, stop), *_ = rounds(messages)
    opening = [i for i in range(begin) if _observed(messages[i]) and i not in preamble]
    _cut_share(messages, turns, opening, _length(turns[:stop]) - sequence_length, tokenizer, config)
    return messages, turns


def _pasted(message: dict[str, Any]) -> bool:
    """A person's turn inside the run (after the model's first turn): context the model read, never trained, so a
    paste too long for a continuation (a whole web page, a log) is cut as a tool's output is, rather than end the
    run there (the sixteenth holdout's VS Code chat: a 496 KB page pasted as a reply had cost 739 messages)."""
    return message["role"] == "user"


def _observed(message: dict[str, Any]) -> bool:
    return message.get("observation", message["role"] == "tool") and message["role"] != "assistant"


def _cut_share(messages: list, turns: list, observed: list[int], excess: int, tokenizer: Tokenizer,
               config: SFTConfig) -> None:
    """Cut ``excess`` tokens from the ``observed`` messages (in place), each its share by size; nothing when
    there is no excess or the observations alone are not that long (the round does not fit either way)."""
    total = sum(len(turns[i][0]) for i in observed)
    if excess <= 0 or not observed or total <= excess:
        return
    for i in observed:
        target = len(turns[i][0]) - -(-excess * len(turns[i][0]) // total)  # its share of the excess, rounded up
        messages[i], turns[i] = _cut_observation(messages[i], target, tokenizer, config)


def _cut_observation(message: dict[str, Any], target: int, tokenizer: Tokenizer,
                     config: SFTConfig) -> tuple[dict[str, Any], tuple[np.ndarray, np.ndarray]]:
    """``message`` with its content's middle cut so its turn takes at most ``target`` tokens (or as
    few as the turn's markup allows)."""
    content, turn = message["content"], tokenize_turns([message], tokenizer, config)[0]
    keep = len(content)
    while len(turn[0]) > target and keep > 0:
        keep = int(keep * min(0.9, target / len(turn[0])))
        head = keep // 2
        cut = dict(message, content=content[:head] + OBSERVATION_CUT.format(n=len(content) - keep)
                   + content[len(content) - (keep - head):])
        turn = tokenize_turns([cut], tokenizer, config)[0]
        message = cut
    return message, turn


def _assistant(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "reasoning": "", "tool_calls": [], "tool_call_id": "",
            "name": "", "observation": False}


def turns_drop_reason(messages: Sequence[dict[str, Any]], config: SFTConfig) -> str | None:
    """``too_few_turns`` or ``no_assistant_turns`` for the cleaned messages (a long run is split into samples of
    at most ``max_turns`` messages, never dropped for its length)."""
    if len(messages) < config.min_turns:
        return "too_few_turns"
    if not any(is_model_turn(m) for m in messages):
        return "no_assistant_turns"
    return None


def rounds(messages: Sequence[dict[str, Any]], start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``[start, end)`` of each round in ``messages[start:end]``: a model turn and the messages up to the next."""
    end = len(messages) if end is None else end
    starts = [i for i in range(start, end) if is_model_turn(messages[i])]
    return list(zip(starts, [*starts[1:], end]))


def preamble_indices(messages: Sequence[dict[str, Any]]) -> list[int]:
    """The messages every continuation repeats: the system messages before the first model turn and
    the task (the first user message a person wrote, else the first user message)."""
    head = next(i for i, m in enumerate(messages) if is_model_turn(m))
    system = [i for i in range(head) if messages[i]["role"] == "system"]
    users = [i for i in range(head) if messages[i]["role"] == "user"]
    task = next((i for i in users if not messages[i].get("observation")), users[0] if users else None)
    return sorted(system + ([task] if task is not None else []))


class _SampleBuilder:
    """Greedy split of one tokenized trajectory into samples (the algorithm of ``sft_samples``)."""
    def __init__(self, messages, turns, tokenizer, sequence_length, config, compactions):
        self.messages, self.turns, self.tokenizer = messages, turns, tokenizer
        self.limit, self.config, self.compactions = sequence_length, config, compactions
    def build(self) -> tuple[list[SFTSample], int]:
        """``(samples, 1 if the trajectory was cut short else 0)``: the part before the first
        compaction, then each part after one, opened by a continuation with its summary."""
        samples: list[SFTSample] = []
        ends = [c.at for c in self.compactions] + [len(self.messages)]
        starts = [0] + [c.resume for c in self.compactions]
        for part, (start, end) in enumerate(zip(starts, ends)):
            compaction = self.compactions[part - 1] if part else None
            if not rounds(self.messages, start, end):
                continue  # nothing the model wrote in this part (it compacted again right away)
            if self._build_part(start, end, compaction, samples):
                return samples, 1
        return samples, 0
    def _build_part(self, start: int, end: int, compaction: Compaction | None, samples: list[SFTSample]) -> bool:
        """Samples of ``messages[start:end]`` appended to ``samples``; True when a round did not fit."""
        plan = rounds(self.messages, start, end)
        head = plan[0][0]
        opening = [self.turns[i] for i in range(start, head)]
        size = _length(opening) + sum(len(self.turns[i][0]) for i in range(*plan[0]))
        if compaction is None:
            parts, origin = opening, ""
        else:
            opened = self._continuation(start, self.limit - size, compaction)
            if opened is None:
                return True
            parts, origin = opened[0] + opening, opened[1]
        first = start
        for begin, stop in plan:
            size = sum(len(self.turns[i][0]) for i in range(begin, stop))
            if _length(parts) + size > self.limit or (stop - first > self.config.max_turns and begin > max(first, head)):
                if begin == head:  # only the opening so far, and still no room
                    return True
                samples.append(_sample(parts, (first, begin), origin))
                opened = self._continuation(begin, self.limit - size, self._latest_real(begin))
                if opened is None:
                    return True
                (parts, origin), first = opened, begin
            parts += [self.turns[i] for i in range(begin, stop)]
        samples.append(_sample(parts, (first, end), origin))
        return False
    def _latest_real(self, split: int) -> Compaction | None:
        """The latest compaction before ``split`` that left a summary: a continuation inside its part
        builds on it."""
        return next((c for c in reversed(self.compactions) if c.resume <= split and c.summary), None)
    def _continuation(self, split: int, room: int, compaction: Compaction | None):
        """``(system prompt + task (masked) + the trained summary turn, origin)`` for a sample resuming
        at ``split``, in at most ``room`` tokens; None when no summary of MIN_SUMMARY_TOKENS fits.
        The summary gets ``summary_max_tokens`` or whatever room the next round leaves, if less."""
        preamble = [self.turns[i] for i in preamble_indices(self.messages)]
        text, origin = continuation_summary(self.messages, split, compaction)
        budget = self.config.summary_max_tokens
        while budget >= min(MIN_SUMMARY_TOKENS, self.config.summary_max_tokens):
            summary = self._summary_turn(fit_to_tokens(text, self.tokenizer, budget))
            overflow = _length(preamble) + len(summary[0]) - room
            if overflow <= 0:
                return [*preamble, self._masked(summary) if self._context(origin) else summary], origin
            budget = min(budget, int(summary[1].sum())) - overflow  # content + turn_end tokens
        return None
    def _context(self, origin: str) -> bool:
        """Whether a continuation's summary is context: one codemix wrote (``templated``) unless
        ``templated_summary: trained``; the agent's own compaction summary (``real``) is trained."""
        return origin == "templated" and self.config.templated_summary == "masked"
    @staticmethod
    def _masked(turn: _Turn) -> _Turn:
        """The summary turn as context: no token trained, and an observation for the exports."""
        return _Turn(turn.ids, np.zeros_like(turn.mask), {**turn.message, "observation": True})
    def _summary_turn(self, text: str) -> _Turn:
        summary = _assistant(self.config.summary_prefix + text)
        return _Turn(*tokenize_segments(render_turn(summary, self.config.template, self.config.reasoning),
                                        self.tokenizer), summary)


def summary_origins(samples: Iterable[SFTSample]) -> dict[str, int]:
    """How many continuations open with a ``real`` (model-written) or a ``templated`` summary."""
    counts = Counter(sample.summary for sample in samples if sample.summary)
    return {"real": counts["real"], "templated": counts["templated"]}


class _Turn(NamedTuple):
    """One message's ids and loss mask, and the message they render."""

    ids: np.ndarray
    mask: np.ndarray
    message: dict


def _length(parts: Sequence[tuple]) -> int:
    return sum(len(part[0]) for part in parts)


def _sample(parts: Sequence[_Turn], turns: tuple[int, int], summary: str) -> SFTSample:
    return SFTSample(tokens=np.concatenate([part.ids for part in parts]), loss_mask=np.concatenate(
        [part.mask for part in parts]), turns=turns, is_continuation=bool(summary), summary=summary,
        messages=tuple(part.message for part in parts))
