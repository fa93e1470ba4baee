"""YAML documents that are data: a prompt's few-shot examples or a config whose keys (``Request:``, ``Response:``)
look like speakers' labels to a text format but are fields."""

from __future__ import annotations

import functools
import re

import yaml

# A YAML document opens with a mapping key, a list item or a document marker (a YAML file saved by an HTTP
# recorder, a run's config-and-history dump); any other text is not tried as YAML.
YAML_START = re.compile(r"\A(?:\s*#[^\n]*\n)*\s*(?:---[ \t]*\n|- |[A-Za-z_][\w.-]{0,60}:[ \t]*(?:\n|[^\n]))")


@functools.lru_cache(maxsize=8)  # a file's text is asked by the reader and by each text format
def nested_yaml(text: str) -> bool:
    """Whether ``text`` is a YAML mapping that holds mappings (``example1: {Request: ..., Response: {...}}``): a chat
    written as ``User: hi`` / ``Assistant: hello`` lines loads flat, or not at all."""
    if not YAML_START.match(text) or "&" in text:
        return False
    try:
        value = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, ValueError, RecursionError):
        return False
    return isinstance(value, dict) and any(isinstance(v, dict) for v in value.values())
