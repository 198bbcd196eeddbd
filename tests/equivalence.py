"""The one equivalence helper: converted code must behave like the original.

Two checks, used by the sample corpus, the program fuzzer and any other test:

* ``assert_equivalent(fn, *args, **kwargs)`` runs ``fn`` and
  ``autograph.to_graph(fn)`` on the same plain Python values and requires the
  same observable behaviour: the same result (deep equality, ``nan`` equal to
  ``nan``, types included), or the same exception type and message; the same
  printed output; and the same mutations of the arguments (so a log list the
  function appends to shows the order of its side effects).
* ``assert_jax_equivalent(fn, *args)`` runs ``fn`` on plain Python values and
  ``jax.jit(autograph.to_graph(fn))`` on the same values as JAX arrays
  (``Static`` ones stay Python, as static arguments) and compares the results
  as NumPy arrays, and the printed output; it skips, with a reason, while
  JAX cannot be imported.
* ``assert_graph_equivalent(fn, *tensor_args)`` runs the converted function on
  eager runtime tensors and the traced ``autograph.function(fn)`` on the same
  tensors and compares the results as NumPy arrays. It skips, with a reason,
  while ``runtime`` or ``autograph.function`` cannot be imported.

Every run gets its own deep copy of the arguments, so runs never interfere.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import io
import math
import re
import sys
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

__all__ = [
    "Outcome",
    "assert_equivalent",
    "assert_graph_equivalent",
    "assert_jax_equivalent",
    "assert_same_behaviour",
    "first_difference",
    "require_graph_mode",
    "run_captured",
]

_NAME_IN_MESSAGE = re.compile(r"'(\w+)'")


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one call did, as far as a caller can observe.

    Attributes:
        result: The return value (``None`` when it raised).
        error: The exception it raised, or ``None``.
        stdout: Everything it printed.
        args: Its positional arguments after the call (mutations show here).
        kwargs: Its keyword arguments after the call.
    """

    result: Any
    error: BaseException | None
    stdout: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    def describe(self) -> str:
        """A short text for failure messages."""
        if self.error is not None:
            what = f"raised {type(self.error).__name__}: {self.error}"
        else:
            what = f"returned {self.result!r}"
        return f"{what}; printed {self.stdout!r}; args after {self.args!r}"


def _copy_args(value: Any, keep: tuple[type, ...] = ()) -> Any:
    """Deep-copies ``value``, sharing (not copying) instances of ``keep``."""
    memo: dict[int, Any] = {}
    if keep:
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, keep):
                memo[id(item)] = item
            elif isinstance(item, (list, tuple, set, frozenset)):
                stack.extend(item)
            elif isinstance(item, dict):
                stack.extend(item.values())
    return copy.deepcopy(value, memo)


