"""codemix: code, repositories and agent transcripts into Megatron pretraining shards.

The layers are the repository's top-level folders (filters/, dedup/, mixtures/, pipelines/, pretrain/,
dashboards/, mix/), imported as ``codemix.<folder>``: an installed wheel holds them under codemix/
(pyproject's package-dir), and in a checkout the finder below maps them from beside this folder, so
each checkout or worktree runs its own code. docs/layout.md says which room holds what.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from pathlib import Path

__version__ = "0.1.0"

LAYERS = ("mix", "pretrain", "dashboards", "pipelines", "mixtures", "dedup", "filters")


class _CheckoutLayers(importlib.abc.MetaPathFinder):
    """``codemix.<layer>`` from ``ROOT/<layer>/`` of this checkout; deeper modules follow the package path."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, fullname, path=None, target=None):
        parent, _, layer = fullname.partition(".")
        if parent != __name__ or layer not in LAYERS:
            return None
        init = self.root / layer / "__init__.py"
        return importlib.util.spec_from_file_location(fullname, init, submodule_search_locations=[str(init.parent)])


def _install_checkout_finder() -> None:
    here = Path(__file__).resolve().parent
    checkout = not (here / "filters").is_dir() and (here.parent / "filters" / "__init__.py").is_file()
    if checkout and not any(isinstance(finder, _CheckoutLayers) for finder in sys.meta_path):
        sys.meta_path.insert(0, _CheckoutLayers(here.parent))


_install_checkout_finder()
