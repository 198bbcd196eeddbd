"""Generated programs: converted code behaves like the original.

``programs()`` (tests/program_gen.py) writes whole functions full of control
flow; each is run before and after ``autograph.to_graph`` on a few small
inputs, and must return the same value, raise the same exception, print the
same text and append to its log in the same order.

``HYPOTHESIS_PROFILE=fuzz`` (``make fuzz``) runs thousands of programs instead
of the default 200. On failure the program's source is printed.

The other tests check the generator itself, without the compiler: its
programs compile, terminate, and cover the constructs they are meant to.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import signal
from collections.abc import Callable, Iterator

import pytest
from hypothesis import Phase, find, given, note, settings
from hypothesis import strategies as st

from tests.equivalence import assert_same_behaviour, run_captured
from tests.program_gen import INPUTS, fuzz_settings, loaded_program, programs

INPUT_PAIRS = st.lists(st.tuples(INPUTS, INPUTS), min_size=1, max_size=3)

EXPECTED_ERRORS = (ZeroDivisionError, AssertionError, UnboundLocalError)
"""What generated programs raise on purpose."""

ALLOWED_ERRORS = (ZeroDivisionError, AssertionError, NameError)
"""What a generated program may raise; anything else is a generator bug.

``NameError`` covers ``UnboundLocalError`` and its twin for a comprehension or
lambda reading an enclosing function's unbound local."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raises TimeoutError in the block after ``seconds`` (main thread only)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@fuzz_settings()
@given(source=programs(), inputs=INPUT_PAIRS)
def test_converted_program_behaves_like_the_original(
    source: str, inputs: list[tuple[int, int]]
) -> None:
    note(f"program source:\n{source}")
    autograph = importlib.import_module("autograph")
    with loaded_program(source) as program:
        converted = autograph.to_graph(program)
        for a, b in inputs:
            assert_same_behaviour(program, converted, a, b, [])


@settings(max_examples=300, deadline=None, database=None)
@given(source=programs(), inputs=INPUT_PAIRS)
def test_generated_programs_terminate_in_plain_python(
    source: str, inputs: list[tuple[int, int]]
) -> None:
    note(f"program source:\n{source}")
    with loaded_program(source) as program, time_limit(5):
        for a, b in inputs:
            error = run_captured(program, (a, b, []), {}).error
            if error is not None and not isinstance(error, ALLOWED_ERRORS):
                raise error


CONSTRUCTS = {
    "elif": r"\belif\b",
    "else": r"^ *else:",
    "while": r"^ *while \(",
    "while True": r"while True:",
    "for over range": r"for \w+ in range\(",
    "for over a list": r"for \w+ in \[",
    "break": r"^ *break$",
    "continue": r"^ *continue$",
    "bare return": r"^ *return$",
    "return inside a loop": r"^ {8,}return\b",
    "and": r"\band\b",
    "or": r"\bor\b",
    "not": r"\bnot\b",
    "conditional expression": r"\bif\b[^:\n]*\belse\b",
    "augmented assignment": r"[+\-*/%]= ",
    "del": r"^ *del ",
    "print": r"^ *print\(",
    "assert": r"^ *assert ",
    "record": r"record\(log",
    "floor division": r"//",
    "comprehension": r"\[.* for k in range",
    "lambda": r"\(lambda k:",
    "unpacking for": r"for \w+, \w+ in",
}


def _search_settings() -> settings:
    return settings(max_examples=2000, database=None, phases=[Phase.generate])


@pytest.mark.parametrize("pattern", CONSTRUCTS.values(), ids=CONSTRUCTS.keys())
def test_generator_writes_each_construct(pattern: str) -> None:
    body_of = lambda source: source.split("def program", 1)[1]
    find(
        programs(),
        lambda source: re.search(pattern, body_of(source), re.MULTILINE),
        settings=_search_settings(),
    )


def _raises(error_type: type[BaseException]) -> Callable[[tuple], bool]:
    def check(case: tuple[str, int, int]) -> bool:
        source, a, b = case
        with loaded_program(source) as program:
            error = run_captured(program, (a, b, []), {}).error
        return isinstance(error, error_type)

    return check


@pytest.mark.parametrize(
    "error_type", EXPECTED_ERRORS, ids=[e.__name__ for e in EXPECTED_ERRORS]
)
def test_generator_writes_programs_that_raise(error_type: type) -> None:
    find(
        st.tuples(programs(), INPUTS, INPUTS),
        _raises(error_type),
        settings=_search_settings(),
    )
