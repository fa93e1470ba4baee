"""Filter: repository licenses resolved, then every document judged once.

A document that fails a check becomes a ``Dropped`` record with the check's reason; one dropped
for overlapping a benchmark also yields a ``ContaminationHit`` per benchmark item it overlapped.
Kept documents carry their resolved license.
"""

from __future__ import annotations

import dataclasses
import itertools
import time

import apache_beam as beam
from apache_beam.utils.windowed_value import WindowedValue

from codemix.document import ContaminationHit, Document, Dropped
from codemix.filters.amalgamation import LANGUAGES as AMALGAM_LANGUAGES
from codemix.filters.amalgamation import amalgamated, line_hash_array, packed_line_hashes
from codemix.filters.apply import DocumentFilter, ScreenedView, Verdict, held_for_imports
from codemix.filters.config import FiltersConfig
from codemix.filters.generated import generator_header
from codemix.filters.licenses import (
    combine,
    detect_license,
    is_folder_license_evidence,
    is_license_evidence,
    is_license_file,
    is_notice_file,
    is_third_party_notices,
    license_ids,
    named_license,
    opted_out,
    pointed_license,
    quotes_origins_license,
)
from codemix.filters.reuse import (
    RepositoryLicenses,
    held_evidence,
    license_evidence_of,
    own_license,
    resolve_licenses,
)
from codemix.filters.vendored import (
    Vendored,
    VendoredTree,
    authored_release_fact,
    authored_releases,
    banner_fact,
    banner_release,
    companions,
    copied_file_fact,
    copied_file_statement,
    copied_in_folders,
    copy_fact,
    credited_copies,
    credited_projects,
    derived_work,
    domain_packages,
    extension_fact,
    fetched_facts,
    fetched_trees,
    file_fact,
    file_header,
    first_copyright,
    folders_of_copies,
    foreign_home,
    foreign_notice,
    foreign_pointer,
    foreign_project,
    foreign_release,
    foreign_terms,
    header_companions,
    header_fact,
    header_terms,
    holder_fact,
    in_own_namespace,
    in_own_section,
    includes_own_glue,
    may_say_vendored,
    named_for_repository,
    names_its_place,
    names_owner,
    names_repository,
    notice_pointer_fact,
    owns_header,
    package_fact,
    package_heads,
    placement_fact,
    pointed_copies,
    prefix_fact,
    project_banner,
    published_extensions,
    published_page,
    repository_owner,
    root_license_copies,
    sectioned_holder,
    states_terms,
    synced_trees,
    unnamed_repository_copy,
    upstream_copies,
    upstream_fact,
    vendored_tree,
    vendored_trees,
    vendoring_facts,
    with_own_glue,
    written_for_repository,
    xcode_project,
)
from codemix.kinds import document_kind
from codemix.pipelines.costs import PerDocument, charge, timed, utf8_length
from codemix.pipelines.crawl import path_language
from codemix.pipelines.ledger import CONTAMINATION, DOCS, DROPPED, HELD, tagged
from codemix.pipelines.progress import Progress
from codemix.pipelines.quality import QUALITY, ScoreQuality
from codemix.pipelines.spill import grouping


def repository_key(doc: Document) -> str:
    return f"{doc.source}\x00{doc.repo}"


def license_evidence(doc: Document):
    """((source, repo), evidence) for each license file, NOTICE, package manifest or REUSE declaration, at
    the root and in any folder (a folder's own license governs the files below it; a root NOTICE only for the
    paths its sections name, ``reuse.section_rules``), and each file's copyright holders (``reuse.Held``: a license
    text in a copied project's holders' names governs the folder of their files, ``reuse.copied_texts``)."""
    if not (document_kind(doc.kind).licensed_by_text and doc.repo):
        return
    if (is_license_evidence(doc.path) or is_folder_license_evidence(doc.path) or is_notice_file(doc.path)
            or is_third_party_notices(doc.path)):
        yield repository_key(doc), license_evidence_of(doc.path, doc.text)
    if (held := held_evidence(doc.path, doc.text)) is not None:
        yield repository_key(doc), held


