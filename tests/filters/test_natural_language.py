"""datatrove's Gopher filters keep real READMEs and transcript prose, drop spam and symbol soup
under stable reasons, stay silent on near misses, and never look at code."""

from __future__ import annotations

import dataclasses
import json
import pickle
import re
from collections import Counter
from importlib.metadata import metadata
from pathlib import Path

import pytest
from datatrove.data import Document as DatatroveDocument
from datatrove.pipeline.filters import GopherQualityFilter, GopherRepetitionFilter
from datatrove.pipeline.filters.base_filter import get_filter_result

from codemix.config import ConfigError, load_config
from codemix.document import Document
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.natural_language import (
    _FENCED_BLOCK,
    _HTML_TAG_LINE,
    NaturalLanguageChecker,
    NaturalLanguageConfig,
    natural_language_drop_reason,
    prose_of,
    transcript_prose,
    word_count,
)
from codemix.pipelines.readers import read_location
from codemix.sources import TRANSCRIPT_FORMATS, ReadLimits, SourceConfig

REASON = re.compile(r"(gopher_quality|gopher_repetition|fineweb_quality):[a-z0-9_]+")
# Installed project dependencies whose PyPI long description is a real README (Markdown and reST).
README_PACKAGES = ["numpy", "smart_open", "zstandard", "datasketch", "xxhash", "apache-beam", "datatrove", "torch"]
LANGUAGE_OF_CONTENT_TYPE = {"text/markdown": "markdown", "text/x-rst": "restructuredtext"}

PROSE = (
    "This library reads and writes compressed files. It is small, has no dependencies, and works with "
    "the standard library's file objects, so that existing code can use it without changes. The module "
    "is tested on Linux, macOS and Windows with every supported version of Python.\n"
)
README = f"# tinyzip\n\n{PROSE}\n## Install\n\nRun `pip install tinyzip` and import it.\n"
SPAM_LINE = "Buy cheap followers today at the best price, click the link below to order now!\n"
SOUP = "".join(f"({i * 7919 % 100000}) <=> [{i * 104729 % 100000}] |= ~{i * 31337 % 100000};\n" for i in range(40))
KEYWORDS = ("python rust golang kotlin scala haskell erlang elixir clojure racket ocaml fsharp julia perl ruby "
            "swift dart lua zig nim crystal fortran cobol pascal prolog ada")


@pytest.fixture(scope="module")
def checker() -> NaturalLanguageChecker:
    return NaturalLanguageChecker(NaturalLanguageConfig())


def doc(text: str, language: str = "markdown", kind: str = "file", **metadata) -> Document:
    return Document(id="x", text=text, source="s", kind=kind, language=language, path="README.md",
                    metadata=metadata)


def read_transcript(path) -> Document:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], limits=ReadLimits())
    [document] = read_location(source, str(path))
    assert isinstance(document, Document), document
    return document


@pytest.mark.parametrize("package", README_PACKAGES)
def test_real_readme_is_kept(checker, package):
    info = metadata(package)
    text, content_type = info.get_payload(), info["Description-Content-Type"].split(";")[0]
    assert len(text) > 1500 and content_type in LANGUAGE_OF_CONTENT_TYPE  # a real README, not a stub
    assert natural_language_drop_reason(doc(text, LANGUAGE_OF_CONTENT_TYPE[content_type]), checker) is None


# (reason, a minimal README that triggers it, a near miss that must pass).
CASES = [
    ("gopher_repetition:dup_line_frac", README + SPAM_LINE * 12, README + SPAM_LINE * 2),
    ("gopher_repetition:dup_para_frac", README + ("\n" + SPAM_LINE) * 12, README + ("\n" + SPAM_LINE) * 2),
    ("gopher_quality:gopher_below_alpha_threshold", SOUP, README + SOUP[:200]),
    ("gopher_quality:gopher_short_doc", "# tinyzip\n\nReads compressed files.\n", README),
    ("gopher_quality:gopher_enough_stop_words", f"# Languages\n\n{KEYWORDS}\n",
     f"# Languages\n\nThe tool works with {KEYWORDS} and more.\n"),
    ("gopher_quality:gopher_too_many_hashes", README + "\n".join(["#### ### ## #"] * 15),
     README + "#### ### ## #\n"),
]


@pytest.mark.parametrize(("reason", "trigger", "near_miss"), CASES, ids=[c[0] for c in CASES])
def test_reason_triggers_and_near_miss_passes(checker, reason, trigger, near_miss):
    assert natural_language_drop_reason(doc(trigger), checker) == reason
    assert natural_language_drop_reason(doc(near_miss), checker) is None


@pytest.mark.parametrize("language", ["python", "json", "yaml", "shell", ""])
def test_code_and_data_are_never_checked(checker, language):
    spam = SPAM_LINE * 50
    assert natural_language_drop_reason(doc(spam, "markdown"), checker) is not None  # it would be dropped
    assert prose_of(doc(spam, language)) is None
    assert natural_language_drop_reason(doc(spam, language), checker) is None


