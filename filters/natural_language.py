"""Prose quality for README/Markdown/reST/text files and transcript messages, by datatrove.

Design notes: docs/design/filters.md, "filters/natural_language.py".
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import html
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from codemix.config import join, require
from codemix.document import Document
from codemix.kinds import MESSAGES, document_kind

if TYPE_CHECKING:  # datatrove is imported where a checker is built or used: ~0.3 CPU s per process otherwise
    from datatrove.pipeline.filters import GopherQualityFilter, GopherRepetitionFilter
    from datatrove.pipeline.filters.base_filter import BaseFilter

# doc.language values (pipelines/readers/language.py) whose whole text is prose.
PROSE_LANGUAGES = frozenset({"markdown", "restructuredtext", "asciidoc", "text"})
PROSE_ROLES = frozenset({"user", "assistant"})
# The names a prose drop reason starts with (``<filter>:<datatrove's reason>``).
PROSE_FILTERS = ("gopher_quality", "gopher_repetition", "fineweb_quality")
# A line of one punctuation character repeated (reST adornments, setext underlines, rules, code
# fences) or a table border (``+----+``, ``| --- | :-: |``). spaCy splits ``=====`` into one token
# per character, which reads as a huge repeated 4-gram: reST READMEs failed top_4_gram on this alone.
_MARKUP_LINE = re.compile(
    r"^[ \t]*(?:([^\w\s])\1{2,}|[+|](?:[-=:+| ]*[-=]{3,}[-=:+| ]*)[+|]?)[ \t\r]*$\n?", re.MULTILINE)  # CRLF too
# A Markdown line of HTML tags only (``<tr>``, ``</td>``, ``<div class="feature">``): table and layout markup.
_HTML_TAG_LINE = re.compile(r"^[ \t]*(?:</?[A-Za-z][^<>\n]*>[ \t]*)+\r?$\n?", re.MULTILINE)
# A fenced block in a chat message is a command or code, not prose; mini-swe-agent's tool calls are these.
# ``\r`` before the newline too: task texts copied from GitHub issues end their lines in CRLF.
_FENCED_BLOCK = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t\r]*$\n?", re.MULTILINE | re.DOTALL)
# In one turn of a transcript, a fenced block also takes the line above it when that line is one path-like
# word (aider's edit blocks name the file they edit so), and a block the reply was cut inside (no closing
# fence) runs to the end of the turn, as CommonMark reads an unclosed fence. aider's other fences
# (``all_fences`` in aider/coders/base_coder.py: ``<source>``, ``<code>``, ``<pre>``, ``<codeblock>``,
# ``<sourcecode>``, the language after the tag) fence code in a reply as ``` does.
_PATH_LINE = r"(?:[ \t]*[^\s`<]*[./\\][^\s`<]*[ \t\r]*\n)?"
_TURN_FENCED_BLOCK = re.compile("^" + _PATH_LINE + r"[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t\r]*$\n?|\Z)",
                                re.MULTILINE | re.DOTALL)
_TAG_FENCED_BLOCK = re.compile("^" + _PATH_LINE + r"[ \t]*<(source|code|pre|codeblock|sourcecode)>[^\n]*\n.*?"
                               r"(?:^[ \t]*</\1>[ \t\r]*$\n?|\Z)", re.MULTILINE | re.DOTALL)
# A tool call written as text in a model turn, up to its closing tag (or the end of the turn, when the
# model stopped before closing it): ``<function=NAME>`` with ``<parameter=...>`` (SWE-smith, OpenHands
# without function calling, CodeAct-style agents), SWE-agent's XML ``<command>``, CodeAct's
# ``<execute_bash>``/``<execute_ipython>``, Hermes ``<tool_call>`` and Anthropic's legacy ``<invoke>``.
TEXT_ACTION = re.compile(
    r"<function=[^>\n]*>.*?(?:</function>|\Z)"
    r"|<(command|execute_bash|execute_ipython|execute_browse|tool_call|function_calls|invoke)\b[^>\n]*>.*?(?:</\1>|\Z)",
    re.DOTALL)
_WORD = re.compile(r"[^\W\d_]+")
# Where a sentence ends inside a line: the spaces after ``.``, ``!`` or ``?`` (not a list number's ``1.``),
# or right after a full-width ``。``, ``！`` or ``？``.
_SENTENCE_END = re.compile(r"(?<=[^\s\d][.!?])[ \t]+|(?<=[。！？])")
# Letters of scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, Han): datatrove's
# English tokenizer reads a sentence of them as one word, so Gopher's word statistics say nothing of them.
_UNSPACED_LETTER = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# What judges a text: a file's prose (every filter), a transcript's whole prose (quality only), one
# model reply (repetition as a loop: ``NaturalLanguageChecker.reply_steps``).
Judgement = Literal["prose", "trace", "reply"]


@dataclass(slots=True, kw_only=True)
class NaturalLanguageConfig:
    """Thresholds handed to datatrove's filters; ``0`` turns a check off (datatrove skips falsy ones)."""

    enabled: bool = True
    check_transcripts: bool = True  # judge the user/assistant prose of transcripts too
    # Below this many words of prose a transcript is not judged at all (the filters abstain): a short,
    # resolved agent run says little besides its actions, and too few words say nothing about quality.
    # 50 is datatrove's own ``min_doc_words``, the least it judges web text on.
    min_transcript_prose_words: int = 50
    # Likewise a Markdown file whose fenced code or tables carry it (cobra's man-page recipe: two sentences around
    # a Go program; a plugin's README over its table of aliases): below this many words outside its code blocks
    # and tables it is a code example or a reference table, not prose.
    min_markdown_prose_words: int = 50
    # Below this many words of prose a repository's page is not judged: a short README saying what a folder holds
    # ("Default testbench, helper modules and GHDL simulation scripts."), a one-sentence SECURITY.md or a page
    # pointing to a separate repository has too few words for Gopher's counts of words and stop words, which were
    # set on web pages (neorv32's five short pages, abapGit's SECURITY.md: the eleventh holdout; runc's SECURITY.md:
    # the second). 0: every page judged.
    min_repository_prose_words: int = 50
    # Repetition in a transcript is judged as a degenerate loop, in each model reply on its own (see
    # ``judged_texts``): a sentence a reply says this many times or more is a loop and every copy is
    # judged; said fewer times (a plan restated once), it counts once.
    min_loop_repeats: int = 3
    # Gopher's stop words are English ones ("the", "be", "to", "of", "and", "that", "have", "with"): a trace
    # in another language (aider sessions a model answered in Spanish or French) has none, whatever its
    # quality. 0 (off): transcripts are not judged by it; their other quality checks still are.
    min_transcript_stop_words: int = 0
    # GopherQualityFilter
    min_doc_words: int = 20  # datatrove 50: "what it is and how to install it" is a fine README
    max_doc_words: int = 100_000
    min_avg_word_length: float = 3.0
    max_avg_word_length: float = 15.0  # datatrove 10: a URL is one word; READMEs measured up to 13.5
    max_symbol_word_ratio: float = 0.2  # datatrove 0.1: '#' opens every Markdown heading
    max_bullet_lines_ratio: float = 0.9
    max_ellipsis_lines_ratio: float = 0.3
    # datatrove 0.8 (its ``max_non_alpha_words_ratio``): spaCy counts each ``(`` ``]`` ``*`` ``|`` as a
    # word, and Markdown is full of them; READMEs measured 0.36-0.74, median 0.59.
    min_alpha_words_ratio: float = 0.3
    min_stop_words: int = 2
    # GopherRepetitionFilter: duplicated lines/paragraphs keep datatrove's values (they catch spam)
    dup_line_frac: float = 0.3
    dup_para_frac: float = 0.3
    dup_line_char_frac: float = 0.2
    dup_para_char_frac: float = 0.2
    # n -> max character fraction; twice datatrove's: install/usage sections repeat the package name
    # and `from x import y`: 15 of 99 READMEs fail datatrove's n-gram thresholds, 2 fail these.
    top_ngram_char_frac: dict[int, float] = field(default_factory=lambda: {2: 0.4, 3: 0.36, 4: 0.32})
    dup_ngram_char_frac: dict[int, float] = field(
        default_factory=lambda: {5: 0.3, 6: 0.28, 7: 0.26, 8: 0.24, 9: 0.22, 10: 0.2})
    # Off: 43 of 99 READMEs fail its line_punct_ratio (headings and list items end without a period).
    fineweb_quality: bool = False

    def validate(self, path: str) -> None:
        # datatrove divides by the word count and averages word lengths: both need a word.
        require(self.min_doc_words >= 1, join(path, "min_doc_words"), "must be at least 1")
        for name in ("min_transcript_prose_words", "min_markdown_prose_words", "min_transcript_stop_words",
                     "min_repository_prose_words"):
            require(getattr(self, name) >= 0, join(path, name), "must not be negative")
        require(self.min_loop_repeats >= 2, join(path, "min_loop_repeats"), "must be at least 2")
        for name in ("min_alpha_words_ratio", "max_bullet_lines_ratio", "max_ellipsis_lines_ratio",
                     "dup_line_frac", "dup_para_frac", "dup_line_char_frac", "dup_para_char_frac"):
            require(0 <= getattr(self, name) <= 1, join(path, name), "must be between 0 and 1")
        for name in ("top_ngram_char_frac", "dup_ngram_char_frac"):
            for n, fraction in getattr(self, name).items():
                require(n >= 1 and 0 <= fraction <= 1, join(join(path, name), str(n)),
                        "needs n >= 1 and a fraction between 0 and 1")


