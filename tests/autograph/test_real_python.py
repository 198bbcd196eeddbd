"""What real Python code showed conversion got wrong (issue 21), beyond the
samples in tests/samples/real_python.py: builtins the user replaced,
callees that cannot be converted, frames, and code that must compile."""

from __future__ import annotations

import ast
import builtins
import collections
import dataclasses
import functools
import sys
import types
import warnings

import pytest

import autograph
import runtime as rt
from autograph.impl import api
from tests.samples import ALL_SAMPLES

# Builtins that look at their caller's frame, or that the import machinery
# and the interpreter itself need: replacing them is not a user's spy.
_NOT_SPIED = {
    "locals",
    "globals",
    "vars",
    "eval",
    "exec",
    "dir",
    "__import__",
    "__build_class__",
    "compile",
    "breakpoint",
    "input",
    "open",
    "help",
}


def _spied(run) -> collections.Counter:
    """The builtins (replaced by counting spies) that `run()` calls."""
    calls: collections.Counter = collections.Counter()
    originals = {
        name: value
        for name, value in vars(builtins).items()
        if isinstance(value, types.BuiltinFunctionType) and name not in _NOT_SPIED
    }
    for name, original in originals.items():

        def spy(*args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        # A spy passed as a value (`f = abs`) is called, not converted.
        setattr(builtins, name, autograph.do_not_convert(spy))
    try:
        run()
    finally:
        for name, original in originals.items():
            setattr(builtins, name, original)
    return calls


def _outcome(fn, args) -> BaseException | None:
    try:
        fn(*args)
    except Exception as e:
        return e
    return None


def test_operators_never_call_the_builtins_a_user_replaced():
    # The user's own calls reach the spies as in Python; the operators'
    # calls (len of a state tuple, type of a value) must not. (Samples that
    # raise are left out: formatting a traceback calls `os.path`, whose
    # builtins are the standard library's business.)
    differ = {}
    for sample in ALL_SAMPLES:
        converted = autograph.to_graph(sample.fn)
        for i, args in enumerate(sample.python_args):
            if _outcome(sample.fn, args) is not None:
                continue
            with api.always_run_converted():
                _outcome(converted, args)  # converts what it calls, first
            python = _spied(functools.partial(_outcome, sample.fn, args))
            with api.always_run_converted():
                ran = _spied(functools.partial(_outcome, converted, args))
            if python != ran:
                differ[f"{sample.id}-{i}"] = (dict(python), dict(ran))
    assert differ == {}


@dataclasses.dataclass
class _Pair:
    a: int
    b: int = 2


_Point = collections.namedtuple("_Point", "x y")


def _uses_generated_methods(n):
    pair = _Pair(n)
    if n > 0:
        other = _Pair.__init__  # made by exec: no source
        other(pair, n + 1)
        point = _Point.__new__(_Point, 1, 2)
        return pair.__eq__(_Pair(n + 1)), pair.__repr__(), point._replace(x=n)
    return None


def test_callees_without_source_run_as_they_are_with_one_warning():
    converted = autograph.to_graph(_uses_generated_methods)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with api.always_run_converted():
            first = converted(3)
            second = converted(3)
    assert first == second == _uses_generated_methods(3)
    texts = [str(w.message) for w in caught]
    assert len(texts) == len(set(texts))  # each callee warned about once
    assert any("__init__" in t and "unconverted" in t for t in texts)


def test_generated_code_that_does_not_compile_is_a_conversion_error(monkeypatch):
    from autograph.converters import cleanup

    def broken(node, ctx):
        # A compiler defect: a declaration with no binding.
        node.body.insert(0, ast.Nonlocal(names=["ghost"]))
        return node

    monkeypatch.setattr(cleanup, "transform", broken)

    def f(x):
        if x:
            return 1
        return 2

    # `to_code` only unparses (it does not compile the code, issue 24): the
    # text shows the defect, to report; running it is refused.
    assert "nonlocal ghost" in autograph.to_code(f)
    with pytest.raises(autograph.ConversionError) as raised:
        autograph.to_graph(f)
    assert "does not compile" in str(raised.value)
    assert raised.value.filename == __file__
    assert raised.value.lineno is not None


def _warns_in_branch(flag, level):
    if flag:
        for _ in range(1):
            warnings.warn("deprecated", DeprecationWarning, stacklevel=level)
    return 1


def _calls_in_branch(flag, level):
    if flag:
        return _warns_in_branch(flag, level)
    return 0


def _user_caller(fn, *args):
    return fn(*args)


@pytest.mark.parametrize(
    ("fn", "level"),
    [
        (_warns_in_branch, 1),
        (_warns_in_branch, 2),
        (_calls_in_branch, 2),
        (_calls_in_branch, 3),
        (_calls_in_branch, 99),  # past the top of the stack
    ],
)
def test_warning_stacklevel_names_the_frame_python_names(fn, level):
    def where(converted):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if converted:
                with api.always_run_converted():
                    _user_caller(autograph.to_graph(fn), True, level)
            else:
                _user_caller(fn, True, level)
        return [(w.filename, w.lineno) for w in caught]

    assert where(converted=True) == where(converted=False)


def _nest(n):
    if n == 0:
        return 0
    elif n < 0:
        return -1
    else:
        for _ in range(1):
            if n > 0:
                return _nest(n - 1) + 1
    return None


def test_a_recursion_depth_python_reaches_works_converted():
    depth = sys.getrecursionlimit() - 100
    assert _nest(depth) == depth
    with api.always_run_converted():
        assert sys.getrecursionlimit() == depth + 100  # the user's limit shows
        assert autograph.to_graph(_nest)(depth) == depth
    assert sys.getrecursionlimit() == depth + 100


def test_a_recursion_depth_python_reaches_traces_in_a_function():
    # Tracing runs the converted code too: a Python-valued recursion as deep
    # as Python goes traces, and the limit comes back afterwards.
    depth = sys.getrecursionlimit() - 100

    @autograph.function
    def f(x, n):
        return x + _nest(n)

    assert int(f(rt.constant(1), depth)) == depth + 1
    assert sys.getrecursionlimit() == depth + 100


def test_infinite_recursion_still_raises_recursion_error_converted():
    def forever(n):
        if n >= 0:
            return forever(n + 1)
        return n

    with api.always_run_converted(), pytest.raises(RecursionError):
        autograph.to_graph(forever)(0)


def _caller_module(flag):
    if flag:
        return sys._getframe(1).f_globals.get("__name__")
    return None


def _caller_name(depth):
    name = None
    for _ in range(1):
        if depth >= 0:
            name = sys._getframe(depth).f_code.co_name
    return name


def test_getframe_counts_the_frames_python_counts():
    # namedtuple and Enum's functional API find their caller's module so.
    with api.always_run_converted():
        assert _user_caller(autograph.to_graph(_caller_module), True) == __name__
        for depth in (0, 1, 2):
            expected = _user_caller(_caller_name, depth)
            assert _user_caller(autograph.to_graph(_caller_name), depth) == expected


def test_a_wrapper_that_copied_a_to_graph_results_dict_still_runs():
    log = []
    converted = autograph.to_graph(_nest)

    @functools.wraps(converted)
    def wrapper(n):
        log.append(n)
        return converted(n)

    def caller(n):
        if n >= 0:
            return wrapper(n)
        return None

    with api.always_run_converted():
        assert autograph.to_graph(caller)(2) == 2
    assert log == [2]


class _Odd:
    """A class whose `__module__` is not a string (CPython's traceback
    tests make one: `X.__module__ = 42`)."""

    def __bool__(self):
        return True


_Odd.__module__ = 42


def _conditions_on(value):
    if value:
        return value and 1
    return 0


def test_a_value_whose_class_has_a_non_string_module_runs_as_python():
    with api.always_run_converted():
        assert autograph.to_graph(_conditions_on)(_Odd()) == 1


def _drives(m, x):
    if x > 0:
        r = m(x)
        m.method(x + 1)
    else:
        r = None
    for i in range(2):
        m.other(i)
    return r


def test_a_mock_records_only_the_calls_python_makes():
    # Converted code looked its callees up by hash: a MagicMock recorded
    # `call.__hash__()` among the user's calls.
    from unittest import mock

    plain, converted = mock.MagicMock(return_value=5), mock.MagicMock(return_value=5)
    assert _drives(plain, 1) == 5
    with api.always_run_converted():
        assert autograph.to_graph(_drives)(converted, 1) == 5
    assert converted.mock_calls == plain.mock_calls


def _calls(cb):
    if cb is not None:
        return cb()
    return None


def _make_callback():
    res = []

    def callback():
        if res is not None:
            res.append(1)
        return 7

    return callback


def test_a_converted_callee_dies_with_its_last_reference():
    # weakref.finalize and WeakValueDictionary users see it go at once, as
    # in Python (CPython's test_weakref), not when the cyclic GC runs.
    import gc
    import weakref

    callback = _make_callback()
    alive = weakref.ref(callback)
    enabled = gc.isenabled()
    gc.disable()
    try:
        with api.always_run_converted():
            assert autograph.to_graph(_calls)(callback) == 7
        del callback
        assert alive() is None
    finally:
        if enabled:
            gc.enable()


class _Wrapping:
    """networkx's `argmap`: a wrapper written in a method, with a private
    keyword-only parameter (`_Wrapping__target` in its code), renamed after
    the function it wraps (its `__qualname__` no longer names the class)."""

    def __call__(self, f):
        def wrapper(*args, __target=None, **kwargs):
            if __target is None:
                return "unset"
            return __target(*args, **kwargs)

        wrapper.__qualname__ = f.__qualname__
        wrapper.__kwdefaults__["_Wrapping__target"] = f
        return wrapper


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="the code's own qualified name is 3.11's"
)
def test_private_names_are_mangled_for_the_class_the_code_was_written_in():
    @_Wrapping()
    def doubled(x):
        return 2 * x

    converted = autograph.to_graph(doubled)
    with api.always_run_converted():
        assert converted(4) == doubled(4) == 8