def test_rest_adornments_and_table_borders_are_not_prose():
    """spaCy splits ``=====`` into one token per character, which reads as a repeated 4-gram."""
    text = "Title\n=====\n\nSome text.\n\n+-----+-----+\n| a   | b   |\n+=====+=====+\n|---|:-:|\n----\nx = y\n"
    assert prose_of(doc(text, "restructuredtext")) == "Title\n\nSome text.\n\n| a   | b   |\nx = y\n"


def test_transcript_prose_is_user_and_assistant_content_only(checker, shared_transcripts):
    """mini-swe-agent: the task, the assistant's words; not the system prompt, the fenced
    commands (its tool calls) or the command output it sends back as user turns."""
    transcript = read_transcript(shared_transcripts / "mini-swe-agent" / "local.traj.json")
    prose = prose_of(transcript)
    assert "Please solve this issue: Blah blah blah" in prose and "Here be some dummy command:" in prose
    assert "OK, now let me end this run." in prose
    for left_out in ("You are a helpful assistant", "echo 'hello world'", "<returncode>"):
        assert left_out in transcript.text and left_out not in prose
    assert natural_language_drop_reason(transcript, checker) is None


def test_swe_agent_tool_results_and_calls_are_left_out(checker, shared_transcripts):
    transcript = read_transcript(shared_transcripts / "swe-agent" / "function_calling_simple.traj")
    prose = prose_of(transcript)
    assert "We're currently solving the following issue" in prose and "missing colon" in prose
    for left_out in ("SETTING: You are an autonomous programmer", "Found 1 matches", "<tool_call>"):
        assert left_out in transcript.text and left_out not in prose
    assert natural_language_drop_reason(transcript, checker) is None


def test_repetition_counts_only_in_what_the_agent_and_user_say(checker):
    """The same log line 40 times in tool output is normal; the assistant saying one line 40 times is a loop."""
    task = {"role": "user", "content": PROSE}
    tool = {"role": "tool", "content": SPAM_LINE * 40}
    looping = {"role": "assistant", "content": SPAM_LINE * 40}
    calm = {"role": "assistant", "content": "I found the bug: the reader closes the file twice. I will fix it "
                                            "and run the tests again to make sure that nothing else breaks."}
    kept = doc("", "", "transcript", messages=[task, calm, tool], format="openai-jsonl")
    dropped = doc("", "", "transcript", messages=[task, looping, tool], format="openai-jsonl")
    assert natural_language_drop_reason(kept, checker) is None
    assert natural_language_drop_reason(dropped, checker) == "gopher_repetition:dup_line_frac"


def test_transcript_without_prose_is_not_judged(checker):
    calls_only = [{"role": "assistant", "content": "```bash\nls\n```"}, {"role": "tool", "content": "a.py"}]
    assert transcript_prose(calls_only) == ""
    assert natural_language_drop_reason(doc("", "", "transcript", messages=calls_only), checker) is None


@pytest.mark.parametrize("overrides", [{"enabled": False}, {"check_transcripts": False}])
def test_switches_turn_the_check_off(overrides):
    checker = NaturalLanguageChecker(load_config(NaturalLanguageConfig, overrides))
    looping = doc("", "", "transcript", messages=[{"role": "assistant", "content": SPAM_LINE * 40}])
    assert natural_language_drop_reason(looping, checker) is None
    assert (natural_language_drop_reason(doc(SPAM_LINE * 40), checker) is None) is ("enabled" in overrides)


def test_fineweb_quality_is_opt_in(checker):
    """Off by default: datasketch's README is fine prose, but its headings and list items end
    without a period, which FineWeb's line_punct_ratio (tuned on web pages) counts against it. Read as
    plain text (its reST code blocks stay in, as they did before issue 46 left them out of the prose)."""
    readme = doc(metadata("datasketch").get_payload(), "text")
    assert natural_language_drop_reason(readme, checker) is None
    fineweb = NaturalLanguageChecker(load_config(NaturalLanguageConfig, {"fineweb_quality": True}))
    assert natural_language_drop_reason(readme, fineweb) == "fineweb_quality:line_punct_ratio"


def test_thresholds_reach_datatrove():
    strict = NaturalLanguageChecker(load_config(NaturalLanguageConfig, {"min_doc_words": 500}))
    assert natural_language_drop_reason(doc(README), strict) == "gopher_quality:gopher_short_doc"
    off = {"dup_line_frac": 0, "dup_line_char_frac": 0, "top_ngram_char_frac": {}, "dup_ngram_char_frac": {}}
    relaxed = NaturalLanguageChecker(load_config(NaturalLanguageConfig, off))
    assert natural_language_drop_reason(doc(README + SPAM_LINE * 12), relaxed) is None


def test_checker_pickles_after_use(checker):
    """Beam pickles the checker into each worker; the spaCy tokenizer must not travel with it."""
    assert natural_language_drop_reason(doc(README + SPAM_LINE * 12), checker) is not None  # tokenizer loaded
    blob = pickle.dumps(checker)
    assert len(blob) < 20_000
    copy = pickle.loads(blob)
    for _, trigger, near_miss in CASES:
        assert natural_language_drop_reason(doc(trigger), copy) == natural_language_drop_reason(doc(trigger), checker)
        assert REASON.fullmatch(natural_language_drop_reason(doc(trigger), copy))


