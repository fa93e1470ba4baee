"""One config shared by the signature, band, cluster and keep steps."""

from __future__ import annotations

from dataclasses import dataclass, field

from codemix.config import join, require

KEEPER_CRITERIA = ("permissive_license", "stars", "forks", "recency", "smallest_id")


@dataclass(slots=True, kw_only=True)
class DedupConfig:
    """MinHash LSH parameters.

    With ``bands`` × ``rows`` = ``num_perm``, two documents of Jaccard similarity s share at least
    one band with probability 1 - (1 - s^rows)^bands; the curve's midpoint, the implied threshold,
    is about (1/bands)^(1/rows). The default 16 × 16 over 256 permutations puts it near 0.84,
    close to the 0.85 BigCode used for The Stack and StarCoder.
    """

    exact: bool = True
    near: bool = True
    num_perm: int = 256
    bands: int = 16
    rows: int = 16
    shingle_size: int = 5  # token n-grams on a \W+ split
    lowercase: bool = False  # code keeps case: `Foo` and `foo` differ
    seed: int = 1
    rounds_per_pass: int = 4  # large-star/small-star rounds per Beam pipeline
    max_passes: int = 25  # then fail loudly rather than return unconverged clusters
    keeper_order: list[str] = field(default_factory=lambda: list(KEEPER_CRITERIA))

    @property
    def threshold(self) -> float:
        return (1.0 / self.bands) ** (1.0 / self.rows)

    def validate(self, path: str) -> None:
        require(self.num_perm > 0 and self.bands > 0 and self.rows > 0, join(path, "num_perm"),
                "num_perm, bands and rows must be positive")
        require(self.bands * self.rows == self.num_perm, join(path, "bands"),
                f"bands × rows = {self.bands * self.rows} but num_perm = {self.num_perm}",
                "choose bands and rows whose product is num_perm")
        require(self.shingle_size > 0, join(path, "shingle_size"), "must be positive")
        require(self.rounds_per_pass > 0 and self.max_passes > 0, join(path, "max_passes"), "must be positive")
        for i, name in enumerate(self.keeper_order):
            require(name in KEEPER_CRITERIA, join(join(path, "keeper_order"), i), f"unknown criterion {name!r}",
                    f"use some of: {', '.join(KEEPER_CRITERIA)}")