def vendoring_evidence(doc: Document):
    """((source, repo), fact) for each thing a repository file says about vendored folders
    (``filters.vendored.vendoring_facts``): declarations, license texts, package manifests."""
    if not (document_kind(doc.kind).repository_file and doc.repo):
        return
    if may_say_vendored(doc.path):
        license_file = is_license_file(doc.path)
        detected = detect_license(doc.path, doc.text) if license_file else None
        for fact in vendoring_facts(doc.path, doc.text, license_file=license_file, detected=detected):
            yield repository_key(doc), fact
    if (copy := copy_fact(doc.path, doc.text)) is not None:
        yield repository_key(doc), copy
    if (copied := copied_file_fact(doc.path, doc.text, doc.repo)) is not None:
        yield repository_key(doc), copied
    for fact in fetched_facts(doc.path, doc.text):
        yield repository_key(doc), fact
    for fact in (upstream_fact(doc.path, doc.text), prefix_fact(doc.path, doc.text), banner_fact(doc.path, doc.text),
                 extension_fact(doc.path, doc.text),
                 package_fact(doc.path, doc.text), notice_pointer_fact(doc.path, doc.text),
                 authored_release_fact(doc.path, doc.text) if document_kind(doc.kind).licensed_by_text else None):
        if fact is not None:
            yield repository_key(doc), fact
    if (placed := placement_fact(doc.path)) is not None:
        yield repository_key(doc), placed
    if document_kind(doc.kind).licensed_by_text and (holder := holder_fact(doc.path, doc.text)) is not None:
        yield repository_key(doc), holder
        notice = own_license(doc.text, doc.path) or named_license(doc.text)
        if (header := header_fact(doc.path, doc.text, notice)) is not None:
            yield repository_key(doc), header
    yield repository_key(doc), file_fact(doc.path)


def resolve_vendored(key: str, facts):
    """``(key, Vendored)`` for a repository with vendored folders or root license holders; nothing for one without."""
    facts, repo = list(facts), key.split("\x00", 1)[-1]
    copied = root_license_copies(facts)  # a root license text that is a bundled library's: not the repository's own
    own = [f for f in facts if not (f.kind == "license" and f.folder == "" and vendored_tree(f.detail, copied))]
    trees = with_own_glue((*copied, *written_for_repository(vendored_trees(own, repo=repo), own, repo),
                           *upstream_copies(own, repo), *synced_trees(own, repo), *fetched_trees(own, repo),
                           *domain_packages(own, repo), *published_extensions(own, repo),
                           *credited_projects(own, repo), *credited_copies(own, repo)), own)
    owner = repository_owner(own, trees, repo)
    found = Vendored((*trees, *folders_of_copies(own, owner, trees, repo), *pointed_copies(own, owner, trees, repo),
                      *authored_releases(own, owner, trees, repo), *package_heads(own, owner, trees, repo),
                      *header_companions(own, owner, trees, repo),
                      *companions(own, trees)), owner, copied_in_folders(own))
    if found.trees or found.owner.holders or found.owner.people or found.copies:
        yield key, found


def vendored_outcome(doc: Document, tree: VendoredTree, policy: str) -> Document | Dropped:
    """What the ``vendored`` policy makes of a file in a vendored tree: a drop naming the evidence, the
    file unchanged, or the file as one of the tree's own repository (``repo:folder``, path inside it)."""
    if policy == "drop":
        return Dropped(stage="filter", source=doc.source, location=doc.metadata.get("location", ""),
                       reason="vendored", doc_id=doc.id, detail=tree.evidence)
    if policy == "keep":
        return doc
    # A vendored file on its own is a repository of one file: ``repo:path``, its name as its path.
    path = doc.path[len(tree.folder) + 1:] if doc.path != tree.folder else doc.path.rsplit("/", 1)[-1]
    return dataclasses.replace(doc, repo=f"{doc.repo}:{tree.folder}", path=path,
                               metadata={**doc.metadata, "vendored": tree.evidence})