@pytest.mark.parametrize(
    ("data", "field"),
    [({"min_doc_words": 0}, "min_doc_words"), ({"dup_line_frac": 1.5}, "dup_line_frac"),
     ({"min_alpha_words_ratio": -0.1}, "min_alpha_words_ratio"),
     ({"top_ngram_char_frac": {2: 2.0}}, "top_ngram_char_frac.2"),
     ({"dup_ngram_char_frac": {0: 0.1}}, "dup_ngram_char_frac.0"), ({"min_words": 5}, "min_words")],
)
def test_config_errors_name_the_field(data, field):
    with pytest.raises(ConfigError) as error:
        load_config(NaturalLanguageConfig, data, "natural_language")
    assert error.value.field_path == f"natural_language.{field}"


@pytest.mark.parametrize(("path", "judged"), [("README.txt", True), ("docs/guide.txt", True),
                                              ("requirements.txt", False), ("LICENSE", False), ("data/words.txt", False)])
def test_plain_text_is_prose_only_when_named_so(checker, path, judged):
    spam = "buy cheap pills now\n" * 40
    document = Document(id="x", text=spam, source="s", kind="file", language="text", path=path)
    assert (natural_language_drop_reason(document, checker) is not None) == judged


# --- every transcript format: tool and environment output is never judged as prose -------------------

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def every_transcript(shared: Path) -> list[Document]:
    files = [p for root in (shared, FIXTURES) for p in sorted(root.rglob("*")) if p.is_file() and p.name != "README.md"]
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits())
    return [doc for path in files for doc in read_location(source, str(path)) if isinstance(doc, Document)]


def without_output(doc: Document) -> Document:
    """``doc`` with its observation turns (tool and environment output) left out."""
    messages = [m for m in doc.metadata["messages"] if not m["observation"]]
    return dataclasses.replace(doc, metadata={**doc.metadata, "messages": messages})


def with_output_as_prose(doc: Document) -> str:
    """What a filter that trusted roles would judge: every user, assistant and tool turn."""
    return "\n\n".join(m["content"] for m in doc.metadata["messages"] if m["role"] in ("user", "assistant", "tool"))


def test_no_transcript_is_dropped_by_a_prose_filter_because_of_tool_output(checker, shared_transcripts):
    """Real runs and every format's fixture are kept unless what the user and the model wrote is itself
    dropped (a run without its observation turns is dropped too); several would be dropped (shell prompts
    repeated in every output turn) if the output they return as user or tool turns were judged as prose."""
    docs = every_transcript(shared_transcripts)
    real = [d for d in docs if str(shared_transcripts) in d.metadata["location"]]
    assert len(real) == 3 and len({d.metadata["format"] for d in docs}) == len(TRANSCRIPT_FORMATS)
    dropped = [d for d in docs if natural_language_drop_reason(d, checker)]
    assert [d.metadata["location"] for d in dropped if not natural_language_drop_reason(without_output(d), checker)] == []
    assert [d.metadata["location"] for d in dropped if d in real] == []
    # Known, for what the model wrote: Alpaca's seed task 6, an answer that is only a bulleted list (too many
    # bullets). MT-Eval's third dialogue, an outline whose "1. Model 1 / 2. Model 2" lines sit under a different
    # heading each time, is a listing, no loop (``listing_lines``, round 19), and kept.
    known = {"stanford_alpaca.seed_tasks.lines-1-7-10-11-12.jsonl#L2": "gopher_quality:gopher_too_many_bullets"}
    assert {Path(d.metadata["location"]).name: natural_language_drop_reason(d, checker) for d in dropped} == known
    would_drop = [d for d in docs if checker.drop_reason(with_output_as_prose(d))]
    assert any(d in real for d in would_drop), "guard: a real run trips the filter when its output is judged"
    assert {d.metadata["format"] for d in would_drop} >= {"swe-agent", "swe-agent-rows", "mini-swe-agent"}


def test_observations_never_reach_the_prose(shared_transcripts):
    for doc in every_transcript(shared_transcripts):
        prose = prose_of(doc) or ""
        outputs = [m["content"] for m in doc.metadata["messages"] if m["observation"] and len(m["content"]) > 40]
        # Whole observation turns are absent (a short line such as a file name may also be said in prose).
        assert [o for o in outputs if o.strip() in prose] == [], doc.metadata["location"]


def test_markdown_guide_is_judged_without_its_code_blocks(checker):
    """gin's 69 KB docs/doc.md failed dup_line_frac on the repeated lines of its Go examples (issue 35)."""
    text = (Path(__file__).parent / "data" / "prose" / "gin-doc.md").read_text()
    prose = prose_of(doc(text))
    assert text.count("```go") > 20 and "```" not in prose and "func main()" not in prose
    assert checker.drop_reason(text) == "gopher_repetition:dup_line_frac"  # guard: code and all, it fails
    assert natural_language_drop_reason(doc(text), checker) is None


