"""MinHash and LSH band keys on real code: estimates track Jaccard, bands catch near copies only."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
import xxhash

from codemix.dedup.config import DedupConfig
from codemix.dedup.minhash import (
    band_keys,
    estimated_jaccard,
    exact_jaccard,
    from_bytes,
    is_word,
    make_permutations,
    shingle_hashes,
    signature,
    to_bytes,
    tokens,
)
from tests.dedup.corpus import edit_lines, stdlib_texts, true_jaccard

CONFIG = DedupConfig()
_WORD = re.compile(r"\w")


def minhash(text: str, config: DedupConfig = CONFIG) -> np.ndarray:
    hashes = shingle_hashes(text, config.shingle_size, config.lowercase)
    return signature(hashes, make_permutations(config.num_perm, config.seed))


def shingle_set(text: str) -> set[int]:
    return set(shingle_hashes(text, CONFIG.shingle_size, CONFIG.lowercase).tolist())


@pytest.mark.parametrize("text", ["", "   \n\t", "!!! ... ()"])
def test_text_without_tokens_has_no_shingles(text):
    hashes = shingle_hashes(text, 5, False)
    assert hashes.dtype == np.uint64 and hashes.size == 0


def test_short_text_is_one_shingle_of_all_tokens():
    assert shingle_hashes("def f(x):", 5, False).tolist() == [xxhash.xxh64_intdigest(b"def f x")]


def test_tokens_split_on_punctuation_and_keep_case_unless_asked():
    assert tokens("Foo.bar(baz_qux)", lowercase=False) == ["Foo", "bar", "baz_qux"]
    assert shingle_hashes("Foo.bar(baz)", 3, False).tolist() == [xxhash.xxh64_intdigest(b"Foo bar baz")]
    assert shingle_hashes("Foo.bar(baz)", 3, True).tolist() == [xxhash.xxh64_intdigest(b"foo bar baz")]


@pytest.mark.parametrize("lowercase", [False, True])
def test_shingles_are_the_xxh64_of_each_joined_gram(lowercase):
    """Each shingle is xxh64 of its ``size`` tokens joined by one space, UTF-8 with surrogates passed, as
    datatrove hashes its shingles; checked gram by gram on real files, non-ASCII and surrogates included."""
    texts = [*stdlib_texts(8).values(), "naïve café Ünïcode — ok x y z w", "a \udcff b c d e f", "日本 語 テ キ ス ト です", "a b"]
    assert any(not text.isascii() for text in texts)
    for text in texts:
        for size in (1, 3, 5):
            words = tokens(text, lowercase)
            grams = [" ".join(words[i:i + size]) for i in range(max(len(words) - size + 1, 1))] if words else []
            expected = sorted({xxhash.xxh64_intdigest(gram.encode("utf-8", "surrogatepass")) for gram in grams})
            assert shingle_hashes(text, size, lowercase).tolist() == expected


def test_word_characters_are_the_regexs_in_all_of_unicode():
    """``is_word`` (which finds the tokens in numpy) answers as ``re``'s ``\\w`` for every code point."""
    points = np.arange(0x110000, dtype=np.uint32)
    expected = np.array([bool(_WORD.match(chr(point))) for point in range(0x110000)])
    assert expected[ord("_")] and expected[ord("é")] and not expected[ord("—")]
    assert np.array_equal(is_word(points), expected)


def test_ascii_texts_split_as_the_regex_splits_them():
    """An ASCII text's tokens are found on its bytes, not by the ``\\W+`` regex: every ASCII character, in
    runs of every length at both ends, must split as ``re`` splits it (checked against ``tokens``)."""
    rng = np.random.default_rng(7)
    alphabet = np.array([chr(c) for c in range(128)])
    texts = ["".join(rng.choice(alphabet, size=n)) for n in (1, 2, 7, 40, 300, 5000)]
    stdlib = [text for text in stdlib_texts(8).values() if text.isascii()]
    texts += ["_x9", " lead and trail  ", "\x00\x7fA_b\tc\nd", "one", *stdlib]
    assert stdlib and all(text.isascii() for text in texts)
    for text in texts:
        for size, lowercase in itertools.product((1, 2, 5), (False, True)):
            words = tokens(text, lowercase)
            grams = [" ".join(words[i:i + size]) for i in range(max(len(words) - size + 1, 1))] if words else []
            expected = sorted({xxhash.xxh64_intdigest(gram.encode()) for gram in grams})
            assert shingle_hashes(text, size, lowercase).tolist() == expected, (text[:40], size, lowercase)


