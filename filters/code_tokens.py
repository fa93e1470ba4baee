"""The normalised code token stream that decontamination and its screen (``code_screen``) both read.

Kept apart so that ``decontamination`` can use the screen and the screen can read these types without
the two modules importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# A method's receiver and its uses are dropped, so a function wrapped as a method (``def f(self, a)``,
# ``self.f(a)``) reads as the function (``def f(a)``, ``f(a)``).
RECEIVERS = frozenset({"self", "cls"})


@dataclass(slots=True)
class CodeTokens:
    """A normalised code token stream: ``symbols[i]`` is the token's text (an identifier's name when
    ``identifier[i]``), ``starts``/``ends`` its character offsets in the source."""

    symbols: list[str] = field(default_factory=list)
    identifier: list[bool] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)

    def add(self, symbol: str, start: int, end: int, is_identifier: bool = False) -> None:
        self.symbols.append(symbol)
        self.identifier.append(is_identifier)
        self.starts.append(start)
        self.ends.append(end)

    def add_operator(self, text: str, start: int) -> None:
        """Operators one character each, as the literal tokens do: spacing never changes them."""
        for k, char in enumerate(text):
            self.add(char, start + k, start + k + 1)

    def __len__(self) -> int:
        return len(self.symbols)


def covered(positions: np.ndarray, n: int, length: int) -> int:
    """How many of ``length`` tokens lie in at least one n-gram starting at ``positions``."""
    counts = np.zeros(length + 1, dtype=np.int64)
    np.add.at(counts, positions, 1)
    np.add.at(counts, np.minimum(positions + n, length), -1)
    return int(np.count_nonzero(np.cumsum(counts)[:length]))
