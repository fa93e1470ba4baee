"""Crawl sources, and the Beam pipelines that run each stage of `mix build`."""
