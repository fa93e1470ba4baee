"""The memos in front of Beam's look-ups (pipelines/beam_memos.py) answer what Beam's own functions answer:
``get_signature`` for every method of codemix's DoFns (and Beam is asked again for callables whose signature
is not the function object's alone), ``get_dofn_specs`` for codemix's DoFns and Beam's wrappers, stateful or
not, ``PipelineOptions.view_as`` as a fresh view would."""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import pkgutil

import apache_beam as beam
from apache_beam.coders import VarIntCoder
from apache_beam.options.pipeline_options import (
    DebugOptions,
    DirectOptions,
    PipelineOptions,
    SetupOptions,
    StandardOptions,
    TypeOptions,
)
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms import core, ptransform, userstate, util
from apache_beam.transforms.userstate import BagStateSpec
from apache_beam.typehints import decorators

import codemix.pipelines
from codemix.pipelines import beam_memos


def _codemix_dofn_methods() -> list[object]:
    """The functions of every DoFn class codemix's pipelines define, plain and bound to an instance."""
    for module in pkgutil.walk_packages(codemix.pipelines.__path__, "codemix.pipelines."):
        importlib.import_module(module.name)
    classes = {cls for module in list(importlib.sys.modules.values()) if module and
               getattr(module, "__name__", "").startswith("codemix.pipelines")
               for cls in vars(module).values() if inspect.isclass(cls) and issubclass(cls, beam.DoFn)
               and cls.__module__.startswith("codemix.")}
    assert len(classes) >= 10  # guard: the pipelines' DoFns were found
    callables = []
    for cls in classes:
        functions = [name for name in dir(cls) if inspect.isfunction(getattr(cls, name, None))]
        instance = cls.__new__(cls)  # bound methods need an instance, not its constructor's arguments
        callables += [getattr(cls, name) for name in functions] + [getattr(instance, name) for name in functions]
    return callables


def test_installed_in_every_module_that_imported_get_signature():
    beam_memos.install()
    beam_memos.install()  # twice: still one memo, over Beam's function
    memo = decorators.get_signature
    assert memo.__wrapped_beam__.__module__ == "apache_beam.typehints.decorators"
    assert core.get_signature is ptransform.get_signature is util.get_signature is memo
    assert PipelineOptions.view_as.__wrapped_beam__.__qualname__ == "PipelineOptions.view_as"
    assert userstate.get_dofn_specs.__wrapped_beam__.__module__ == "apache_beam.transforms.userstate"


def test_memo_answers_as_beam_does_for_codemix_dofns():
    beam_memos.install()
    original = decorators.get_signature.__wrapped_beam__
    callables = _codemix_dofn_methods()
    assert any(inspect.ismethod(c) for c in callables) and any(inspect.isfunction(c) for c in callables)
    for func in callables:
        assert decorators.get_signature(func) == original(func), func
        assert decorators.get_signature(func) == original(func), func  # and from the memo
        assert core.get_function_args_defaults(func) == (
            [n for n, p in original(func).parameters.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)],
            [p.default for p in original(func).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty])


def test_other_callables_are_asked_every_time():
    asked = []

    def get_signature(func):
        asked.append(func)
        return inspect.signature(func)

    once = beam_memos.memoised(get_signature)

    class Callable:
        def __call__(self, x, y=1):
            return x

    def plain(a, b=2):
        return a

    partial = functools.partial(plain, b=3)
    for func in (plain, plain, Callable(), Callable(), partial, partial, len, len, Callable().__call__, Callable().__call__):
        assert once(func) == inspect.signature(func)
    # plain once, the bound __call__ once (two instances, one function); the rest every time
    assert asked.count(plain) == 1 and len(asked) == 1 + 2 + 2 + 2 + 1


def test_a_pipeline_runs_with_the_memo():
    beam_memos.install()
    with TestPipeline() as pipeline:
        doubled = pipeline | beam.Create([1, 2, 3]) | beam.Map(lambda x, k=2: x * k)
        assert_that(doubled, equal_to([2, 4, 6]))


def test_option_views_answer_as_fresh_views_do():
    beam_memos.install()
    fresh_view = PipelineOptions.view_as.__wrapped_beam__
    flags = ["--runner=FnApiRunner", "--direct_num_workers=2", "--no_pipeline_type_check", "--experiments=a"]
    options = PipelineOptions(flags)
    for cls in (StandardOptions, TypeOptions, DirectOptions, DebugOptions, SetupOptions):
        view = options.view_as(cls)
        assert options.view_as(cls) is view and view.view_as(cls) is view  # from the memo
        assert view.get_all_options() == fresh_view(options, cls).get_all_options()
        assert vars(view._visible_options) == vars(fresh_view(options, cls)._visible_options)
    assert options.view_as(TypeOptions).pipeline_type_check is False
    assert options.view_as(DirectOptions).direct_num_workers == 2
    options.view_as(StandardOptions).runner = "DirectRunner"  # a write through one view is seen by all
    assert options.view_as(StandardOptions).runner == fresh_view(options, StandardOptions).runner == "DirectRunner"
    options.view_as(DebugOptions).experiments.append("b")
    assert fresh_view(options, DebugOptions).experiments == ["a", "b"]
    other = PipelineOptions(["--direct_num_workers=3"])  # another store: views of its own
    assert other.view_as(DirectOptions).direct_num_workers == 3 and options.view_as(DirectOptions).direct_num_workers == 2
    copied = copy.deepcopy(options)  # as beam.Pipeline copies its options
    copied.view_as(StandardOptions).runner = "FnApiRunner"
    assert options.view_as(StandardOptions).runner == "DirectRunner"


SEEN = beam.DoFn.StateParam(BagStateSpec("seen", VarIntCoder()))


class _Stateful(beam.DoFn):
    def process(self, element, seen=SEEN):
        yield element


class _Holder:
    def stateful(self, element, seen=SEEN):
        return element

    def plain(self, element):
        return element


def test_dofn_specs_answer_as_beam_does():
    beam_memos.install()
    original = userstate.get_dofn_specs.__wrapped_beam__
    dofns = [cls.__new__(cls) for cls in {type(m.__self__) for m in _codemix_dofn_methods() if inspect.ismethod(m)}]
    holder = _Holder()
    wrapped = core._ExceptionHandlingWrapperDoFn(_Stateful(), "bad", Exception, False, None, True)
    dofns += [_Stateful(), beam.Map(len).fn, beam.Map(lambda x: x).fn, core.CallableWrapperDoFn(holder.stateful), core.CallableWrapperDoFn(holder.plain),
              wrapped]
    assert beam_memos._specs_key(wrapped) is None  # it hands attributes on to the DoFn it wraps
    assert sum(beam_memos._specs_key(dofn) is not None for dofn in dofns) >= 10  # guard: the memo is used
    for dofn in dofns + dofns:  # the second time from the memo
        assert userstate.get_dofn_specs(dofn) == original(dofn), dofn
    # a wrapped bound method is part of the key: the two wrappers are told apart
    assert beam_memos._specs_key(dofns[-3]) != beam_memos._specs_key(dofns[-2]) and dofns[-3]._fn == holder.stateful
    specs = userstate.get_dofn_specs(_Stateful())
    specs[0].clear()  # a caller's copy: the memo keeps its own
    assert userstate.get_dofn_specs(_Stateful())[0] == original(_Stateful())[0] != set()