def vendored_file_or_tree(doc: Document, vendored: dict[str, Vendored] | None,
                          governing: str = "") -> VendoredTree | None:
    """The vendored tree holding ``doc``, else the file itself when its head says it is another project's file
    (``filters.vendored.copied_file_statement``), its own notice is another holder's under other terms
    (``filters.vendored.foreign_notice``) or it points to a license file that the folders above it, whose license
    ``governing`` is, do not hold (``filters.vendored.foreign_pointer``) or it grants itself under another holder's
    terms of a family none of ``governing`` is (``filters.vendored.foreign_terms``); a license text's own wording is
    none. In a folder of copies (``filters.vendored.folders_of_copies``) the file's own evidence answers before the
    folder's; a file a tool wrote (``filters.generated.generator_header``) is no copy by its header."""
    found = (vendored or {}).get(repository_key(doc), Vendored())
    tree = vendored_tree(doc.path, found.trees)
    if is_license_file(doc.path) or is_notice_file(doc.path):
        return tree  # a license text or NOTICE names the holders of what it is about, copies included
    if tree is not None and not tree.of_copies:
        return None if names_its_place(doc.text, tree.folder) else tree
    if generator_header(doc.text):
        return None  # a tool wrote it (autoconf's ``configure``): its header is the tool's, the code filters drop it
    # in a folder of copies (``folders_of_copies``, or named so by a license file's sections), a file's own evidence
    # first, the folder's for the rest but those whose header names the repository's holders or whose name the
    # repository's (libgit2's glue ``deps/clar/clar_libgit2.c`` beside the copied clar)
    if tree is not None and (owns_header(doc.text, tree.own) or named_for_repository(doc.path, doc.repo)
                             or includes_own_glue(doc.text, doc.repo)):
        tree = None
    return _copied_file(doc, found, governing) or tree


def _copied_file(doc: Document, found: Vendored, governing: str) -> VendoredTree | None:
    said = copied_file_statement(doc.text, doc.repo, doc.path)
    if said:
        return VendoredTree(doc.path, f"{doc.path} says {said!r}")
    if page := published_page(doc.path, doc.text, doc.repo):
        return VendoredTree(doc.path, f"{doc.path} opens with its published page {page!r}")
    if banner := project_banner(doc.text, doc.repo):
        return VendoredTree(doc.path, f"{doc.path}: {banner}")
    copies = dict(found.copies).get(doc.path)
    if copies and states_terms(doc.text):
        return VendoredTree(doc.path, f"{doc.path}: {copies}, its opening comment stating its own terms")
    why = None
    # every header rule compares with the repository's holders or people: a repository naming no one has none to apply
    # (a top folder the root's sectioned license text covers as one of its own collections states its own terms)
    # (but a BSD clause protecting the file's own holder's name: ``foreign_notice``)
    names_someone = found.owner.holders or found.owner.people
    if doc.repo and names_repository(doc.path.rsplit("/", 1)[-1], doc.repo):
        pass  # a file named for the repository was written for it (cryptonite's ``ed25519-cryptonite-exts.h``)
    elif not names_someone and document_kind(doc.kind).licensed_by_text and not derived_work(doc.text):
        notice = own_license(doc.text, doc.path) or named_license(doc.text)
        why = foreign_notice(doc.text, found.owner, notice) \
            or unnamed_repository_copy(doc.text, notice or header_terms(doc.text), license_ids(governing), doc.repo,
                                       doc.path)
    elif names_someone and document_kind(doc.kind).licensed_by_text \
            and not derived_work(doc.text) and not in_own_section(doc.path, found.owner):  # a port keeps its origin's notice
        notice = own_license(doc.text, doc.path) or named_license(doc.text)
        why = foreign_notice(doc.text, found.owner, notice) \
            or foreign_pointer(doc.text, found.owner, pointed_license(doc.text), license_ids(governing)) \
            or foreign_terms(doc.text, found.owner, notice or header_terms(doc.text), license_ids(governing), doc.repo) \
            or foreign_release(doc.text, found.owner, doc.repo) \
            or foreign_home(doc.text, found.owner, doc.repo) \
            or banner_release(doc.path, doc.text, found.owner, doc.repo) \
            or foreign_project(xcode_project(doc.path, doc.text), first_copyright(file_header(doc.text))[0],
                               found.owner, doc.repo) \
            or sectioned_holder(doc.text, found.owner)
    return VendoredTree(doc.path, f"{doc.path}: {why}") if why else None


def resolve_repository_license(key: str, evidence) -> tuple[str, RepositoryLicenses]:
    return key, resolve_licenses(evidence)


def document_license(doc: Document, repository_licenses: dict[str, RepositoryLicenses]) -> str:
    """What the repository (its default, its path rules) and the file's own statement (``reuse.own_license``)
    say of ``doc``; a default that a folder one level down not named after the repository gave is none
    (``RepositoryLicenses.of_repository``)."""
    licenses = repository_licenses.get(repository_key(doc), RepositoryLicenses()).of_repository(doc.repo or "")
    if not document_kind(doc.kind).licensed_by_text:
        return licenses.for_path(doc.path, None)
    own = own_license(doc.text, doc.path)
    found = licenses.for_path(doc.path, own)
    if own and quotes_origins_license(doc.text, doc.path):  # a port made here: its origin's terms and the repository's
        return combine([found, licenses.for_path(doc.path, None)])
    return found


