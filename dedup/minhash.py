"""MinHash signatures and LSH band keys, in vectorised numpy (no Beam here).

Shapes: S = number of distinct shingles in one text, P = ``num_perm``, N = characters of one text, K =
its tokens, J = characters of its tokens joined by single spaces.

Two texts' signatures agree at one position with probability equal to the Jaccard similarity of
their shingle sets (Broder 1997), so the fraction of agreeing positions estimates it. Splitting
the P positions into ``bands`` × ``rows`` and keying each band makes near duplicates share a key
with probability 1 - (1 - s^rows)^bands (Leskovec, Rajaraman & Ullman, *Mining of Massive
Datasets*, ch. 3); ``DedupConfig.lsh_threshold`` is the midpoint of that curve. Candidates are then
verified with ``exact_jaccard`` on the shingle sets (or ``estimated_jaccard`` when only a signature
survives, as for documents of an earlier build's index).

Arrays cross Beam and Parquet as little-endian uint64 bytes (``to_bytes`` / ``from_bytes``).
"""

from __future__ import annotations

import re

import numpy as np
import xxhash

# Split on runs of non-word characters: `foo.bar(baz)` gives foo, bar, baz. Case is kept unless
# the config asks otherwise, since in code `Foo` and `foo` are different names.
_NON_WORD = re.compile(r"\W+")
# Bounds the (P × chunk) uint64 scratch matrix in `signature` to 256 × 4096 × 8 B = 8 MiB.
_CHUNK = 4096
# The ASCII characters `\w` matches (Python's `re` on str: letters, digits, underscore).
_ASCII_WORD = np.zeros(256, dtype=bool)
_ASCII_WORD[list(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")] = True


def tokens(text: str, lowercase: bool) -> list[str]:
    """Non-empty tokens of a ``\\W+`` split."""
    if lowercase:
        text = text.lower()
    return [token for token in _NON_WORD.split(text) if token]


def shingle_hashes(text: str, size: int, lowercase: bool) -> np.ndarray:
    """Distinct 64-bit xxh64 hashes of the text's token ``size``-grams, sorted; shape (S,).

    A gram is its tokens joined by single spaces, UTF-8 (surrogates passed through). A text with fewer
    than ``size`` tokens becomes one shingle of all its tokens, so short texts still compare; a text with
    no tokens gives an empty array (nothing to compare).
    """
    if lowercase:
        text = text.lower()
    data, starts, ends = _joined_words(text)
    if not starts:
        return np.empty(0, dtype=np.uint64)
    if len(starts) >= size:
        starts, ends = starts[: len(starts) - size + 1], ends[size - 1 :]
    else:
        starts, ends = starts[:1], ends[-1:]
    grams = map(data.__getitem__, map(slice, starts, ends))
    return _distinct(np.fromiter(map(xxhash.xxh64_intdigest, grams), dtype=np.uint64, count=len(starts)))


def _distinct(values_S: np.ndarray) -> np.ndarray:
    """``np.unique`` of a fresh array, by an in-place sort and a neighbour compare: numpy 2's ``np.unique``
    hashes the values before it sorts them, ~6x the CPU on shingle hashes (bench/RESULTS.md, issue 49, round 16)."""
    values_S.sort()
    first_S = np.empty(values_S.shape, dtype=bool)
    first_S[:1] = True
    np.not_equal(values_S[1:], values_S[:-1], out=first_S[1:])
    return values_S[first_S]


def is_word(points_N: np.ndarray) -> np.ndarray:
    """Which code points ``\\w`` matches (Python's ``re`` on str: ``_`` and what ``str.isalnum`` accepts)."""
    word_N = np.zeros(points_N.shape, dtype=bool)
    ascii_N = points_N < 128
    word_N[ascii_N] = _ASCII_WORD[points_N[ascii_N]]
    others = np.flatnonzero(~ascii_N)
    if others.size:  # asked once per distinct character
        distinct, inverse = np.unique(points_N[others], return_inverse=True)
        word_N[others] = np.array([chr(point).isalnum() for point in distinct.tolist()], dtype=bool)[inverse]
    return word_N


def _joined_words(text: str) -> tuple[bytes, list[int], list[int]]:
    """The text's ``tokens`` joined by single spaces, UTF-8 with surrogates passed, and each token's start
    and end in those bytes; found on the text's code points in numpy, so no token becomes a Python string
    (a regex split and the strings it makes were a third of signing's CPU)."""
    ascii = text.isascii()
    if ascii:
        points_N = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    else:
        points_N = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    word_N = _ASCII_WORD[points_N] if ascii else is_word(points_N)
    edges = np.flatnonzero(np.diff(word_N, prepend=False, append=False))  # alternately a run's start and end
    starts_K, ends_K = edges[0::2], edges[1::2]
    if not starts_K.size:
        return b"", [], []
    # Each gap between two tokens becomes one space: its first character kept and overwritten, the rest dropped.
    kept_N, joined_J = word_N.copy(), points_N.copy()
    kept_N[ends_K[:-1]] = True
    joined_J[ends_K[:-1]] = ord(" ")
    joined_J = joined_J[kept_N]
    widths_K = ends_K - starts_K
    starts_K = np.zeros_like(widths_K)
    np.cumsum(widths_K[:-1] + 1, out=starts_K[1:])
    ends_K = starts_K + widths_K
    if ascii:
        return joined_J.tobytes(), starts_K.tolist(), ends_K.tolist()
    # Characters to UTF-8 byte offsets: 1 byte below U+0080, 2 below U+0800, 3 below U+10000, else 4.
    offsets_J = np.zeros(joined_J.size + 1, dtype=np.int64)
    np.cumsum(1 + (joined_J >= 0x80).astype(np.int64) + (joined_J >= 0x800) + (joined_J >= 0x10000), out=offsets_J[1:])
    data = joined_J.tobytes().decode("utf-32-le", "surrogatepass").encode("utf-8", "surrogatepass")
    return data, offsets_J[starts_K].tolist(), offsets_J[ends_K].tolist()


def make_permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The (a, b) coefficients, each shape (P,) uint64, of P hash functions h -> a*h + b mod 2^64.

    ``a`` is odd, which makes each function a bijection of the 64-bit hash space, i.e. a true
    permutation of the shingle hashes; the same seed always gives the same functions.
    """
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**64, size=num_perm, dtype=np.uint64, endpoint=False) | np.uint64(1)
    b = rng.integers(0, 2**64, size=num_perm, dtype=np.uint64, endpoint=False)
    return a, b


def signature(hashes: np.ndarray, permutations: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """MinHash signature, shape (P,) uint64: per hash function, the minimum over the shingles.

    Empty input gives all-ones (the maximum), which callers should not band: two texts without
    shingles are not evidence of similarity.
    """
    a_P, b_P = permutations
    sig_P = np.full(a_P.shape, np.iinfo(np.uint64).max, dtype=np.uint64)
    if hashes.size == 0:
        return sig_P
    # One (P, chunk) scratch matrix, reused; reducing along its contiguous rows is ~8x faster
    # than building fresh (chunk, P) temporaries and reducing down their columns.
    scratch_PC = np.empty((a_P.size, min(_CHUNK, hashes.size)), dtype=np.uint64)
    for start in range(0, hashes.size, _CHUNK):
        h_C = hashes[start : start + _CHUNK].astype(np.uint64, copy=False)
        products_PC = scratch_PC[:, : h_C.size]
        # uint64 arithmetic wraps modulo 2^64, which is exactly the hash family we want.
        np.multiply(a_P[:, None], h_C, out=products_PC)
        np.add(products_PC, b_P[:, None], out=products_PC)
        np.minimum(sig_P, products_PC.min(axis=1), out=sig_P)
    return sig_P


def band_keys(sig: np.ndarray, bands: int, rows: int) -> list[bytes]:
    """One key per band: 2-byte band index, then that band's ``rows`` values as little-endian bytes.

    The index keeps band 0 of one text from colliding with band 1 of another.
    """
    if len(sig) < bands * rows:
        raise ValueError(f"signature has {len(sig)} values, fewer than bands × rows = {bands * rows}")
    sig_le = np.ascontiguousarray(sig, dtype="<u8")
    return [band.to_bytes(2, "big") + sig_le[band * rows : (band + 1) * rows].tobytes() for band in range(bands)]


def estimated_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """Fraction of positions where two signatures agree: an unbiased estimate of Jaccard similarity.

    Its standard error is sqrt(s(1 - s) / P): 0.025 at s = 0.8 with 256 permutations.
    """
    return float(np.mean(sig_a == sig_b))


def exact_jaccard(hashes_a: np.ndarray, hashes_b: np.ndarray) -> float:
    """|A ∩ B| / |A ∪ B| of two sorted, distinct shingle-hash arrays (as ``shingle_hashes`` returns)."""
    if hashes_a.size == 0 and hashes_b.size == 0:
        return 1.0
    shared = np.intersect1d(hashes_a, hashes_b, assume_unique=True).size
    return shared / (hashes_a.size + hashes_b.size - shared)


def to_bytes(values: np.ndarray) -> bytes:
    """A uint64 array as little-endian bytes, 8 per value, for Beam elements and Parquet binary columns."""
    return np.ascontiguousarray(values, dtype="<u8").tobytes()


def from_bytes(data: bytes) -> np.ndarray:
    """The uint64 array ``to_bytes`` wrote (read-only: a view of ``data``)."""
    if len(data) % 8:
        raise ValueError(f"{len(data)} bytes is not a whole number of uint64 values")
    return np.frombuffer(data, dtype="<u8")