def test_repeated_shingles_count_once():
    assert shingle_hashes("a b a b a b", 2, False).size == 2  # "a b" and "b a"


def test_signature_is_deterministic_per_seed_and_differs_across_seeds():
    text = stdlib_texts(1)["difflib.py"]
    assert np.array_equal(minhash(text), minhash(text))
    assert not np.array_equal(minhash(text), minhash(text, DedupConfig(seed=2)))


def test_signature_of_no_shingles_is_all_max():
    sig = signature(np.empty(0, dtype=np.uint64), make_permutations(8, 1))
    assert sig.shape == (8,) and (sig == np.iinfo(np.uint64).max).all()


def test_chunked_signature_equals_direct_minimum():
    """The chunking that bounds memory must not change the result."""
    hashes = np.arange(10_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    a, b = make_permutations(16, 3)
    direct = (hashes[:, None] * a + b).min(axis=0)
    assert np.array_equal(signature(hashes, (a, b)), direct)


def test_signature_agreement_estimates_true_jaccard():
    """Across edited stdlib copies spanning low to high similarity, the estimate is within 0.1 (≈3σ at 256 perms)."""
    pairs = []
    for seed, (name, text) in enumerate(stdlib_texts(6).items()):
        nonblank = sum(1 for line in text.splitlines() if line.strip())
        for fraction in (0.01, 0.05, 0.15, 0.35):
            edited = edit_lines(text, max(1, int(nonblank * fraction)), seed)
            pairs.append(
                (
                    name,
                    true_jaccard(shingle_set(text), shingle_set(edited)),
                    estimated_jaccard(minhash(text), minhash(edited)),
                )
            )
    truths = [truth for _, truth, _ in pairs]
    assert min(truths) < 0.5 and max(truths) > 0.9, "fixture should span dissimilar to near-identical pairs"
    errors = [abs(truth - estimate) for _, truth, estimate in pairs]
    assert max(errors) < 0.1, pairs
    assert np.mean(errors) < 0.04, pairs


def test_band_keys_collide_for_near_duplicates():
    for seed, text in enumerate(stdlib_texts(8).values()):
        edited = edit_lines(text, 3, seed)
        assert true_jaccard(shingle_set(text), shingle_set(edited)) > 0.9, "fixture should be a near duplicate"
        shared = set(band_keys(minhash(text), CONFIG.bands, CONFIG.rows)) & set(
            band_keys(minhash(edited), CONFIG.bands, CONFIG.rows)
        )
        assert shared


def test_band_keys_do_not_collide_for_unrelated_files():
    texts = stdlib_texts(12)
    keys = {name: set(band_keys(minhash(text), CONFIG.bands, CONFIG.rows)) for name, text in texts.items()}
    for a, b in itertools.combinations(texts, 2):
        assert not keys[a] & keys[b], (a, b)


def test_band_index_separates_equal_rows_in_different_bands():
    keys = band_keys(np.zeros(16, dtype=np.uint64), bands=4, rows=4)
    assert len(keys) == len(set(keys)) == 4
    assert all(len(key) == 2 + 4 * 8 for key in keys)


def test_band_keys_reject_short_signature():
    with pytest.raises(ValueError, match="bands × rows"):
        band_keys(np.zeros(8, dtype=np.uint64), bands=4, rows=4)


def test_exact_jaccard_of_sorted_hash_arrays_equals_set_jaccard():
    texts = list(stdlib_texts(2).values())
    pairs = [(texts[0], edit_lines(texts[0], 5, seed=1)), (texts[0], texts[1]), (texts[0], texts[0])]
    for a, b in pairs:
        hashes_a, hashes_b = (shingle_hashes(text, 5, False) for text in (a, b))
        assert exact_jaccard(hashes_a, hashes_b) == pytest.approx(true_jaccard(shingle_set(a), shingle_set(b)))
    assert exact_jaccard(np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint64)) == 1.0


