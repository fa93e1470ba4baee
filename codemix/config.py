"""Typed dataclass configs loaded from YAML, with errors that name the field and the fix.

``load_config(cls, data)`` walks a plain dict against a (keyword-only) dataclass: unknown keys,
wrong types and bad values raise ``ConfigError`` whose message starts with the dotted field path,
e.g. ``stages.short.sequence_length: expected an integer, got 'long'``. Dataclasses may define
``validate(self, path)`` for checks that span fields; it runs after the fields are loaded.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import types
import typing
from typing import Any, Literal, get_args, get_origin

import yaml


class ConfigError(ValueError):
    """A spec or config problem, reported before any work starts."""

    def __init__(self, field_path: str, problem: str, fix: str = ""):
        self.field_path = field_path
        message = f"{field_path or '<spec>'}: {problem}"
        if fix:
            message += f". Fix: {fix}"
        super().__init__(message)


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def load_config(cls: type, data: Any, path: str = "") -> Any:
    """Build ``cls`` from ``data`` (a dict from YAML), checking every field."""
    if not isinstance(data, dict):
        raise ConfigError(path, f"expected a mapping, got {type(data).__name__}", f"write {path or 'the spec'} as key: value pairs")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = [k for k in data if k not in fields]
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(str(key), fields, n=1)
        fix = f"did you mean '{close[0]}'?" if close else f"known fields are: {', '.join(sorted(fields))}"
        raise ConfigError(join(path, str(key)), "unknown field", fix)
    values = {}
    for name, f in fields.items():
        if name in data:
            values[name] = coerce(hints[name], data[name], join(path, name))
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ConfigError(join(path, name), "required field is missing", f"add '{name}:' to {path or 'the spec'}")
    obj = cls(**values)
    validate = getattr(obj, "validate", None)
    if callable(validate):
        validate(path)
    return obj


def coerce(hint: Any, value: Any, path: str) -> Any:
    """Check ``value`` against a type hint, converting YAML scalars where it is unambiguous."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        kinds = [a for a in args if a is not type(None)]
        if len(kinds) == 1:  # an optional field: the one type's own error names the exact field
            return coerce(kinds[0], value, path)
        errors = []
        for arg in kinds:
            try:
                return coerce(arg, value, path)
            except ConfigError as error:
                errors.append(str(error))
        raise ConfigError(path, f"value {value!r} fits none of the allowed types", errors[0].split(": ", 1)[-1])
    if origin is Literal:
        if value not in args:
            raise ConfigError(path, f"unknown value {value!r}", f"use one of: {', '.join(map(str, args))}")
        return value
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise ConfigError(path, f"expected a list, got {type(value).__name__}", "write it as a YAML list")
        item = args[0] if args else Any
        return [coerce(item, v, join(path, i)) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(path, f"expected a mapping, got {type(value).__name__}", "write it as key: value pairs")
        key_hint, value_hint = args if args else (Any, Any)
        return {coerce(key_hint, k, path): coerce(value_hint, v, join(path, str(k))) for k, v in value.items()}
    if dataclasses.is_dataclass(hint):
        return load_config(hint, value, path)
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(path, f"expected true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(path, f"expected an integer, got {value!r}", "write a whole number such as 4096")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(path, f"expected a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(path, f"expected a string, got {value!r}", "quote the value")
        return value
    raise ConfigError(path, f"unsupported config type {hint!r}")


_ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_env(value: str, path: str) -> str:
    """Expand ``${NAME}`` from the environment; an unset name is an error naming the field."""

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise ConfigError(path, f"environment variable ${{{name}}} is not set", f"export {name}=... before running")
        return os.environ[name]

    return _ENV_VAR.sub(substitute, value)


def require(condition: bool, path: str, problem: str, fix: str = "") -> None:
    """Raise a ``ConfigError`` unless ``condition`` holds (configs never use ``assert``)."""
    if not condition:
        raise ConfigError(path, problem, fix)


class UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping with a key given twice (YAML 1.2 forbids it; PyYAML
    keeps the last value, so a repeated ``weights:`` would silently replace the first)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, typing.Hashable) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} on line {line} (first given on line {seen[key]}); "
                    "a YAML mapping takes each key once", key_node.start_mark)
            if isinstance(key, typing.Hashable):
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str, name: str) -> Any:
    """Parse YAML ``text`` (from file ``name``) safely; a syntax error or a duplicate key raises
    ``ConfigError`` naming the file, the key and the line."""
    try:
        return yaml.load(text, Loader=UniqueKeyLoader)  # a SafeLoader subclass
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None)
        if problem and problem.startswith("duplicate key"):
            raise ConfigError(name, problem, "remove or merge the repeated key") from error
        raise ConfigError("", f"{name} is not valid YAML: {error}") from error