class NaturalLanguageChecker:
    """datatrove's filter objects, built from the config on first use (spaCy's tokenizer is created lazily
    by datatrove in each process, never pickled): a worker that judges no prose never imports datatrove,
    ~0.4 CPU s each."""

    def __init__(self, config: NaturalLanguageConfig):
        self.config = config

    @functools.cached_property
    def steps(self) -> list[tuple[str, BaseFilter]]:
        from datatrove.pipeline.filters import FineWebQualityFilter

        steps: list[tuple[str, BaseFilter]] = [
            ("gopher_quality", gopher_quality_filter(self.config)),
            ("gopher_repetition", gopher_repetition_filter(self.config)),
        ]
        if self.config.fineweb_quality:
            steps.append(("fineweb_quality", FineWebQualityFilter()))
        return steps

    @functools.cached_property
    def reply_steps(self) -> list[tuple[str, BaseFilter]]:
        """A reply's loop checks: repeated paragraphs and lines (sentences, in ``reply_prose``) and the top
        n-grams. Not the duplicated n-grams: a passage said twice (a summary echoing the intro) is no loop."""
        loop = copy.copy(gopher_repetition_filter(self.config))
        loop.dup_n_grams = ()
        return [("gopher_repetition", loop)]

    @functools.cached_property
    def trace_steps(self) -> list[tuple[str, BaseFilter]]:
        """A whole trace: the quality checks, Gopher's stop words at ``min_transcript_stop_words``, and no longest
        document: a run's length says nothing of its quality (a long session is cut into samples when shaped;
        Gopher's ``max_doc_words`` was set on web pages, and it dropped the sixteenth holdout's 860-message VS Code
        chat whole)."""
        trace = copy.copy(self.steps[0][1])
        trace.min_stop_words = self.config.min_transcript_stop_words or None
        trace.max_doc_words = None
        return [("gopher_quality", trace)] + [(n, s) for n, s in self.steps[2:]]

    def steps_for(self, judgement: Judgement, text: str = "") -> list[tuple[str, BaseFilter]]:
        steps = {"prose": self.steps, "trace": self.trace_steps, "reply": self.reply_steps}[judgement]
        if judgement != "trace":
            return steps
        return [(name, lengths_judged(lines_judged(step, text), text)) for name, step in steps]

    def drop_reason(self, prose: str, judgement: Judgement = "prose") -> str | None:
        """``<filter>:<datatrove's reason>`` for the first filter that drops ``prose``, else ``None``."""
        from datatrove.data import Document as DatatroveDocument
        from datatrove.pipeline.filters.base_filter import get_filter_result

        document = DatatroveDocument(text=prose, id="")
        for name, step in self.steps_for(judgement, prose):
            keep, reason = get_filter_result(step.filter(document))
            if not keep:
                return f"{name}:{reason or 'dropped'}"
        return None

    def drop_reasons(self, prose: str, judgement: Judgement = "prose") -> tuple[str, ...]:
        """Every check ``prose`` fails, the first (``drop_reason``) first. datatrove stops at the first
        failing check; each later one is found by judging again with the checks found so far unset."""
        from datatrove.data import Document as DatatroveDocument
        from datatrove.pipeline.filters.base_filter import get_filter_result

        document = DatatroveDocument(text=prose, id="")
        reasons: list[str] = []
        for name, step in self.steps_for(judgement, prose):
            while step is not None:
                keep, reason = get_filter_result(step.filter(document))
                if keep:
                    break
                reasons.append(f"{name}:{reason or 'dropped'}")
                step = without_check(step, reason or "")
        return tuple(reasons)