def test_uint64_arrays_round_trip_through_bytes():
    values = np.array([0, 1, 2**64 - 1, 0x0123456789ABCDEF], dtype=np.uint64)
    assert to_bytes(values)[:16] == bytes(8) + b"\x01" + bytes(7)  # little-endian, 8 bytes each
    assert np.array_equal(from_bytes(to_bytes(values)), values)
    with pytest.raises(ValueError, match="whole number"):
        from_bytes(b"\x00" * 7)


# --- against datasketch, an independent MinHash/LSH implementation -----------------------------------


def datasketch_minhash(text: str):
    """datasketch's MinHash (its own hash family) over the same token 5-grams as ours."""
    from datasketch import MinHash

    words = tokens(text, CONFIG.lowercase)
    grams = {" ".join(words[i : i + CONFIG.shingle_size]) for i in range(max(len(words) - CONFIG.shingle_size + 1, 1))}
    sketch = MinHash(num_perm=CONFIG.num_perm, seed=1)
    sketch.update_batch([gram.encode("utf-8") for gram in grams])
    return sketch


@pytest.fixture(scope="module")
def graded_pairs() -> list[tuple[str, str, float]]:
    """Real stdlib files beside copies with 0-70% of their lines edited: exact Jaccard from under 0.3 to 1."""
    pairs = []
    for i, text in enumerate(stdlib_texts(14).values()):
        lines = sum(1 for line in text.splitlines() if line.strip())
        edited = edit_lines(text, edits=int(lines * (0.0, 0.01, 0.03, 0.06, 0.12, 0.3, 0.7)[i % 7]), seed=i)
        pairs.append((text, edited, exact_jaccard(*(shingle_hashes(t, 5, False) for t in (text, edited)))))
    return pairs


def test_estimates_are_as_accurate_as_datasketchs(graded_pairs):
    """Both estimators are unbiased with the same standard error; ours must not be worse than the reference's."""
    ours, theirs = [], []
    for a, b, exact in graded_pairs:
        ours.append(abs(estimated_jaccard(minhash(a), minhash(b)) - exact))
        theirs.append(abs(datasketch_minhash(a).jaccard(datasketch_minhash(b)) - exact))
    spread = [exact for *_, exact in graded_pairs]
    assert max(spread) - min(spread) > 0.4, "guard: the pairs span a range of similarities"
    assert np.mean(theirs) < 0.04, "guard: the reference itself tracks exact Jaccard"
    assert np.mean(ours) <= np.mean(theirs) + 0.01 and max(ours) < 0.1


def test_lsh_candidates_match_datasketchs_for_the_same_bands_and_rows(graded_pairs):
    """With 32 bands x 8 rows, a pair is a candidate in ours exactly when it is, up to hash luck, in
    datasketch's MinHashLSH: every pair at Jaccard >= 0.8 in both, none below 0.3 in either."""
    from datasketch import MinHashLSH

    similarities = [exact for *_, exact in graded_pairs]
    assert max(similarities) >= 0.8 and min(similarities) < 0.3, "guard: both ends of the S-curve are tested"
    for i, (a, b, exact) in enumerate(graded_pairs):
        lsh = MinHashLSH(num_perm=CONFIG.num_perm, params=(CONFIG.bands, CONFIG.rows))
        lsh.insert(f"a{i}", datasketch_minhash(a))
        theirs = f"a{i}" in lsh.query(datasketch_minhash(b))
        ours = bool(set(band_keys(minhash(a), CONFIG.bands, CONFIG.rows))
                    & set(band_keys(minhash(b), CONFIG.bands, CONFIG.rows)))
        if exact >= 0.8:
            assert ours and theirs, exact
        if exact < 0.3:
            assert not ours and not theirs, exact