def repository_lines(doc: Document, config: FiltersConfig):
    """((source, repo), (path, packed line hashes)) for each repository file, when amalgamations are looked for."""
    if config.amalgamation and document_kind(doc.kind).repository_file and doc.repo \
            and doc.language in AMALGAM_LANGUAGES:
        yield repository_key(doc), (doc.path, packed_line_hashes(doc.text))


def repository_amalgamations(key: str, files):
    """``(key, paths)`` when any file of the repository concatenates its other files; nothing when none
    does, so the side input holds only the repositories that have one."""
    found = frozenset(amalgamated((path, line_hash_array(packed)) for path, packed in files))
    if found:
        yield key, found


class FindAmalgamations(beam.PTransform):
    """Documents -> ``(repository key, paths of its files that concatenate its other files)``, for each
    repository with at least one.

    Every repository file's line hashes are grouped by repository: a shuffle as large as the corpus's
    line count. With ``spill_dir`` it goes through run files there (``pipelines.spill``), not the
    runner's shuffle, which FnApiRunner holds in its driver.
    """

    def __init__(self, config: FiltersConfig, spill_dir: str | None = None):
        super().__init__()
        self._config, self._spill_dir = config, spill_dir

    def expand(self, documents):
        return (documents
                | "HashLines" >> beam.FlatMap(PerDocument(repository_lines, self._config))
                | "GroupLinesByRepository" >> grouping(self._spill_dir, "amalgamation_lines")
                | "FindAmalgamated" >> beam.FlatMapTuple(repository_amalgamations))


def filter_outcomes(doc: Document, document_filter: DocumentFilter,
                    repository_licenses: dict[str, RepositoryLicenses],
                    amalgamations: dict[str, frozenset[str]] | None = None,
                    vendored: dict[str, Vendored] | None = None):
    """The document (with its license) or a Dropped record, plus any contamination hits; a repository
    file dropped for what it looks like also goes to ``HELD`` with its ``filter_reason`` (the long
    stage puts it back when a kept file imports it)."""
    judged = judge_document(doc, document_filter, repository_licenses, amalgamations, vendored)
    if isinstance(judged, Dropped):
        yield judged
        return
    yield from verdict_outcomes(judged.doc, document_filter.with_benchmark_hits(judged.verdict), judged.amalgamated)


@dataclasses.dataclass(slots=True, frozen=True)
class Judged:
    """A document judged but for its benchmark overlap (``DocumentFilter.judge_but_benchmarks``): the document
    as the filter stage took it on (a vendored file's own repository), its verdict so far, and whether its
    repository's other files are concatenated in it."""

    doc: Document
    verdict: Verdict
    amalgamated: bool


def judge_document(doc: Document, document_filter: DocumentFilter, repository_licenses: dict[str, RepositoryLicenses],
                   amalgamations: dict[str, frozenset[str]] | None = None,
                   vendored: dict[str, Vendored] | None = None) -> Judged | Dropped:
    """Everything ``filter_outcomes`` decides before the benchmark overlap: a vendored file's drop, or ``Judged``."""
    license = document_license(doc, repository_licenses)
    # A repository its owners opted out of is that before anything in it is another project's.
    own_files = document_kind(doc.kind).repository_file and not opted_out(doc.repo, document_filter.config.licenses)
    governing = repository_licenses.get(repository_key(doc), RepositoryLicenses()).of_repository(
        doc.repo or "").for_path(doc.path, None)
    tree = vendored_file_or_tree(doc, vendored, governing) if own_files else None
    if tree is not None:
        outcome = vendored_outcome(doc, tree, document_filter.config.vendored)
        if isinstance(outcome, Dropped):
            return outcome
        doc = outcome
    owner = (vendored or {}).get(repository_key(doc), Vendored()).owner
    own_code = own_files and tree is None and (names_owner(doc.path, doc.text, owner)
                                               or in_own_namespace(doc.path, doc.text, owner.packages))
    verdict = document_filter.judge_but_benchmarks(doc, license, own_code=own_code)
    return Judged(doc, verdict, doc.path in (amalgamations or {}).get(repository_key(doc), ()))


