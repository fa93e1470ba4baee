"""Agent transcripts -> supervised fine-tuning samples: token ids plus a loss mask of the tokens trained on.

Pure functions over one transcript ``Document`` (canonical ``metadata["messages"]``, see
``mixtures.transcripts``); the Beam wiring lives in the pipeline. Per document:

  1. ``outcome_drop_reason``: keep only runs whose outcome the policy accepts;
  2. ``clean_turns``: drop assistant turns with malformed tool calls, and the results answering them;
  3. ``render_segments`` + ``tokenize_segments``: the chat template as (text, trainable) segments,
     tokenized as the joined text is at inference (split only at the template's special tokens),
     each token masked by the segment its first character belongs to;
  4. ``sft_samples``: split a trajectory longer than the sequence length into samples at turn
     boundaries, each continuation opening with a summary of what came before;
  5. ``write_sft_shard``: tokens and loss mask as two aligned Megatron indexed datasets.

Mask rules (1 = the token is a training target):

  * assistant turns: content, every tool call (``<tool_call>{json}</tool_call>``) and the closing
    ``<|im_end|>`` -> 1: what to say, which tool to call with which arguments, and when to stop;
  * the assistant role header ``<|im_start|>assistant\\n`` -> 0: at inference the chat template
    writes it as part of the prompt (``add_generation_prompt``), the model never chooses it;
  * the ``\\n`` after ``<|im_end|>`` -> 0: template glue that the next prompt supplies;
  * system, user and tool turns, headers and markers included -> 0: the environment's words, not
    the model's. mini-swe-agent returns command output as *user* turns; they are masked the same;
  * the summary turn that opens a continuation sample is an assistant turn, trained like one.

Special tokens: template text (headers, ``<|im_end|>``) is encoded with special tokens recognised,
message content and tool-call JSON with special tokens read as plain text, so a transcript that
merely mentions ``<|im_end|>`` (tokenizer code does) cannot forge a turn boundary.

Shard layout: ``PREFIX.bin/.idx`` hold the token ids (an ordinary Megatron GPT shard) and
``PREFIX-loss_mask.bin/.idx`` the uint8 mask, one sequence per sample in both, same lengths.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from tokenizers import Tokenizer

from codemix.config import join, require
from codemix.document import Document
from mixtures.chat import ChatTemplate, Segment, render_turn
from mixtures.indexed_dataset import IndexedDatasetWriter
from mixtures.transcripts import last_test_summary

LOSS_MASK_SUFFIX = "-loss_mask"
OutcomePolicy = Literal["any", "submitted", "exit_ok", "tests_passed"]
# Which metadata fact each policy reads (facts are recorded by the transcript reader).
POLICY_FACT = {"submitted": "submitted", "exit_ok": "exit_status", "tests_passed": "tests_passed"}

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


@dataclass(slots=True, kw_only=True)
class SFTConfig:
    """Which transcripts become SFT samples, and how they are rendered and split.

    ``outcome_policy`` (facts as the transcript reader records them):
      * ``any``: every run, whatever its outcome;
      * ``submitted``: the agent submitted a result (``info.submission``/``exit_status``, or its
        last action was the submit action); autosubmissions on a cost limit count;
      * ``exit_ok``: the run ended with an ``exit_status`` in ``ok_exit_statuses`` (default only
        a clean ``submitted``, not ``submitted (exit_cost)`` nor ``exit_error``/``exit_format``);
      * ``tests_passed``: ``info.tests_passed``/``resolved``, or the last test run in the
        transcript passed.
    A run whose fact is not recorded is ``outcome_unknown``: dropped unless ``unknown_outcome: keep``.
    """

    outcome_policy: OutcomePolicy = "submitted"
    unknown_outcome: Literal["drop", "keep"] = "drop"
    ok_exit_statuses: list[str] = field(default_factory=lambda: ["submitted"])  # compared case-insensitively
    # Tool names a call may use; empty = the tools the transcript declares (metadata["tools"]), or
    # any name when it declares none.
    known_tools: list[str] = field(default_factory=list)
    min_turns: int = 2  # messages after cleaning, per transcript
    max_turns: int = 1000
    min_tokens: int = 16  # trained tokens per sample; fewer teach little and cost a pack slot
    summary_max_tokens: int = 1024  # content tokens of a continuation's summary turn
    summary_prefix: str = "Summary of the work so far:\n"
    template: ChatTemplate = field(default_factory=ChatTemplate)

    def validate(self, path: str) -> None:
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
        if message["role"] == "assistant":
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

    The reader keeps arguments that are not a JSON object verbatim as a string, so a string here
    means the model emitted something no tool could parse. ``known_tools`` empty accepts any name.
    """
    for call in message["tool_calls"]:
        if known_tools and call["name"] not in known_tools:
            return "malformed_tool_call_unknown_tool"
        if not isinstance(call["arguments"], dict):
            return "malformed_tool_call_arguments"
    return None