def run_captured(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Outcome:
    """Calls ``fn`` on fresh copies of the arguments and records what it did.

    Args:
        fn: The callable to run.
        args: Positional arguments; deep-copied before the call.
        kwargs: Keyword arguments; deep-copied before the call.

    Returns:
        The ``Outcome``: result or exception, printed text, arguments after.
    """
    args, kwargs = _copy_args((args, kwargs))
    buffer = io.StringIO()
    result, error = None, None
    with contextlib.redirect_stdout(buffer):
        try:
            result = fn(*args, **kwargs)
        except Exception as e:  # the exception is the outcome
            error = e
    return Outcome(result, error, buffer.getvalue(), args, kwargs)


def _floats_equal(expected: float | complex, actual: float | complex) -> bool:
    if expected == actual:
        return True
    if isinstance(expected, complex):
        return _floats_equal(expected.real, actual.real) and _floats_equal(
            expected.imag, actual.imag
        )
    return math.isnan(expected) and math.isnan(actual)


def _arrays_equal(expected: np.ndarray, actual: np.ndarray) -> bool:
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return False
    try:
        return bool(np.array_equal(expected, actual, equal_nan=True))
    except TypeError:  # equal_nan needs a numeric dtype
        return bool(np.array_equal(expected, actual))


def first_difference(expected: Any, actual: Any, path: str = "value") -> str | None:
    """Finds where two values differ, comparing deeply and strictly.

    Types must match exactly (``1``, ``1.0`` and ``True`` differ), ``nan``
    equals ``nan``, dicts compare their key order too, and plain objects
    (those without their own ``__eq__``) compare their attributes.

    Args:
        expected: The value from the original function.
        actual: The value from the converted function.
        path: How to name the value in the description.

    Returns:
        ``None`` if they are equal, else a description of the first
        difference.

    Example:
        >>> nan = float("nan")
        >>> first_difference([1, (2.0, nan)], [1, (2.0, nan)]) is None
        True
        >>> first_difference({"a": 1}, {"a": True}, "result")
        "result['a']: type int != bool (1 != True)"
    """
    if type(expected) is not type(actual):
        return (
            f"{path}: type {type(expected).__name__} != {type(actual).__name__}"
            f" ({expected!r} != {actual!r})"
        )
    if isinstance(expected, (float, complex)):
        ok = _floats_equal(expected, actual)
    elif isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):
            return f"{path}: length {len(expected)} != {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            found = first_difference(e, a, f"{path}[{i}]")
            if found:
                return found
        return None
    elif isinstance(expected, dict):
        if list(expected) != list(actual):
            return f"{path}: keys {list(expected)!r} != {list(actual)!r}"
        for key in expected:
            found = first_difference(expected[key], actual[key], f"{path}[{key!r}]")
            if found:
                return found
        return None
    elif isinstance(expected, np.ndarray):
        ok = _arrays_equal(expected, actual)
    elif callable(getattr(expected, "numpy", None)) and getattr(expected, "shape", ()):
        # An eager tensor of more than one element (`==` is elementwise).
        ok = _arrays_equal(np.asarray(expected.numpy()), np.asarray(actual.numpy()))
    elif type(expected).__eq__ is object.__eq__ and hasattr(expected, "__dict__"):
        if expected is actual:
            return None
        return first_difference(vars(expected), vars(actual), f"vars({path})")
    else:
        ok = bool(expected == actual)
    return None if ok else f"{path}: {expected!r} != {actual!r}"


def _messages_match(expected: BaseException, actual: BaseException) -> bool:
    """Whether two exceptions of the same type say the same thing.

    Messages must be equal, except for ``UnboundLocalError`` and
    ``NameError``, whose wording is the interpreter's: there the converted
    message only has to name the same variable.
    """
    if str(expected) == str(actual):
        return True
    if isinstance(expected, NameError):  # UnboundLocalError is a NameError
        names = _NAME_IN_MESSAGE.findall(str(expected))
        return bool(names) and f"'{names[0]}'" in str(actual)
    return False


def _raising_line(error: BaseException, filename: str | None) -> int | None:
    """The line of `filename` innermost in `error`'s traceback, if any."""
    lines = [
        frame.lineno
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == filename
    ]
    return lines[-1] if lines else None


def _outcome_difference(
    expected: Outcome, actual: Outcome, filename: str | None = None
) -> str | None:
    """Describes the first observable difference between two outcomes
    (`filename`: the user's file, whose line an error names)."""
    if expected.error is not None or actual.error is not None:
        if expected.error is None or actual.error is None:
            return "one raised and the other did not"
        if type(expected.error) is not type(actual.error):
            return "they raised different exception types"
        if not _messages_match(expected.error, actual.error):
            return "they raised different messages"
        lines = (
            _raising_line(expected.error, filename),
            _raising_line(actual.error, filename),
        )
        # CPython 3.11 reports an UnboundLocalError raised by the second half
        # of a quickened superinstruction (STORE_FAST__LOAD_FAST) at the
        # first half's line: Python's own line is unreliable there.
        quirk = sys.version_info < (3, 12) and isinstance(
            expected.error, UnboundLocalError
        )
        if filename is not None and lines[0] != lines[1] and not quirk:
            return f"they raised at different lines of the user's file: {lines}"
    else:
        found = first_difference(expected.result, actual.result, "result")
        if found:
            return found
    if expected.stdout != actual.stdout:
        return f"printed output: {expected.stdout!r} != {actual.stdout!r}"
    return first_difference(expected.args, actual.args, "args after") or (
        first_difference(expected.kwargs, actual.kwargs, "kwargs after")
    )


def _autograph() -> ModuleType:
    """Imports ``autograph``; an ImportError here fails the test, loudly."""
    return importlib.import_module("autograph")


def _converted_source(autograph: ModuleType, fn: Callable[..., Any]) -> str:
    try:
        return autograph.to_code(fn)
    except Exception as e:  # only decorates a failure message
        return f"<to_code failed: {type(e).__name__}: {e}>"


