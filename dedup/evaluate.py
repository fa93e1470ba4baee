"""Quality of a dedup run against brute force: exact Jaccard over every pair that shares a shingle.

Design notes: docs/design/dedup.md, "dedup/evaluate.py".
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow.parquet as pq
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import exact_jaccard, make_permutations, shingle_hashes, signature

# Rows of the docs × shingles matrix multiplied at once: bounds the (rows × n) intersection block.
_ROW_CHUNK = 512


@dataclass(slots=True, frozen=True, kw_only=True)
class PairScore:
    """Pair-level agreement of predicted with true pairs."""

    predicted: int
    actual: int
    true_positives: int

    @property
    def precision(self) -> float:
        return self.true_positives / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.true_positives / self.actual if self.actual else 1.0


@dataclass(slots=True, kw_only=True)
class QualityReport:
    """Brute force vs one ``run_dedup`` output; see the module docstring for the pair definitions."""

    threshold: float
    documents: int  # input rows
    evaluated: int  # rows with at least one shingle
    clusters: int  # output clusters with two or more evaluated members
    all_pairs: PairScore  # cluster pairs vs true pairs, identical texts included
    near_pairs: PairScore  # the same, pairs of differing texts only
    transitive: PairScore  # cluster pairs vs pairs connected through true pairs
    keeper_precision: float  # removed documents (texts differing from the survivor) at J ≥ threshold to it
    confusable_pairs: int  # differing-text pairs with lsh_threshold ≤ J < threshold: LSH links them, truth does not
    lsh_recall: float  # true near pairs whose signatures share at least one band
    edges: PairScore | None = None  # the run's near edges (_work/near/edges-*) vs true pairs between exact keepers


# ---------------------------------------------------------------- brute force


def shingle_sets(texts: Sequence[str], config: DedupConfig) -> list[np.ndarray]:
    """Each text's sorted distinct shingle hashes, exactly as the pipeline computes them."""
    return [shingle_hashes(text, config.shingle_size, config.lowercase) for text in texts]


def incidence_matrix(shingles: Sequence[np.ndarray]) -> sparse.csr_matrix:
    """Binary docs × distinct-shingles matrix, shape (n, S), int32 so products count intersections."""
    sizes = np.array([len(s) for s in shingles], dtype=np.int64)
    flat = np.concatenate(shingles) if len(shingles) else np.empty(0, dtype=np.uint64)
    _, columns = np.unique(flat, return_inverse=True)
    indptr = np.concatenate([[0], np.cumsum(sizes)])
    data = np.ones(len(flat), dtype=np.int32)
    return sparse.csr_matrix((data, columns.ravel(), indptr), shape=(len(shingles), int(columns.max(initial=-1)) + 1))


