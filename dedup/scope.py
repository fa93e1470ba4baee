"""Dedup scopes: documents are compared, exact and near, only with those of their kind's scope
(``codemix.kinds.DocumentKind.scope``), so a commit never removes the file it added nor a file a commit;
``dedup.across_kinds`` puts every kind in one scope."""

from __future__ import annotations

from typing import Any

from codemix.kinds import FILE, document_kind

ALL_KINDS = ""  # the one scope of ``dedup.across_kinds``


def kind_name(row: dict[str, Any]) -> str:
    """A row's document kind; rows written before kinds existed are files."""
    return row.get("kind") or FILE.name


def scope_of(kind: str, across_kinds: bool) -> str:
    """The dedup scope documents of ``kind`` are compared in: their kind's, or one for all with ``across_kinds``."""
    return ALL_KINDS if across_kinds else document_kind(kind or FILE.name).scope


def scoped_key(scope: str, key: bytes) -> bytes:
    """An exact digest or an LSH band key within one scope: documents of two scopes never share a key."""
    return scope.encode() + b"\0" + key if scope else key
