"""The three-way checker of generated programs judges outcomes as documented.

``check_program`` (tests/program_gen/check.py) must call a wrong value, a
wrong exception, an illegitimate refusal and a hang mismatches, count the
refusals API.md allows apart, and accept a graph's run-time error where
Python raises ``UnboundLocalError`` for the same variable. The compiler is
replaced here by stand-ins, so these tests do not depend on today's bugs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

import autograph
import runtime as rt
from tests.program_gen import check
from tests.program_gen.check import check_program
from tests.program_gen.minimize import minimize

PYTHON_PROGRAM = """\
def program(a, b, log):
    log.append(a)
    print("a", a)
    return a + b
"""

TENSOR_PROGRAM = """\
def program(a, b):
    x = a
    for i in range(b):
        w = i
    if a > 0:
        x = x + w
    return x, b
"""


def _converted_as(fn: Callable[..., Any]) -> Callable[[Any], Callable[..., Any]]:
    return lambda program, **kwargs: fn


def test_a_correct_program_is_ok() -> None:
    assert check_program(PYTHON_PROGRAM, [(1, 2), (0, -1)]).kind == "ok"


def test_a_wrong_converted_value_is_a_mismatch(monkeypatch) -> None:
    monkeypatch.setattr(autograph, "to_graph", _converted_as(lambda a, b, log: 42))
    verdict = check_program(PYTHON_PROGRAM, [(1, 2)])
    assert (verdict.kind, verdict.where) == ("mismatch", "python")
    assert verdict.kind_of_failure == "wrong result: # != #"


def test_a_different_exception_is_a_mismatch(monkeypatch) -> None:
    def converted(a, b, log):
        raise KeyError("k")

    monkeypatch.setattr(autograph, "to_graph", _converted_as(converted))
    verdict = check_program(PYTHON_PROGRAM, [(1, 2)])
    assert verdict.kind_of_failure == "raised KeyError: 'k'"


def test_a_hang_is_a_mismatch(monkeypatch) -> None:
    def converted(a, b, log):
        while True:
            time.sleep(0.01)

    monkeypatch.setattr(autograph, "to_graph", _converted_as(converted))
    monkeypatch.setattr(check, "_TIME_LIMIT_S", 0.3)
    verdict = check_program(PYTHON_PROGRAM, [(1, 2)])
    assert (verdict.kind, verdict.kind_of_failure) == ("mismatch", "hang")


EAGER_ARRAY_PROGRAM = """\
def program(a, b, log):
    return runtime.stack([runtime.constant(a), runtime.constant(b)])