def test_markdown_html_tables_are_markup(checker):
    """fmt's doc/syntax.md (its format-string reference) failed dup_line_frac on its HTML tables' <tr>/<td> lines."""
    text = (Path(__file__).parent / "data" / "prose" / "fmt-syntax.md").read_text()
    prose = prose_of(doc(text))
    assert text.count("<tr>") > 30 and "<tr>" not in prose and "\n</td>\n" not in prose
    assert "<td><code>'a'</code></td>" in prose  # a cell with text in it stays
    assert "format specification" in prose.lower()  # the prose is still there
    assert checker.drop_reason(_FENCED_BLOCK.sub("", text)) == "gopher_repetition:dup_line_frac"  # guard
    assert natural_language_drop_reason(doc(text), checker) is None


def test_markdown_heading_marks_are_markup(checker):
    """camel's docs/reference page (13dc7a7): one ``###`` heading per method, read as hashtags, failed Gopher's
    hash ratio; the headings' words stay prose."""
    text = (Path(__file__).parent / "data" / "prose" / "camel-reference.md").read_text()
    prose = prose_of(doc(text))
    assert text.count("\n### ") >= 4 and "#" not in prose and "\n_get_chat_agent\n" in prose
    without_code = _HTML_TAG_LINE.sub("", _FENCED_BLOCK.sub("", text))  # as it was judged before
    assert checker.drop_reason(without_code) == "gopher_quality:gopher_too_many_hashes"  # guard
    assert checker.drop_reason(without_code) == "gopher_quality:gopher_too_many_hashes"  # guard
    assert natural_language_drop_reason(doc(text), checker) is None


def test_markdown_code_example_with_little_prose_is_not_judged_as_prose(checker):
    """cobra's site/content/docgen/man.md: two sentences around a Go program (issue 35 sample of drops)."""
    text = (Path(__file__).parent / "data" / "prose" / "cobra-man.md").read_text()
    assert checker.drop_reason(prose_of(doc(text))) == "gopher_quality:gopher_enough_stop_words"  # guard
    assert natural_language_drop_reason(doc(text), checker) is None
    assert natural_language_drop_reason(doc("See [the docs](https://example.com/docs) for details.\n"), checker) \
        == "gopher_quality:gopher_short_doc"  # without code, a pointer is still judged (and dropped)


def test_markdown_table_is_data_not_prose(checker):
    """oh-my-zsh's plugins/deno/README.md (830a5bc; the ninth issue 46 holdout, spent): one sentence over a table of
    twelve aliases, "| dfmt | deno fmt |", which Gopher read as prose without stop words. Its rows are data, as fenced
    code is; with so few words besides, the README is a reference table, not prose to judge."""
    text = (Path(__file__).parent / "data" / "prose" / "ohmyzsh-deno.md").read_text()
    assert checker.drop_reason(_HTML_TAG_LINE.sub("", _FENCED_BLOCK.sub("", text))) \
        == "gopher_quality:gopher_enough_stop_words"  # guard: as it was judged with its table
    prose = prose_of(doc(text))
    assert "deno fmt" not in prose and "This plugin sets up completion and aliases" in prose
    assert natural_language_drop_reason(doc(text), checker) is None
    # a line with a pipe and no delimiter row below it is no table
    assert "a | b" in prose_of(doc("Pipes read a | b as one command.\n"))


def test_markdown_headings_a_reference_repeats_are_its_structure(checker):
    """pipenv's docs/commands.md (3f1b272; the second issue 46 holdout, spent): each command's section has its "Basic
    Usage", "Examples" and "Options" headings (16, 14 and 11 times) over tables and code; without the tables, those
    repeated headings were a third of its paragraphs (Gopher's dup_para_frac). Each heading counts once."""
    from codemix.filters.natural_language import _ATX_HEADING, _PIPE_TABLE

    text = (Path(__file__).parent / "data" / "prose" / "pipenv-commands.md").read_text()
    assert text.count("\n### Options\n") >= 10  # guard: the repeated headings
    as_before = _ATX_HEADING.sub("", _HTML_TAG_LINE.sub("", _PIPE_TABLE.sub("", _FENCED_BLOCK.sub("", text))))
    assert checker.drop_reason(as_before) == "gopher_repetition:dup_para_frac"  # guard
    prose = prose_of(doc(text))
    assert prose.count("Options\n") == 1 and "Basic Usage" in prose
    assert natural_language_drop_reason(doc(text), checker) is None


def test_markdown_closing_hashes_are_heading_markup(checker):
    """premake's website/docs/buffersecuritycheck.md (the fourth issue 46 holdout, spent): "### Parameters ###" closes its
    headings with hashes (CommonMark's optional closing sequence); they are markup, not hashtags, and with its table
    and code out the page is a short reference, not prose to judge."""
    text = (Path(__file__).parent / "data" / "prose" / "premake-buffersecuritycheck.md").read_text()
    assert "### Parameters ###" in text  # guard
    prose = prose_of(doc(text))
    assert "Parameters" in prose and "#" not in prose.split("[1]")[0]
    assert natural_language_drop_reason(doc(text), checker) is None


