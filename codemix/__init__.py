"""codemix: code, repositories and agent transcripts into Megatron pretraining shards.

The layers are the repository's top-level folders (filters/, dedup/, mixtures/, pipelines/, pretrain/,
dashboards/, mix/), imported only as ``codemix.<folder>``: docs/layout.md says how that name resolves in
a checkout and in an installation, and which room holds what.
"""

from __future__ import annotations

__version__ = "0.1.0"

LAYERS = ("mix", "pretrain", "dashboards", "pipelines", "mixtures", "dedup", "filters")


def refuse_bare_name(name: str) -> None:
    """Called first by each layer's ``__init__``: a layer imported under its folder name (``import
    filters`` with the repository root on ``sys.path``) would be a second copy of every module, whose
    classes and exceptions are not the build's (``except pipelines.health.BuildFailure`` would miss it)."""
    if not name.startswith(f"{__name__}."):
        raise ImportError(f"{name!r} is a folder of the codemix repository, not a package: import codemix.{name} "
                          "(docs/layout.md says how codemix.<layer> resolves in a checkout and when installed)",
                          name=name)