# The attribute of datatrove's Gopher filters that guards the check behind each reason (each check
# runs only when its attribute is truthy). ``max_symbol_word_ratio`` guards both the hash and the
# ellipsis check: after a hash drop the ellipsis check is not judged again.
CHECK_GUARDS = {
    "gopher_short_doc": "min_doc_words", "gopher_long_doc": "max_doc_words",
    "gopher_below_avg_threshold": "min_avg_word_length", "gopher_above_avg_threshold": "max_avg_word_length",
    "gopher_too_many_hashes": "max_symbol_word_ratio", "gopher_too_many_ellipsis": "max_symbol_word_ratio",
    "gopher_too_many_bullets": "max_bullet_lines_ratio", "gopher_too_many_end_ellipsis": "max_ellipsis_lines_ratio",
    "gopher_below_alpha_threshold": "max_non_alpha_words_ratio", "gopher_enough_stop_words": "min_stop_words",
    "dup_para_frac": "dup_para_frac", "dup_para_char_frac": "dup_para_char_frac",
    "dup_line_frac": "dup_line_frac", "dup_line_char_frac": "dup_line_char_frac",
}
_NGRAM_REASON = re.compile(r"top_(\d+)_gram|duplicated_(\d+)_n_grams")


def without_check(step: BaseFilter, reason: str) -> BaseFilter | None:
    """A copy of ``step`` with the check behind ``reason`` unset, or None when no attribute guards it
    (FineWeb's checks, ``empty``): nothing further can be judged."""
    ngram = _NGRAM_REASON.fullmatch(reason)
    if reason not in CHECK_GUARDS and ngram is None:
        return None
    step = copy.copy(step)
    if reason in CHECK_GUARDS:
        setattr(step, CHECK_GUARDS[reason], None)
    elif ngram.group(1):
        step.top_n_grams = tuple((n, f) for n, f in step.top_n_grams if n != int(ngram.group(1)))
    else:
        step.dup_n_grams = tuple((n, f) for n, f in step.dup_n_grams if n != int(ngram.group(2)))
    return step


# Gopher's bounds on a word's mean length, in characters: set on English, where a word is three to ten letters. A
# word of Hangul is two or three syllable blocks (each holding two or three letters), of Cyrillic or Greek longer:
# lengths in characters say nothing of such text (round 18: a Korean diabetes assistant's log, 39 of its 52 runs
# dropped as ``gopher_below_avg_threshold``).
WORD_LENGTH_CHECKS = ("min_avg_word_length", "max_avg_word_length")