def test_markdown_link_addresses_are_markup(checker):
    """crystal's doc/changelogs/v1.10.md (3fe7241; the ninth issue 46 holdout, spent): every entry ends "([#13813](https://
    github.com/crystal-lang/crystal/pull/13813), thanks @straight-shoota)", and the address's words repeated read as
    duplicated n-grams. A link's destination and a reference definition are addresses; the link's text stays."""
    from codemix.filters.natural_language import _ATX_HEADING, _CLOSING_HASHES, _PIPE_TABLE, _repeated_headings

    text = (Path(__file__).parent / "data" / "prose" / "crystal-changelog-v1.10.md").read_text()
    assert text.count("](https://github.com/crystal-lang/crystal/pull/") >= 50  # guard: the links
    kept_links = _ATX_HEADING.sub("", _CLOSING_HASHES.sub(r"\1", _repeated_headings(
        _HTML_TAG_LINE.sub("", _PIPE_TABLE.sub("", _FENCED_BLOCK.sub("", text))))))
    assert checker.drop_reason(kept_links).startswith("gopher_repetition:duplicated_")  # guard: as it was judged
    prose = prose_of(doc(text))
    assert "pull/" not in prose and "thanks @straight-shoota" in prose
    assert natural_language_drop_reason(doc(text), checker) is None


def one_check_filters(checker: NaturalLanguageChecker) -> list[tuple[str, object]]:
    """Reference: a datatrove filter per single check, every other check off, at the checker's thresholds."""
    quality, repetition = (step for _, step in checker.steps[:2])
    quality_attrs = ("min_doc_words", "max_doc_words", "min_avg_word_length", "max_avg_word_length",
                     "max_symbol_word_ratio", "max_bullet_lines_ratio", "max_ellipsis_lines_ratio",
                     "max_non_alpha_words_ratio", "min_stop_words")
    repetition_attrs = ("dup_para_frac", "dup_para_char_frac", "dup_line_frac", "dup_line_char_frac")
    filters = []
    for attr in quality_attrs:
        alone = GopherQualityFilter(**{a: None for a in quality_attrs}, stop_words=quality.stop_words)
        setattr(alone, attr, getattr(quality, attr))
        filters.append(("gopher_quality", alone))
    for attr in repetition_attrs:
        alone = GopherRepetitionFilter(**{a: None for a in repetition_attrs}, top_n_grams=(), dup_n_grams=())
        setattr(alone, attr, getattr(repetition, attr))
        filters.append(("gopher_repetition", alone))
    for key in ("top_n_grams", "dup_n_grams"):
        for entry in getattr(repetition, key):
            alone = GopherRepetitionFilter(**{a: None for a in repetition_attrs}, top_n_grams=(), dup_n_grams=())
            setattr(alone, key, (entry,))
            filters.append(("gopher_repetition", alone))
    return filters


@pytest.mark.parametrize("text", [c[1] for c in CASES] + [SPAM_LINE * 50, SOUP + SPAM_LINE * 30],
                         ids=[c[0] for c in CASES] + ["spam", "soup_and_spam"])
def test_every_failed_check_is_a_reason(checker, text):
    """drop_reasons lists each check datatrove fails when it runs that check alone, the first first."""
    page = DatatroveDocument(text=text, id="")
    expected = set()
    for name, alone in one_check_filters(checker):
        keep, reason = get_filter_result(alone.filter(page))
        if not keep:
            expected.add(f"{name}:{reason}")
    reasons = checker.drop_reasons(text)
    assert set(reasons) == expected and len(reasons) == len(expected)
    assert reasons[0] == checker.drop_reason(text)


def test_a_prose_drop_records_every_reason(checker):
    text = SOUP + SPAM_LINE * 30
    assert len(checker.drop_reasons(text)) >= 3, "guard: the text fails several checks"
    verdict = DocumentFilter(FiltersConfig()).judge(dataclasses.replace(doc(text), license="MIT"))
    assert verdict.reason == verdict.reasons[0] and verdict.reasons == checker.drop_reasons(text)
    unlicensed = DocumentFilter(FiltersConfig()).judge(doc(text))
    assert unlicensed.reason == "no_license" and unlicensed.reasons == ()


def test_rest_manual_is_judged_without_its_directives(checker):
    """pip's docs/html/cli/pip_install.rst was dropped as repetitive for its repeated directives and code
    (issue 46); its prose is kept, the directives and their code content are not judged."""
    text = (Path(__file__).parent / "data" / "prose" / "pip-install.rst").read_text()
    rest = Document(id="r", text=text, source="s", kind="file", path="docs/pip_install.rst",
                    language="restructuredtext")
    prose = prose_of(rest)
    assert text.count(".. tab::") > 10 and ".. tab::" not in prose and ".. code-block::" not in prose
    assert "python -m pip install SomePackage" in text and "python -m pip install SomePackage" not in prose
    assert "pip checks what type of item" in prose  # the prose stays
    assert checker.drop_reason(text) is not None  # guard: directives and all, it fails
    assert natural_language_drop_reason(rest, checker) is None


def test_markup_lines_of_a_crlf_file_are_markup_too(checker):
    """gin's docs/doc.md as a Windows checkout writes it (CRLF): its rules and fences are still markup."""
    text = (Path(__file__).parent / "data" / "prose" / "gin-doc.md").read_text().replace("\n", "\r\n")
    prose = prose_of(doc(text))
    assert "```" not in prose and not re.search(r"^-{3,}\r?$", prose, re.MULTILINE)
    assert natural_language_drop_reason(doc(text), checker) is None