def verdict_outcomes(doc: Document, verdict: Verdict, amalgamated: bool):
    """What ``filter_outcomes`` yields for a document's whole verdict."""
    if amalgamated and (verdict.reason is None or held_for_imports(doc, verdict.reason)):  # a license drop stays one
        verdict = dataclasses.replace(verdict, reason="amalgamated", reasons=())
    location = doc.metadata.get("location", "")
    for hit in verdict.instances:
        yield ContaminationHit(doc_id=doc.id, source=doc.source, location=location, benchmark=hit.benchmark,
                               item_id=hit.instance_id, overlap=hit.overlap, matched_tokens=hit.matched,
                               policy=hit.policy if verdict.reason is not None else f"{hit.policy}_marked",
                               evidence=hit.evidence)
    if verdict.reason is None:
        yield verdict.document
        return
    yield Dropped(stage="filter", source=doc.source, location=location, reason=verdict.reason, doc_id=doc.id,
                  reasons=verdict.reasons, detail=verdict.detail)
    if held_for_imports(doc, verdict.reason):
        held = dataclasses.replace(verdict.document, metadata={**doc.metadata, "filter_reason": verdict.reason})
        yield beam.pvalue.TaggedOutput(HELD, held)
    for hit in verdict.hits:
        yield ContaminationHit(doc_id=doc.id, source=doc.source, location=location, benchmark=hit.benchmark,
                               item_id=hit.item_id, overlap=hit.overlap, matched_tokens=hit.matched_tokens,
                               start_line=hit.start_line, end_line=hit.end_line)


# How many documents (or bytes of them) ``JudgeDocuments`` holds before it screens their views together and emits
# their outcomes: enough to spread the screen's fixed cost per call (~0.3 ms) over many small files, few enough that
# what is held stays small. bench/RESULTS.md, issue 49, tenth session.
BATCH_DOCUMENTS = 64
BATCH_BYTES = 2 << 20


class JudgeDocuments(beam.DoFn):
    """Routes each document through the ``DocumentFilter``, built once per worker in ``setup``
    (the contamination index and datatrove filters are too costly to rebuild per bundle).

    Each document is judged but for its benchmark overlap when it comes (``judge_document``) and held; every
    ``BATCH_DOCUMENTS`` documents (or ``BATCH_BYTES``), and at the bundle's end, the held documents' views are
    screened in one call (``DocumentFilter.screened_views``) and their outcomes emitted in the order the documents
    came, each in its own window with its own timestamp. CPU per language for ``mix stats``: each document's own
    steps are timed for it; the one screening call is shared among the documents screened in it by the bytes of
    their views (the screen's cost grows with the bytes it reads).
    """

    def __init__(self, config: FiltersConfig):
        self._config = config

    def setup(self):
        self._filter = DocumentFilter(self._config, language_of=path_language)

    def start_bundle(self):
        self._held: list[tuple[Judged | Dropped, str, object, object]] = []  # (judged, language, timestamp, window)
        self._held_bytes = 0

    def process(self, doc: Document, repository_licenses: dict[str, RepositoryLicenses],
                amalgamations: dict[str, frozenset[str]], vendored: dict[str, Vendored],
                timestamp=beam.DoFn.TimestampParam, window=beam.DoFn.WindowParam):
        size = utf8_length(doc.text)  # the stage's input: its bytes counted here
        start = time.thread_time_ns()
        judged = judge_document(doc, self._filter, repository_licenses, amalgamations, vendored)
        charge(doc.language, time.thread_time_ns() - start, size)
        self._held.append((judged, doc.language, timestamp, window))
        self._held_bytes += size
        if len(self._held) >= BATCH_DOCUMENTS or self._held_bytes >= BATCH_BYTES:
            yield from self._emit()

    def finish_bundle(self):
        yield from self._emit()

    def _emit(self):
        held, self._held, self._held_bytes = self._held, [], 0
        asking = [judged for judged, _, _, _ in held
                  if isinstance(judged, Judged) and self._filter.wants_benchmark_hits(judged.verdict)]
        start = time.thread_time_ns()
        views = self._filter.screened_views([judged.doc for judged in asking])
        _share(asking, views, time.thread_time_ns() - start)
        views_of = {id(judged): mine for judged, mine in zip(asking, views, strict=True)}
        for judged, language, timestamp, window in held:
            if isinstance(judged, Dropped):  # a vendored file's drop: decided in ``process``
                outcomes = [judged]
            else:
                verdict = self._filter.with_benchmark_hits(judged.verdict, views_of.get(id(judged)))
                outcomes = verdict_outcomes(judged.doc, verdict, judged.amalgamated)
            for outcome in timed(tagged(outcomes), language):
                yield _windowed(outcome, timestamp, window)