def _format_error(error: BaseException | None) -> str:
    if error is None:
        return ""
    return "".join(traceback.format_exception(error)).rstrip()


def assert_same_behaviour(
    original: Callable[..., Any],
    converted: Callable[..., Any],
    *args: Any,
    **kwargs: Any,
) -> Outcome:
    """Asserts that ``converted`` behaves like ``original`` on these arguments.

    Args:
        original: The user's callable.
        converted: What the compiler made of it.
        *args: Positional arguments, copied afresh for each run.
        **kwargs: Keyword arguments, copied afresh for each run.

    Returns:
        The original's ``Outcome``.

    Raises:
        AssertionError: naming the first difference, both outcomes, the
            converted code, and the traceback of any exception the converted
            code raised.
    """
    expected = run_captured(original, args, kwargs)
    # With no graph being built, `to_graph` results run the original function
    # (the operators would reduce to it); force the converted code here.
    from autograph.impl.api import always_run_converted

    with always_run_converted():
        actual = run_captured(converted, args, kwargs)
    code = getattr(original, "__code__", None)
    filename = code.co_filename if code is not None else None
    difference = _outcome_difference(expected, actual, filename)
    if difference:
        call = ", ".join(
            [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
        )
        name = getattr(original, "__qualname__", repr(original))
        parts = [
            f"{name}({call}): converted code differs: {difference}",
            f"  original:  {expected.describe()}",
            f"  converted: {actual.describe()}",
            "converted source:",
            _converted_source(_autograph(), original),
        ]
        if expected.error is not None and actual.error is not None:
            parts += ["original traceback:", _format_error(expected.error)]
        if actual.error is not None:
            parts += ["converted traceback:", _format_error(actual.error)]
        raise AssertionError("\n".join(parts))
    return expected


def assert_equivalent(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
    """Asserts that ``autograph.to_graph(fn)`` behaves like ``fn``.

    Both run on deep copies of the same plain Python values. They must return
    equal results (deeply, types included, ``nan == nan``) or raise the same
    exception type with the same message, print the same text, and leave
    their arguments in the same state.

    Args:
        fn: Any callable ``to_graph`` accepts.
        *args: Positional arguments.
        **kwargs: Keyword arguments.

    Returns:
        The original's ``Outcome``, for further checks.

    Example:
        >>> def relu(x):
        ...     return x if x > 0 else 0
        >>> assert_equivalent(relu, -3).result  # doctest: +SKIP
        0
    """
    return assert_same_behaviour(fn, _autograph().to_graph(fn), *args, **kwargs)


def require_graph_mode() -> tuple[ModuleType, ModuleType]:
    """Returns ``(autograph, runtime)``, or skips while graph mode is missing."""
    try:
        rt = importlib.import_module("runtime")
        autograph = importlib.import_module("autograph")
    except ImportError as e:
        pytest.skip(f"graph mode is not importable yet: {e}")
    if not callable(getattr(autograph, "function", None)):
        pytest.skip("autograph.function does not exist yet")
    if not isinstance(getattr(rt, "Tensor", None), type):
        pytest.skip("runtime.Tensor does not exist yet")
    return autograph, rt


def _to_numpy(value: Any) -> Any:
    """Tensors and scalars become arrays; tuples, lists and dicts are kept."""
    if isinstance(value, (tuple, list)):
        return type(value)(_to_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_numpy(v) for k, v in value.items()}
    if value is None:
        return None
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value)


def _kind(array: np.ndarray) -> str:
    return "i" if array.dtype.kind == "u" else array.dtype.kind


def _assert_close(expected: Any, actual: Any, path: str) -> None:
    if isinstance(expected, (tuple, list, dict)) or expected is None:
        assert type(expected) is type(actual), (
            f"{path}: structure {type(expected).__name__} != {type(actual).__name__}"
        )
        if expected is None:
            return
        assert len(expected) == len(actual), f"{path}: length differs"
        if isinstance(expected, dict):
            assert list(expected) == list(actual), f"{path}: keys differ"
            items = [(k, expected[k], actual[k]) for k in expected]
        else:
            items = [(i, e, a) for i, (e, a) in enumerate(zip(expected, actual))]
        for key, e, a in items:
            _assert_close(e, a, f"{path}[{key!r}]")
        return
    assert _kind(expected) == _kind(actual), (
        f"{path}: dtype {expected.dtype} != {actual.dtype}"
    )
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(
            actual, expected, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=path
        )
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=path)