def similar_pairs(shingles: Sequence[np.ndarray], threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """(codes, jaccards) of every pair with exact Jaccard ≥ ``threshold``, codes sorted.

    X Xᵀ holds |A ∩ B| for every pair sharing a shingle (the inverted index, as a sparse product),
    so pairs sharing nothing are never touched; rows go in chunks to bound memory.
    """
    matrix, n = incidence_matrix(shingles), len(shingles)
    sizes = np.diff(matrix.indptr).astype(np.int64)
    transposed = matrix.T.tocsr()
    codes, jaccards = [], []
    for start in range(0, n, _ROW_CHUNK):
        block = (matrix[start : start + _ROW_CHUNK] @ transposed).tocoo()
        rows, cols = block.row.astype(np.int64) + start, block.col.astype(np.int64)
        upper = cols > rows
        rows, cols, inter = rows[upper], cols[upper], block.data[upper].astype(np.int64)
        jaccard = inter / (sizes[rows] + sizes[cols] - inter)
        keep = jaccard >= threshold
        codes.append(rows[keep] * n + cols[keep])
        jaccards.append(jaccard[keep])
    order_codes = np.concatenate(codes) if codes else np.empty(0, dtype=np.int64)
    order = np.argsort(order_codes)
    return order_codes[order], (np.concatenate(jaccards) if jaccards else np.empty(0))[order]


# ---------------------------------------------------------------- pairs from labels


def split_codes(codes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    return codes // n, codes % n


def same_label_pairs(labels: np.ndarray) -> np.ndarray:
    """Sorted codes of every pair of indices with equal labels; shape (Σ m(m-1)/2,)."""
    n = len(labels)
    order = np.argsort(labels, kind="stable")
    boundaries = np.flatnonzero(np.diff(labels[order])) + 1
    codes = []
    for members in np.split(order, boundaries):
        if len(members) > 1:
            members = np.sort(members)
            i, j = np.triu_indices(len(members), k=1)
            codes.append(members[i] * n + members[j])
    return np.sort(np.concatenate(codes)) if codes else np.empty(0, dtype=np.int64)


def connected_labels(codes: np.ndarray, n: int) -> np.ndarray:
    """Connected-component label of each index in the graph whose edges are ``codes``."""
    i, j = split_codes(codes, n)
    graph = sparse.coo_matrix((np.ones(len(codes), dtype=np.int8), (i, j)), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def score(predicted: np.ndarray, actual: np.ndarray) -> PairScore:
    """Both arguments are sorted unique pair codes."""
    hits = len(np.intersect1d(predicted, actual, assume_unique=True))
    return PairScore(predicted=len(predicted), actual=len(actual), true_positives=hits)


def differing_texts(codes: np.ndarray, digests: np.ndarray, n: int) -> np.ndarray:
    """The codes whose two documents' texts differ (``digests`` identifies each text)."""
    i, j = split_codes(codes, n)
    return codes[digests[i] != digests[j]]


# ---------------------------------------------------------------- reading a run


def read_rows(pattern: str, columns: list[str]) -> dict[str, list]:
    """Columns of every Parquet file matching a local glob, concatenated in sorted file order."""
    tables = [pq.read_table(path, columns=columns) for path in sorted(glob.glob(pattern))]
    return {name: [value for table in tables for value in table.column(name).to_pylist()] for name in columns}


def cluster_labels(ids: Sequence[str], output_dir: str) -> np.ndarray:
    """Per document, the index of its cluster's survivor (itself when it was kept)."""
    index = {doc_id: i for i, doc_id in enumerate(ids)}
    labels = np.arange(len(ids), dtype=np.int64)
    rows = read_rows(f"{output_dir}/duplicates-*.parquet", ["doc_id", "keeper_id"])
    for doc_id, keeper_id in zip(rows["doc_id"], rows["keeper_id"], strict=True):
        labels[index[doc_id]] = index[keeper_id]
    return labels


def keeper_precision(
    labels: np.ndarray, shingles: Sequence[np.ndarray], digests: np.ndarray, threshold: float
) -> float:
    """Of the documents removed in favour of a survivor with a different text, the share within ``threshold`` of it."""
    removed = np.flatnonzero((labels != np.arange(len(labels))) & (digests != digests[labels]))
    close = [exact_jaccard(shingles[k], shingles[labels[k]]) >= threshold for k in removed]
    return float(np.mean(close)) if close else 1.0


def lsh_hits(shingles: Sequence[np.ndarray], codes: np.ndarray, config: DedupConfig) -> np.ndarray:
    """Per pair, whether the two signatures agree on all ``rows`` values of at least one band."""
    n = len(shingles)
    i, j = split_codes(codes, n)
    involved = np.unique(np.concatenate([i, j]))
    permutations = make_permutations(config.num_perm, config.seed)
    sigs = np.zeros((n, config.num_perm), dtype=np.uint64)
    for k in involved:
        sigs[k] = signature(shingles[k], permutations)
    same = (sigs[i] == sigs[j]).reshape(len(codes), config.bands, config.rows)
    return same.all(axis=2).any(axis=1)


def edge_score(output_dir: str, ids: Sequence[str], shingles: Sequence[np.ndarray], threshold: float) -> PairScore:
    """The near edges the run clustered (verified pairs; bucket stars without ``verify``) vs true pairs.

    Only exact keepers (the documents less ``_work/exact/duplicates-*``) reach the near step, so the true
    pairs counted here are those between two keepers; a recall below ``lsh_recall`` means pairs lost after LSH.
    """
    index = {doc_id: i for i, doc_id in enumerate(ids)}
    copies = set(read_rows(f"{output_dir}/_work/exact/duplicates-*.parquet", ["doc_id"])["doc_id"])
    keepers = [k for k, doc_id in enumerate(ids) if doc_id not in copies and len(shingles[k])]
    position = {k: p for p, k in enumerate(keepers)}
    rows = read_rows(f"{output_dir}/_work/near/edges-*.parquet", ["u", "v"])
    n = len(keepers)
    pairs = sorted({tuple(sorted((position[index[u]], position[index[v]]))) for u, v in zip(rows["u"], rows["v"])})
    predicted = np.array([i * n + j for i, j in pairs], dtype=np.int64)
    actual, _ = similar_pairs([shingles[k] for k in keepers], threshold)
    return score(predicted, actual)


# ---------------------------------------------------------------- the report


def evaluate(ids: Sequence[str], texts: Sequence[str], output_dir: str, config: DedupConfig) -> QualityReport:
    """Score the ``run_dedup`` output in ``output_dir`` for these input documents (see module docstring)."""
    report = evaluate_clusters(ids, texts, cluster_labels(ids, output_dir), config)
    report.edges = edge_score(output_dir, ids, shingle_sets(texts, config), config.jaccard_threshold)
    return report


def evaluate_clusters(
    ids: Sequence[str], texts: Sequence[str], labels: np.ndarray, config: DedupConfig
) -> QualityReport:
    """Score any clustering of the documents: ``labels[i]`` is the index of document i's cluster representative.

    Representatives must be documents with shingles whenever a member has some (true of ``run_dedup``,
    whose texts without tokens are never near duplicates).
    """
    threshold = config.jaccard_threshold
    all_shingles = shingle_sets(texts, config)
    evaluated = np.array([len(s) > 0 for s in all_shingles], dtype=bool)
    shingles = [s for s in all_shingles if len(s)]
    n = len(shingles)
    digests = np.array([hash(text) for text, e in zip(texts, evaluated) if e], dtype=np.int64)
    labels = (np.cumsum(evaluated) - 1)[labels[evaluated]]  # renumbered into the evaluated documents
    predicted = same_label_pairs(labels)
    similar, jaccards = similar_pairs(shingles, min(config.lsh_threshold, threshold))
    actual = similar[jaccards >= threshold]
    near_actual = differing_texts(actual, digests, n)
    return QualityReport(
        threshold=threshold,
        documents=len(ids),
        evaluated=n,
        clusters=int(np.sum(np.bincount(labels, minlength=n) > 1)),
        all_pairs=score(predicted, actual),
        near_pairs=score(differing_texts(predicted, digests, n), near_actual),
        transitive=score(predicted, same_label_pairs(connected_labels(actual, n))),
        keeper_precision=keeper_precision(labels, shingles, digests, threshold),
        confusable_pairs=len(differing_texts(similar[jaccards < threshold], digests, n)),
        lsh_recall=float(lsh_hits(shingles, near_actual, config).mean()) if len(near_actual) else 1.0,
    )
