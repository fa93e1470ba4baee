"""Vendored paths by GitHub linguist's own list, the one The Stack v2 filtered with (through go-enry).

``data/linguist/vendor.yml`` is linguist's ``lib/linguist/vendor.yml`` as published (MIT, GitHub,
Inc.; github-linguist/linguist at b45dbe9b2825a43285bcd035861be91cc0a7299e): regular expressions
matched anywhere in a repository path (``(3rd|[Tt]hird)[-_]?[Pp]arty/``, ``(^|/)node_modules/``,
minified JavaScript...). Refresh it by copying the newer file; the test checks every pattern compiles.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import yaml

VENDOR_LIST = "data/linguist/vendor.yml"


@functools.cache
def linguist_vendored() -> re.Pattern:
    """linguist's vendored patterns as one regex (they are Ruby regexes that Python's ``re`` reads alike)."""
    patterns = yaml.safe_load(resources.files("codemix.filters").joinpath(VENDOR_LIST).read_text(encoding="utf-8"))
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def is_vendored(path: str) -> bool:
    """Whether linguist calls the in-repo ``path`` vendored (``re.search``, as linguist matches)."""
    return linguist_vendored().search(path) is not None
