"""What an SDK worker imports to run a stage's DoFns: every pipeline starts fresh workers, so what they
import is paid again per pipeline. Each check runs in a fresh interpreter, as a worker starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from apache_beam.internal import pickler

from codemix.pipelines.progress import Progress, doc_text_bytes

# Prints which of the modules a stage's worker should not need were loaded by the code given on argv.
PROBE = """
import json, sys
exec(sys.argv[1])
names = ("codemix.pipelines.build", "codemix.mixtures.spec", "codemix.filters.config",
         "codemix.filters.secrets", "tree_sitter")
gitleaks = sys.modules.get("codemix.filters.gitleaks")
print(json.dumps({"loaded": [n for n in names if n in sys.modules], "locals": sorted(k for k in dir() if k.isidentifier()),
                  "gitleaks_rules_compiled": gitleaks.rules.cache_info().currsize if gitleaks else None}))
"""


def probe(code: str) -> dict:
    run = subprocess.run([sys.executable, "-c", PROBE, code], capture_output=True, text=True, env=os.environ, check=True)
    return json.loads(run.stdout)


def test_unpickling_a_read_counter_leaves_the_build_driver_unloaded():
    """The shards pipeline's ``Progress`` counts with a function of ``pipelines.progress``: unpickling it
    must not import ``pipelines.build`` (and with it every stage, the spec and the filters)."""
    payload = pickler.dumps(Progress("read", doc_text_bytes)).hex()
    seen = probe(f"from apache_beam.internal import pickler; step = pickler.loads(bytes.fromhex({payload!r}))\n"
                 "assert type(step).__module__ == 'codemix.pipelines.progress'")
    assert "step" in seen["locals"]  # the DoFn really was unpickled
    assert seen["loaded"] == []


def test_dedup_modules_leave_filter_configs_and_secrets_unloaded():
    """Dedup workers read commit digests (``filters.commits``), not the filter configs, secret rules or
    tree-sitter grammars."""
    seen = probe("import codemix.dedup.stage, codemix.filters.commits")
    assert seen["loaded"] == []


def test_importing_secrets_compiles_no_gitleaks_rule():
    """A worker that imports the redaction module but redacts nothing pays no rule compilation."""
    seen = probe("import codemix.filters.secrets")
    assert "codemix.filters.secrets" in seen["loaded"] and seen["gitleaks_rules_compiled"] == 0
