"""The tokenizer's training sample: the texts of the n smallest ids, whatever characters they hold.

Code holds characters that ``str.splitlines`` treats as line breaks but JSON leaves unescaped
(U+2028, U+2029, U+0085 with ``ensure_ascii=False``): spaCy's test_naughty_strings.py has one,
and the sample's JSON lines were split inside such a text before the driver read them back.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.parquet as pq

from codemix.pipelines.tokenizer_sample import sample_texts

SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\r\n", "\r"]


def test_sample_holds_the_smallest_ids_texts_intact_with_unicode_line_separators(tmp_path):
    texts = [f"line one{sep}line two {i}\n" for i, sep in enumerate(SEPARATORS)] + [f"plain {i}\n" for i in range(12)]
    ids = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
    smallest = sorted(zip(ids, texts))[:10]
    assert any(sep in text for _, text in smallest for sep in ("\u2028", "\u2029", "\x85")), "fixture lost its point"
    for part in range(2):
        rows = list(zip(ids, texts))[part::2]
        pq.write_table(pa.table({"id": [i for i, _ in rows], "text": [t for _, t in rows]}),
                       tmp_path / f"docs-{part:05d}.parquet")

    sampled = sample_texts(str(tmp_path / "docs-*.parquet"), 10, str(tmp_path / "out"), ["--runner=FnApiRunner"])

    assert sampled == [text for _, text in smallest]