def lengths_judged(step: BaseFilter, text: str) -> BaseFilter:
    """``step`` without its word-length bounds when most of ``text``'s letters are not Latin (a trace in Korean,
    Russian, Arabic): the bounds were set on English words."""
    if not any(getattr(step, name, None) for name in WORD_LENGTH_CHECKS) or mostly_latin(text):
        return step
    return without_checks(step, WORD_LENGTH_CHECKS)


def mostly_latin(text: str) -> bool:
    """Whether at least half of ``text``'s letters are Latin (ASCII letters and Latin's accented ones)."""
    letters = [c for c in text if c.isalpha()]
    return not letters or 2 * sum(1 for c in letters if c < "\u0250") >= len(letters)


# Gopher's checks on the share of lines that start with a bullet or end with an ellipsis (web pages of
# truncated excerpts); the attribute that holds each share's threshold.
LINE_SHARE_CHECKS = ("max_bullet_lines_ratio", "max_ellipsis_lines_ratio")


def lines_judged(step: BaseFilter, text: str) -> BaseFilter:
    """``step`` without its line-share checks whose threshold one line of ``text`` would pass alone: a short
    run's prose of two lines, one ending "...", is 50% such lines (OpenAI's Assistants stream: "Let me pull up
    the number of loans handled by each agent for you..."), which says nothing of a page of cut excerpts."""
    lines = max(len(text.splitlines()), 1)
    unjudged = [name for name in LINE_SHARE_CHECKS if getattr(step, name, None) and lines * getattr(step, name) < 1]
    if not unjudged:
        return step
    return without_checks(step, unjudged)


def without_checks(step: BaseFilter, names) -> BaseFilter:
    """A copy of ``step`` with the checks held by the attributes ``names`` turned off (the shared step is left as is)."""
    step = copy.copy(step)
    for name in names:
        setattr(step, name, None)
    return step


def gopher_quality_filter(config: NaturalLanguageConfig) -> GopherQualityFilter:
    from datatrove.pipeline.filters import GopherQualityFilter

    return GopherQualityFilter(
        min_doc_words=config.min_doc_words, max_doc_words=config.max_doc_words,
        min_avg_word_length=config.min_avg_word_length, max_avg_word_length=config.max_avg_word_length,
        max_symbol_word_ratio=config.max_symbol_word_ratio, max_bullet_lines_ratio=config.max_bullet_lines_ratio,
        max_ellipsis_lines_ratio=config.max_ellipsis_lines_ratio,
        max_non_alpha_words_ratio=config.min_alpha_words_ratio, min_stop_words=config.min_stop_words,
    )


def gopher_repetition_filter(config: NaturalLanguageConfig) -> GopherRepetitionFilter:
    from datatrove.pipeline.filters import GopherRepetitionFilter

    return GopherRepetitionFilter(
        dup_line_frac=config.dup_line_frac, dup_para_frac=config.dup_para_frac,
        dup_line_char_frac=config.dup_line_char_frac, dup_para_char_frac=config.dup_para_char_frac,
        top_n_grams=tuple(sorted(config.top_ngram_char_frac.items())),
        dup_n_grams=tuple(sorted(config.dup_ngram_char_frac.items())),
    )


def prose_of(doc: Document) -> str | None:
    """The natural-language part of ``doc``, or ``None`` when it has none to judge.

    Markdown/reST/text files: the whole text less markup-only lines (heading underlines, rules,
    table borders) and, in Markdown, fenced code blocks and lines of HTML tags only. Transcripts: the user and assistant message contents (``transcript_prose``).
    Code and data files: ``None``, they are the code filters' business.
    """
    if document_kind(doc.kind).prose == MESSAGES:
        prose = transcript_prose(doc.metadata.get("messages") or [])
    elif doc.language in PROSE_LANGUAGES and is_document_prose(doc):
        # A Markdown guide's fenced blocks are code (gin's docs/doc.md repeats lines of its Go examples),
        # its HTML tables markup (fmt's doc/syntax.md repeats <tr> and <td>).
        # CRLF read as LF: datatrove splits lines on "\n" alone, so a Windows file's blank "\r" lines would
        # count as one line repeated (spdlog's README failed dup_line_frac on them).
        text = doc.text.replace("\r\n", "\n")
        prose = _MARKUP_LINE.sub("", markup_prose(text, markup_language(text, doc.language)))
    else:
        return None
    return prose if prose.strip() else None


def markup_prose(text: str, language: str) -> str:
    """A markup file's text without what is not prose: Markdown's fenced code, HTML-tag lines and heading marks
    (``## Usage`` is the heading "Usage": Gopher's hash ratio read a guide's headings as hashtags), reST's
    directives (their option lines, and the content of code-like ones), comments and literal blocks,
    AsciiDoc's delimited blocks, attribute lines and block macros."""
    if language == "markdown":
        text = _repeated_headings(_HTML_TAG_LINE.sub("", _PIPE_TABLE.sub("", _FENCED_BLOCK.sub("", text))))
        text = _LINK_DEFINITION.sub("", _LINK_DESTINATION.sub("]", text))
        return _ATX_HEADING.sub("", _CLOSING_HASHES.sub(r"\1", text))
    if language == "restructuredtext":
        return _rest_prose(text)
    if language == "asciidoc":
        return _ASCIIDOC_INLINE.sub(r"\1", _ASCIIDOC_MARKUP.sub("", _ASCIIDOC_BLOCK.sub("", text)))
    return text


