"""Issue 49: ``JudgeDocuments`` holds documents and screens them in batches, and emits what it would emit for
each alone, in its own window at its own timestamp.

More documents than one batch (``BATCH_DOCUMENTS``) of real standard-library modules, one with a HumanEval task
pasted in and one with a private key, each at its own timestamp in fixed windows, go through the ``Filter``
transform; every output is compared with ``filter_outcomes`` of its document alone (no Beam), with the window and
timestamp it came out in.
"""

from __future__ import annotations

import sysconfig
from collections import Counter
from pathlib import Path

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms.window import FixedWindows, IntervalWindow, TimestampedValue

from codemix.document import ContaminationHit, Document, Dropped
from codemix.filters.apply import DocumentFilter
from codemix.filters.config import FiltersConfig
from codemix.filters.decontamination import humaneval_items
from codemix.pipelines.crawl import path_language
from codemix.pipelines.filter import BATCH_DOCUMENTS, Filter, filter_outcomes
from codemix.pipelines.ledger import CONTAMINATION, DOCS, DROPPED

STDLIB = Path(sysconfig.get_path("stdlib"))
MODULES = [p for p in sorted(STDLIB.glob("*.py")) if p.stat().st_size < 20_000][:BATCH_DOCUMENTS + 40]
TASK = next(text for _, item_id, text, _ in humaneval_items() if item_id == "HumanEval/0")
WIDTH = 10  # seconds per window: several windows, each with several documents


def documents() -> list[Document]:
    docs = [Document(id=f"d{i}", text=path.read_text(encoding="utf-8"), source="stdlib", kind="file",
                     path=f"Lib/{path.name}", language="python", license="PSF-2.0")
            for i, path in enumerate(MODULES)]
    docs[7].text += "\n" + TASK + "\n"  # contaminated
    docs[BATCH_DOCUMENTS + 3].text += "\nKEY = '''-----BEGIN RSA PRIVATE KEY-----'''\n"
    return docs


def summary(outcome) -> tuple:
    """What an output says, comparable across runs."""
    if isinstance(outcome, Document):
        return ("doc", outcome.id, outcome.license, len(outcome.text))
    if isinstance(outcome, Dropped):
        return ("dropped", outcome.doc_id, outcome.reason)
    if isinstance(outcome, ContaminationHit):
        return ("hit", outcome.doc_id, outcome.item_id)
    return ("other", repr(outcome))


def expected(docs: list[Document]) -> list[tuple]:
    judge = DocumentFilter(FiltersConfig(), language_of=path_language)
    out = []
    for number, doc in enumerate(docs):
        window = IntervalWindow(number // WIDTH * WIDTH, number // WIDTH * WIDTH + WIDTH)
        for outcome in filter_outcomes(doc, judge, {}):
            if isinstance(outcome, beam.pvalue.TaggedOutput):
                outcome = outcome.value
            out.append((*summary(outcome), number, window))
    return out


class WhereAndWhen(beam.DoFn):
    def process(self, outcome, timestamp=beam.DoFn.TimestampParam, window=beam.DoFn.WindowParam):
        yield (*summary(outcome), int(timestamp.micros // 1_000_000), window)


def test_batched_judging_emits_each_documents_outcomes_in_its_window_and_at_its_time():
    docs = documents()
    want = expected(docs)
    kinds = Counter(row[0] for row in want)
    assert kinds["doc"] > BATCH_DOCUMENTS and kinds["hit"] >= 1 and kinds["dropped"] >= 1, "guard: every outcome"
    with TestPipeline() as pipeline:
        judged = (pipeline
                  | beam.Create([TimestampedValue(doc, number) for number, doc in enumerate(docs)])
                  | beam.WindowInto(FixedWindows(WIDTH))
                  | Filter(FiltersConfig()))
        rows = [judged[tag] | f"Where{tag}" >> beam.ParDo(WhereAndWhen()) for tag in (DOCS, DROPPED, CONTAMINATION)]
        assert_that(rows | beam.Flatten(), equal_to(want))
