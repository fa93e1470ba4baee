"""Agent transcript formats -> canonical messages (see ``canonical``) and outcome facts.

Which format a value is, is decided by its structure (``detect``), never its file name; ``format:`` on
a source forces one. The order below matters only where shapes overlap: the formats with their own
markers come before the generic chat list that would also accept them.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import itertools
import json
import re
from typing import Any

from codemix.mixtures.transcript_formats.aider import AIDER
from codemix.mixtures.transcript_formats.aider_llm import AIDER_LLM_HISTORY
from codemix.mixtures.transcript_formats.anthropic import ANTHROPIC, CLAUDE_CODE, CLAUDE_CODE_EXPORT
from codemix.mixtures.transcript_formats.attributes import PRINTED_ATTRIBUTES
from codemix.mixtures.transcript_formats.banners import BANNER_TURNS, is_python_module
from codemix.mixtures.transcript_formats.base import Format, Transcript
from codemix.mixtures.transcript_formats.canonical import (
    MAX_JSON_DEPTH,
    UNSPACED_LETTER,
    TranscriptShapeError,
    is_spoken,
    message,
    nested_deeper_than,
)
from codemix.mixtures.transcript_formats.cline_ui import CLINE_UI
from codemix.mixtures.transcript_formats.codex import CODEX
from codemix.mixtures.transcript_formats.consolelog import console_transcripts, repl_transcripts
from codemix.mixtures.transcript_formats.copied import fenced_copies
from codemix.mixtures.transcript_formats.embedded import page_values
from codemix.mixtures.transcript_formats.event_labels import EVENT_LABELS
from codemix.mixtures.transcript_formats.events import printed_event_logs
from codemix.mixtures.transcript_formats.flattened import unflattened
from codemix.mixtures.transcript_formats.genai_spans import genai_conversations
from codemix.mixtures.transcript_formats.glyphs import glyph_turns, repl_turns
from codemix.mixtures.transcript_formats.keyed_log import KEYED_LOG
from codemix.mixtures.transcript_formats.mapped import mapped_transcripts
from codemix.mixtures.transcript_formats.markdown import MARKDOWN_TURNS
from codemix.mixtures.transcript_formats.markers import (
    CHAIN_LOG,
    LABELLED_DIALOGUE,
    MARKER_TURNS,
    PRINTED_MESSAGES,
    marker_log,
)
from codemix.mixtures.transcript_formats.moatless import MOATLESS
from codemix.mixtures.transcript_formats.moatless_tree import MOATLESS_TREE
from codemix.mixtures.transcript_formats.notebooks import cell_task, code_cells, is_notebook, joined, shown_file_task
from codemix.mixtures.transcript_formats.openai import OPENAI_CHAT, OPENAI_RESPONSES
from codemix.mixtures.transcript_formats.openhands import OPENHANDS_EVENT_LINES, OPENHANDS_EVENTS, OPENHANDS_MESSAGES
from codemix.mixtures.transcript_formats.outcomes import outcome_facts
from codemix.mixtures.transcript_formats.printed import (
    assigned_prompts,
    attribute_reply,
    code_tree,
    detect_printed_objects,
    lone_replies,
    names_read,
    parse_printed_objects,
    record_transcripts,
    sent_messages,
)
from codemix.mixtures.transcript_formats.quoted import QUOTED_TURNS
from codemix.mixtures.transcript_formats.rendered import TEMPLATE_TURNS
from codemix.mixtures.transcript_formats.request_log import REQUEST_LOG
from codemix.mixtures.transcript_formats.said import SAID_TURNS, WORKED_TURNS
from codemix.mixtures.transcript_formats.scored import decode_embedded, http_calls
from codemix.mixtures.transcript_formats.serialised import unserialised
from codemix.mixtures.transcript_formats.shape import (
    ID_KEYS,
    RUN_ID_KEYS,
    SHAPE,
    TURN_LINES,
    empty_conversation,
    nested_branch,
    parse_scored,
    parse_shape,
    task_text,
    turn_lines_after_header,
)
from codemix.mixtures.transcript_formats.sharegpt import SHAREGPT
from codemix.mixtures.transcript_formats.stamps import without_stamps
from codemix.mixtures.transcript_formats.swe_agent import MINI_SWE_AGENT, SWE_AGENT, SWE_AGENT_ROWS
from codemix.mixtures.transcript_formats.text_turns import (
    LOGGED_CALLS,
    REACT_TEXT,
    detect_speaker_turns,
    parse_speaker_turns,
)
from codemix.mixtures.transcript_formats.tool_blocks import TOOL_BLOCKS
from codemix.mixtures.transcript_formats.turns import ROLE_ALIASES, speaker_of, turn_messages
from codemix.mixtures.transcript_formats.web_pages import (
    HTML_MESSAGES,
    alternating_messages,
    detect_html_messages,
    page_text,
    parse_alternating_messages,
    parse_html_messages,
)
from codemix.mixtures.transcript_formats.yaml_data import nested_yaml
from codemix.sources import turn_path_tokens

JSON_FORMATS = (CLAUDE_CODE_EXPORT, CLINE_UI, MOATLESS, MOATLESS_TREE, OPENHANDS_EVENTS, SWE_AGENT, SWE_AGENT_ROWS, MINI_SWE_AGENT, OPENHANDS_MESSAGES,
                OPENAI_RESPONSES, ANTHROPIC, SHAREGPT, OPENAI_CHAT, SHAPE)
SESSION_FORMATS = (CODEX, CLAUDE_CODE, OPENHANDS_EVENT_LINES, TURN_LINES)
# Text formats tried after a file was tried as YAML, a Python literal and a table (a YAML recording prints
# message objects in its bodies; the file's own notation reads them better).


def read_console(text: Any) -> list[Transcript] | None:
    """A console log's runs (``consolelog``): its views without framing read by the other text formats, else
    by its actor headers."""
    return console_transcripts(text, others=lambda view: parse_text(view, exclude=CONSOLE_LOG))


def read_html(text: Any) -> list[Transcript] | None:
    """An HTML page's conversation: its message elements (``web_pages``), else its visible text read by the
    formats that read turns labelled in words (said-labels, headed turns, speaker labels)."""
    if not isinstance(text, str) or "<" not in text[:5000]:
        return None
    if detect_html_messages(text):
        return parse_html_messages(text)
    rendered = page_text(text)
    fmt = next((f for f in PAGE_TEXT_FORMATS if rendered and f.detect(rendered)), None)
    if fmt is None:  # no writer named in the page's elements or words: two kinds of one element taking turns
        return parse_alternating_messages(text) if alternating_messages(text) else None
    transcripts = fmt.parse(rendered)
    for transcript in transcripts:
        transcript.extra["page_text"] = transcript.format
        transcript.format = HTML_MESSAGES.name
    return transcripts


HTML_PAGES = Format(name=HTML_MESSAGES.name, container="text", detect=lambda text: bool(read_html(text)),
                    parse=lambda text: read_html(text) or [])
CONSOLE_LOG = Format(name="console-log", container="text", detect=lambda text: bool(read_console(text)),
                     parse=lambda text: read_console(text) or [])
def read_printed_objects(text: str) -> list[Transcript]:
    """``printed.parse_printed_objects`` with the JSON readers (``parse_json_value``): printed records read as JSON;
    where no printed record names a role, the printed objects that hold an event log (``events``)."""
    if detect_printed_objects(text):
        return parse_printed_objects(text, parse_json_value)
    return record_transcripts(printed_event_logs(text), parse_json_value)


# What reads a page's visible text: the formats of turns labelled in words (their labels survive rendering).
# Speakers' names, unless the text is a log of calls and results under markers (``markers.marker_log``: its names,
# ``Model:`` and ``Tools:`` in a banner, would bury the calls in the turns; ``marker-turns`` reads it).
SPEAKER_TURNS = Format(name="speaker-turns", container="text", parse=parse_speaker_turns,
                       detect=lambda text: detect_speaker_turns(text) and not marker_log(text))
PAGE_TEXT_FORMATS = (SAID_TURNS, MARKDOWN_TURNS, SPEAKER_TURNS, MARKER_TURNS, LABELLED_DIALOGUE)
PRINTED_OBJECTS = Format(name="printed-objects", container="text", detect=lambda text: detect_printed_objects(text) or (
    isinstance(text, str) and bool(printed_event_logs(text))), parse=read_printed_objects)
# A chat REPL's session (``glyphs.repl_turns``) is read before the printed readers: its answers may show message
# objects (a model explaining a tool-call format), examples it wrote, not a run it printed. A CLI's screen whose
# glyphs mark the model's turns and tools (``glyph_turns``) stays the console reader's.
REPL_SESSIONS = Format(name=CONSOLE_LOG.name, container="text",
                       detect=lambda text: isinstance(text, str) and repl_turns(text) is not None and glyph_turns(text) is None,
                       parse=repl_transcripts)
LATE_TEXT_FORMATS = (REPL_SESSIONS, CHAIN_LOG, PRINTED_OBJECTS, PRINTED_MESSAGES, PRINTED_ATTRIBUTES, MARKER_TURNS, LABELLED_DIALOGUE, EVENT_LABELS, CONSOLE_LOG, TOOL_BLOCKS,
                     KEYED_LOG)
TEXT_FORMATS = (HTML_PAGES, TEMPLATE_TURNS, AIDER, AIDER_LLM_HISTORY, SAID_TURNS, WORKED_TURNS, MARKDOWN_TURNS, QUOTED_TURNS, REQUEST_LOG, LOGGED_CALLS, REACT_TEXT, SPEAKER_TURNS, BANNER_TURNS,
                *LATE_TEXT_FORMATS)
FORMAT_NAMES = tuple(dict.fromkeys(f.name for f in (*SESSION_FORMATS, *JSON_FORMATS, *TEXT_FORMATS)))

__all__ = [
    "FORMAT_NAMES",
    "Format",
    "Transcript",
    "TranscriptShapeError",
    "has_task",
    "observation_as_task",
    "opening_step_as_context",
    "outcome_facts",
    "parse_json_value",
    "parse_session",
    "parse_text",
    "rows_of",
    "session_format",
    "statement_as_task",
    "system_as_task",
    "with_speakers",
]


def formats_named(name: str | None, candidates: tuple[Format, ...]) -> tuple[Format, ...]:
    return candidates if name is None else tuple(f for f in candidates if f.name == name)


def parse_json_value(value: Any, forced: str | None = None, speakers: dict[str, str] | None = None,
                     turns: Any = None) -> list[Transcript]:
    """The transcripts in one JSON value (a whole file, or one JSONL line).

    The named formats come first; a value none of them detects, or one whose adapter refuses it (a
    ``messages`` list with a role the adapter does not know), is read by its shape (``shape``) unless a
    format is forced; after an adapter's refusal, only when every speaker is a role alias. A value
    holding only empty turn lists is ``empty_conversation``. ``speakers``: the roles a source gives the
    speaker names of a multi-agent log (read by shape). ``turns``: a source's ``TurnMapping``; when given,
    the value is read through it alone (``mapped``)."""
    if nested_deeper_than(value, MAX_JSON_DEPTH):
        value, unread = unnested_trees(value)  # a long conversation kept as a nested tree: deep by its turns only
        if nested_deeper_than(value, MAX_JSON_DEPTH):
            raise TranscriptShapeError(f"nested deeper than {MAX_JSON_DEPTH} levels")
        return with_unread_branches(parse_json_value(value, forced, speakers, turns), unread)
    if turns is not None:
        return with_record_ids(mapped_transcripts(value, turn_path_tokens(turns.path) or [], turns.role,
                                                  turns.content, turns.task, speakers), value)
    candidates = formats_named(forced, JSON_FORMATS)
    if forced is None:
        value = unserialised(value)  # messages kept as their class's constructor call (LangChain's ``dumpd``)
    if forced is None and is_notebook(value):
        return notebook_transcripts(value)
    if forced is None and (blocks := run_blocks(value)) is not None:
        with contextlib.suppress(TranscriptShapeError):  # one log of several runs: each run its own transcript
            return [t for block in blocks for t in parse_json_value(block, None, speakers)]
    if forced is None and (conversations := genai_conversations(value)):
        # OpenTelemetry GenAI spans: each conversation's messages and calls in the order the spans started
        return [Transcript(format="shape", messages=turn_messages(turns), extra={"layout": "genai-spans"},
                           stated_roles=True) for turns in conversations]
    for candidate in candidates:
        if candidate is SHAPE and forced is None and (runs := http_calls(value)):
            # a recording of HTTP calls: each run of calls its own transcript (``scored.http_calls``)
            with contextlib.suppress(TranscriptShapeError):
                return [t for run in runs for t in parse_json_value(run, None, speakers)]
        if candidate.detect(value):
            if candidate is SHAPE:
                return without_resent_prefixes(with_scored_task(parse_shape(value, speakers=speakers), value, forced,
                                                                speakers))
            try:
                return with_record_ids(with_record_task(candidate.parse(value), value), value)
            except TranscriptShapeError as error:
                if forced is not None or candidate is SHAPE or not SHAPE.detect(value):
                    raise
                adapter_error = error
            try:
                return parse_shape(value, aliases_only=True)
            except TranscriptShapeError:
                pass
            if two_sides_one_named(value) or named_dialogue(value):  # ``client``/``counselor``; ``guard``/``prisoner``
                with contextlib.suppress(TranscriptShapeError):
                    return parse_shape(value)
            raise adapter_error from None
    if forced is not None and not candidates:
        raise TranscriptShapeError(f"format {forced} is not read from a JSON value (its files are JSONL sessions "
                                   "or text)")
    if forced is None and (flat := unflattened(value)) is not value:
        with contextlib.suppress(TranscriptShapeError):  # a tracer's attributes (``gen_ai.prompt.0.role``)
            return parse_json_value(flat, None, speakers)
    if (empty := empty_conversation(value)) is not None:
        raise TranscriptShapeError(f"empty_conversation: {empty} holds no turns")
    if forced is None:
        with contextlib.suppress(TranscriptShapeError):
            return with_record_ids(scored_fallback(value, speakers), value)
    raise TranscriptShapeError(f"{describe(value)} is no transcript layout; tried "
                               f"{', '.join(f.name for f in candidates)}")


def unnested_trees(value: Any) -> tuple[Any, list[int]]:
    """``value`` with each message tree kept nested (``shape.nested_branch``: LibreChat's recursive export, each
    turn holding its answers under ``children``) replaced by the branch it reads, a flat turn list, and the turns
    left on each tree's other branches, in document order. A tree nests two levels a turn, so a conversation of
    fifty turns passes ``MAX_JSON_DEPTH``; read as its branch it is as deep as one turn. Iterative, as
    ``nested_deeper_than`` is."""
    holder, unread = [value], []
    stack: list[Any] = [holder]
    while stack:
        node = stack.pop()
        inner = []
        for key, child in list(node.items()) if isinstance(node, dict) else list(enumerate(node)):
            if isinstance(child, list) and (nested := nested_branch(child)) is not None:
                node[key] = nested[0]
                unread.append(nested[1])
            elif isinstance(child, (dict, list)):
                inner.append(child)
        stack += reversed(inner)  # first child on top: trees are met in document order
    return holder[0], unread


def with_unread_branches(transcripts: list[Transcript], unread: list[int]) -> list[Transcript]:
    """``transcripts`` read from unnested trees with each tree's unread turns counted (``branch_unread``): tree
    by tree when each made one transcript, else all on the first (counted, never lost)."""
    if not transcripts or not any(unread):
        return transcripts
    counts = unread if len(unread) == len(transcripts) else [sum(unread)] + [0] * (len(transcripts) - 1)
    for transcript, count in zip(transcripts, counts, strict=True):
        if count:
            transcript.extra["branch_unread"] = transcript.extra.get("branch_unread", 0) + count
    return transcripts


def two_sides_one_named(value: Any) -> bool:
    """Whether a message list an adapter refused is a two-party dialogue whose speakers are one role alias of
    a person or the model and one name (SMILE's ``client``/``counselor``): shape maps the name to the other side."""
    messages = value.get("messages") if isinstance(value, dict) else value
    if not isinstance(messages, list) or len(messages) < 2:
        return False
    speakers = {s.lower() for m in messages[:500] if (s := speaker_of(m))}
    sides = {ROLE_ALIASES.get(s) for s in speakers}
    return len(speakers) == 2 and len(sides & {"user", "assistant"}) == 1 and None in sides


def named_dialogue(value: Any) -> bool:
    """Whether a message list an adapter refused is a multi-party dialogue whose speakers are all names, none a
    role alias (a simulation's ``guard``/``prisoner``/``warden`` under ``role``): at least four turns, two
    speakers or more, each speaking twice or more, the speaker changing at most turns. Shape then maps the
    names as any multi-agent log (the first to speak sets the task)."""
    messages = value.get("messages") if isinstance(value, dict) else value
    if not isinstance(messages, list) or len(messages) < 4:
        return False
    speakers = [(speaker_of(m) or "").lower() for m in messages[:500]]
    counts = collections.Counter(speakers)
    if "" in counts or len(counts) < 2 or any(ROLE_ALIASES.get(s) for s in counts) or min(counts.values()) < 2:
        return False
    return sum(a != b for a, b in itertools.pairwise(speakers)) * 2 >= len(speakers) - 1


def notebook_transcripts(value: dict) -> list[Transcript]:
    """The runs a notebook's code cells printed (``notebooks``), each cell's output read as a text
    transcript; a run with no task of its own opens with the task the cell's source gave."""
    transcripts = []
    try:
        cells = code_cells(value)
    except ValueError as error:
        raise TranscriptShapeError(str(error)) from None
    prompts = cell_prompts(value)
    for index, text, cell in cells:
        read = parse_text(text)
        if not read and transcripts and (reply := answer_after_output(transcripts[-1], text, cell, prompts.get(index))):
            transcripts[-1].messages.extend(reply)  # ``final_response``: the model answers the tool's output
            continue
        read = read or replies_with_prompt(text, prompts.get(index), cell)
        for transcript in read:
            if not has_task(transcript.messages) and (task := cell_task(cell) or shown_file_task(value["cells"], index)):
                head = next((i for i, m in enumerate(transcript.messages) if m["role"] != "system"), 0)
                transcript.messages.insert(head, message("user", task))
                # the prompt the cell's code passes to the agent (a string literal), else a file the notebook showed
                transcript.extra["task_from"] = "code" if task == cell_task(cell) else "file"
            transcript.extra["cell"] = index
            transcripts.append(transcript)
    transcripts = without_reprints(transcripts)
    if not transcripts:
        raise TranscriptShapeError(f"a notebook of {len(value['cells'])} cells whose outputs hold no conversation")
    said = [[(m["role"], m["content"]) for m in t.messages] for t in transcripts]
    return [t for i, t in enumerate(transcripts)  # a run a later cell prints again, longer, is that run
            if not any(j > i and len(other) > len(said[i]) and other[:len(said[i])] == said[i] for j, other in enumerate(said))]


def answer_after_output(previous: Transcript, text: str, cell: dict, prompt: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The model's reply a cell prints alone (``printed.lone_replies``, ``printed.attribute_reply``) when the
    notebook's run before it ends with a tool's output and the request the cell's code sends (its messages or its
    task, if it writes one) opens that run (a list the notebook kept appending to): the turn that run was waiting for (its canonical
    messages), else nothing."""
    if previous.format != "printed-objects" or not previous.messages or not previous.messages[-1]["observation"]:
        return []
    asked = next((m["content"].strip() for m in previous.messages if m["role"] == "user"), None)
    sends = next((str(r.get("content") or "").strip() for r in prompt if r["role"] == "user"), None) if prompt else (
        cell_task(cell).strip() or None)
    if sends is not None and sends != asked:
        return []  # the cell sends another conversation (its own messages, or a task of its own)
    replies = lone_replies(text) or attribute_reply(joined(cell.get("source")), text)
    read = record_transcripts(replies[:1], parse_json_value) if len(replies) == 1 else []
    return [m for t in read for m in t.messages if m["role"] == "assistant"]


def cell_prompts(value: dict) -> dict[int, list[dict[str, Any]]]:
    """For each code cell, the request of a reply it prints alone: the message list a call of the cell is sent
    written out (``create(messages=[...])``), else, of the message lists the notebook assigned at or before it
    (cells run in order; ``printed.assigned_prompts``), the latest one held by a name the cell's code reads
    (``get_completion(messages, ...)``, ``response`` assigned the result of a call sent ``messages=[...]``)."""
    prompts: dict[int, list[dict[str, Any]]] = {}
    held: dict[str, tuple[int, list[dict[str, Any]] | None]] = {}
    order = 0
    for index, cell in enumerate(value["cells"]):
        if not (isinstance(cell, dict) and cell.get("cell_type") == "code") or (tree := code_tree(joined(cell.get("source")))) is None:
            continue
        for name, records in assigned_prompts(tree):
            order += 1
            held[name] = (order, records)
        read = [held[name] for name in names_read(tree) if name in held and held[name][1]]
        inline = [sent for node in getattr(tree, "body", []) if isinstance(node, ast.Expr) and (sent := sent_messages(node.value))]
        if inline or read:  # a call the cell makes with its messages written out, else the latest request it reads
            prompts[index] = inline[-1] if inline else max(read, key=lambda entry: entry[0])[1]
    return prompts


def replies_with_prompt(text: str, prompt: list[dict[str, Any]] | None, cell: dict) -> list[Transcript]:
    """A cell that printed only the model's reply (``printed.lone_replies``): the reply after the request its
    code gave, the message list last assigned (``cell_prompts``), else the task its source passes to a call;
    nothing when the code holds neither."""
    replies = lone_replies(text) or attribute_reply(joined(cell.get("source")), text)
    if not replies:
        return []
    opening = prompt or ([{"role": "user", "content": task}] if (task := cell_task(cell)) else [])
    return record_transcripts([[*opening, *reply] for reply in replies], parse_json_value) if opening else []


def without_reprints(transcripts: list[Transcript]) -> list[Transcript]:
    """The console runs of a notebook without those another cell printed again (an agent's view of a run
    printed after the run): a run every line of whose model turns is in another run's model turns, unless it
    sets a task that the other does not (then it is the fuller print), and of two equal prints the later.
    Other formats' runs are kept as read (two prompts may get the same printed call)."""
    said = [{" ".join(line.split()) for m in t.messages if m["role"] == "assistant" and t.format == "console-log"
             for line in m["content"].splitlines() if line.strip()} for t in transcripts]
    tasks = [has_task(t.messages) for t in transcripts]
    dropped: set[int] = set()
    for i, own in enumerate(said if len(transcripts) <= 200 else []):
        if own and any(j != i and j not in dropped and own <= other and (own != other or j < i)
                       and (tasks[j] or not tasks[i]) for j, other in enumerate(said)):
            dropped.add(i)
    return [t for i, t in enumerate(transcripts) if i not in dropped]


def run_blocks(value: Any) -> list[list] | None:
    """A list of turns that keeps several runs one after another, each turn marked with its run's id
    (``task_id``...): the runs, in order (each id one block of at least two turns on average), else None."""
    if not isinstance(value, list) or len(value) < 4 or not all(isinstance(v, dict) and speaker_of(v) for v in value):
        return None
    for key in RUN_ID_KEYS:
        if not all(isinstance(v.get(key), (str, int)) and not isinstance(v.get(key), bool) for v in value):
            continue
        blocks = [list(group) for _, group in itertools.groupby(value, key=lambda v: v[key])]
        if 2 <= len(blocks) == len({b[0][key] for b in blocks}) and len(blocks) * 2 <= len(value):
            return blocks
    return None


def without_resent_prefixes(transcripts: list[Transcript]) -> list[Transcript]:
    """Shape's transcripts less those another one of the same value begins with and goes on from: the same
    conversation sent again, longer (a recording of calls whose requests grow by the last reply and result),
    is that one run, read once at its longest. Compared on each turn's role, text and calls, in linear time."""
    if len(transcripts) < 2:
        return transcripts
    trie: dict = {}
    ends = []
    for transcript in transcripts:
        node = trie
        for m in transcript.messages:
            key = (m["role"], m["content"], json.dumps([[c.get("name"), c.get("arguments")] for c in m.get("tool_calls") or []]))
            node = node.setdefault(key, {})
        ends.append(node)
    return [t for t, end in zip(transcripts, ends) if not end or not t.messages]


def with_scored_task(transcripts: list[Transcript], value: Any, forced: str | None,
                     speakers: dict[str, str] | None) -> list[Transcript]:
    """Shape's transcripts, unless none of them has a task (lists of tool calls found below the turns that
    set them) and the scored reading of the value (``scored_fallback``) has one and reads more messages:
    then that reading."""
    if forced is not None or any(has_task(t.messages) or not t.messages for t in transcripts):
        return transcripts
    try:
        scored = scored_fallback(value, speakers, reread=False)
    except TranscriptShapeError:
        return transcripts
    read = sum(len(t.messages) for t in transcripts)
    return scored if any(has_task(t.messages) for t in scored) and sum(len(t.messages) for t in scored) > read \
        else transcripts


def scored_fallback(value: Any, speakers: dict[str, str] | None = None, reread: bool = True) -> list[Transcript]:
    """A value no format and no shape rule reads: the same value with its JSON-in-strings decoded; a
    recording of HTTP exchanges as the model calls it holds (``scored.http_calls``), else the decoded value
    read again by every format, else its best candidate sequence by score (``scored``)."""
    decoded = decode_embedded(value)
    if decoded is not value and reread:
        with contextlib.suppress(TranscriptShapeError):
            return parse_json_value(decoded, None, speakers)
    return parse_scored(decoded, speakers)


def with_record_task(transcripts: list[Transcript], value: Any) -> list[Transcript]:
    """A transcript a named format read with no task of its own (the steps of a ``trajectory`` kept without
    the history that held the task) opens with the task its record keeps beside the run (``query``,
    ``problem_statement``..., as ``shape`` reads a record's task), after any system turn."""
    task = task_text([value], nested=True) if isinstance(value, dict) else ""
    for transcript in transcripts if task.strip() else []:
        if not has_task(transcript.messages) and not any(m["content"].strip() == task.strip() for m in transcript.messages):
            head = next((i for i, m in enumerate(transcript.messages) if m["role"] != "system"), len(transcript.messages))
            transcript.messages.insert(head, message("user", task))
    return transcripts


def with_record_ids(transcripts: list[Transcript], value: Any) -> list[Transcript]:
    """Each transcript of a one-record value gets the record's own id (``record_id``) when its format
    recorded none, so every sample traces back to its file and record."""
    if len(transcripts) != 1 or not isinstance(value, dict):
        return transcripts
    rid = next((str(value[k]) for k in ID_KEYS if isinstance(value.get(k), (str, int))
                and not isinstance(value.get(k), bool) and str(value[k]).strip()), "")
    if rid and "record_id" not in transcripts[0].extra:
        transcripts[0].extra["record_id"] = rid
    return transcripts


# The keys that make an object one row of a dataset (one transcript), as opposed to one message or event.
ROW_KEYS = ("messages", "trajectory", "history", "conversations", "loglines")


def rows_of(value: Any) -> list[Any] | None:
    """The rows of a JSON array of row objects (``[{messages: [...]}, ...]``, as datasets are published),
    or None when ``value`` is no such array (a message list, an event list, a single transcript)."""
    if not (isinstance(value, list) and value and all(isinstance(row, dict) for row in value[:50])):
        return None
    return value if all(any(isinstance(row.get(k), list) for k in ROW_KEYS) for row in value[:50]) else None


def with_speakers(messages: list[dict[str, Any]], speakers: dict[str, str] | None) -> list[dict[str, Any]]:
    """The messages with the roles a source's ``speakers`` gives the names they carry (case aside): a text
    format's agents' dialogue read the other way round (``speakers: {Claude: user, Codex: assistant}``). A
    message whose name is not listed keeps its role; a tool's role marks the message an observation."""
    if not speakers:
        return messages
    roles = {name.lower(): role for name, role in speakers.items()}
    return [{**m, "role": roles[m["name"].lower()], "observation": roles[m["name"].lower()] == "tool"}
            if m.get("name") and m["name"].lower() in roles else m for m in messages]


def named_parties(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A conversation whose every turn (the system's aside) has the same role but several names is a group of
    parties the log did not tell apart (AG2's group chat keeps each agent's message as role ``user`` with its
    ``name``): its opening turn, when it calls no tool, set the task (``user``), every later turn is a party's
    reply (``assistant``, its name kept; the opener speaking again is one of the parties, as in a game of
    equal players). Anything else is returned as it is."""
    said = [i for i, m in enumerate(messages) if m["role"] != "system"]
    turns = [messages[i] for i in said]
    if (len({m["name"] for m in turns}) < 2 or any(not m["name"] or m["observation"] for m in turns)
            or len({m["role"] for m in turns}) != 1 or turns[0]["role"] not in ("user", "assistant")
            or turns[0]["tool_calls"]):
        return messages
    return [m if i not in said else {**m, "role": "user" if i == said[0] else "assistant"}
            for i, m in enumerate(messages)]


def has_task(messages: list[dict[str, Any]]) -> bool:
    """Whether a person (not the harness) set the task: a user turn with text before the model's first turn."""
    for canonical in messages:
        if canonical["role"] == "assistant" and not canonical["observation"]:
            return False
        if canonical["role"] == "user" and not canonical["observation"] and canonical["content"].strip():
            return True
    return False


def system_as_task(messages: list[dict[str, Any]]) -> bool:
    """A run in which the model speaks before any user turn (a saved agent state, an agent started by
    its instructions alone) took its task from its system prompt: that prompt becomes the opening user
    turn, in place (context either way, never trained). True when it did; a run with no system text
    either stays without a task (the reader's ``no_task``)."""
    first_model = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    if any(m["role"] == "user" and not m["observation"] and m["content"].strip() for m in messages[:first_model]):
        return False
    system = [i for i, m in enumerate(messages[:first_model]) if m["role"] == "system" and m["content"].strip()]
    if not system or first_model == len(messages):
        return False
    messages[system[-1]] = {**messages[system[-1]], "role": "user"}
    return True


def observation_as_task(messages: list[dict[str, Any]]) -> bool:
    """A run the environment opens (its first observation, the room or page the agent starts in, comes
    before the model's first turn and no user turn sets a task) took its task from that observation: it
    becomes the opening user turn, in place (context either way, never trained). True when it did."""
    first_model = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    if first_model == len(messages) or any(
            m["role"] == "user" and not m["observation"] and m["content"].strip() for m in messages[:first_model]):
        return False
    seen = next((i for i, m in enumerate(messages[:first_model]) if m["observation"] and m["content"].strip()), None)
    if seen is None:
        return False
    messages[seen] = {**messages[seen], "role": "user", "observation": False, "tool_call_id": ""}
    return True


def statement_as_task(messages: list[dict[str, Any]]) -> bool:
    """A run no request reaches (a subagent's export, a run its parent started): where no user turn, system
    prompt or observation comes before the model's first turn, and that turn is prose alone (no call: the
    model saying what it was asked to do, "I'll run the extraction script on the Barkley book") that the
    model's next turn follows directly, that statement is the context the rest answers: it becomes the opening user
    turn, in place (context, never trained; nothing is invented). True when it did; a run that opens with a
    call, a first turn the environment or a person answered (a step that acted), a question (it waits for an
    answer the run lost), or a run the model says nothing more in, stays without a task (``no_task``)."""
    models = [i for i, m in enumerate(messages) if m["role"] == "assistant" and not m["observation"]]
    if len(models) < 2 or models[1] != models[0] + 1 or any(m["content"].strip() for m in messages[:models[0]]):
        return False  # a first turn something answered (a step's output, a person) acted: it states nothing
    first = messages[models[0]]
    if first["tool_calls"] or first.get("reasoning") or len(first["content"].split()) < 4 or not is_spoken(first["content"]):
        return False
    if first["content"].rstrip().endswith(("?", "？")):
        return False  # a question waits for someone's answer: the run lost the turns between, it states nothing
    messages[models[0]] = {**first, "role": "user", "name": ""}
    return True


# A statement: four runs of letters on its first line before any code's bracket, brace or ``=`` (a bare move,
# ``right``, a command or a printed object, ``Assistant Message: ChatCompletionMessage(content=''``, says nothing).
STATED_WORD = re.compile(r"[^\W\d_]{2,}")
CODE_MARK = re.compile(r"[(){}\[\]<>=$`]")


def stated(line: str) -> bool:
    """Words enough to state something: four runs of letters, or eight letters of a script written without spaces
    (``我将帮您规划哈尔滨7日游的每日行程``: round 16, its runs are clauses, not words)."""
    return len(STATED_WORD.findall(line)) >= 4 or len(UNSPACED_LETTER.findall(line)) >= 8


def opening_step_as_context(messages: list[dict[str, Any]]) -> bool:
    """A run no request reaches that the model opens by acting (browser-use's first step, a ReAct agent's first
    call: the request sat in a caller the file does not keep) and whose opening turn says in words what it sets
    out to do ("The user wants me to fill out the form on the current page", in its text or its reasoning): that
    opening step, the turn and what answered it, is the context the rest continues from. The turn stays the
    model's, flagged an observation (rendered, never trained), so no trained turn acts with nothing before it.
    True when it did; an opening with no statement (a bare move), a question no one in the run answers, or a run
    the model says nothing more in is not."""
    models = [i for i, m in enumerate(messages) if m["role"] == "assistant" and not m["observation"]]
    if len(models) < 2 or any(m["role"] == "user" and not m["observation"] and m["content"].strip()
                              for m in messages[:models[0]]):
        return False
    first = messages[models[0]]
    said = [text.strip().splitlines()[0] for text in (first["content"], first.get("reasoning") or "") if text.strip()]
    if not any(stated(CODE_MARK.split(line, 1)[0]) for line in said):
        return False
    if first["content"].rstrip().endswith(("?", "？")) and not any(m["role"] == "user" for m in messages[models[0]:]):
        return False  # a question ("How can I help you today?") waits for a person's answer the run lost
    messages[models[0]] = {**first, "observation": True}
    return True


def says_nothing(value: Any) -> bool:
    """Whether a record holds no words: every string in it a single token (ids, modes, timestamps)."""
    if isinstance(value, str):
        return len(value.split()) <= 1
    if isinstance(value, dict):
        return all(says_nothing(v) for v in value.values())
    return not isinstance(value, list) or all(says_nothing(v) for v in value)


def session_format(first_entry: Any, forced: str | None = None, following: list | None = None) -> Format | None:
    """The session format whose files hold ``first_entry`` as a line, if any; else, given the lines
    ``following`` it, ``turn-lines`` when the file is turns after a header line or two (a session record,
    metadata) that carry no text."""
    fmt = None
    for entry in [first_entry, *(following or [])]:
        fmt = next((f for f in formats_named(forced, SESSION_FORMATS) if f.detect(entry)), None)
        if fmt is not None or not says_nothing(entry):
            break  # a header record that says nothing (a harness's newer ``permission-mode`` line) decides nothing
    if fmt is None and forced in (None, TURN_LINES.name) and following and turn_lines_after_header(
            [first_entry, *following]):
        return TURN_LINES
    return fmt


def parse_session(fmt: Format, entries: list[Any]) -> list[Transcript]:
    if any(nested_deeper_than(entry, MAX_JSON_DEPTH) for entry in entries):
        raise TranscriptShapeError(f"an entry nested deeper than {MAX_JSON_DEPTH} levels")
    return fmt.parse(entries)


def parse_text(text: str, forced: str | None = None, late: bool | None = None,
               exclude: Format | None = None) -> list[Transcript] | None:
    """The transcripts of a text format, or None when the text is in none of them. ``late``: only the formats
    tried after other notations (``LATE_TEXT_FORMATS``, True) or only the others (False); all when None.
    ``exclude``: a format not to try (the console reader reading its own views)."""
    if forced is None and is_python_module(text):
        return None  # a source file is no run, whatever its docstrings and fenced examples print
    if forced is not None and nested_yaml(text):
        # YAML data is no run in any text format, forced too (unforced files are judged so by the file reader
        # before any text format is tried: pipelines/readers/transcripts.py)
        return None
    # Windows line ends (an export saved on Windows: SpecStory's Cursor history) read as ``\n``, as Python's text
    # mode reads them: every text format finds its lines with ``$`` and ``\n``. A lone ``\r`` (a terminal's
    # overwrite) stays.
    text = fenced_copies(text.replace("\r\n", "\n"))  # a chat page's code blocks copied without fences (``copied``)
    formats = TEXT_FORMATS if late is None or forced is not None else tuple(
        f for f in TEXT_FORMATS if (f in LATE_TEXT_FORMATS) == late)
    formats = tuple(f for f in formats if f is not exclude)
    fmt = next((f for f in formats_named(forced, formats) if f.detect(text)), None)
    if fmt is None and forced is None and late is not False and exclude is None:
        return page_data_transcripts(text)
    return None if fmt is None else with_code_task(without_stamps(fmt.parse(text)), text)


PYTHON_FENCE = re.compile(r"^[ \t]*```(?:python|py|python3)?[ \t]*\n(.*?)^[ \t]*```", re.MULTILINE | re.DOTALL)


def with_code_task(transcripts: list[Transcript], text: str) -> list[Transcript]:
    """A page's runs with no request of their own take the one the page's code passes to the agent: the prose
    string literal its Python blocks pass to a call (``agent.run("Could you give me the 118th Fibonacci
    number?")``, ``notebooks.cell_task``), when the page's code passes exactly one (a page of many examples
    says not which run each started). Context, never trained; ``task_from: code``."""
    waiting = [t for t in transcripts if t.messages and not has_task(t.messages)]
    if not waiting or "```" not in text:
        return transcripts
    literals = {task for block in PYTHON_FENCE.findall(text) if (task := cell_task({"source": block}))}
    if len(literals) != 1:
        return transcripts
    task = literals.pop()
    for transcript in waiting:
        head = next((i for i, m in enumerate(transcript.messages) if m["role"] != "system"), 0)
        transcript.messages.insert(head, message("user", task))
        transcript.extra["task_from"] = "code"
    return transcripts


def page_data_transcripts(text: str) -> list[Transcript] | None:
    """The conversations a Markdown page keeps as data (``embedded.page_values``: fenced JSON, tables), each
    value read like a JSON file; None when no value holds one. Each transcript says which value it came from
    (``extra.block``: the fenced documents first, then the tables, in page order)."""
    found = []
    for index, value in enumerate(page_values(text)):
        try:
            transcripts = parse_json_value(value)
        except TranscriptShapeError:
            continue
        for transcript in transcripts:
            if transcript.messages:
                transcript.extra["block"] = index
                found.append(transcript)
    return found or None


def describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object with keys {sorted(map(str, value))[:10]}"
    if isinstance(value, list):
        return f"a list of {len(value)} items" + (f" (the first: {describe(value[0])})" if value else "")
    return f"a JSON {type(value).__name__}"
