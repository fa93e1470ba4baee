"""The tokenizer's training sample, drawn by Beam steps: the texts of the ``n`` documents with the
smallest ids. Ids are hashes, so this is a uniform, deterministic sample (the same for any worker
count or runner); no machine holds more than ``n`` ids, and only the sample's texts reach the driver.
"""

from __future__ import annotations

import json

import apache_beam as beam

from codemix.pipelines import jobs, ledger
from codemix.pipelines.options import pipeline_options


class SmallestIdTexts(beam.PTransform):
    """Document Parquet -> JSON lines ``{"id", "text"}`` of the ``n`` documents with the smallest ids."""

    def __init__(self, pattern: str, n: int):
        super().__init__()
        self.pattern, self.n = pattern, n

    def expand(self, pbegin):
        chosen = beam.pvalue.AsSingleton(
            pbegin
            | "ReadIds" >> beam.io.ReadFromParquet(self.pattern, columns=["id"])
            | "Ids" >> beam.Map(lambda row: row["id"])
            | "Smallest" >> beam.combiners.Top.Smallest(self.n)
            | "AsSet" >> beam.Map(frozenset))
        return (pbegin
                | "ReadTexts" >> beam.io.ReadFromParquet(self.pattern, columns=["id", "text"])
                | "Chosen" >> beam.Filter(lambda row, ids: row["id"] in ids, chosen)
                | "ToJson" >> beam.Map(lambda row: json.dumps({"id": row["id"], "text": row["text"]},
                                                              ensure_ascii=False)))


def sample_texts(pattern: str, n: int, out_dir: str, beam_args: list[str]) -> list[str]:
    """The sample's texts, ordered by id; written under ``out_dir/sample`` on the way."""
    with jobs.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        _ = (pipeline
             | "Sample" >> SmallestIdTexts(pattern, n)
             | "Write" >> ledger.write_text(f"{out_dir}/sample", ".jsonl"))
    rows = ledger.read_jsonl(f"{out_dir}/sample*.jsonl")
    return [row["text"] for row in sorted(rows, key=lambda row: row["id"])]
