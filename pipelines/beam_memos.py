"""Beam's repeated look-ups answered once: function signatures, DoFn state specs, pipeline-option views.

Beam asks ``inspect.signature`` about every method of every DoFn whenever it builds, checks or
serialises a ParDo, and again when a worker sets up a bundle processor (``userstate.get_dofn_specs``
walks ``dir(dofn)`` and reads each method's parameters): ~90,000 signatures per build of six pipelines.
It also reads an option through ``options.view_as(TypeOptions)`` for each transform it applies, and
every view builds and runs an ``argparse`` parser (~3,400 per build, ~1 CPU s). Both were measured
shares of a build's fixed CPU (bench/RESULTS.md, issue 49, fourth session). ``install()`` puts a memo
in front of each:

- ``get_signature``, for plain functions and bound methods, keyed by the function (binding drops the
  first parameter the same way for every instance); any other callable (a class, a builtin, a
  ``functools.partial``, an object with ``__call__``) is asked every time;
- ``userstate.get_dofn_specs`` (the state and timer specs of a DoFn's methods' parameters), per DoFn
  class and the bound methods its instance holds of its own; a class that makes attributes up
  (``__getattr__``, ``__getattribute__`` or ``__dir__`` of its own) or an instance without a ``__dict__``
  is asked every time;
- ``PipelineOptions.view_as``, per options store and view class: a view holds nothing of its own but
  what it parsed from the flags (the same list), and reads and writes the store it shares with the
  options it came from, so the first view answers as a new one would.

The answers are Beam's own: each memo keeps what the wrapped function returned.
"""

from __future__ import annotations

import threading
import types

from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.transforms import core, ptransform, userstate, util
from apache_beam.typehints import decorators

# Modules that imported ``get_signature`` by name: each gets the memoised one.
_IMPORTERS = (decorators, core, ptransform, util)
_lock = threading.Lock()


def _key(func: object) -> tuple[str, object] | None:
    """What the signature of ``func`` depends on, or None when it is not only the function object."""
    if isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType):
        return ("bound", func.__func__)
    if isinstance(func, types.FunctionType):
        return ("function", func)
    return None


def _memoised(function, key_of, answer=lambda stored: stored):
    """``function`` answered from a memo keyed by ``key_of(argument)``; a None key means "ask every time".
    ``answer`` gives each caller what it may own (a copy where Beam's callers mutate the result)."""
    memo: dict = {}

    def once(argument):
        key = key_of(argument)
        if key is None:
            return function(argument)
        stored = memo.get(key)
        if stored is None:
            stored = function(argument)
            with _lock:
                memo[key] = stored
        return answer(stored)

    once.__wrapped_beam__ = function
    once.__doc__ = function.__doc__
    return once


def memoised(get_signature):
    """``get_signature`` answering each plain function or bound method from a memo after its first call."""
    return _memoised(get_signature, _key)


def _specs_key(dofn: object) -> tuple | None:
    """What ``get_dofn_specs(dofn)`` depends on: the class (its methods' parameter defaults) and the bound
    methods set on the instance (``beam.Map(obj.method)`` sets ``process``); None when attributes may come
    from elsewhere."""
    cls = type(dofn)
    own = getattr(dofn, "__dict__", None)
    if own is None or any(name in vars(kind) for kind in cls.__mro__[:-1]
                          for name in ("__getattr__", "__getattribute__", "__dir__")):
        return None
    bound = tuple((name, value.__func__, type(value.__self__)) for name, value in own.items()
                  if isinstance(value, types.MethodType))
    return (cls, bound)


def memoised_specs(get_dofn_specs):
    """``get_dofn_specs`` answering each DoFn class (and its instance's own bound methods) from a memo;
    each caller gets its own copies of the two sets."""
    return _memoised(get_dofn_specs, _specs_key, lambda specs: (set(specs[0]), set(specs[1])))


def memoised_views(view_as):
    """``PipelineOptions.view_as`` returning, per options store and class, the view it made first. The store
    and the flags are kept with the view, so a store's id is never reused while its entry lives."""
    views: dict[tuple[int, type], tuple[dict, object, PipelineOptions]] = {}

    def view_as_once(self, cls):
        store, flags = self._all_options, self._flags
        entry = views.get((id(store), cls))
        if entry is not None and entry[0] is store and entry[1] is flags:
            return entry[2]
        view = view_as(self, cls)
        with _lock:
            views[(id(store), cls)] = (store, flags, view)
        return view

    view_as_once.__wrapped_beam__ = view_as
    view_as_once.__doc__ = view_as.__doc__
    return view_as_once


def install() -> None:
    """Put the memos in front of Beam's ``get_signature`` (in every module that uses it),
    ``userstate.get_dofn_specs`` and ``PipelineOptions.view_as``, once."""
    with _lock:
        original = decorators.get_signature
        if not hasattr(original, "__wrapped_beam__"):
            once = memoised(original)
            for module in _IMPORTERS:
                if module.get_signature is original:
                    module.get_signature = once
        if not hasattr(userstate.get_dofn_specs, "__wrapped_beam__"):
            userstate.get_dofn_specs = memoised_specs(userstate.get_dofn_specs)
        if not hasattr(PipelineOptions.view_as, "__wrapped_beam__"):
            PipelineOptions.view_as = memoised_views(PipelineOptions.view_as)
