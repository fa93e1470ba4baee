"""Crawl sources, and the Beam pipelines that run each stage of `mix build`."""

from codemix import refuse_bare_name

refuse_bare_name(__name__)
