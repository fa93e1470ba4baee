"""Issue 31: what the driver reads grows with what it reports, not with the corpus.

Quarantine JSONL is streamed in chunks (health and manifest count it without a list of rows), a
directory listing is hashed one entry at a time, and ``mix stats`` reads the text of only the crawl
row groups that hold a redaction sample. Each is checked on what is held or read, never on time.
"""

from __future__ import annotations

import json
import tracemalloc

import pyarrow as pa
import pyarrow.parquet as pq

from codemix.pipelines import ledger
from codemix.pipelines.fingerprints import listing_digest, local_fingerprint
from codemix.pipelines.manifest import BuildLayout, quarantine_counts
from codemix.pipelines.stats import documents_by_id, sample_documents


def _quarantine(tmp_path, rows: int):
    (tmp_path / "quarantine").mkdir()
    line = {"source": "code", "location": "/x/" + "d" * 80, "error": "UnicodeDecodeError: \u2028 inside a string"}
    with open(tmp_path / "quarantine" / "part-0.jsonl", "w", encoding="utf-8") as out:
        out.writelines(json.dumps({**line, "source": f"s{i % 3}"}, ensure_ascii=False) + "\n" for i in range(rows))
    return BuildLayout(str(tmp_path))


def test_jsonl_lines_split_across_chunks_read_back_whole(tmp_path):
    rows = [{"source": "a", "text": "x\u2028y" * k} for k in range(1, 40)]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    streamed = ledger.iter_jsonl(str(tmp_path / "q.jsonl"), chunk_bytes=7)  # most lines span several chunks
    assert iter(streamed) is streamed, "a generator, not a list"
    assert list(streamed) == rows == ledger.read_jsonl(str(tmp_path / "q.jsonl"))


def test_quarantine_counts_hold_one_chunk_not_the_file(tmp_path):
    layout = _quarantine(tmp_path, 150_000)
    size = (tmp_path / "quarantine" / "part-0.jsonl").stat().st_size
    assert size > 20_000_000, "guard: the file is much larger than a chunk"
    tracemalloc.start()
    counts = quarantine_counts(layout)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert counts == {"s0": 50_000, "s1": 50_000, "s2": 50_000}
    assert peak < 6 * ledger.JSONL_CHUNK_BYTES < size / 3, peak  # reading it whole holds over 2x its size


def test_a_listing_is_hashed_one_entry_at_a_time_and_in_any_order():
    def entries(order):
        for i in order:
            yield f"pkg/module_{i:07d}.py", 1000 + i, 1_700_000_000 + i

    tracemalloc.start()
    digest = listing_digest(entries(range(200_000)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200_000, f"held {peak} bytes: the listing was collected"  # 200k entries as tuples: ~40 MB
    assert digest == listing_digest(entries(reversed(range(200_000)))) and digest["files"] == 200_000
    assert digest != listing_digest(entries(range(1, 200_001)))


def test_a_directory_digest_still_follows_every_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    before = local_fingerprint(str(tmp_path))
    (tmp_path / "b.py").write_text("y = 2\n")
    after = local_fingerprint(str(tmp_path))
    assert (before["files"], after["files"]) == (1, 2) and before["tree"] != after["tree"]


def test_stats_reads_text_only_from_row_groups_holding_a_sample(tmp_path, monkeypatch):
    ids = [f"doc-{i}" for i in range(400)]
    table = pa.table({"id": ids, "source": ["code"] * 400,
                      "text": [f"token = <SECRET_PASSWORD> # {i}\n" + "x" * 2000 for i in range(400)]})
    pq.write_table(table, tmp_path / "docs.parquet", row_group_size=20)  # 20 row groups
    redactions = [{"doc_id": ids[i], "source": "code", "type": "SECRET_PASSWORD"} for i in (45, 46, 47, 300, 301)]
    wanted = sample_documents(redactions)
    assert set(wanted) == {ids[45], ids[46], ids[47]}, "three samples per (source, type)"
    reads = []
    real = pq.ParquetFile.read_row_group

    def counting(self, i, columns=None, **kwargs):
        reads.append((i, tuple(columns or ())))
        return real(self, i, columns=columns, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read_row_group", counting)
    rows = list(documents_by_id(str(tmp_path / "docs.parquet"), set(wanted)))
    assert sorted(row["id"] for row in rows) == sorted(wanted)
    assert [i for i, columns in reads if "text" in columns] == [2], "text of the one row group holding them"
    assert max(i for i, _ in reads) == 2, "the scan stopped once every sample was found"