# A GitHub Markdown table: a header row, its delimiter row (``| --- | :-: |``) and the rows with a ``|`` below it. Its
# cells are data (oh-my-zsh's plugin READMEs: "| dfmt | deno fmt |", an alias a row), not sentences; Gopher read a
# one-sentence README over a table of 30 aliases as prose without stop words.
_PIPE_TABLE = re.compile(r"^[^\n|]*\|[^\n]*\n[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*\r?\n"
                         r"(?:[^\n]*\|[^\n]*(?:\n|\Z))*", re.MULTILINE)
_MARKDOWN_DATA = (_FENCED_BLOCK, _PIPE_TABLE)
def _repeated_headings(text: str) -> str:
    """``text`` less each Markdown heading that repeats an earlier one: a reference's per-command "Options" and
    "Examples" sections (pipenv's commands reference, 11 and 14 of them) are its structure, not repeated paragraphs."""
    seen: set[str] = set()

    def once(found: re.Match) -> str:
        title = " ".join(found.group(1).split()).lower()
        if title in seen and _WORD.search(title):  # a section's name; a line of hashes is no heading
            return ""
        seen.add(title)
        return found.group(0)

    return _HEADING_LINE.sub(once, text)


# A link's destination and a link reference definition are addresses, not words: a changelog's "([#13056](https://github.com/
# crystal-lang/crystal/pull/13056), thanks @HertzDevil)" on every entry repeated the address's 7-grams (Gopher's
# duplicated n-grams); the link's text stays.
_LINK_DESTINATION = re.compile(r"\]\((?:[^()\s]|\([^()\s]*\))*(?:[ \t]+\"[^\"\n]*\")?\)")
_LINK_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+[^\n]*\n?", re.MULTILINE)
# A heading's optional closing hashes (CommonMark: "### Parameters ###", premake's reference pages)
_CLOSING_HASHES = re.compile(r"^([ \t]{0,3}#{1,6}[ \t]+[^\n]*?\S)[ \t]+#+[ \t]*$", re.MULTILINE)
_HEADING_LINE = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+([^\n]*\S)[ \t]*\r?\n?", re.MULTILINE)
# A Markdown ATX heading's opening hashes (CommonMark: up to three spaces, 1-6 ``#``, then a space or the line's end).
_ATX_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?=[ \t]|$)[ \t]*", re.MULTILINE)

# reST: ``.. name:: argument`` directives, ``.. _target:``/``.. |sub|`` definitions and ``..`` comments; a
# directive whose content is code or generated (code-block, literalinclude, automodule, toctree...) loses its
# indented content too, an admonition (note, warning, tab...) keeps it as prose.
_REST_EXPLICIT = re.compile(r"^([ \t]*)\.\.(?:[ \t]+(?:([\w:-]+)::|_|\||\[)|[ \t]*$|[ \t]+)")
_REST_CODE_DIRECTIVES = re.compile(
    r"^(?:code|code-block|sourcecode|literalinclude|highlight|parsed-literal|doctest|testcode|testoutput|testsetup|"
    r"ipython|jupyter-execute|program-output|command-output|math|raw|csv-table|toctree|include|graphviz|"
    r"auto\w*|[\w-]*:auto\w*|\w+-(?:command|option)[\w-]*|[\w-]*(?:usage|options)|image|figure)$")
_REST_OPTION = re.compile(r"^[ \t]+:[\w -]+:")


def _rest_prose(text: str) -> str:
    lines, kept, i = text.splitlines(keepends=True), [], 0
    while i < len(lines):
        line, match = lines[i], _REST_EXPLICIT.match(lines[i])
        if match is None:
            kept.append(line)
            literal = line.rstrip().endswith("::")
            i += 1
            if literal:  # a paragraph ending "::" introduces an indented literal block
                i = _skip_indented(lines, i, len(line) - len(line.lstrip()))
            continue
        indent, directive = len(match.group(1)), match.group(2)
        i += 1
        if directive is None or _REST_CODE_DIRECTIVES.match(directive.lower()):
            i = _skip_indented(lines, i, indent)  # a comment, a target or code: none of it is prose
        else:
            while i < len(lines) and _REST_OPTION.match(lines[i]):
                i += 1  # the directive's options; its content stays, dedented by reading
    return "".join(kept)


def _skip_indented(lines: list[str], i: int, indent: int) -> int:
    """The index past the block indented deeper than ``indent`` starting at ``i`` (blank lines inside it too)."""
    while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
        if not lines[i].strip() and i + 1 < len(lines) and lines[i + 1].strip() \
                and len(lines[i + 1]) - len(lines[i + 1].lstrip()) <= indent:
            return i + 1
        i += 1
    return i


# AsciiDoc: listing, literal, passthrough and comment blocks between delimiter lines; block attribute lines
# (``[source,java]``), attribute entries (``:toc: left``) and block macros (``include::x[]``, ``image::y[]``).
_ASCIIDOC_BLOCK = re.compile(r"^(-{4,}|\.{4,}|\+{4,}|/{4,})[ \t]*$\n.*?^\1[ \t]*$\n?", re.MULTILINE | re.DOTALL)
# An AsciiDoc page's own lines: a section title ("== Text: +(import (robin text))+", never closed by ``=`` as a
# decorated plain-text title is), a delimited block opened and closed, a block attribute line, an inline macro.
_ASCIIDOC_HEADING = re.compile(r"^={1,5}[ \t]+\S[^\n]*?(?<![= \t])[ \t]*$", re.MULTILINE)
_ASCIIDOC_SIGNS = (_ASCIIDOC_BLOCK,
                   re.compile(r"^\[(?:source|listing|literal|quote|verse|NOTE|TIP|WARNING|IMPORTANT|CAUTION|cols=)[^\]\n]*\]"
                              r"[ \t]*$", re.MULTILINE),
                   re.compile(r"\b(?:indexterm2?|xref|link|footnote|kbd|image|pass):[^\s\[\]]*\[[^\]\n]*\]"))