# --- rendering and tokenizing ---------------------------------------------------------------------


def render_segments(messages: Sequence[dict[str, Any]], config: SFTConfig) -> list[Segment]:
    """Every message's segments, in order; joined, they are the rendered transcript."""
    return [segment for message in messages for segment in render_turn(message, config.template)]


def tokenize_segments(segments: Sequence[Segment], tokenizer: Tokenizer) -> tuple[np.ndarray, np.ndarray]:
    """``(ids int32 [T], loss mask uint8 [T])`` of the joined segments, tokenized as the chat template's
    text is at inference (see ``_encode_units``); no post-processor tokens (BOS/EOS) are added."""
    return _encode_units([segments], tokenizer)[0]


def tokenize_turns(
    messages: Sequence[dict[str, Any]], tokenizer: Tokenizer, config: SFTConfig
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(ids, mask)`` per message, from one batched encode of the whole transcript. A message starts
    and ends with the template's special tokens, so its ids are those of the whole rendered text."""
    return _encode_units([render_turn(message, config.template) for message in messages], tokenizer)


def _encode_units(units: Sequence[Sequence[Segment]], tokenizer: Tokenizer) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each unit's segments joined and tokenized the way ``tokenizer`` reads the joined text, as a chat
    template's output is read at inference: the special tokens of template text are single ids and
    split the text, and what lies between two of them is encoded as one piece. Encoding segment by
    segment instead would cut merges that span a segment boundary (``>{`` of ``<tool_call>{"name"``),
    so the model would train on ids it never sees when served. Special-token look-alikes in message
    content stay plain text (a transcript that mentions ``<|im_end|>`` cannot forge a turn boundary).
    A token's mask is that of the segment holding its first character."""
    marker = _special_token_pattern(tokenizer)
    plans = [_split_at_markers(unit, marker, tokenizer) for unit in units]
    runs = [text for plan in plans for text, _, _ in plan if text]
    encoded = iter(_encode_plain(tokenizer, runs))
    results = []
    for plan in plans:
        ids: list[int] = []
        mask: list[int] = []
        for text, special_id, trainable_at in plan:
            if special_id is not None:
                ids.append(special_id)
                mask.append(trainable_at[0])
            elif text:
                encoding = next(encoded)
                ids += encoding.ids
                mask += [trainable_at[start] for start, _ in encoding.offsets]
        results.append((np.array(ids, dtype=np.int32), np.array(mask, dtype=np.uint8)))
    return results


def _special_token_pattern(tokenizer: Tokenizer) -> re.Pattern[str] | None:
    """A regex of the tokenizer's special tokens, longest first (None when it has none)."""
    specials = sorted({t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special}, key=len,
                      reverse=True)
    return re.compile("|".join(map(re.escape, specials))) if specials else None


def _split_at_markers(segments: Sequence[Segment], marker: re.Pattern[str] | None,
                      tokenizer: Tokenizer) -> list[tuple[str, int | None, list[int]]]:
    """The joined segments as ``(plain text, None, trainable flag per char)`` runs and
    ``("", special id, [flag])`` markers; markers are looked for in template text only."""
    plan: list[tuple[str, int | None, list[int]]] = []
    text, flags = [], []
    for segment in segments:
        cursor = 0
        matches = marker.finditer(segment.text) if segment.markup and marker is not None else ()
        for match in matches:
            text.append(segment.text[cursor:match.start()])
            flags += [int(segment.trainable)] * (match.start() - cursor)
            plan.append(("".join(text), None, flags))
            plan.append(("", tokenizer.token_to_id(match.group()), [int(segment.trainable)]))
            text, flags, cursor = [], [], match.end()
        text.append(segment.text[cursor:])
        flags += [int(segment.trainable)] * (len(segment.text) - cursor)
    plan.append(("".join(text), None, flags))
    return plan


def _encode_plain(tokenizer: Tokenizer, texts: Sequence[str]) -> list[Any]:
    """Encodings of ``texts`` with special tokens read as plain text, in one batch call (a call
    costs ~0.5 ms of thread-pool overhead, so a single text goes through ``encode``)."""
    if not texts:
        return []
    saved = tokenizer.encode_special_tokens
    try:
        tokenizer.encode_special_tokens = True
        if len(texts) == 1:
            return [tokenizer.encode(texts[0], add_special_tokens=False)]
        return tokenizer.encode_batch(list(texts), add_special_tokens=False)
    finally:
        tokenizer.encode_special_tokens = saved  # the tokenizer is shared with other stages


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
    first_user = next((m["content"] for m in messages if m["role"] == "user" and m["content"].strip()), "")
    return _one_line(first_user, TASK_CHARS)


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


def _actions(message: dict[str, Any], open_file: str) -> list[tuple[str, list[str], str]]:
    """``(command, files edited, open file after it)`` for each action of an assistant turn."""
    if message["role"] != "assistant":
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
    name, args = call["name"], call["arguments"] if isinstance(call["arguments"], dict) else {}
    path = next((args[key] for key in PATH_ARGUMENTS if isinstance(args.get(key), str)), "")
    command = args.get("command") if isinstance(args.get("command"), str) else args.get("cmd")
    if isinstance(command, str) and (name in SHELL_TOOLS or not path):
        return command, _shell_edits(command), open_file
    editor_write = args.get("command") in EDITOR_WRITE_COMMANDS
    edited = (path or open_file) if (EDIT_TOOL_NAME.search(name) or editor_write) else ""
    shown = " ".join(str(v) for v in args.values() if isinstance(v, str | int | float))
    return f"{name} {shown}".strip(), [edited] if edited else [], path if name == "open" and path else open_file


def _shell_edits(command: str) -> list[str]:
    """Files a shell command writes, judged on its first line (a heredoc body is data) with quoted
    strings blanked (``->`` in a sed script or ``python -c`` is no redirect), per ``&&``/``;``/``|`` part."""
    first = QUOTED.sub("''", command.strip().split("\n", 1)[0])
    found = []
    for part in COMMAND_SEPARATOR.split(first):
        found += SED_IN_PLACE.findall(part) + REDIRECT_TARGET.findall(part) + TEE_TARGET.findall(part)
    return [path for path in dict.fromkeys(found) if path != "/dev/null" and ("." in path or "/" in path)]


def continuation_summary(messages: Sequence[dict[str, Any]], split: int, summary_turns: Sequence[int]) -> str:
    """The summary opening a sample that resumes at ``messages[split]``.

    The transcript's own summary wins when it was written before ``split`` (the latest such),
    followed by the extractive summary of the turns between it and ``split``. A summary written
    later describes turns the sample has not reached; training on it would teach the model to
    state outcomes it has not seen, so then the extractive summary is used instead.
    """
    own = [i for i in summary_turns if i < split]
    if not own:
        return extractive_summary(messages[:split])
    latest = max(own)
    since = extractive_summary(messages[:split], since=latest + 1)
    return "\n".join(part for part in (messages[latest]["content"].strip(), since) if part)


def fit_to_tokens(text: str, tokenizer: Tokenizer, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` (content encoding): whole lines from the end first
    (an extractive summary puts its least useful lines last), then characters of the last line."""
    lines = text.split("\n")
    per_line = [len(e.ids) + 1 for e in _encode_plain(tokenizer, lines)]  # +1: the "\n"
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
    return len(_encode_plain(tokenizer, [text])[0].ids)


# --- samples --------------------------------------------------------------------------------------


def sft_samples(
    doc: Document, tokenizer: Tokenizer, sequence_length: int, config: SFTConfig
) -> tuple[list[SFTSample], Counter[str]]:
    """The SFT samples of one transcript, each at most ``sequence_length`` tokens, and the reasons
    (with counts) for everything dropped on the way: the whole transcript (outcome, turn counts),
    assistant turns with malformed tool calls, or a sample.

    A trajectory is split only between *rounds* (an assistant turn and the results answering it),
    so a tool call and its result stay together. The first sample starts at the first message;
    every later one starts with the system prompt and the task (masked), then an assistant summary
    turn of what came before (trained; see ``continuation_summary``), then the next rounds.
    A round that does not fit even a fresh continuation ends the trajectory there
    (``round_exceeds_sequence_length``; the samples before it are kept): cutting an assistant turn
    would teach stopping mid-action, and cutting an observation would train reasoning about text
    the model cannot see. A sample with fewer than ``min_tokens`` trained tokens is dropped
    (``sample_too_few_trained_tokens``).
    """
    reason = outcome_drop_reason(doc, config)
    if reason:
        return [], Counter([reason])
    raw = doc.metadata.get("messages") or []
    # summary_turns index the reader's messages; clean_turns keeps the same dicts, so follow them by identity.
    flagged = {id(raw[i]) for i in doc.metadata.get("summary_turns", []) if i < len(raw)}
    messages, reasons = clean_turns(raw, config, doc.metadata.get("tools") or ())
    reason = turns_drop_reason(messages, config)
    if reason:
        return [], reasons + Counter([reason])
    summary_turns = [i for i, message in enumerate(messages) if id(message) in flagged]
    builder = _SampleBuilder(messages, tokenize_turns(messages, tokenizer, config), tokenizer, sequence_length,
                             config, summary_turns)
    samples, cut = builder.build()
    reasons += Counter(["round_exceeds_sequence_length"] * cut)
    kept = [s for s in samples if int(s.loss_mask.sum()) >= config.min_tokens]
    reasons += Counter(["sample_too_few_trained_tokens"] * (len(samples) - len(kept)))
    return kept, reasons


def turns_drop_reason(messages: Sequence[dict[str, Any]], config: SFTConfig) -> str | None:
    """``too_few_turns``, ``too_many_turns`` or ``no_assistant_turns`` for the cleaned messages."""
    if len(messages) < config.min_turns:
        return "too_few_turns"
    if len(messages) > config.max_turns:
        return "too_many_turns"
    if not any(m["role"] == "assistant" for m in messages):
        return "no_assistant_turns"
    return None


def rounds(messages: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    """``[start, end)`` of each round: an assistant turn and the messages up to the next one."""
    starts = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    return list(zip(starts, [*starts[1:], len(messages)]))


def preamble_indices(messages: Sequence[dict[str, Any]]) -> list[int]:
    """The messages every continuation repeats: the system messages before the first assistant turn
    and the task (the first user message)."""
    head = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    system = [i for i in range(head) if messages[i]["role"] == "system"]
    task = next((i for i in range(head) if messages[i]["role"] == "user"), None)
    return sorted(system + ([task] if task is not None else []))


class _SampleBuilder:
    """Greedy split of one tokenized trajectory into samples (the algorithm of ``sft_samples``)."""

    def __init__(self, messages, turns, tokenizer, sequence_length, config, summary_turns):
        self.messages, self.turns, self.tokenizer = messages, turns, tokenizer
        self.limit, self.config, self.summary_turns = sequence_length, config, summary_turns

    def build(self) -> tuple[list[SFTSample], int]:
        """``(samples, 1 if the trajectory was cut short else 0)``."""
        plan = rounds(self.messages)
        head = plan[0][0]
        parts, start, continuation, samples = [self.turns[i] for i in range(head)], 0, False, []
        for begin, end in plan:
            size = sum(len(self.turns[i][0]) for i in range(begin, end))
            if _length(parts) + size > self.limit:
                if begin == head and not continuation:  # only the first prompt so far, and still no room
                    return samples, 1
                samples.append(_sample(parts, (start, begin), continuation))
                parts, start, continuation = self._continuation(begin, self.limit - size), begin, True
                if parts is None:
                    return samples, 1
            parts += [self.turns[i] for i in range(begin, end)]
        samples.append(_sample(parts, (start, len(self.messages)), continuation))
        return samples, 0

    def _continuation(self, split: int, room: int) -> list[tuple[np.ndarray, np.ndarray]] | None:
        """System prompt + task (masked) + the trained summary turn, for a sample resuming at
        ``split``, in at most ``room`` tokens; None when no summary of MIN_SUMMARY_TOKENS fits.
        The summary gets ``summary_max_tokens`` or whatever room the next round leaves, if less."""
        preamble = [self.turns[i] for i in preamble_indices(self.messages)]
        text = continuation_summary(self.messages, split, self.summary_turns)
        budget = self.config.summary_max_tokens
        while budget >= min(MIN_SUMMARY_TOKENS, self.config.summary_max_tokens):
            summary = self._summary_turn(fit_to_tokens(text, self.tokenizer, budget))
            overflow = _length(preamble) + len(summary[0]) - room
            if overflow <= 0:
                return [*preamble, summary]
            budget = min(budget, int(summary[1].sum())) - overflow  # content + turn_end tokens
        return None

    def _summary_turn(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        summary = {"role": "assistant", "content": self.config.summary_prefix + text, "tool_calls": [],
                   "tool_call_id": "", "name": ""}
        return tokenize_segments(render_turn(summary, self.config.template), self.tokenizer)


def _length(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> int:
    return sum(len(ids) for ids, _ in parts)


def _sample(parts: Sequence[tuple[np.ndarray, np.ndarray]], turns: tuple[int, int], continuation: bool) -> SFTSample:
    return SFTSample(tokens=np.concatenate([ids for ids, _ in parts]),
                     loss_mask=np.concatenate([mask for _, mask in parts]), turns=turns, is_continuation=continuation)


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
