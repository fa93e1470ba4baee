"""MinHash signatures and LSH band keys, in vectorised numpy (no Beam here).

Shapes: S = number of distinct shingles in one text, P = ``num_perm``.

Two texts' signatures agree at one position with probability equal to the Jaccard similarity of
their shingle sets (Broder 1997), so the fraction of agreeing positions estimates it. Splitting
the P positions into ``bands`` × ``rows`` and keying each band makes near duplicates share a key
with probability 1 - (1 - s^rows)^bands (Leskovec, Rajaraman & Ullman, *Mining of Massive
Datasets*, ch. 3); ``DedupConfig.threshold`` is the midpoint of that curve.
"""

from __future__ import annotations

import re

import numpy as np
import xxhash

# Split on runs of non-word characters: `foo.bar(baz)` gives foo, bar, baz. Case is kept unless
# the config asks otherwise, since in code `Foo` and `foo` are different names.
_NON_WORD = re.compile(r"\W+")
# Bounds the (chunk × P) uint64 scratch matrix in `signature` to 4096 × 256 × 8 B = 8 MiB.
_CHUNK = 4096


def tokens(text: str, lowercase: bool) -> list[str]:
    """Non-empty tokens of a ``\\W+`` split."""
    if lowercase:
        text = text.lower()
    return [token for token in _NON_WORD.split(text) if token]


def shingle_hashes(text: str, size: int, lowercase: bool) -> np.ndarray:
    """Distinct 64-bit xxh64 hashes of the text's token ``size``-grams, sorted; shape (S,).

    A text with fewer than ``size`` tokens becomes one shingle of all its tokens, so short texts
    still compare; a text with no tokens gives an empty array (nothing to compare).
    """
    words = tokens(text, lowercase)
    if not words:
        return np.empty(0, dtype=np.uint64)
    count = max(len(words) - size + 1, 1)
    grams = (" ".join(words[i : i + size]) for i in range(count))
    hashes = np.fromiter(
        (xxhash.xxh64_intdigest(gram.encode("utf-8", "surrogatepass")) for gram in grams), dtype=np.uint64, count=count
    )
    return np.unique(hashes)


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
    for start in range(0, len(hashes), _CHUNK):
        h_S1 = hashes[start : start + _CHUNK, None].astype(np.uint64)
        # uint64 arithmetic wraps modulo 2^64, which is exactly the hash family we want.
        np.minimum(sig_P, (h_S1 * a_P + b_P).min(axis=0), out=sig_P)
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
    """Fraction of positions where two signatures agree: an unbiased estimate of Jaccard similarity."""
    return float(np.mean(sig_a == sig_b))