# An inline macro or a link is its text (``indexterm2:[Metaphone Algorithm]``, ``http://aspell.net/metaphone/[]``):
# an address is no words, as a Markdown link's destination is none; ``indexterm:[x]`` only indexes, and shows nothing.
_ASCIIDOC_INLINE = re.compile(r"\bindexterm:\[[^\]\n]*\]|\b(?:https?|ftp|mailto|link|xref|footnote|kbd|image|pass|indexterm2)"
                              r":[^\s\[\]]*\[([^\]\n]*)\]")
# A Markdown ATX heading line with a word in it (a plain text's "# comment" lines need a fence or a link beside them)
_ATX_HEADING_TEXT = re.compile(r"^#{1,6}[ \t]+[^\n#]*\w[^\n]*$", re.MULTILINE)
_ASCIIDOC_MARKUP = re.compile(r"^(?:\[[^\]\n]*\]|:[\w-]+!?:.*|[\w-]+::\S*\[.*\]|//.*)[ \t]*$\n?", re.MULTILINE)


def markup_language(text: str, language: str) -> str:
    """``language``, or for a plain-text file the markup its own lines are written in: r7rs-libs's ``doc/*.txt``
    are AsciiDoc pages ("=== Format: +(import (slib format))+" over ``[source,scheme]`` and ``----`` listings), read
    as text their listings and markup were judged as sentences. Two kinds of the markup's own lines are needed (a
    heading and a delimited block, a block attribute or an inline macro; for Markdown a heading and a fenced block
    or a link), so a note with one ``=== Notes ===`` line stays text."""
    if language != "text":
        return language
    if _ASCIIDOC_HEADING.search(text) and any(p.search(text) for p in _ASCIIDOC_SIGNS):
        return "asciidoc"
    if _ATX_HEADING_TEXT.search(text) and (_FENCED_BLOCK.search(text) or _LINK_DESTINATION.search(text)):
        return "markdown"
    return language


def page_prose(doc: Document) -> Document | None:
    """A markup page (Markdown, reST, AsciiDoc, or a text file written in one: ``markup_language``) as its prose: the
    code filters' symbol fractions read a page there, not in its listings (r7rs-libs's ``doc/slib-charplot.txt``
    draws its plots in ``----`` blocks). ``None`` for any other file, or a page with no prose outside its listings."""
    if doc.language not in PROSE_LANGUAGES:
        return None
    text = doc.text.replace("\r\n", "\n")
    language = markup_language(text, doc.language)
    if language == "text":
        return None
    prose = _MARKUP_LINE.sub("", markup_prose(text, language))
    return dataclasses.replace(doc, text=prose) if prose.strip() else None


# Plain-text files are prose only when their name says so: requirements.txt, LICENSE or a word
# list are "text" too, but judging them by English-prose statistics would drop them all.
PROSE_TEXT_NAMES = ("readme", "changelog", "changes", "history", "news", "contributing", "authors", "notice",
                    "install", "usage", "faq", "todo")


def is_document_prose(doc: Document) -> bool:
    if doc.language != "text":
        return True
    name = doc.path.rsplit("/", 1)[-1].lower()
    return name.startswith(PROSE_TEXT_NAMES) or "/doc" in f"/{doc.path.lower()}"


def transcript_prose(messages: list[dict[str, Any]]) -> str:
    """What users and assistants wrote, paragraphs joined by blank lines (``turn_prose`` of each turn).

    Left out: system prompts, tool calls, and every ``observation``: tool results, command output and
    other text the environment or the harness wrote, whatever role the format gives it (SWE-agent and
    mini-swe-agent return command output as ``user`` turns). A message without the flag (written
    before the readers set it) counts as an observation when it is a ``tool`` turn. A paragraph an
    earlier turn already said is said once: an agent restating its plan across turns is no web spam.
    """
    parts, seen = [], set()
    for message, content in prose_turns(messages):
        paragraphs = paragraphs_of(turn_prose(content))
        parts += [p for p in paragraphs if p not in seen]
        seen.update(paragraphs)
    return "\n\n".join(parts)


def prose_turns(messages: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str]]:
    """Each prose turn with its content less the output it relays: a turn that repeats a recent
    observation word for word (a multi-agent executor's "I ran the code and got the following output:
    ...", TapeAgents) quotes the environment, and the quote is no prose of its own. The last
    ``_RELAYED_OUTPUTS`` observations are looked for, so the cost stays linear in the run."""
    recent: list[str] = []
    for message in messages:
        content = message.get("content") or ""
        if is_prose_turn(message):
            for output in recent:
                content = content.replace(output, "")
            yield message, content
        elif message.get("observation", message.get("role") == "tool") and len(content.strip()) > 40:
            recent = [*recent[1 - _RELAYED_OUTPUTS:], content.strip()]