def test_prose_in_a_script_without_spaces_is_not_judged_by_english_word_checks(checker):
    """difftastic (9e2d60c) ``translation/zh-CN/manual-zh-CN/src/introduction.md``, its manual's Chinese translation
    (tests/filters/data/vendored/README.md), with English names among its sentences: Gopher's stop-word and
    word-length checks read it as having no English words and dropped it. The filters abstain on such prose; the same
    page in English is still judged."""
    import json

    path = "translation/zh-CN/manual-zh-CN/src/introduction.md"
    data = Path(__file__).parent / "data" / "vendored" / "difftastic.json"
    text = json.loads(data.read_text(encoding="utf-8"))[path]
    assert "Difftastic" in text and re.search(r"[\u4e00-\u9fff]{20}", text)  # guard: Chinese prose, English names
    without_the_rule = checker.drop_reason(prose_of(doc(text)))
    assert without_the_rule is not None and without_the_rule.startswith("gopher_quality")
    assert natural_language_drop_reason(doc(text), checker) is None
    assert natural_language_drop_reason(doc(SPAM_LINE * 30), checker) is not None  # English is still judged


def test_a_harness_state_sent_as_one_line_of_json_is_no_prose(checker):
    """Prompt Wars' calls (tests/fixtures/transcript_inputs/README.md) send each bot the game's state as a
    user turn written as one line of JSON and take a JSON action back: data, as a JSON block over several
    lines is, so no prose check drops the call (every call was dropped ``gopher_below_alpha_threshold``);
    a line that only starts like JSON stays prose."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs" / "prompt-wars.trace.first-2-calls.yaml"
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], limits=ReadLimits())
    docs = [d for d in read_location(source, str(path)) if isinstance(d, Document)]
    states = [m["content"] for d in docs for m in d.metadata["messages"] if m["role"] == "user"]
    assert len(docs) == 2 and all(s.startswith('{"protocol_version"') and "\n" not in s for s in states)
    assert [natural_language_drop_reason(d, checker) for d in docs] == [None, None]
    assert all('"protocol_version"' not in (prose_of(d) or "") for d in docs)
    words = "[ ] move east of the ball, then kick it towards the goal"
    assert words in transcript_prose([{"role": "user", "content": f"{states[0]}\n{words}", "observation": False}])


def test_a_directory_tree_a_harness_draws_is_no_prose(checker):
    """Gemini CLI opens each session with the folder's tree drawn in box-drawing characters (``├───src/``) in the
    user's turn (Codebolt's captured request, tests/fixtures/transcript_inputs/README.md): a picture of files,
    not sentences, so the prose checks never see it (the capture was dropped ``gopher_below_avg_threshold``)."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs" / "codebolt.geminiepoml-baseprompt.md"
    text = path.read_text()
    assert text.count("├───") >= 20 and "This is the Gemini CLI" in text
    (doc,) = [d for d in read_location(SourceConfig(name="runs", type="transcripts", paths=[str(path)],
                                                    limits=ReadLimits()), str(path)) if isinstance(d, Document)]
    prose = prose_of(doc) or ""
    assert "This is the Gemini CLI" in prose and "├" not in prose and "│" not in prose
    assert natural_language_drop_reason(doc, checker) is None


def test_a_line_share_is_not_judged_on_lines_one_of_which_decides_it(checker):
    """OpenAI's Assistants event stream (Ajuram-Prasanna/Agent_POC ``3c06f56f`` events.jsonl, no licence, so its two
    model texts are quoted, not copied as a file; its request is not in the file): the run's prose is two paragraphs, the first ending "...", so
    a third of its three lines end in an ellipsis and Gopher's share of such lines (0.3, set on web pages of cut
    excerpts) dropped the run. A share one line carries over its threshold says nothing: it is not judged, a
    longer trace still is."""
    said = ["Let me pull up the number of loans handled by each agent for you...",
            ("Here are the loan counts for each agent. If you're interested, I can also show you which agent has the "
             "highest total loan amount\u2014just let me know if you'd like to see that!")]
    messages = [{"role": "assistant", "content": said[0], "observation": False},
                {"role": "tool", "content": "SELECT AGENT_NAME, COUNT(*) AS LOAN_COUNT FROM LOAN_DATA", "observation": True},
                {"role": "assistant", "content": said[1], "observation": False}]
    prose = transcript_prose(messages)
    assert word_count(prose) >= NaturalLanguageConfig().min_transcript_prose_words  # judged, not abstained on
    assert checker.drop_reason(prose) == "gopher_quality:gopher_too_many_end_ellipsis"  # guard: as a file's prose
    assert natural_language_drop_reason(doc("", kind="transcript", messages=messages), checker) is None
    cut = [{"role": "assistant", "content": f"{s} and then the rest of it was cut off here...", "observation": False}
           for s in ("First the excerpt", "Then another", "A third", "And a fourth", "A fifth one")]
    assert natural_language_drop_reason(doc("", kind="transcript", messages=messages + cut), checker) == \
        "gopher_quality:gopher_too_many_end_ellipsis"