def _share(asking: list[Judged], views: list[list[ScreenedView]], spent: int) -> None:
    """Charge ``spent`` CPU ns to the documents in ``asking``, by the bytes of their views the screen read (by
    their count when it read none): the parts add up to ``spent``."""
    sizes = [sum(utf8_length(text) for text, _, answer in mine if answer is not None) for mine in views]
    if not sum(sizes):
        sizes = [1] * len(asking)
    total, done = sum(sizes), 0
    for judged, upto in zip(asking, itertools.accumulate(sizes), strict=True):
        part = spent * upto // total - done
        charge(judged.doc.language, part)
        done += part


def _windowed(outcome, timestamp, window):
    """``outcome`` (maybe a ``TaggedOutput``) in the window and at the timestamp of the document it came from."""
    if isinstance(outcome, beam.pvalue.TaggedOutput):
        return beam.pvalue.TaggedOutput(outcome.tag, WindowedValue(outcome.value, timestamp, (window,)))
    return WindowedValue(outcome, timestamp, (window,))


class Filter(beam.PTransform):
    """Documents -> kept documents (main), ``dropped``, ``held`` (drops the long stage may put back),
    ``contamination`` (and ``quality``, every
    scored document's learned-quality score, when ``filters.quality`` names a model).

    The input is one PCollection, or ``{"docs": ..., "evidence": ...}``: two reads of the same
    documents, one to judge and one to find license evidence in. Judging waits for every
    repository's license (a side input), and a runner that holds its shuffles in memory, as
    FnApiRunner does in its driver, would hold every document until then if both came from one
    read; with two, the judging read streams once the licenses are known. With ``spill_dir``, the
    one grouping that grows with the corpus (the amalgamation check's line hashes) goes through run
    files there (``pipelines.spill``).
    """

    def __init__(self, config: FiltersConfig, *, expected: int | None = None, workers: int = 1,
                 spill_dir: str | None = None):
        super().__init__()
        self._config, self._spill_dir = config, spill_dir
        self._progress = Progress("filter", lambda doc: len(doc.text), expected=expected, workers=workers)

    def expand(self, inputs):
        documents, evidence = (inputs["docs"], inputs["evidence"]) if isinstance(inputs, dict) else (inputs, inputs)
        documents = documents | "Progress" >> beam.ParDo(self._progress)
        licenses = (
            evidence
            | "FindLicenseEvidence" >> beam.FlatMap(PerDocument(license_evidence))
            | "GroupByRepository" >> beam.GroupByKey()
            | "ResolveLicense" >> beam.MapTuple(resolve_repository_license)
        )
        amalgamations = evidence | "FindAmalgamations" >> FindAmalgamations(self._config, self._spill_dir)
        vendored = (
            evidence
            | "FindVendoringEvidence" >> beam.FlatMap(PerDocument(vendoring_evidence))
            | "GroupVendoringByRepository" >> beam.GroupByKey()
            | "ResolveVendored" >> beam.FlatMapTuple(resolve_vendored)
        )
        outcomes = documents | "Judge" >> beam.ParDo(
            JudgeDocuments(self._config), beam.pvalue.AsDict(licenses), beam.pvalue.AsDict(amalgamations),
            beam.pvalue.AsDict(vendored)
        ).with_outputs(DROPPED, CONTAMINATION, HELD, main=DOCS)
        judged = {DOCS: outcomes[DOCS], DROPPED: outcomes[DROPPED], CONTAMINATION: outcomes[CONTAMINATION],
                  HELD: outcomes[HELD]}
        if not self._config.quality.enabled:
            return judged
        scored = outcomes[DOCS] | "ScoreQuality" >> ScoreQuality(self._config.quality)
        dropped = (outcomes[DROPPED], scored[DROPPED]) | "MergeDropped" >> beam.Flatten()
        return {**judged, DOCS: scored[DOCS], DROPPED: dropped, QUALITY: scored[QUALITY]}
