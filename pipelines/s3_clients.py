"""One boto3 S3 client per process and configuration, for Beam's S3 filesystem.

Beam 2.77's S3 filesystem builds a new ``boto3.session.Session()`` and client for every call
(``exists``, ``open``, ``match``, each rename of a write's finalization), and a session loads
botocore's service models from disk each time: ~0.26 s per call on a 2-core machine, most of a
small build's time on S3 (a 10 s local build took 72 s). boto3 clients are thread-safe, so one per
set of connection options is shared instead. ``share_s3_clients`` swaps the ``boto3`` that Beam's
client module sees for a view whose ``session.Session().client(...)`` returns the shared client;
``pipelines.ledger`` (which every stage's steps import) calls it, so the driver and every worker
that unpickles a codemix step share clients.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

_LOCK = threading.Lock()
_CLIENTS: dict[tuple, Any] = {}


class _SharedClients:
    """Stands for a boto3 Session in Beam's client module: ``client(**options)`` once per options."""

    def __init__(self, boto3_module):
        self._boto3 = boto3_module

    def client(self, **options):
        key = tuple(sorted((name, repr(value)) for name, value in options.items()))
        with _LOCK:
            if key not in _CLIENTS:
                from codemix.pipelines.object_store import bounded_config

                # botocore's own waits (60 s a connection attempt) bounded; not in the key: a Config's
                # repr is its id, so one made per call would defeat the sharing.
                _CLIENTS[key] = self._boto3.session.Session().client(**options, config=bounded_config())
            return _CLIENTS[key]


def share_s3_clients() -> bool:
    """Make Beam's S3 filesystem reuse clients; False when Beam's S3 support (boto3) is not installed."""
    try:
        from apache_beam.io.aws.clients.s3 import boto3_client
    except ImportError:
        return False
    real = getattr(boto3_client, "boto3", None)
    if real is None or isinstance(getattr(real, "session", None), SimpleNamespace):
        return real is not None  # no boto3, or already shared
    shared = _SharedClients(real)
    boto3_client.boto3 = SimpleNamespace(session=SimpleNamespace(Session=lambda: shared), __name__="boto3")
    return True