def test_a_repositorys_short_page_is_not_judged():
    """stnolting/neorv32 (b3f3908; the eleventh holdout, FIT after its run): ``sim/README.md``, "Default testbench,
    helper modules and GHDL simulation scripts." under a heading and over a link, says what its folder holds in fewer
    words than Gopher can judge (``min_repository_prose_words``); the same text outside a repository still is."""
    from codemix.document import Document

    text = ("## Simulation Sources\n\nDefault testbench, helper modules and GHDL simulation scripts.\n\n:books: See "
            "[UG: Simulating the Processor](https://stnolting.github.io/neorv32/ug/#_simulating_the_processor).\n")
    checker = NaturalLanguageChecker(NaturalLanguageConfig())

    def page(repo):
        return Document(id="x", text=text, source="s", kind="file", repo=repo, path="sim/README.md", language="markdown")

    assert natural_language_drop_reason(page(""), checker) is not None  # guard: Gopher drops it alone
    assert natural_language_drop_reason(page("stnolting/neorv32"), checker) is None



def test_text_pages_written_in_asciidoc_are_judged_by_their_markup(checker):
    """r7rs-libs's doc/text.txt (b8b625c; the twelfth issue 46 holdout, spent) is an AsciiDoc page in a ``.txt`` file:
    "== Text: +(import (robin text))+", ``[source,scheme]`` over ``----`` listings of REPL sessions, ``indexterm2:[...]``
    macros and ``http://...[]`` links. Read as plain text its listings and the links' address words repeated as
    n-grams; read by its own markup it is a reference page whose prose passes."""
    from codemix.filters.natural_language import markup_language

    text = (Path(__file__).parent / "data" / "prose" / "r7rs-text.txt").read_text()
    page = Document(id="x", text=text, source="s", kind="file", language="text", path="doc/text.txt", repo="chaw/r7rs-libs")
    assert text.count("[source,scheme]") >= 5 and "#|kawa:" in text  # guard: the listings
    assert checker.drop_reason(text) is not None  # guard: read as plain text, it was dropped
    assert markup_language(text, "text") == "asciidoc"
    prose = prose_of(page)
    assert "#|kawa:" not in prose and "http" not in prose and "Daitch-Mokotoff Soundex" in prose
    assert natural_language_drop_reason(page, checker) is None


def test_plain_text_with_a_decorated_title_stays_text():
    """A note titled "=== Notes ===" (closed by its own decoration, no listing, macro or attribute line) is plain text."""
    from codemix.filters.natural_language import markup_language

    assert markup_language("=== Notes ===\n\nSee the manual for details.\n", "text") == "text"
    assert markup_language("== Usage\n\nRun it.\n", "text") == "text"  # a title alone: no second sign of AsciiDoc


def test_a_markup_pages_symbol_fractions_are_read_on_its_prose():
    """r7rs-libs's doc/slib-charplot.txt (b8b625c; spent) draws its histograms and plots in ``----`` listings: as a
    whole it fails the code filters' alphanumeric fraction (ASCII art), its prose outside them does not."""
    text = (Path(__file__).parent / "data" / "prose" / "r7rs-slib-charplot.txt").read_text()
    page = Document(id="x", text=text, source="s", kind="file", language="text", path="doc/slib-charplot.txt",
                    repo="chaw/r7rs-libs", license="MIT")
    judge = DocumentFilter(FiltersConfig())
    assert judge.code_drop_reason(page) == "alphanumeric_fraction"  # guard: the whole page reads as ASCII art
    assert judge.drop_reason(page) is None


def test_a_long_run_is_not_dropped_for_its_length():
    """The sixteenth traces holdout (round 17): a VS Code agent chat of 860 messages (1.1 MB) read whole, then
    dropped by Gopher's longest-document check (``gopher_long_doc``, ``max_doc_words``, set on web pages): a run's
    length says nothing of its quality, and a long session is cut into samples when shaped. Here a real run (an
    opencode session export, tests/fixtures/transcript_inputs/README.md) against a limit below its length: its
    prose as a file's is dropped for length, as a trace it is not."""
    path = (Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
            / "dark-factory.opencode-session-crisp-garden.messages-1-4-47.json")
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)])
    messages = max((o.metadata["messages"] for o in read_location(source, str(path)) if isinstance(o, Document)), key=len)
    short = NaturalLanguageChecker(NaturalLanguageConfig(max_doc_words=100))
    prose = transcript_prose(messages)
    assert word_count(prose) > 100
    assert short.drop_reason(prose) == "gopher_quality:gopher_long_doc"  # guard: the limit bites a file's prose
    assert natural_language_drop_reason(doc("", kind="transcript", messages=messages), short) is None


