"""Dashboards that read the files the pipeline and training write."""