def assert_graph_equivalent(fn: Callable[..., Any], *tensor_args: Any) -> Any:
    """Asserts that tracing ``fn`` into a graph gives the eager results.

    The reference is ``autograph.to_graph(fn)`` called on eager tensors (plain
    Python control flow, since eager tensors are not graph tensors); the
    candidate is ``autograph.function(fn)`` called on the same tensors. Results
    are compared as NumPy arrays (values, shapes and dtype kind), with their
    tuple/list/dict structure. If the eager run raises, the traced run must
    raise too; graph errors may have their own type
    (``rt.errors.InvalidArgumentError``).

    Skips (``pytest.skip``) while ``runtime`` or ``autograph.function`` cannot
    be imported.

    Args:
        fn: The user's callable.
        *tensor_args: Arguments: eager tensors and Python values.

    Returns:
        The eager result as NumPy values.
    """
    autograph, rt = require_graph_mode()
    keep = (rt.Tensor,)
    converted = autograph.to_graph(fn)
    try:
        eager = converted(*_copy_args(tensor_args, keep))
    except Exception as e:  # the traced run must raise too
        try:
            autograph.function(fn)(*_copy_args(tensor_args, keep))
        except Exception:  # graph errors have their own types
            return None
        raise AssertionError(
            f"the eager run raised {type(e).__name__}: {e}; the traced run did not"
        ) from e
    traced = autograph.function(fn)(*_copy_args(tensor_args, keep))
    expected, actual = _to_numpy(eager), _to_numpy(traced)
    _assert_close(expected, actual, "result")
    return expected


def require_jax() -> ModuleType:
    """Returns ``jax``, or skips (with the reason) when it cannot be imported:
    it is an optional extra (``pip install -e '.[jax]'``), which the ``test``
    extra installs."""
    try:
        return importlib.import_module("jax")
    except ImportError as e:
        pytest.skip(f"JAX is not installed (the 'jax' extra): {e}")


def assert_jax_equivalent(
    fn: Callable[..., Any], *args: Any, static: tuple[int, ...] = ()
) -> Any:
    """Asserts that ``jax.jit(autograph.to_graph(fn))`` on JAX arrays gives
    what ``fn`` gives on the plain Python values.

    Results are compared as NumPy arrays (values, shapes and dtype kind), with
    their tuple/list/dict structure; floats to float32 precision. Each of two
    calls (the one that traces, and one that only runs) must print what
    Python prints (a ``print`` runs when the compiled function runs). If
    Python raises, the compiled run must raise too (JAX reports a failed `assert`
    when the compiled function runs, inside its runtime error).

    Args:
        fn: The user's callable.
        *args: Plain Python values (numbers, bools, nested lists of them).
        static: Positions of arguments passed as Python values
            (``static_argnums``).

    Returns:
        Python's result as NumPy values.
    """
    jax = require_jax()
    autograph = _autograph()
    jitted = jax.jit(autograph.to_graph(fn), static_argnums=static)
    jax_args = [a if i in static else jax.numpy.asarray(a) for i, a in enumerate(args)]

    def run_jitted() -> tuple[Any, str]:
        # Two calls: the first traces, the second only runs; each prints
        # what Python prints (`print` runs when the compiled function runs).
        outputs = []
        for _ in range(2):
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                try:
                    result = jax.block_until_ready(jitted(*jax_args))
                finally:
                    jax.effects_barrier()
            outputs.append(buffer.getvalue())
        assert outputs[0] == outputs[1], (
            f"the second call printed {outputs[1]!r}, the first {outputs[0]!r}"
        )
        return result, outputs[0]

    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            expected = fn(*copy.deepcopy(args))
    except Exception as e:
        try:
            run_jitted()
        except Exception:
            return None
        raise AssertionError(
            f"Python raised {type(e).__name__}: {e}; the jitted run did not"
        ) from e
    actual, output = run_jitted()
    assert output == printed.getvalue(), (
        f"printed output: Python {printed.getvalue()!r}, jitted {output!r}"
    )
    expected = _to_numpy(expected)
    _assert_close(expected, _to_numpy(actual), "result")
    return expected