def test_a_korean_trace_and_a_source_cited_after_each_item_are_judged_as_what_they_are():
    """LEETM05/Agentic-AI-for-Adult-diabetes conversation_history.json, records 8 and 38 (the seventeenth traces
    holdout's row, AGPL-3.0): a diabetes assistant answering in Korean. Gopher's mean word length (three to ten
    characters, set on English) dropped 39 of its 52 runs, a word of Hangul being two or three syllable blocks;
    and a reply that cites its source after each of ten foods (``(로컬 문서: carearc.org)``) was judged a loop by
    its repeated lines. Both are now kept; a reply that says the same lines over and over still is one."""
    from codemix.filters.natural_language import listing_lines, mostly_latin, without_restatements

    path = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs" / (
        "agentic-ai-diabetes.conversation_history.rows-8-38.json")
    rows = json.loads(path.read_text(encoding="utf-8"))
    docs = [d for d in read_location(SourceConfig(name="runs", type="transcripts", paths=[str(path)]), str(path))
            if isinstance(d, Document)]
    assert len(docs) == 2 and not mostly_latin(rows[1]["agent_response"])
    assert rows[0]["agent_response"].count("carearc.org") >= 5  # the citation the test is about
    checker = NaturalLanguageChecker(NaturalLanguageConfig())
    assert [natural_language_drop_reason(d, checker) for d in docs] == [None, None]
    loop = "Okay, I'll stop.\nI am done.\n" * 3
    sentences = loop.split("\n")
    assert not listing_lines(sentences, Counter(sentences))
    assert without_restatements(loop, 3).count("Okay, I'll stop.") == 3


def test_a_reply_that_lists_the_same_fields_for_each_item_is_a_listing_not_a_loop():
    """ponchotitlan/packet-panic-agntcy traces.json (Apache-2.0; the excerpt in tests/fixtures/transcript_inputs):
    the detector agent reports a router's error counters, the same field lines (``- CRC: 0``, ``Errores de
    salida:``) under each interface's own ``INTERFAZ: Ethernet0/N`` header. Read as lines, the blocks repeat, and the
    run was dropped as a loop (``dup_para_frac``); each block sits under a different item, so it is a listing.
    A block said again under the same line, or a line said over and over, is still a loop."""
    from codemix.filters.natural_language import listing_lines, without_restatements

    path = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs" / "packet-panic-agntcy.traces.genai-spans.json"
    docs = [d for d in read_location(SourceConfig(name="runs", type="transcripts", paths=[str(path)]), str(path))
            if isinstance(d, Document)]
    report = max((m["content"] for d in docs for m in d.metadata["messages"] if m["role"] == "assistant"), key=len)
    assert report.count("- CRC: 0") >= 4 and report.count("INTERFAZ: Ethernet0/") >= 4  # the listing the test is about
    checker = NaturalLanguageChecker(NaturalLanguageConfig())
    assert [natural_language_drop_reason(d, checker) for d in docs] == [None, None]
    loop = "We checked R1.\n" + "INTERFAZ: Ethernet0/0\n- CRC: 0\n- Runts: 0\n" * 4
    sentences = loop.strip().split("\n")
    assert not listing_lines(sentences, Counter(sentences))  # the same block under the same head: a loop
    assert without_restatements(loop, 3).count("- CRC: 0") == 4


def test_a_reply_whose_export_escaped_its_markup_is_judged_as_it_reads():
    """onotakuy/work20260103_01's SpecStory history of a Cursor agent (.specstory/history/2026-01-03_12-46Z-...md,
    no licence: its layout rebuilt here with short texts): a reply's tool-use blocks kept as escaped HTML
    (``&lt;tool-use ...&gt;``, ``&lt;details&gt;``, ``&lt;/tool-use&gt;`` a line each, ``&#96;&#96;&#96;`` fences). Read as
    text, those lines repeat in every block and the 617-message run was dropped whole as a loop
    (``dup_para_frac``). Judged as it reads, they are markup and code, the reply's sentences its prose."""
    from codemix.filters.natural_language import reply_prose

    block = ("&lt;tool-use data-tool-type=\"read\" data-tool-name=\"read_file\"&gt;\n&lt;details&gt;&lt;summary&gt;Tool use: "
             "**read_file** • Read file: /src/app/{name}&lt;/summary&gt;\n\n&lt;/details&gt;\n&lt;/tool-use&gt;\n\n")
    content = ("原因を特定するため、仮説を立て、ログを追加して検証します。 We read the files that load React first.\n\n"
               + "".join(block.format(name=n) for n in ("package.json", "page.tsx", "layout.tsx", "Map2D.tsx"))
               + "The React versions differ between the types and the runtime, which explains the error we see.\n\n"
               + "&#96;&#96;&#96;bash\nnpm ls react\n&#96;&#96;&#96;\n\nWe will align both versions and run the page again.")
    messages = [{"role": "assistant", "content": content, "observation": False, "tool_calls": []}]
    (prose,) = reply_prose(messages, 3)
    assert "&lt;" not in prose and "</tool-use>" not in prose and "</details>" not in prose
    assert "npm ls react" not in prose  # the unescaped fence is code
    assert "We will align both versions" in prose
    checker = NaturalLanguageChecker(NaturalLanguageConfig())
    assert checker.drop_reason(prose, "reply") is None
    assert checker.drop_reason("We are stuck.\n\nWe are stuck.\n\nWe are stuck.\n\nWe are stuck.", "reply")  # a loop
