"""A file source's ``.ipynb`` files as notebook documents, when the source sets ``notebooks``.

One notebook is one record: a Document of kind ``notebook`` in the configured layout
(``filters.notebooks``), a Dropped (``empty_notebook``: no cell with text; ``unsupported_kernel``:
the script layout and a kernel language without a known line comment), or a Quarantined (not JSON,
or JSON that is not an nbformat 3/4 notebook).
"""

from __future__ import annotations

import json
from typing import Any

from codemix.filters.notebooks import (
    COMMENT_PREFIXES,
    NotebookError,
    file_language,
    kernel_language,
    notebook_text,
    read_cells,
)
from codemix.pipelines.readers.common import JSON_ERRORS, Outcome, drop, make_document, quarantine
from codemix.sources import NotebookConfig, SourceConfig


def notebook_outcome(source: SourceConfig, location: str, text: str, *, repo: str, path: str,
                     metadata: dict[str, Any]) -> Outcome:
    """The notebook at ``location`` (its decoded ``text``) as a document, or why not."""
    config = source.notebooks or NotebookConfig()
    try:
        notebook = json.loads(text)
        cells = read_cells(notebook, config.max_output_chars if config.layout == "cells" else 0)
        kernel = kernel_language(notebook)
    except (*JSON_ERRORS, NotebookError, TypeError, AttributeError) as error:  # a field of an unexpected type
        return quarantine(source, location, error)
    if config.layout == "script" and kernel not in COMMENT_PREFIXES:
        return drop(source, location, "unsupported_kernel")
    if not any(cell.source.strip() for cell in cells):
        return drop(source, location, "empty_notebook")
    described = {"layout": config.layout, "kernel": kernel, "cells": len(cells),
                 "code_cells": sum(cell.kind == "code" for cell in cells),
                 "outputs_kept": sum(len(cell.outputs) for cell in cells),
                 "outputs_dropped": sum(cell.dropped_outputs for cell in cells)}
    return make_document(source, location, notebook_text(cells, kernel, config), repo=repo, path=path,
                         kind="notebook", language=file_language(kernel), metadata={**metadata, "notebook": described})