def _compiled_on_first_call(x):
    # networkx's argmap: the first call gives the function new code, then
    # calls it again (now that code).
    _compiled_on_first_call.__code__ = _the_compiled_code.__code__
    return _compiled_on_first_call(x)


def _the_compiled_code(x):
    return x + 1


def _calls_a_self_compiling_function(x):
    if x > 0:
        return _compiled_on_first_call(x)
    return 0


def test_a_callee_that_replaces_its_code_runs_its_new_code():
    original = _compiled_on_first_call.__code__
    converted = autograph.to_graph(_calls_a_self_compiling_function)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", api.ConversionWarning)
            with api.always_run_converted():
                assert converted(4) == 5  # not the first code again, forever
                assert converted(6) == 7
    finally:
        _compiled_on_first_call.__code__ = original


def _calls_networkx(graph):
    from networkx.utils import not_implemented_for

    # networkx's argmap compiles the wrapper it made here on its first call.
    not_implemented_for("multigraph")(lambda g: g)(graph)
    if len(graph) > 2:
        return len(graph)
    return 0


def test_networkx_called_from_converted_code_runs_as_a_library():
    networkx = pytest.importorskip("networkx")
    graph = networkx.path_graph(3)
    with api.always_run_converted():
        assert autograph.to_graph(_calls_networkx)(graph) == 3


