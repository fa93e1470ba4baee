"""One place that decides a document's fate: the first failing check's reason, or keep.

Order: license policy and opt-out (a repository-level fact), vendored/generated paths and the
language allow-list, the code heuristics, datatrove's prose filters on natural-language parts,
and last the benchmark overlap, the costliest check, on what is left.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from codemix.document import Document
from codemix.filters.benchmarks import FILE, InstanceHit, InstanceIndex
from codemix.filters.code import (
    CODE_CHECKS,
    check_alphabetic_fraction,
    check_alphanumeric_fraction,
    check_comment_fraction,
)
from codemix.filters.commits import added_code
from codemix.filters.config import CodeFilterConfig, FiltersConfig
from codemix.filters.decontamination import BenchmarkHit, ContaminationIndex
from codemix.filters.generated import generator_header, path_matches
from codemix.filters.issues import PR_START, fenced_code, pull_code
from codemix.filters.licenses import license_drop_reason, opted_out
from codemix.filters.natural_language import (
    PROSE_FILTERS,
    PROSE_LANGUAGES,
    NaturalLanguageChecker,
    natural_language_drop_reason,
    natural_language_drop_reasons,
    page_prose,
)
from codemix.filters.notebook_json import Cell, is_notebook, notebook_cells
from codemix.filters.notebooks import START, notebook_code
from codemix.filters.short_tasks import short_task_index
from codemix.filters.transcript_parts import LanguageOf, tool_code
from codemix.filters.vendored import (
    folder_note,
    in_own_package,
    is_generated,
    is_vendored,
    named_in_own_folder,
    vendored_pattern,
)
from codemix.kinds import AT_READ, CELLS, DIFF, MESSAGES, NOTEBOOK_CODE, SIZE_AND_BINARY, SOURCE, THREAD, document_kind

# The code checks that read a text's characters as symbols: a markup page reads them on its prose (``page_prose``).
SYMBOL_CHECKS = (check_alphanumeric_fraction, check_alphabetic_fraction)

# Drops that a kept file's import undoes in the long stage (``mixtures.repository.repository_documents``):
# every judgement of what a file looks like (an amalgamation too: a test that includes an old single
# header needs it), never what it may not be used for (license, opt-out, benchmark overlap) nor what is
# no text to train on (binary, too large).
# ``vendored`` (another project's code, by the repository's own evidence) is never put back either: an import of it
# is an import of that project, as of any installed package.
NOT_HELD = frozenset({"license_not_allowed", "no_license", "opted_out", "contaminated", "binary", "too_large",
                      FILE, "vendored"})
# A view a document is checked in (``contamination_views``): (text, language, what the code screen answered for it,
# None when not asked yet).
ScreenedView = tuple[str, str, bool | None]


def held_for_imports(doc: Document, reason: str) -> bool:
    """Whether a repository file dropped for ``reason`` goes on to the long stage, to be put back
    there if a kept file of its repository imports it."""
    return document_kind(doc.kind).repository_file and bool(doc.repo) and reason not in NOT_HELD


@dataclass(slots=True, frozen=True)
class Verdict:
    """The document as it goes on (with its resolved license), or why it stops, and what it hit."""

    document: Document
    reason: str | None = None
    hits: tuple[BenchmarkHit, ...] = ()
    reasons: tuple[str, ...] = ()  # a prose drop: every check the prose fails, ``reason`` first
    # Benchmark instances the document meets (filters/benchmarks.py): why it was dropped, or, for a
    # repository file under ``files: mark``, what its kept copy is marked with.
    instances: tuple[InstanceHit, ...] = ()
    detail: str = ""  # the evidence a path drop rests on (the glob or linguist pattern)


def generated_by_name(doc: Document) -> bool:
    """A file whose head names the tool that wrote it (``generated.generator_header``) and that linguist's vendor list
    names by the file alone, not by a vendored folder holding it."""
    folder = doc.path.rsplit("/", 1)[0] + "/" if "/" in doc.path else ""
    return generator_header(doc.text) and not is_vendored(folder + "x", doc.repo)


class DocumentFilter:
    """The filter stage's per-document decision, built once per worker from the spec.

    Per-language thresholds are resolved once and cached (resolving validates a merged config);
    the contamination index and datatrove's filters are built on first use.
    """

    def __init__(self, config: FiltersConfig, language_of: LanguageOf | None = None):
        self.config = config
        self.language_of = language_of or (lambda path: "")  # a path's language: a transcript's tool files
        self._thresholds: dict[str, CodeFilterConfig] = {}
        self._contamination: ContaminationIndex | None = None
        self._short_tasks: ContaminationIndex | None = None
        self._prose: NaturalLanguageChecker | None = None
        self._instances: InstanceIndex | None = None

    def thresholds(self, language: str) -> CodeFilterConfig:
        if language not in self._thresholds:
            self._thresholds[language] = self.config.for_language(language)
        return self._thresholds[language]

    @property
    def contamination(self) -> ContaminationIndex:
        if self._contamination is None:
            self._contamination = ContaminationIndex.from_config(self.config.decontamination)
        return self._contamination

    @property
    def instances(self) -> InstanceIndex:
        """Benchmark instances by id, number, patch id and n-grams (``filters.benchmarks``)."""
        if self._instances is None:
            self._instances = InstanceIndex.from_config(self.config.benchmark_instances)
        return self._instances

    @property
    def short_tasks(self) -> ContaminationIndex:
        """Tasks too short for the code index, matched with their prompt (``filters.short_tasks``)."""
        if self._short_tasks is None:
            self._short_tasks = short_task_index(self.config.decontamination)
        return self._short_tasks

    @property
    def prose(self) -> NaturalLanguageChecker:
        if self._prose is None:
            self._prose = NaturalLanguageChecker(self.config.natural_language)
        return self._prose

    def judge(self, doc: Document, repository_license: str = "", *, own_code: bool = False) -> Verdict:
        """The full decision; a license declared by the source or record wins over the detected one. ``own_code``:
        the file names the repository's own holder, so a path list's folder pattern does not make it another
        project's (hugo's ``cache/`` package, linguist's ``(^|/)cache/``)."""
        return self.with_benchmark_hits(self.judge_but_benchmarks(doc, repository_license, own_code=own_code))

    def judge_but_benchmarks(self, doc: Document, repository_license: str = "", *, own_code: bool = False) -> Verdict:
        """``judge`` without the benchmark overlap, which ``with_benchmark_hits`` adds (the filter stage asks it
        of several documents together: ``screened_views``)."""
        if not doc.license and repository_license:
            doc = dataclasses.replace(doc, license=repository_license)
        reason = self.license_drop_reason(doc) or self.drop_reason(doc, own_code=own_code)
        if reason is not None:
            return Verdict(doc, reason, reasons=self.prose_reasons(doc, reason), detail=self.drop_detail(doc, reason))
        instances = tuple(self.instances.hits(doc)) if self.config.benchmark_instances.enabled else ()
        if instances and (instances[0].policy != FILE or self.config.benchmark_instances.files == "drop"):
            return Verdict(doc, instances[0].policy, instances=instances)
        if instances:  # files: mark
            ids = sorted({hit.instance_id for hit in instances})
            doc = dataclasses.replace(doc, metadata={**doc.metadata, "benchmark_instances": ids})
        return Verdict(doc, instances=instances)

    def wants_benchmark_hits(self, verdict: Verdict) -> bool:
        """Whether ``with_benchmark_hits`` has anything to add to a ``judge_but_benchmarks`` verdict."""
        return verdict.reason is None and self.config.decontamination.enabled

    def with_benchmark_hits(self, verdict: Verdict, views: list[ScreenedView] | None = None) -> Verdict:
        """A ``judge_but_benchmarks`` verdict completed: contaminated when a view of its document hits a benchmark
        item (``views``: the document's ``screened_views``, else found here)."""
        if not self.wants_benchmark_hits(verdict):
            return verdict
        hits = self.benchmark_hits(verdict.document, views)
        return Verdict(verdict.document, "contaminated", hits, instances=verdict.instances) if hits else verdict

    def screened_views(self, docs: Sequence[Document]) -> list[list[ScreenedView]]:
        """Each document's ``contamination_views`` with what the code index's screen answers for each: the
        views of all ``docs`` in one language screened in one call (``ContaminationIndex.may_hit_many``)."""
        views = [contamination_views(doc, self.language_of) for doc in docs]
        by_language: dict[str, list[tuple[int, int]]] = {}
        for i, texts in enumerate(views):
            for j, (_, language) in enumerate(texts):
                by_language.setdefault(language, []).append((i, j))
        screened: list[list[ScreenedView]] = [[] for _ in views]
        answers: dict[tuple[int, int], bool] = {}
        for language, places in by_language.items():
            found = self.contamination.may_hit_many([views[i][j][0] for i, j in places], language)
            answers.update(zip(places, found, strict=True))
        for i, texts in enumerate(views):
            screened[i] = [(text, language, answers[i, j]) for j, (text, language) in enumerate(texts)]
        return screened

    def benchmark_hits(self, doc: Document, views: list[ScreenedView] | None = None) -> tuple[BenchmarkHit, ...]:
        """Hits in each view of ``doc`` (a commit's added lines are code of their file's language),
        the best per benchmark item; a hit's lines count within the view that found it. ``views``: the
        document's ``screened_views``, else its ``contamination_views`` screened one by one."""
        best: dict[tuple[str, str], BenchmarkHit] = {}
        if views is None:
            views = [(text, language, None) for text, language in contamination_views(doc, self.language_of)]
        for text, language, may_hit in views:
            code_hits = self.contamination.hits(text, language, may_hit=may_hit)
            for hit in [*code_hits, *self.short_tasks.hits(text, language)]:
                key = (hit.benchmark, hit.item_id)
                if key not in best or hit.overlap > best[key].overlap:
                    best[key] = hit
        return tuple(sorted(best.values(), key=lambda hit: (-hit.overlap, hit.benchmark, hit.item_id)))

    def prose_reasons(self, doc: Document, reason: str) -> tuple[str, ...]:
        """Every prose check a prose drop fails (the first is ``reason``); () for any other drop."""
        if not reason.startswith(tuple(f"{name}:" for name in PROSE_FILTERS)):
            return ()
        return natural_language_drop_reasons(doc, self.prose)

    def license_drop_reason(self, doc: Document) -> str | None:
        if doc.repo and opted_out(doc.repo, self.config.licenses):
            return "opted_out"
        return license_drop_reason(doc.license, self.config.licenses)

    def drop_reason(self, doc: Document, *, own_code: bool = False) -> str | None:
        """The content checks alone (no license, no benchmark overlap)."""
        checks = document_kind(doc.kind).content_checks
        if checks == SIZE_AND_BINARY:  # prose and logs
            reason = self.transcript_drop_reason(doc)
        elif checks == AT_READ:
            reason = None  # e.g. per commit at crawl (filters.commits): code heuristics do not fit a diff
        elif checks == NOTEBOOK_CODE:  # its code judged as code; markdown may be comments: no comment cap
            code = doc if not doc.text.startswith(START) else dataclasses.replace(doc, text=notebook_code(doc.text))
            reason = self.path_drop_reason(doc, own_code) or self.code_drop_reason(code, skip=(check_comment_fraction,))
        else:
            reason = self.path_drop_reason(doc, own_code) or self.page_drop_reason(doc)
        if reason is None and self.config.natural_language.enabled:
            reason = natural_language_drop_reason(doc, self.prose)
        return reason

    def transcript_drop_reason(self, doc: Document) -> str | None:
        """Size and binary only: tool output has long lines and symbol-heavy logs by nature."""
        if len(doc.text.encode("utf-8")) > self.config.transcript_max_bytes:
            return "too_large"
        return "binary" if "\x00" in doc.text else None

    def drop_detail(self, doc: Document, reason: str) -> str:
        """The evidence behind a path drop: the glob or linguist pattern that matched."""
        if reason != "vendored_path":
            return ""
        glob = next((glob for glob in self.config.vendored_paths if path_matches(doc.path, [glob])), None)
        return f"path matches {glob!r}" if glob else f"path matches linguist vendor.yml {vendored_pattern(doc.path, doc.repo)!r}"

    def path_drop_reason(self, doc: Document, own_code: bool = False) -> str | None:
        # linguist lists autoconf's ``configure`` by its name as vendored; a file naming the tool that wrote it is
        # generated instead, unless its folder is one linguist calls vendored (raylib's ``src/external/glad.h``)
        if not own_code and (path_matches(doc.path, self.config.vendored_paths)
                             or (self.config.linguist_vendored and is_vendored(doc.path, doc.repo)
                                 and not in_own_package(doc.path, doc.text) and not generated_by_name(doc)
                                 and not folder_note(doc.path, doc.text) and not named_in_own_folder(doc.path, doc.repo))):
            return "vendored_path"

        if path_matches(doc.path, self.config.generated_paths) or (self.config.linguist_vendored and is_generated(doc.path)):
            return "generated_path"
        if self.config.allowed_languages and doc.language not in self.config.allowed_languages:
            return "language_not_allowed"
        return None

    def page_drop_reason(self, doc: Document) -> str | None:
        """The code checks, where a markup page that fails a symbol fraction passes it on its prose (``page_prose``):
        a page's listings and drawings are not minified data. Its prose view never adds a drop (a table the view
        leaves half parsed is not judged on its remnants)."""
        if doc.language not in PROSE_LANGUAGES:
            return self.code_drop_reason(doc)
        reason = self.code_drop_reason(doc, skip=SYMBOL_CHECKS)
        if reason is not None or (symbols := self.code_drop_reason(doc, only=SYMBOL_CHECKS)) is None:
            return reason
        page = page_prose(doc)
        return symbols if page is None or self.code_drop_reason(page, only=SYMBOL_CHECKS) is not None else None

    def code_drop_reason(self, doc: Document, skip: tuple = (), only: tuple = ()) -> str | None:
        thresholds = self.thresholds(doc.language)
        for check in CODE_CHECKS:
            if check in skip or (only and check not in only):
                continue
            keep, reason = check(doc, thresholds)
            if not keep:
                return reason
        return None


