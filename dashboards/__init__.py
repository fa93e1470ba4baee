"""Dashboards that read the files the pipeline and training write."""

from codemix import refuse_bare_name

refuse_bare_name(__name__)