def _items_keyed_by_calls(d, keys):
    for k in keys:
        if k:
            d[str(k)] = len(k)
    return d


def test_conversion_does_not_go_through_the_copy_module(monkeypatch):
    # `make stdlib` converts `copy` itself: a compiler that copied trees
    # with copy.deepcopy ran converted copy code, which converted
    # copy._deepcopy_dict again, while converting it (RecursionError).
    import copy

    def refuse(*args, **kwargs):
        raise AssertionError("the compiler called the copy module")

    monkeypatch.setattr(copy, "deepcopy", refuse)
    monkeypatch.setattr(copy, "copy", refuse)
    assert "d[str(k)]" in autograph.to_code(_items_keyed_by_calls)
    converted = autograph.to_graph(_items_keyed_by_calls)
    with api.always_run_converted():
        assert converted({}, ["ab", ""]) == {"ab": 2}


def _union(weights, parents, *objects):
    # networkx's UnionFind.union: the rest of the function runs only where
    # the `try` bound `root`.
    roots = iter(sorted(objects, key=lambda r: weights[r], reverse=True))
    try:
        root = next(roots)
    except StopIteration:
        return
    for r in roots:
        weights[root] += weights[r]
        parents[r] = root


@pytest.mark.parametrize("objects", [(), (0,), (0, 1)])
def test_an_early_return_in_a_handler_leaves_the_rest_s_names_unread(objects):
    expected = ({0: 1, 1: 2}, {0: 0, 1: 1})
    result = (dict(expected[0]), dict(expected[1]))
    assert _union(*expected, *objects) is None
    converted = autograph.to_graph(_union)
    with api.always_run_converted():
        assert converted(*result, *objects) is None
    assert result == expected
