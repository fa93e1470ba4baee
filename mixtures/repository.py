"""Whole repositories as long-context documents: dependency order, file-boundary chunks, FIM.

Design notes: docs/design/mixtures.md, "mixtures/repository.py".
"""

from __future__ import annotations

import heapq
import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from codemix.config import join, require
from codemix.mixtures.imports import import_graph

REPO_NAME = "<repo_name>"
SUBMODULES = "<submodules>"  # plain text after the header line: the repository's gitlink paths
FILE_SEP = "<file_sep>"
# StarCoder's FIM sentinels (Li et al. 2023); also plain text here, not added special tokens.
FIM_PREFIX = "<fim_prefix>"
FIM_MIDDLE = "<fim_middle>"
FIM_SUFFIX = "<fim_suffix>"

FILE_OVER_CONTEXT = "file_over_context"
DUPLICATE_PATH = "duplicate_path"


@dataclass(slots=True, kw_only=True)
class RepositoryDocumentConfig:
    """How one stage turns repositories into documents; loads with ``codemix.config.load_config``."""

    order: Literal["dependency", "random"] = "dependency"  # "random" is the ablation baseline
    metadata_header_probability: float = 1.0  # share of chunks that start with <repo_name>
    fim_rate: float = 0.0  # share of chunks made FIM; StarCoder trained with 0.5
    fim_spm_rate: float = 0.5  # of the FIM chunks, the share in SPM order; StarCoder used 0.5
    seed: int = 0

    def validate(self, path: str) -> None:
        for name in ("metadata_header_probability", "fim_rate", "fim_spm_rate"):
            value = getattr(self, name)
            require(0.0 <= value <= 1.0, join(path, name), f"{value} is not a probability", "use a number from 0 to 1")


@dataclass(slots=True, kw_only=True)
class RepositoryChunk:
    """One training document: a contiguous run of whole files of one repository."""

    repo: str
    index: int  # position among this repository's chunks, from 0
    text: str
    paths: list[str]  # the files in the chunk, in rendered order
    tokens: int  # token_count(text), which is <= max_tokens
    header: bool  # starts with the <repo_name> line
    fim: Literal["", "psm", "spm"] = ""


@dataclass(slots=True, frozen=True, kw_only=True)
class DroppedFile:
    """A file left out of every chunk, with a stable snake_case reason."""

    path: str
    reason: str
    tokens: int = 0  # the rendered block's tokens, for file_over_context


@dataclass(slots=True, kw_only=True)
class RepositoryDocuments:
    """What ``repository_documents`` made of one repository: chunks plus every file it dropped."""

    chunks: list[RepositoryChunk] = field(default_factory=list)
    dropped: list[DroppedFile] = field(default_factory=list)
    order: ImportOrderReport | None = None  # how the files' order respects their imports
    kept_for_imports: list[str] = field(default_factory=list)  # held files put back: kept files import them


# --------------------------------------------------------------------------------------------
# Ordering and chunking


def dependency_order(paths: list[str], graph: dict[str, set[str]]) -> list[str]:
    """``paths`` with every file after the files it imports, except inside an import cycle.

    The import graph's strongly connected components (its cycles) go in topological order, so no
    import outside a cycle ever points forward; inside a component, DeepSeek-Coder's rule (Guo et al.
    2024, Algorithm 1: take the file with the fewest outstanding imports) breaks the cycle. Ties go to
    the smallest path. Edges to paths not in ``paths`` are ignored; each path appears once.
    """
    nodes = sorted(set(paths))
    present = set(nodes)
    imports = {p: sorted(d for d in graph.get(p, ()) if d in present and d != p) for p in nodes}
    components = strongly_connected_components(nodes, imports)
    component_of = {path: i for i, members in enumerate(components) for path in members}
    order: list[str] = []
    for index in _component_order(components, component_of, imports):
        order += _fewest_imports_first(components[index], imports)
    return order


