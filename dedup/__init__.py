"""Deduplication: exact content hashes, then MinHash LSH with connected components inside Beam."""