def contamination_views(doc: Document, language_of: LanguageOf | None = None) -> list[tuple[str, str]]:
    """(text, language) pairs the benchmark overlap is checked on: the document as it stands, and for
    a commit also each changed file's added lines, as code of that file's language (for a notebook in
    the cells layout, its code cells); for a transcript, the code its tools carried, decoded
    (``transcript_parts.tool_code``: files written and edited, patches, file views)."""
    view = document_kind(doc.kind).decontamination
    messages = doc.metadata.get("messages") if view == MESSAGES else None
    if isinstance(messages, list):
        return [(doc.text, ""), *tool_code(messages, language_of or (lambda path: ""))]
    if view == DIFF:
        return [(doc.text, ""), *added_code(doc.text, doc.metadata.get("files") or [])]
    if view == THREAD:  # fenced code blocks as code of their language, a pull request's added lines
        views = [(doc.text, ""), *fenced_code(doc.text)]
        return views + [(pull_code(doc.text), "")] if doc.text.startswith(PR_START) else views
    if view == CELLS and doc.text.startswith(START):
        return [(doc.text, ""), (notebook_code(doc.text), doc.language or "")]
    cells = notebook_cells(doc.text) if view == SOURCE and is_notebook(doc.path, doc.language) else None
    if cells is not None:
        return notebook_views(cells)
    return [(doc.text, doc.language or "")]


def notebook_views(cells: list[Cell]) -> list[tuple[str, str]]:
    """A notebook as its code cells in the kernel's language, then every cell as text: a solution in
    a code cell is found as in a source file (the raw JSON escapes every quote and newline)."""
    code = [c for c in cells if c.kind == "code"]
    return [("\n\n".join(c.text for c in code), code[0].language if code else ""),
            ("\n\n".join(c.text for c in cells if c.kind != "output"), "")]


def drop_reason(doc: Document, config: FiltersConfig) -> str | None:
    """One-off content decision for ``doc`` (tests, notebooks); the pipeline reuses one ``DocumentFilter``."""
    return DocumentFilter(config).drop_reason(doc)