def strongly_connected_components(nodes: list[str], imports: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's components of the import graph, each sorted; iterative, so a deep chain cannot overflow."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = imports[node]
            if child < len(targets):
                work.append((node, child + 1))
                target = targets[child]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                components.append(sorted(members))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _component_order(components: list[list[str]], component_of: dict[str, int],
                     imports: dict[str, list[str]]) -> list[int]:
    """Components with every one after those it imports (Kahn), ties by the component's first path."""
    waiting = [0] * len(components)
    importers: dict[int, set[int]] = defaultdict(set)
    for path, targets in imports.items():
        for target in targets:
            source, sink = component_of[path], component_of[target]
            if source != sink and source not in importers[sink]:
                importers[sink].add(source)
                waiting[source] += 1
    ready = [(members[0], i) for i, members in enumerate(components) if waiting[i] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, component = heapq.heappop(ready)
        order.append(component)
        for importer in importers[component]:
            waiting[importer] -= 1
            if waiting[importer] == 0:
                heapq.heappush(ready, (components[importer][0], importer))
    return order


def _fewest_imports_first(members: list[str], imports: dict[str, list[str]]) -> list[str]:
    """One component's files by the greedy rule, counting only imports inside the component."""
    if len(members) == 1:
        return members
    inside = set(members)
    importers: dict[str, list[str]] = defaultdict(list)
    remaining = {}
    for path in members:
        targets = [t for t in imports[path] if t in inside]
        remaining[path] = len(targets)
        for target in targets:
            importers[target].append(path)
    heap = [(count, path) for path, count in remaining.items()]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        count, path = heapq.heappop(heap)
        if remaining.get(path) != count:
            continue  # taken already, or a stale entry superseded by a smaller count
        del remaining[path]
        order.append(path)
        for importer in importers[path]:
            if importer in remaining:
                remaining[importer] -= 1
                heapq.heappush(heap, (remaining[importer], importer))
    return order


@dataclass(frozen=True, slots=True)
class ImportOrderReport:
    """How well an order respects a repository's imports; ``forward_outside_cycles`` should be 0."""

    files: int
    edges: int
    cycles: int
    cycle_edges: int
    forward_outside_cycles: int
    forward_inside_cycles: int


def import_order_report(order: list[str], graph: dict[str, set[str]]) -> ImportOrderReport:
    """Count the import edges among ``order``'s files, those inside cycles, and those pointing forward
    (a file placed before a file it imports), split by whether the edge lies inside a cycle."""
    position = {path: i for i, path in enumerate(order)}
    imports = {p: sorted(d for d in graph.get(p, ()) if d in position and d != p) for p in order}
    components = strongly_connected_components(sorted(position), imports)
    component_of = {path: i for i, members in enumerate(components) for path in members}
    edges = cycle_edges = forward_out = forward_in = 0
    for path, targets in imports.items():
        for target in targets:
            edges += 1
            inside = component_of[path] == component_of[target]
            cycle_edges += inside
            if position[target] > position[path]:
                forward_in += inside
                forward_out += not inside
    return ImportOrderReport(files=len(order), edges=edges, cycles=sum(len(c) > 1 for c in components),
                             cycle_edges=cycle_edges, forward_outside_cycles=forward_out,
                             forward_inside_cycles=forward_in)


def split_at_file_boundaries(ordered: list[tuple[str, int]], max_tokens: int) -> tuple[list[list[str]], list[str]]:
    """Pack ``(path, tokens)`` in order into contiguous chunks of at most ``max_tokens`` each.

    Returns ``(chunks, oversized)``: a new chunk starts only when the next file would not fit, so
    chunks never split a file; a file that alone exceeds ``max_tokens`` goes to ``oversized``
    (the caller drops it, see the module docstring) and its neighbours simply become adjacent.
    """
    chunks: list[list[str]] = []
    oversized: list[str] = []
    current: list[str] = []
    used = 0
    for path, tokens in ordered:
        if tokens > max_tokens:
            oversized.append(path)
            continue
        if current and used + tokens > max_tokens:
            chunks.append(current)
            current, used = [], 0
        current.append(path)
        used += tokens
    if current:
        chunks.append(current)
    return chunks, oversized


# The widest ``part k of n`` a header is budgeted for before the repository is split (the split decides n).
PART_RESERVE = (99_999, 99_999)


def render_header(repo: str, submodules: tuple[str, ...] = (), part: tuple[int, int] | None = None) -> str:
    """``<repo_name>repo`` (``<repo_name>repo part k of n`` for part k of a repository split in n > 1) and,
    for a repository with submodules, ``<submodules>path path...``."""
    listed = f"{SUBMODULES}{' '.join(submodules)}\n" if submodules else ""
    which = f" part {part[0]} of {part[1]}" if part and part[1] > 1 else ""
    return f"{REPO_NAME}{repo}{which}\n{listed}"


def imported_by_kept(kept: Iterable[str], held: Iterable[str], graph: dict[str, set[str]]) -> set[str]:
    """The ``held`` files that ``kept`` files import, directly or through other such held files."""
    held = set(held)
    found: set[str] = set()
    frontier = list(kept)
    while frontier:
        for target in graph.get(frontier.pop(), ()):
            if target in held and target not in found:
                found.add(target)
                frontier.append(target)
    return found


def render_file(path: str, text: str) -> str:
    """``<file_sep>path\\n`` then the text, newline-terminated so the next marker starts a line."""
    return f"{FILE_SEP}{path}\n{text}" + ("\n" if text and not text.endswith("\n") else "")


def render_repository(repo: str, files: list[tuple[str, str]], *, header: bool,
                      submodules: tuple[str, ...] = (), part: tuple[int, int] | None = None) -> str:
    """The chunk's text: the optional header (saying which ``part`` it is), then each ``(path, text)`` block."""
    head = render_header(repo, submodules, part) if header else ""
    return head + "".join(render_file(path, text) for path, text in files)


def apply_fim(text: str, rng: random.Random, spm: bool) -> str:
    """Fill-in-the-middle at two uniformly random character positions (Bavarian et al. 2022).

    PSM: ``<fim_prefix>pre<fim_suffix>suf<fim_middle>mid``.
    SPM: ``<fim_prefix><fim_suffix>suf<fim_middle>pre mid``, StarCoder's variant, where prefix and
    middle stay contiguous so the model continues the prefix exactly as in ordinary generation.
    Removing the sentinels and putting the pieces back as pre+mid+suf gives ``text`` again.
    """
    low, high = sorted(rng.randint(0, len(text)) for _ in range(2))
    prefix, middle, suffix = text[:low], text[low:high], text[high:]
    if spm:
        return f"{FIM_PREFIX}{FIM_SUFFIX}{suffix}{FIM_MIDDLE}{prefix}{middle}"
    return f"{FIM_PREFIX}{prefix}{FIM_SUFFIX}{suffix}{FIM_MIDDLE}{middle}"


def _rng(config: RepositoryDocumentConfig, repo: str, purpose: str) -> random.Random:
    # Seeding Random with a str hashes it with SHA-512: stable across processes and PYTHONHASHSEED.
    return random.Random(f"codemix.repository\x00{config.seed}\x00{repo}\x00{purpose}")


def _order(repo: str, files: list[tuple[str, str, str]], graph: dict[str, set[str]],
           config: RepositoryDocumentConfig) -> tuple[list[str], ImportOrderReport]:
    paths = sorted(path for path, _, _ in files)
    if config.order == "dependency":
        paths = dependency_order(paths, graph)
    else:
        _rng(config, repo, "order").shuffle(paths)
    return paths, import_order_report(paths, graph)


def _unique(files: list[tuple[str, str, str]]) -> tuple[list[tuple[str, str, str]], list[DroppedFile]]:
    """The first record of each path; later ones are reported, since two texts cannot share a path."""
    seen: set[str] = set()
    kept, dropped = [], []
    for record in files:
        if record[0] in seen:
            dropped.append(DroppedFile(path=record[0], reason=DUPLICATE_PATH))
        else:
            seen.add(record[0])
            kept.append(record)
    return kept, dropped


def _enforce_limit(chunks: list[list[str]], fits: Callable[[list[str]], bool]) -> tuple[list[list[str]], list[str]]:
    """Re-check each packed chunk on its real rendered text and move trailing files on until it fits.

    Per-file counts do not add up exactly (BPE can merge across a block boundary), so the packing
    is only a first guess; a single file that still does not fit is returned as oversized.
    """
    done: list[list[str]] = []
    oversized: list[str] = []
    pending = list(reversed(chunks))
    while pending:
        chunk = pending.pop()
        cut = len(chunk)
        while cut > 1 and not fits(chunk[:cut]):
            cut -= 1
        if cut == 1 and not fits(chunk[:1]):
            oversized.append(chunk[0])
        else:
            done.append(chunk[:cut])
        if cut < len(chunk):
            pending.append(chunk[cut:])
    return done, oversized


def _finish_chunk(
    repo: str,
    index: int,
    files: list[tuple[str, str]],
    token_count: Callable[[str], int],
    max_tokens: int,
    config: RepositoryDocumentConfig,
    submodules: tuple[str, ...] = (),
    parts: int = 1,
) -> RepositoryChunk:
    """Draw header and FIM for one chunk and render it; falls back to the plain text (which fit when
    packed) in the rare case the FIM sentinels and cuts pushed it over ``max_tokens``. A repository's
    first chunk always has the header when it lists submodules, so its documents say which it had."""
    rng = _rng(config, repo, f"chunk{index}")
    header = rng.random() < config.metadata_header_probability or (index == 0 and bool(submodules))
    fim = ""
    if rng.random() < config.fim_rate:
        fim = "spm" if rng.random() < config.fim_spm_rate else "psm"
    body = render_repository(repo, files, header=False)
    fim_body = apply_fim(body, rng, spm=fim == "spm") if fim else body
    head = render_header(repo, submodules, (index + 1, parts))
    # The last attempt is what _enforce_limit checked, so one of them always fits.
    for with_header, kind, content in [(header, fim, fim_body), (header, "", body), (True, "", body)]:
        text = (head if with_header else "") + content
        tokens = token_count(text)
        if tokens <= max_tokens:
            break
    paths = [path for path, _ in files]
    return RepositoryChunk(repo=repo, index=index, text=text, paths=paths, tokens=tokens, header=with_header, fim=kind)


def _memoised(token_count: Callable[[str], int]) -> Callable[[str], int]:
    counts: dict[str, int] = {}

    def count(text: str) -> int:
        if text not in counts:
            counts[text] = token_count(text)
        return counts[text]

    return count


def repository_documents(
    repo: str,
    files: list[tuple[str, str, str]],
    token_count: Callable[[str], int],
    max_tokens: int,
    config: RepositoryDocumentConfig,
    *,
    held: list[tuple[str, str, str]] = (),
    submodules: tuple[str, ...] = (),
) -> RepositoryDocuments:
    """One repository's ``(path, language, text)`` files as chunks of at most ``max_tokens`` each.

    ``held`` are files the filter dropped for what they look like (``filters.apply.HELD_REASONS``):
    those that kept files import, directly or through other held files, are put back
    (``kept_for_imports``), so no import of a kept file points at a file missing from the documents.
    Orders the files, packs them at file boundaries so that each *rendered* chunk (header with the
    ``submodules`` it lists, path lines and, for FIM, the sentinels included) counts at most
    ``max_tokens`` by ``token_count``, then draws the header and FIM per chunk. Input order does not
    matter. Files that cannot fit are in ``dropped`` (``file_over_context``), as are repeated paths
    (``duplicate_path``).
    """
    files, dropped = _unique(files)
    kept = {path for path, _, _ in files}
    held = [record for record in held if record[0] not in kept]
    graph = import_graph([*files, *held])
    rescued = imported_by_kept(kept, [path for path, _, _ in held], graph)
    files, more = _unique(files + [record for record in held if record[0] in rescued])
    texts = {path: text for path, _, text in files}
    token_count = _memoised(token_count)  # a chunk checked by _enforce_limit is usually the final text
    # The sentinels cost ordinary tokens and each cut can split a token in two; reserve for both.
    reserve = token_count(FIM_PREFIX + FIM_SUFFIX + FIM_MIDDLE) + 4 if config.fim_rate > 0 else 0
    budget = max_tokens - reserve
    ordered, report = _order(repo, files, graph, config)
    sizes = [(path, token_count(render_file(path, texts[path]))) for path in ordered]
    head = render_header(repo, submodules, PART_RESERVE)
    packed, oversized = split_at_file_boundaries(sizes, budget - token_count(head))

    def fits(paths: list[str]) -> bool:
        # Checked with the widest header, the longer case, so either header draw fits.
        text = render_repository(repo, [(p, texts[p]) for p in paths], header=True, submodules=submodules,
                                 part=PART_RESERVE)
        return token_count(text) <= budget

    groups, too_long = _enforce_limit(packed, fits)
    tokens = dict(sizes)
    dropped += more + [DroppedFile(path=p, reason=FILE_OVER_CONTEXT, tokens=tokens[p]) for p in oversized + too_long]
    chunks = [
        _finish_chunk(repo, i, [(p, texts[p]) for p in group], token_count, max_tokens, config, submodules,
                      len(groups))
        for i, group in enumerate(groups)
    ]
    return RepositoryDocuments(chunks=chunks, dropped=dropped, order=report, kept_for_imports=sorted(rescued))
