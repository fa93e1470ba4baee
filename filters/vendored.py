"""Vendored and generated paths by GitHub linguist's own rules, the ones The Stack v2 filtered with
(through go-enry).

``data/linguist/vendor.yml`` is linguist's ``lib/linguist/vendor.yml`` as published (MIT, GitHub,
Inc.; github-linguist/linguist at b45dbe9b2825a43285bcd035861be91cc0a7299e): regular expressions
matched anywhere in a repository path (``(3rd|[Tt]hird)[-_]?[Pp]arty/``, ``(^|/)node_modules/``,
minified JavaScript...). Refresh it by copying the newer file; the test checks every pattern compiles.
One exception: linguist lists ``.github/`` to keep it out of its language statistics, but nothing
there is another project's code (workflows, actions, CI and issue templates the repository wrote);
it is judged like the rest of the repository. ``data/linguist/generated.yml`` holds the path tests of linguist's ``lib/linguist/generated.rb``
(lock files, ``.idea/``, Gradle wrappers...; same commit and license), derived as its header says.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import yaml

VENDOR_LIST = "data/linguist/vendor.yml"
GENERATED_LIST = "data/linguist/generated.yml"
OWN_CODE = re.compile(r"(?:^|/)\.github/")  # linguist's (^|/)\.github/ is about statistics, not vendoring


@functools.cache
def linguist_patterns(name: str) -> re.Pattern:
    """One of linguist's lists as one regex (they are Ruby regexes that Python's ``re`` reads alike)."""
    patterns = yaml.safe_load(resources.files("codemix.filters").joinpath(name).read_text(encoding="utf-8"))
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def linguist_vendored() -> re.Pattern:
    return linguist_patterns(VENDOR_LIST)


def is_vendored(path: str) -> bool:
    """Whether linguist calls the in-repo ``path`` vendored (``re.search``, as linguist matches), but for
    the repository's own ``.github/`` folder."""
    return linguist_vendored().search(path) is not None and OWN_CODE.search(path) is None


def is_generated(path: str) -> bool:
    """Whether linguist's path tests call the in-repo ``path`` generated (lock files, IDE folders...)."""
    return linguist_patterns(GENERATED_LIST).search(path) is not None
