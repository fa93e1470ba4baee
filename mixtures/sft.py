"""Agent transcripts -> supervised fine-tuning samples: token ids plus a loss mask of the tokens trained on.

Design notes: docs/design/mixtures.md, "mixtures/sft.py".
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
from tokenizers import Tokenizer

from codemix.config import join, require
from codemix.document import Document
from codemix.mixtures.chat import ChatTemplate, ReasoningMode, Segment, is_model_turn, render_turn
from codemix.mixtures.indexed_dataset import IndexedDatasetWriter
from codemix.mixtures.transcript_formats.base import compaction_summary
from codemix.mixtures.transcript_formats.canonical import parsed_arguments
from codemix.mixtures.transcripts import last_test_summary

LOSS_MASK_SUFFIX = "-loss_mask"
OutcomePolicy = Literal["any", "submitted", "exit_ok", "tests_passed", "resolved"]
# Which metadata fact each policy reads (facts are recorded by the transcript reader).
POLICY_FACT = {"submitted": "submitted", "exit_ok": "exit_status", "tests_passed": "tests_passed",
               "resolved": "resolved"}
PATCH_FILES = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)  # Codex apply_patch input

SHELL_TOOLS = frozenset({"bash", "shell", "execute_bash", "run_command", "terminal", "exec", "run_shell_command"})
EDIT_TOOL_NAME = re.compile(r"edit|write|create|replace|insert|patch", re.IGNORECASE)
EDITOR_WRITE_COMMANDS = frozenset({"create", "str_replace", "insert", "write", "edit", "append"})
PATH_ARGUMENTS = ("path", "file_path", "filename", "file", "target_file")
FENCED_COMMAND = re.compile(r"```(?:mswea_bash_command|bash|sh|shell)[ \t]*\n(.*?)```", re.DOTALL)
# A shell command's first line, where edits show: `sed -i ... FILE`, `> FILE`, `>> FILE`, `tee FILE`.
SED_IN_PLACE = re.compile(r"\bsed\s+(?:-\w*i\w*|--in-place)\b.*\s([\w./-]+)\s*$")
REDIRECT_TARGET = re.compile(r"(?<![0-9&>])>>?\s*([\w./-]+)")
COMMAND_SEPARATOR = re.compile(r"&&|\|\||;|\|(?!&)")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
TEE_TARGET = re.compile(r"\btee\s+(?:-a\s+)?([\w./-]+)")
TASK_CHARS = 240  # the task line of a summary: its gist; the full task is in the sample already
COMMAND_CHARS = 160
MIN_SUMMARY_TOKENS = 32  # below this a summary is a fragment; better to end the trajectory
SUMMARY_COMMANDS = 40  # most recent first; older ones are what a token budget cuts anyway
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
    # Tool names a call may use; empty = the tools the transcript declares (metadata["tools"]), or
    # any name when it declares none.
    known_tools: list[str] = field(default_factory=list)
    min_turns: int = 2  # messages after cleaning, per transcript
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


# --- outcome and cleaning -------------------------------------------------------------------------


def outcome_drop_reason(doc: Document, config: SFTConfig) -> str | None:
    """``outcome_unknown``, ``outcome_not_submitted``, ``outcome_exit_not_ok``, ``outcome_tests_failed``, or None to keep."""
    if config.outcome_policy == "any":
        return None
    value = doc.metadata.get(POLICY_FACT[config.outcome_policy])
    if value is None:
        return None if config.unknown_outcome == "keep" else "outcome_unknown"
    if config.outcome_policy == "submitted":
        return None if value else "outcome_not_submitted"
    if config.outcome_policy == "exit_ok":
        return None if str(value).lower() in {s.lower() for s in config.ok_exit_statuses} else "outcome_exit_not_ok"
    return None if value else "outcome_tests_failed"


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


def malformed_call_reason(message: dict[str, Any], known_tools: set[str]) -> str | None:
    """Why the first bad tool call of an assistant turn is bad; None when all are well formed.

    A function call's arguments must be a JSON object (the reader keeps the model's exact text, so
    anything else is what the model emitted and no tool could parse); a free-text call (Codex
    ``apply_patch``) takes any text. ``known_tools`` empty accepts any name.
    """
    for call in message["tool_calls"]:
        if known_tools and call["name"] not in known_tools:
            return "malformed_tool_call_unknown_tool"
        if call.get("kind", "function") == "function" and arguments_object(call) is None:
            return "malformed_tool_call_arguments"
    return None


def arguments_object(call: dict[str, Any]) -> dict[str, Any] | None:
    """A call's arguments as an object (None when they are not one, or the call is free text)."""
    return call["arguments"] if isinstance(call["arguments"], dict) else parsed_arguments(call)


