"""Dump the ``reuse`` tool's per-file license reading of a checkout as JSON (the reference that
``bench/licenses_reuse.py`` compares codemix with).

    /path/to/venv-with-reuse/bin/python -P bench/reuse_reading.py CHECKOUT > reading.json   # -P: bench/tokenize.py

``{path: [expression, ...]}``: every SPDX expression REUSE finds in force for the file (its header or
``.license`` sidecar, ``.reuse/dep5``, ``REUSE.toml``, by REUSE's precedence rules); several are all in force.
"""

import json
import sys
from pathlib import Path

from reuse.project import Project

root = Path(sys.argv[1]).resolve()
project = Project.from_directory(root)
reading = {}
for path in project.all_files():
    expressions = sorted({str(e) for info in project.reuse_info_of(path) for e in info.spdx_expressions})
    reading[path.relative_to(root).as_posix()] = expressions
json.dump(reading, sys.stdout, indent=0, sort_keys=True)
