"""Deduplication: exact content hashes, then MinHash LSH with connected components inside Beam."""

from codemix import refuse_bare_name

refuse_bare_name(__name__)