"""


def test_an_eager_array_result_is_compared_by_value() -> None:
    # (`bool(t == u)` of two vectors raised, stopping a campaign.)
    source = "import runtime\n\n" + EAGER_ARRAY_PROGRAM
    assert check_program(source, [(1, 2)]).kind == "ok"


def test_a_wrong_eager_array_result_is_a_mismatch(monkeypatch) -> None:
    wrong = lambda a, b, log: rt.stack([rt.constant(a), rt.constant(a)])
    monkeypatch.setattr(autograph, "to_graph", _converted_as(wrong))
    source = "import runtime\n\n" + EAGER_ARRAY_PROGRAM
    verdict = check_program(source, [(1, 2)])
    assert (verdict.kind, verdict.where) == ("mismatch", "python")


def test_an_unexpected_error_of_the_original_is_a_generator_bug() -> None:
    source = "def program(a, b, log):\n    return a + 'text'\n"
    verdict = check_program(source, [(1, 2)])
    assert verdict.kind == "invalid"


def _traced_as(monkeypatch, fn: Callable[..., Any]) -> None:
    monkeypatch.setattr(autograph, "function", lambda program: fn)


def test_the_traced_graph_must_return_the_python_numbers(monkeypatch) -> None:
    _traced_as(monkeypatch, lambda a, b: (rt.constant(7), b))
    verdict = check_program(TENSOR_PROGRAM, [(1, 2)], tensor=True)
    assert (verdict.kind, verdict.where) == ("mismatch", "graph")
    assert verdict.kind_of_failure.startswith("wrong value")


def test_a_traced_int_result_may_be_int32(monkeypatch) -> None:
    _traced_as(monkeypatch, lambda a, b: (a + 1, b))
    assert check_program(TENSOR_PROGRAM, [(1, 2)], tensor=True).kind == "ok"


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ValueError("'w' must also be defined in the else branch: ..."), "refusal"),
        (
            ValueError(
                "'w' is assigned in the if branch of the graph `if` at f.py:3 in 'f' "
                "but not when the condition is false (the `if` has no else), ..."
            ),
            "refusal",
        ),
        (
            ValueError(
                "'w' is deleted (`del w`) in the else branch of the graph `if` at "
                "f.py:3 in 'f' but bound in its if branch, ..."
            ),
            "refusal",
        ),
        (
            ValueError(
                "'e' is unbound (the end of an `except ... as e` block unbinds it) in "
                "the if branch of the JAX `if` at f.py:3 in 'f' but bound when ..."
            ),
            "refusal",
        ),
        (
            ValueError(
                "'w' is not assigned on the path that continues after the graph "
                "`if` at f.py:3 in 'f' (its if branch returns, and its else ..."
            ),
            "refusal",
        ),
        # A value returned from inside a loop is the program's, not a tensor
        # the user stored somewhere that outlives the loop.
        (
            ValueError(
                "the graph tensor 'cond:1' (made at f.py:3: `if i > 1:`) escaped "
                "from the body of the graph loop 'while', which has finished: ..."
            ),
            "mismatch",
        ),
        (TypeError("'x' changed dtype from int32 to float32 after one ..."), "refusal"),
        (TypeError("... depends on a graph tensor; use rt.range"), "refusal"),
        (ValueError("output 0 is None in the true branch"), "mismatch"),
        (
            TypeError("using the symbolic tensor 'greater:0' as a Python bool"),
            "mismatch",
        ),
    ],
)
def test_only_the_refusals_api_md_lists_are_legitimate(
    monkeypatch, error: Exception, kind: str
) -> None:
    def traced(a, b):
        raise error

    _traced_as(monkeypatch, traced)
    assert check_program(TENSOR_PROGRAM, [(1, 2)], tensor=True).kind == kind


def test_a_run_time_error_naming_the_unbound_variable_matches_python(
    monkeypatch,
) -> None:
    def traced(a, b):  # b == 0: the loop assigned 'w' in no iteration
        raise rt.errors.InvalidArgumentError("'w' (line 6) is unbound")

    _traced_as(monkeypatch, traced)
    assert check_program(TENSOR_PROGRAM, [(1, 0)], tensor=True).kind == "ok"


def test_a_run_time_error_naming_another_variable_is_a_mismatch(monkeypatch) -> None:
    def traced(a, b):
        raise rt.errors.InvalidArgumentError("'x' is unbound")

    _traced_as(monkeypatch, traced)
    assert check_program(TENSOR_PROGRAM, [(1, 0)], tensor=True).kind == "mismatch"


def test_minimize_keeps_only_the_lines_the_failure_needs() -> None:
    source = (
        "import types\n\n"
        "def program(a, b, log):\n"
        "    x = a\n"
        "    if b > 0:\n"
        "        y = 2\n"
        "        z = a + 'text'\n"
        "    return x\n"
    )
    text, pair = minimize(source, [(1, 0), (1, 1)])
    assert text.split("\ndef program", 1)[1] == "(a, b, log):\n    z = a + 'text'\n"
    assert pair == (1, 0)


def test_a_time_limit_python_dropped_fires_again():
    # Raised inside a GC callback (hypothesis has one), the first
    # TimeLimitExceeded is printed and dropped: the alarm must come back.
    dropped = 0
    with pytest.raises(check.TimeLimitExceeded), check.time_limit(0.05):
        deadline = time.monotonic() + 5.0
        try:
            while time.monotonic() < deadline:
                pass
        except check.TimeLimitExceeded:
            dropped += 1  # as Python does in a callback
        while time.monotonic() < deadline:
            pass
    assert dropped == 1