_RELAYED_OUTPUTS = 4


def reply_prose(messages: list[dict[str, Any]], min_loop_repeats: int) -> list[str]:
    """Each model reply's prose, a sentence a line, one it says fewer than ``min_loop_repeats`` times
    kept once (``without_restatements``): the texts repetition is judged on."""
    return [without_restatements(turn_prose(content), min_loop_repeats)
            for m, content in prose_turns(messages) if m.get("role") == "assistant"]


def is_prose_turn(message: dict[str, Any]) -> bool:
    return message.get("role") in PROSE_ROLES and not message.get("observation", message.get("role") == "tool")


def turn_prose(content: str) -> str:
    """A turn less its code fences (aider's tag fences, a fence cut at the end of the turn and a path
    line above a fence too), tool calls written as text (``TEXT_ACTION``) and markup-only lines."""
    if "&lt;" in content or "&#96;" in content:
        # an export that escaped its markup (SpecStory's ``&lt;tool-use&gt;`` blocks, ``&#96;&#96;&#96;`` fences) is
        # judged as it reads: its tag lines and fences are markup and code, as unescaped ones are
        content = html.unescape(content)
    code = _TAG_FENCED_BLOCK.sub("", _TURN_FENCED_BLOCK.sub("", content))
    # tag-only lines go after the calls written as text: a call's own tag lines (``<function=...>`` over its
    # ``<parameter=...>`` lines) must leave with the whole call
    code = _HTML_TAG_LINE.sub("", TEXT_ACTION.sub("", without_json_blocks(code)))
    return _DRAWN_LINE.sub("", _SYMBOL_LINE.sub("", _MARKUP_LINE.sub("", code)))


# A line drawn with box-drawing characters (a directory tree a harness lists, ``├───src/``; a terminal table's
# ``│ a │ b │``): a picture of files or cells, no sentence.
_DRAWN_LINE = re.compile(r"^[ \t]*[\u2500-\u257f][^\n]*\n?", re.MULTILINE)


# A line of a symbol or three and nothing else: a rendered table's cells (``#``, ``✅``, ``⏳``: a to-do list a
# chat page draws as a table, one cell a line), no sentence a reply repeats.
_SYMBOL_LINE = re.compile(r"^[ \t]*[^\w\s]{1,3}[ \t\r]*$\n?", re.MULTILINE)


# A line that ends by opening a JSON object or array (the rest of the value on the lines below it), or one that
# starts with one (a value written on one line: a game's telemetry a harness sends as the user's turn).
_JSON_OPENING = re.compile(r"[{\[][ \t]*$|^[ \t]*(?P<line>[{\[])", re.MULTILINE)
_LINE_REST = re.compile(r"[ \t\r]*(?:\n|$)")


def without_json_blocks(text: str) -> str:
    """``text`` less every JSON object or array written with no fence, over several lines (an agent's
    structured answer, ``{"citation_map": [...]}``) or as a line of its own (``{"cycle_id": 20, "status":
    {...}}``): data like fenced code, not prose, and its ``{``/``},`` lines are no repeated lines of a
    degenerate loop. A line that only starts like JSON (``[ ] a task``, ``[1] Gemini says:``) stays."""
    decoder, out, at = json.JSONDecoder(), [], 0
    for opening in _JSON_OPENING.finditer(text):
        whole_line = opening.group("line") is not None
        start = opening.start("line") if whole_line else opening.start()
        while not whole_line and start > at and text[start - 1] in "[{":  # ``[{`` opens the array, not its object
            start -= 1
        if start < at:
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if whole_line and not (isinstance(value, (dict, list)) and _LINE_REST.match(text, end)):
            continue  # a line that starts like JSON but goes on in words
        out.append(text[at:start])
        at = end
    return "".join(out) + text[at:] if out else text


