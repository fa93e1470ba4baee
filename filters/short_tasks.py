"""Benchmark tasks too short to be matched as code, matched with their prompt instead.

A code item under ``min_match_tokens`` normalised tokens (54 of HumanEval's 164: HumanEval/13's gcd,
HumanEval/53's ``return x + y``) is left out of the code index, so an idiom can never remove a file.
A leaked short task nearly always arrives with its task text, though: here each such item is indexed
again *literally* (docstring words, names and code as written) when that text is long enough, so a
solution next to its prompt is removed while a bare idiom, which lacks the prompt's words, is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from codemix.config import join
from codemix.filters.decontamination import (
    BenchmarkText,
    ContaminationIndex,
    DecontaminationConfig,
    code_tokens,
    humaneval_items,
    normalise_tokens,
    read_benchmark,
)


def prompted_items(items: Iterable[BenchmarkText], min_match_tokens: int) -> Iterator[BenchmarkText]:
    """``(benchmark, id, text)`` literal items for the code items the code index leaves out, when
    their text (prompt included) has at least ``min_match_tokens`` literal tokens."""
    for benchmark, item_id, text, *language in items:
        if not (language and language[0]) or len(code_tokens(text, language[0])) >= min_match_tokens:
            continue
        if len(normalise_tokens(text)) >= min_match_tokens:
            yield benchmark, item_id, text


def short_task_index(config: DecontaminationConfig, path: str = "decontamination") -> ContaminationIndex:
    """The literal index of ``prompted_items`` over HumanEval (if asked) and every benchmark file."""
    items: list[BenchmarkText] = list(humaneval_items()) if config.humaneval else []
    for i, location in enumerate(config.benchmarks):
        items.extend(read_benchmark(location, join(join(path, "benchmarks"), i)))
    return ContaminationIndex(prompted_items(items, config.min_match_tokens), ngram=config.ngram,
                              min_overlap=config.min_overlap, min_item_tokens=config.min_item_tokens)