# --- rendering and tokenizing ---------------------------------------------------------------------


def render_segments(messages: Sequence[dict[str, Any]], config: SFTConfig) -> list[Segment]:
    """Every message's segments, in order; joined, they are the rendered transcript."""
    return [segment for message in messages for segment in render_turn(message, config.template, config.reasoning)]


def tokenize_segments(segments: Sequence[Segment], tokenizer: Tokenizer) -> tuple[np.ndarray, np.ndarray]:
    """``(ids int32 [T], loss mask uint8 [T])`` of one turn's segments, tokenized as the text a tokenizer
    would see at inference (see ``_tokenize_turns``); no post-processor tokens (BOS/EOS) are added."""
    return _tokenize_turns([segments], tokenizer)[0]


def tokenize_turns(
    messages: Sequence[dict[str, Any]], tokenizer: Tokenizer, config: SFTConfig
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(ids, mask)`` per message, from one batched encode of the whole transcript."""
    return _tokenize_turns([render_turn(m, config.template, config.reasoning) for m in messages], tokenizer)


class _Chunk(NamedTuple):
    """Text between special tokens, tokenized in one piece; ``spans`` are the ``(end char, trainable)``
    of the segments it joins, in order."""

    text: str
    spans: list[tuple[int, bool]]


def _tokenize_turns(turns: Sequence[Sequence[Segment]], tokenizer: Tokenizer) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each turn as one text: the template's special tokens (``<|im_start|>``, ``<|im_end|>``) as
    their single ids, and the text between them tokenized in one piece with special tokens read as
    plain text (so content that merely mentions ``<|im_end|>`` cannot forge a boundary). One piece,
    not one encode per segment: encoded apart, ``<tool_call>`` and ``{"name"`` split where a
    tokenizer joins them (``>{"``), and the model would train on tokenizations it never sees at
    inference. A token is trained when the segment its first character belongs to is."""
    specials = tuple(sorted((t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special),
                            key=len, reverse=True))
    pieces = [_pieces(segments, specials) for segments in turns]
    chunks = [piece for turn in pieces for piece in turn if isinstance(piece, _Chunk)]
    encoded = iter(_encode_plain(tokenizer, [chunk.text for chunk in chunks]))
    results = []
    for turn in pieces:
        ids: list[np.ndarray] = []
        mask: list[np.ndarray] = []
        for piece in turn:
            if isinstance(piece, _Chunk):
                encoding = next(encoded)
                ends, trainable = zip(*piece.spans)
                starts = np.fromiter((start for start, _ in encoding.offsets), dtype=np.int64,
                                     count=len(encoding.offsets))
                # The segment holding each token's first character: the first whose end is past it.
                owner = np.minimum(np.searchsorted(np.asarray(ends), starts, side="right"), len(ends) - 1)
                ids.append(np.asarray(encoding.ids, dtype=np.int32))
                mask.append(np.asarray(trainable, dtype=np.uint8)[owner])
            else:
                ids.append(np.array([tokenizer.token_to_id(piece[0])], dtype=np.int32))
                mask.append(np.array([piece[1]], dtype=np.uint8))
        results.append((np.concatenate(ids) if ids else np.zeros(0, np.int32),
                        np.concatenate(mask) if mask else np.zeros(0, np.uint8)))
    return results


def _pieces(segments: Sequence[Segment], specials: tuple[str, ...]) -> list:
    """A turn's segments as chunks of plain text and ``(special token, trainable)`` pairs, in order.
    Special tokens are only looked for in template text (``markup``); content never holds one."""
    pieces: list = []
    text, spans = "", []
    for segment in segments:
        for part, special in _split_specials(segment.text, specials) if segment.markup else ((segment.text, False),):
            if special:
                if text:
                    pieces.append(_Chunk(text, spans))
                text, spans = "", []
                pieces.append((part, segment.trainable))
            elif part:
                text += part
                spans.append((len(text), segment.trainable))
    if text:
        pieces.append(_Chunk(text, spans))
    return pieces


@functools.lru_cache(maxsize=1024)
def _split_specials(text: str, specials: tuple[str, ...]) -> tuple[tuple[str, bool], ...]:
    """Template ``text`` as ``(part, is a special token)`` pairs (a template has few distinct texts)."""
    parts: list[tuple[str, bool]] = []
    position = 0
    while position < len(text):
        found = min(((text.find(token, position), token) for token in specials if token in text[position:]),
                    default=None)
        if found is None:
            parts.append((text[position:], False))
            break
        start, token = found
        parts += [(text[position:start], False), (token, True)]
        position = start + len(token)
    return tuple(part for part in parts if part[0])


def _encode_plain(tokenizer: Tokenizer, texts: Sequence[str]) -> list:
    """Encodings (ids and character offsets) of ``texts`` with special tokens read as plain text."""
    saved = tokenizer.encode_special_tokens
    try:
        tokenizer.encode_special_tokens = True  # "<|im_end|>" in content is text, not a turn end
        if len(texts) == 1:  # a batch call costs ~0.5 ms of thread-pool overhead
            return [tokenizer.encode(texts[0], add_special_tokens=False)]
        return tokenizer.encode_batch(list(texts), add_special_tokens=False) if texts else []
    finally:
        tokenizer.encode_special_tokens = saved  # the tokenizer is shared with other stages


def _encode_each(tokenizer: Tokenizer, texts: Sequence[str], markup: Sequence[bool]) -> list[list[int]]:
    """Token ids of each text, batched per special-token mode (a batch call costs ~0.5 ms of thread-pool
    overhead, so a single text goes through ``encode``)."""
    encoded: list[list[int]] = [[] for _ in texts]
    saved = tokenizer.encode_special_tokens
    try:
        for mode in (True, False):
            picks = [i for i, flag in enumerate(markup) if flag == mode and texts[i]]
            # encode_special_tokens=True reads "<|im_end|>" as plain text, which content needs.
            tokenizer.encode_special_tokens = not mode
            if len(picks) == 1:
                encoded[picks[0]] = tokenizer.encode(texts[picks[0]], add_special_tokens=False).ids
            elif picks:
                batch = tokenizer.encode_batch([texts[i] for i in picks], add_special_tokens=False)
                for i, encoding in zip(picks, batch):
                    encoded[i] = encoding.ids
    finally:
        tokenizer.encode_special_tokens = saved  # the tokenizer is shared with other stages
    return encoded


# --- summaries ------------------------------------------------------------------------------------


def extractive_summary(messages: Sequence[dict[str, Any]], *, since: int = 0) -> str:
    """What the agent did, from the transcript alone: the task (first user message, trimmed; only
    when ``since`` is 0), files touched, the last test result seen in tool output, and the
    commands run, most recent first. ``since`` limits the activity to ``messages[since:]``."""
    files, commands = [], []
    open_file = ""  # SWE-agent's edit acts on the file last opened
    for message in messages[since:]:
        for command, touched, now_open in _actions(message, open_file):
            commands.append(command)
            files += [path for path in touched if path not in files]
            open_file = now_open
    lines = [f"Task: {_task(messages)}"] if since == 0 and _task(messages) else []
    lines += [f"Files touched: {', '.join(files)}"] if files else []
    last_test = last_test_summary(list(messages[since:]))
    lines += [f"Last test run: {last_test[1]} ({'passed' if last_test[0] else 'failed'})"] if last_test else []
    recent = [_one_line(c, COMMAND_CHARS) for c in reversed(commands)][:SUMMARY_COMMANDS]
    lines += ["Commands run, most recent first:", *(f"- {c}" for c in recent)] if recent else []
    return "\n".join(lines)


def _task(messages: Sequence[dict[str, Any]]) -> str:
    first_user = next((m["content"] for m in messages if m["role"] == "user" and not m.get("observation")
                       and m["content"].strip()), "")
    return _one_line(first_user, TASK_CHARS)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


def _actions(message: dict[str, Any], open_file: str) -> list[tuple[str, list[str], str]]:
    """``(command, files edited, open file after it)`` for each action of a model turn."""
    if not is_model_turn(message):
        return []
    if not message["tool_calls"]:  # mini-swe-agent: one fenced bash block in the text
        return [(cmd, _shell_edits(cmd), open_file) for cmd in FENCED_COMMAND.findall(message["content"])]
    actions = []
    for call in message["tool_calls"]:
        action = _tool_action(call, open_file)
        open_file = action[2]
        actions.append(action)
    return actions


def _tool_action(call: dict[str, Any], open_file: str) -> tuple[str, list[str], str]:
    name, args = call["name"], arguments_object(call) or {}
    if call.get("kind", "function") != "function":  # free text: a Codex apply_patch names its files
        return name, PATCH_FILES.findall(str(call["arguments"])), open_file
    path = next((args[key] for key in PATH_ARGUMENTS if isinstance(args.get(key), str)), "")
    command = shell_command(args.get("command") if args.get("command") is not None else args.get("cmd"))
    if isinstance(command, str) and (name in SHELL_TOOLS or not path):
        return command, _shell_edits(command), open_file
    editor_write = args.get("command") in EDITOR_WRITE_COMMANDS
    edited = (path or open_file) if (EDIT_TOOL_NAME.search(name) or editor_write) else ""
    shown = " ".join(str(v) for v in args.values() if isinstance(v, str | int | float))
    return f"{name} {shown}".strip(), [edited] if edited else [], path if name == "open" and path else open_file


def shell_command(value: Any) -> str | None:
    """A command as a string; Codex's shell tool sends argv (``["bash", "-lc", "pytest -q"]``)."""
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        return value[-1] if len(value) == 3 and value[1] in ("-c", "-lc") else " ".join(value)
    return value if isinstance(value, str) else None


def _shell_edits(command: str) -> list[str]:
    """Files a shell command writes, judged on its first line (a heredoc body is data) with quoted
    strings blanked (``->`` in a sed script or ``python -c`` is no redirect), per ``&&``/``;``/``|`` part."""
    first = QUOTED.sub("''", command.strip().split("\n", 1)[0])
    found = []
    for part in COMMAND_SEPARATOR.split(first):
        found += SED_IN_PLACE.findall(part) + REDIRECT_TARGET.findall(part) + TEE_TARGET.findall(part)
    return [path for path in dict.fromkeys(found) if path != "/dev/null" and ("." in path or "/" in path)]


def continuation_summary(messages: Sequence[dict[str, Any]], split: int,
                         compaction: Compaction | None) -> tuple[str, str]:
    """``(summary, origin)`` for a sample that resumes at ``messages[split]``.

    A real compaction before ``split`` that left the model's own summary wins (origin ``real``),
    followed by the extractive summary of the turns between it and ``split``; otherwise the
    extractive summary of everything before ``split`` (origin ``templated``). Only compactions
    before ``split`` are used: a later summary describes turns the sample has not reached, and
    training on it would teach the model to state outcomes it has not seen.
    """
    if compaction is None or not compaction.summary or compaction.resume > split:
        return extractive_summary(messages[:split]), "templated"
    since = extractive_summary(messages[:split], since=compaction.resume)
    return "\n".join(part for part in (compaction.summary, since) if part), "real"


def fit_to_tokens(text: str, tokenizer: Tokenizer, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` (content encoding): whole lines from the end first
    (an extractive summary puts its least useful lines last), then characters of the last line."""
    lines = text.split("\n")
    per_line = [len(ids) + 1 for ids in _encode_each(tokenizer, lines, [False] * len(lines))]  # +1: the "\n"
    # Counts of separately encoded lines add up to about the whole's (a newline is its own
    # pre-token), so this picks the line count in one pass; the exact check below settles it.
    keep = max(1, int(np.searchsorted(np.cumsum(per_line), max_tokens + 1, side="left")))
    lines = lines[:keep]
    while len(lines) > 1 and _count(tokenizer, "\n".join(lines)) > max_tokens:
        lines.pop()
    if len(lines) > 1 and lines[-1].endswith(":") and len(lines) < len(text.split("\n")):
        lines.pop()  # a list heading whose items were all cut
    fitted = "\n".join(lines)
    while fitted and (count := _count(tokenizer, fitted)) > max_tokens:
        fitted = fitted[: min(len(fitted) - 1, len(fitted) * max_tokens // count)]
    return fitted


def _count(tokenizer: Tokenizer, text: str) -> int:
    return len(_encode_each(tokenizer, [text], [False])[0])


# --- samples --------------------------------------------------------------------------------------


class Compaction(NamedTuple):
    """A real compaction in the cleaned messages: the turns from ``resume`` on were written after it,
    with ``summary`` (the model's own, "" when the file kept none) as their context."""

    at: int  # where the pre-compaction turns end
    resume: int  # where the post-compaction turns start (past the injected summary turn, if any)
    summary: str


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
    turn of what came before (trained): at a compaction, the model-written summary it left (origin
    ``real``); elsewhere the latest real summary plus what happened since, or the extractive one
    (``templated``; see ``continuation_summary``); then the next rounds.
    A round too long for a fresh continuation first has its observations cut to fit, head and tail
    kept around a marker (``cut_long_observations``; masked like the observation): a model turn is
    never lost because the environment's reply to it was long. A round whose model turn alone does
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
    to fit it: every observation of the round keeps a head and a tail in proportion to its size, around
    ``OBSERVATION_CUT``. A cut message is a copy; the others (and the caller's) are left as they were."""
    messages, turns = list(messages), list(turns)
    if not any(is_model_turn(m) for m in messages):
        return messages, turns
    reserve = MIN_SUMMARY_TOKENS + len(tokenize_segments(render_turn(_assistant(config.summary_prefix), config.template,
                                                                     config.reasoning), tokenizer)[0])
    room = sequence_length - _length([turns[i] for i in preamble_indices(messages)]) - reserve
    for begin, stop in rounds(messages):
        observed = [i for i in range(begin + 1, stop)
                    if messages[i].get("observation", messages[i]["role"] == "tool") and messages[i]["role"] != "assistant"]
        excess = sum(len(turns[i][0]) for i in range(begin, stop)) - room
        total = sum(len(turns[i][0]) for i in observed)
        if excess <= 0 or not observed or total <= excess:
            continue
        for i in observed:
            target = len(turns[i][0]) - -(-excess * len(turns[i][0]) // total)  # its share of the excess, rounded up
            messages[i], turns[i] = _cut_observation(messages[i], target, tokenizer, config)
    return messages, turns


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
    """``too_few_turns``, ``too_many_turns`` or ``no_assistant_turns`` for the cleaned messages."""
    if len(messages) < config.min_turns:
        return "too_few_turns"
    if len(messages) > config.max_turns:
        return "too_many_turns"
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
            if _length(parts) + size > self.limit:
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
                return [*preamble, summary], origin
            budget = min(budget, int(summary[1].sum())) - overflow  # content + turn_end tokens
        return None

    def _summary_turn(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        summary = _assistant(self.config.summary_prefix + text)
        return tokenize_segments(render_turn(summary, self.config.template, self.config.reasoning), self.tokenizer)


def summary_origins(samples: Iterable[SFTSample]) -> dict[str, int]:
    """How many continuations open with a ``real`` (model-written) or a ``templated`` summary."""
    counts = Counter(sample.summary for sample in samples if sample.summary)
    return {"real": counts["real"], "templated": counts["templated"]}


def _length(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> int:
    return sum(len(ids) for ids, _ in parts)


def _sample(parts: Sequence[tuple[np.ndarray, np.ndarray]], turns: tuple[int, int], summary: str) -> SFTSample:
    return SFTSample(tokens=np.concatenate([ids for ids, _ in parts]), loss_mask=np.concatenate(
        [mask for _, mask in parts]), turns=turns, is_continuation=bool(summary), summary=summary)


# --- shards ---------------------------------------------------------------------------------------


def loss_mask_prefix(prefix: str) -> str:
    """Where the loss mask of the tokens shard ``prefix`` lives: ``PREFIX-loss_mask.bin/.idx``."""
    return prefix + LOSS_MASK_SUFFIX


def write_sft_shard(prefix: str, samples: Iterable[SFTSample], dtype: type[np.integer] | np.dtype) -> tuple[int, int]:
    """Write ``PREFIX.bin/.idx`` (token ids in ``dtype``, see ``dtype_for_vocab``) and
    ``PREFIX-loss_mask.bin/.idx`` (uint8), one sequence per sample in both; returns (samples, tokens).

    The mask is finalized first, so a tokens ``.idx`` (the commit marker a reader opens) never
    exists without its mask. No EOD is appended: samples are separated by the index, and the packed
    reader resets positions and attention at every sample start.
    """
    with IndexedDatasetWriter(loss_mask_prefix(prefix), np.uint8) as masks, IndexedDatasetWriter(prefix, dtype) as tokens:
        for sample in samples:
            if sample.tokens.shape != sample.loss_mask.shape:
                raise ValueError(f"sample tokens {sample.tokens.shape} and loss mask {sample.loss_mask.shape} differ")
            tokens.add_document(sample.tokens)
            masks.add_document(sample.loss_mask)
        masks.finalize()
        return tokens.finalize()