def paragraphs_of(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n[ \t\r]*\n", text) if p.strip()]


def without_restatements(text: str, min_loop_repeats: int) -> str:
    """``text`` a sentence a line, each sentence said fewer than ``min_loop_repeats`` times kept at its
    first place only; one said that often or more is a degenerate loop, and every copy stays to be judged
    (a loop inside one line, with no line break, is then repeated lines too)."""
    paragraphs = [[s for line in p.split("\n") for s in _SENTENCE_END.split(line.strip()) if s]
                  for p in paragraphs_of(text)]
    counts = Counter(sentence for p in paragraphs for sentence in p)
    listed = listing_lines([sentence for p in paragraphs for sentence in p], counts)
    seen: set[str] = set()
    kept: list[list[str]] = []
    for sentences in paragraphs:
        kept.append([])
        for sentence in sentences:
            if (counts[sentence] >= min_loop_repeats and sentence not in listed) or sentence not in seen:
                kept[-1].append(sentence)
            seen.add(sentence)
    return "\n\n".join("\n".join(sentences) for sentences in kept if sentences)


def listing_lines(sentences: list[str], counts: Counter) -> set[str]:
    """The repeated sentences of a reply that are a listing's, not a loop's: every copy sits under a different
    item, a sentence said once. Right under it (a source cited after each item, ``(로컬 문서: carearc.org)`` under each
    of ten foods), or, for three items or more, as the nearest sentence said once above a block of repeated lines
    (the same field lines, ``- CRC: 0``, in the block of each of four interfaces under its ``INTERFAZ:
    Ethernet0/N``). A loop repeats what came before it too: a block said again, a line said over and over, sit
    under the same sentence said once, or under none; a block said twice under two openings is a restatement."""
    heads: dict[str, list[str | None]] = {}
    right_under: dict[str, bool] = {}
    head, previous = None, None  # the nearest sentence said once so far; the sentence before
    for sentence in sentences:
        if counts[sentence] == 1:
            head = previous = sentence
            continue
        heads.setdefault(sentence, []).append(head)
        right_under[sentence] = right_under.get(sentence, True) and previous is not None and previous == head
        previous = sentence
    return {sentence for sentence, items in heads.items()
            if None not in items and len(set(items)) == len(items) == counts[sentence]
            and (right_under[sentence] or len(items) >= LISTED_ITEMS)}


# A block of lines repeated under items is a listing from this many items on; said twice, it is a restatement.
LISTED_ITEMS = 3


def natural_language_drop_reason(doc: Document, checker: NaturalLanguageChecker) -> str | None:
    """Why ``doc``'s prose fails datatrove's filters (``gopher_quality:gopher_short_doc``, ...), or
    ``None``: kept, no prose in it, the stage disabled, a transcript with transcripts off, or one with
    too little prose to judge (``min_transcript_prose_words``), or a Markdown code example whose fenced
    code has too little prose around it (``min_markdown_prose_words``)."""
    for text, judgement in judged_texts(doc, checker.config):
        reason = checker.drop_reason(text, judgement)
        if reason is not None:
            return reason
    return None


def natural_language_drop_reasons(doc: Document, checker: NaturalLanguageChecker) -> tuple[str, ...]:
    """Every check ``doc``'s prose fails (``natural_language_drop_reason`` first), () when it is kept."""
    reasons = [r for text, judgement in judged_texts(doc, checker.config) for r in checker.drop_reasons(text, judgement)]
    return tuple(dict.fromkeys(reasons))


def judged_texts(doc: Document, config: NaturalLanguageConfig) -> list[tuple[str, Judgement]]:
    """The texts the filters judge, each with how (``Judgement``); [] when they abstain (see
    ``natural_language_drop_reason``).

    A file's prose is judged by every filter, unless it is mostly written in a script without spaces between
    words (``is_unspaced_prose``: difftastic's Chinese manual, English commands among its sentences): Gopher's and
    FineWeb's checks split words on spaces, count English stop words and read Latin punctuation, and say nothing
    of such text. A transcript's quality (Gopher's quality checks, FineWeb's)
    is judged on its whole prose (``transcript_prose``) unless most of its letters are of a script written
    without spaces (``is_unspaced_script``: Chinese, Japanese, Thai; datatrove's English tokenizer reads
    a sentence of them as one word), and its repetition as a degenerate loop: each
    model reply of at least ``min_transcript_prose_words`` on its own, a sentence a line, one it restates
    fewer than ``min_loop_repeats`` times counted once (``reply_prose``), by Gopher's paragraph, line and
    top n-gram checks. Gopher's repetition thresholds were set on web spam; in a trace, a loop is one
    reply saying the same thing over and over. A model restating its plan once, a summary echoing the
    intro, replies alike across turns (a greeting, a template) or a user pasting a log are none.
    """
    in_messages = document_kind(doc.kind).prose == MESSAGES
    if not config.enabled or (in_messages and not config.check_transcripts):
        return []
    if in_messages:
        messages = doc.metadata.get("messages") or []
        prose = transcript_prose(messages)
        if word_count(prose) < config.min_transcript_prose_words:
            return []
        trace: list[tuple[str, Judgement]] = [] if is_unspaced_script(prose) else [(prose, "trace")]
        return trace + [(reply, "reply") for reply in reply_prose(
            messages, config.min_loop_repeats) if word_count(reply) >= config.min_transcript_prose_words]
    prose = prose_of(doc)
    if prose is None or (doc.language == "markdown" and any(data.search(doc.text) for data in _MARKDOWN_DATA)
                         and word_count(prose) < config.min_markdown_prose_words):
        return []
    if document_kind(doc.kind).repository_file and doc.repo and word_count(prose) < config.min_repository_prose_words:
        return []  # a repository's short note is judged by nothing Gopher can measure on so few words
    return [] if is_unspaced_prose(prose) else [(prose, "prose")]


def is_unspaced_script(text: str) -> bool:
    """Most of ``text``'s letters are of scripts written without spaces between words (``_UNSPACED_LETTER``)."""
    letters = sum(1 for c in text if c.isalpha())
    return bool(letters) and len(_UNSPACED_LETTER.findall(text)) * 2 > letters


def is_unspaced_prose(text: str) -> bool:
    """More characters of ``text`` are of scripts written without spaces (``_UNSPACED_LETTER``, each about a word)
    than it has space-separated words of other letters: Chinese prose with English names and commands in it."""
    unspaced = len(_UNSPACED_LETTER.findall(text))
    return unspaced > 0 and unspaced > sum(1 for word in _WORD.finditer(text) if not _UNSPACED_LETTER.search(word.group()))


def word_count(text: str) -> int:
    """Words of letters in ``text`` (numbers and punctuation are not words a prose filter can judge)."""
    return sum(1 for _ in _WORD.finditer(text))
