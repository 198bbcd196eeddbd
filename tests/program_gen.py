"""A hypothesis strategy that writes whole Python programs.

``programs()`` draws the source of a module that defines a few fixed helpers
and one generated function, ``program(a, b, log)``, built from the control
flow the compiler rewrites: nested ``if``/``elif``/``else``, ``while`` and
``for`` (over ``range(...)`` and over lists, sometimes with ``else``),
``break``/``continue``, early and bare ``return`` anywhere, ``and``/``or``/
``not``, conditional expressions, (augmented) assignments, ``del``, calls to
pure helpers and to ``record`` (which appends to ``log`` and prints: side
effects in order), ``print``, ``assert`` and integer division.

Every program terminates: each ``while`` loop burns a fuel counter of its
own every iteration, ``range`` bounds are constants or the small inputs
``a``/``b`` (which are never reassigned), and loops nest at most three deep.
Integers grow at most geometrically (products only by constants), so they
stay small enough to print.

A program may raise, and must do so the same way once converted:
``ZeroDivisionError`` (``//`` and ``%`` by a variable), ``AssertionError``
and ``UnboundLocalError`` (a name assigned on some paths only, or deleted).

``loaded_program(source)`` writes the source to a temporary ``.py`` file and
imports it, so that ``inspect.getsource`` works on the function, as it does
on a user's.

Example:
    >>> from hypothesis import find
    >>> source = find(programs(), lambda s: "while" in s)
    >>> with loaded_program(source) as program:
    ...     program.__name__
    'program'
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

__all__ = [
    "HELPERS",
    "INPUTS",
    "fuzz_settings",
    "loaded_program",
    "programs",
]

HELPERS = """\
def double(v):
    return v * 2


def clamp(v):
    if v > 9:
        return 9
    if v < -9:
        return -9
    return v


def record(log, v):
    log.append(v)
    print("record", v)
    return v
"""
"""Helpers every generated program may call: two pure, one with effects."""

INPUTS = st.integers(min_value=-3, max_value=6)
"""Values for the program's arguments ``a`` and ``b``."""

_VARIABLES = ("x", "y", "z")
_PARAMETERS = ("a", "b")
_MAX_DEPTH = 3
_MAX_LOOP_DEPTH = 3
_MAX_FUEL = 4

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")

settings.register_profile(
    "fuzz",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def fuzz_settings() -> settings:
    """Settings for tests over ``programs()``, chosen by ``HYPOTHESIS_PROFILE``.

    ``fuzz`` gives thousands of examples (``make fuzz``); anything else gives
    the ``default`` budget of 200, sized for ``make test``.

    Returns:
        A ``settings`` object to decorate a test with.
    """
    fuzz = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
    return settings(
        max_examples=5000 if fuzz else 200,
        # `make test` (and CI) sees the same 200 programs every run;
        # `make fuzz` explores new ones.
        derandomize=not fuzz,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


class _Writer:
    """Draws one function body, tracking what the generated code may do.

    Attributes:
        draw: The hypothesis ``draw`` of the enclosing composite strategy.
        budget: Statements left to generate (keeps programs small).
        defined: Names assigned on every path to the current point.
        maybe: Names assigned on some path (reading one may raise).
        loop_depth: How many loops enclose the current point.
    """

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any], budget: int):
        self.draw = draw
        self.budget = budget
        self.defined: set[str] = set(_PARAMETERS)
        self.maybe: set[str] = set()
        self.loop_depth = 0
        self._ids = itertools.count()

    # Small draws.

    def choice(self, options: tuple[str, ...] | list[str]) -> str:
        return self.draw(st.sampled_from(options))

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) < percent

    def constant(self) -> str:
        return str(self.draw(st.integers(-3, 5)))

    def readable_name(self) -> str:
        """A name to read: usually defined here, sometimes maybe unbound."""
        risky = sorted(self.maybe - self.defined)
        if risky and self.chance(5):
            return self.choice(risky)
        return self.choice(sorted(self.defined))

    # Expressions.

    def expression(self, depth: int = 0) -> str:
        """An int-valued (or bool-valued) expression."""
        if depth >= 2:
            kind = self.choice(("name", "constant"))
        else:
            kind = self.choice(
                (
                    "name",
                    "constant",
                    "arith",
                    "scale",
                    "divide",
                    "call",
                    "record",
                    "ternary",
                    "logical",
                    "negate",
                    "compare",
                    "log_length",
                    "comprehension",
                    "lambda",
                )
            )
        if kind == "name":
            return self.readable_name()
        if kind == "constant":
            return self.constant()
        sub = depth + 1
        if kind == "arith":
            op = self.choice(("+", "-"))
            return f"({self.expression(sub)} {op} {self.expression(sub)})"
        if kind == "scale":
            return f"({self.expression(sub)} * {self.draw(st.integers(2, 3))})"
        if kind == "divide":
            op = self.choice(("//", "%"))
            return f"({self.expression(sub)} {op} {self.expression(sub)})"
        if kind == "call":
            return f"{self.choice(('double', 'clamp'))}({self.expression(sub)})"
        if kind == "record":
            return f"record(log, {self.expression(sub)})"
        if kind == "ternary":
            return (
                f"({self.expression(sub)} if {self.condition(sub)}"
                f" else {self.expression(sub)})"
            )
        if kind == "logical":
            op = self.choice(("and", "or"))
            return f"({self.expression(sub)} {op} {self.expression(sub)})"
        if kind == "negate":
            return f"(-{self.expression(sub)})"
        if kind == "compare":
            return self.comparison(sub)
        if kind == "comprehension":
            stop = self.draw(st.integers(0, 3))
            element = self.scoped("k", lambda: self.expression(sub))
            test = self.scoped("k", lambda: self.condition(2))
            return f"sum([{element} for k in range({stop}) if {test}])"
        if kind == "lambda":
            body = self.scoped("k", lambda: self.expression(sub))
            return f"(lambda k: {body})({self.expression(sub)})"
        return "len(log)"

    def scoped(self, name: str, make: Callable[[], str]) -> str:
        """``make()``, drawn while ``name`` is bound (in a nested scope)."""
        outer = set(self.defined)
        self.defined.add(name)
        try:
            return make()
        finally:
            self.defined = outer

    def comparison(self, depth: int) -> str:
        left, right = self.expression(depth), self.expression(depth)
        if self.chance(15):
            return f"({left} < {right} <= {self.expression(depth)})"
        return f"({left} {self.choice(_COMPARISONS)} {right})"

    def condition(self, depth: int = 0) -> str:
        """A test for ``if``/``while``/``assert``/ternaries."""
        if depth >= 2:
            return self.comparison(depth)
        kind = self.choice(("compare", "truthy", "and", "or", "not"))
        sub = depth + 1
        if kind == "compare":
            return self.comparison(depth)
        if kind == "truthy":
            return self.expression(sub)
        if kind == "not":
            return f"(not {self.condition(sub)})"
        return f"({self.condition(sub)} {kind} {self.condition(sub)})"

    # Statements.

    def block(self, depth: int, *, min_size: int = 1) -> list[str]:
        """A non-empty list of source lines at one indentation level."""
        size = self.draw(st.integers(min_size, 4))
        lines: list[str] = []
        for _ in range(size):
            if self.budget <= 0 and lines:
                break
            self.budget -= 1
            new, terminal = self.statement(depth)
            lines += new
            if terminal and not self.chance(10):
                break  # usually no dead code after return/break/continue
        return lines or ["pass"]

    def statement(self, depth: int) -> tuple[list[str], bool]:
        """One statement; also says whether it always leaves the block."""
        kinds = ["assign", "augassign", "print", "record", "assert"]
        if depth < _MAX_DEPTH:
            kinds += ["if", "if", "if"]
            if self.loop_depth < _MAX_LOOP_DEPTH:
                kinds += ["while", "for_range", "for_list"]
        kinds += ["return"]
        if self.loop_depth:
            kinds += ["break", "continue"]
        if self.defined & set(_VARIABLES):
            kinds += ["swap", "del"]
        kind = self.choice(kinds)
        if kind in ("break", "continue"):
            return [kind], True
        if kind == "return":
            return [self.return_statement()], True
        if kind == "if":
            return self.if_statement(depth), False
        if kind == "while":
            return self.while_statement(depth), False
        if kind in ("for_range", "for_list"):
            return self.for_statement(depth, kind), False
        return [self.simple_statement(kind)], False

    def simple_statement(self, kind: str) -> str:
        label = next(self._ids)
        if kind == "print":
            values = [self.expression() for _ in range(self.draw(st.integers(0, 2)))]
            return "print(" + ", ".join([f"'p{label}'", *values]) + ")"
        if kind == "record":
            return f"record(log, {self.expression()})"
        if kind == "assert":
            test = self.condition()
            return f"assert {test}, 'a{label}'" if self.chance(70) else f"assert {test}"
        if kind == "swap":
            first, second = self.two_variables()
            line = f"{first}, {second} = {second}, {first}"
            self.assigned(first, second)
            return line
        if kind == "del":
            name = self.choice(sorted(self.defined & set(_VARIABLES)))
            self.defined.discard(name)
            return f"del {name}"
        if kind == "augassign":
            target = self.readable_name_among(_VARIABLES)
            if target is not None:
                op = self.choice(("+=", "-=", "*=", "//=", "%="))
                value = str(self.draw(st.integers(2, 3))) if op == "*=" else None
                return f"{target} {op} {value or self.expression()}"
        target = self.choice(_VARIABLES)
        line = f"{target} = {self.expression()}"
        self.assigned(target)
        return line

    def two_variables(self) -> list[str]:
        return self.draw(
            st.lists(st.sampled_from(_VARIABLES), min_size=2, max_size=2, unique=True)
        )

    def readable_name_among(self, names: tuple[str, ...]) -> str | None:
        candidates = sorted(self.defined & set(names))
        return self.choice(candidates) if candidates else None

    def assigned(self, *names: str) -> None:
        self.defined.update(names)
        self.maybe.update(names)

    def return_statement(self) -> str:
        kind = self.choice(("value", "bare", "tuple"))
        if kind == "bare":
            return "return"
        if kind == "tuple":
            return f"return {self.expression()}, {self.readable_name()}"
        return f"return {self.expression()}"

    def nested(self, depth: int) -> tuple[list[str], set[str]]:
        """An indented block, and the names it defines on every path."""
        before = set(self.defined)
        lines = self.block(depth + 1)
        after = self.defined
        self.defined = before
        return ["    " + line for line in lines], after

    def if_statement(self, depth: int) -> list[str]:
        lines = [f"if {self.condition()}:"]
        body, defined_on_all = self.nested(depth)
        lines += body
        shape = self.choice(("if", "else", "elif", "elif_else"))
        if shape.startswith("elif"):
            lines.append(f"elif {self.condition()}:")
            body, defined = self.nested(depth)
            lines += body
            defined_on_all &= defined
        if shape.endswith("else"):
            lines.append("else:")
            body, defined = self.nested(depth)
            lines += body
            defined_on_all &= defined
        else:
            defined_on_all &= self.defined  # no else: the test may be false
        self.defined = defined_on_all
        return lines

    def loop_body(self, depth: int) -> list[str]:
        """The body of a loop; afterwards, only names defined before and not
        deleted by the body count as defined (the body may run zero times)."""
        self.loop_depth += 1
        body, defined = self.nested(depth)
        self.loop_depth -= 1
        self.defined &= defined
        return body

    def loop_else(self, depth: int) -> list[str]:
        if not self.chance(20):
            return []
        body, _ = self.nested(depth)
        return ["else:", *body]

    def while_statement(self, depth: int) -> list[str]:
        fuel = f"fuel{next(self._ids)}"
        lines = [f"{fuel} = {self.draw(st.integers(0, _MAX_FUEL))}"]
        style = self.choice(("guard", "break", "while_true"))
        if style == "guard":
            lines.append(f"while {self.condition()} and {fuel} > 0:")
            lines.append(f"    {fuel} -= 1")
        else:
            test = "True" if style == "while_true" else self.condition()
            lines += [
                f"while {test}:",
                f"    {fuel} -= 1",
                f"    if {fuel} < 0:",
                "        break",
            ]
        lines += self.loop_body(depth)
        if style != "while_true":
            lines += self.loop_else(depth)
        return lines

    def range_call(self) -> str:
        """A ``range(...)`` of at most a few items (its bounds stay small)."""
        shape = self.choice(("const", "param", "start_stop", "step"))
        if shape == "const":
            return f"range({self.draw(st.integers(0, 4))})"
        if shape == "param":
            return f"range({self.choice(_PARAMETERS)})"
        if shape == "start_stop":
            return f"range({self.choice(_PARAMETERS)}, {self.constant()})"
        step = self.choice(("2", "-1", "-2"))
        return f"range({self.constant()}, {self.constant()}, {step})"

    def for_statement(self, depth: int, kind: str) -> list[str]:
        names = (
            [self.choice(_VARIABLES)] if self.chance(25) else [f"i{self.loop_depth}"]
        )
        if kind == "for_range":
            iterable = self.range_call()
        elif self.chance(25):  # unpacking: for x, y in [(.., ..), ...]
            names = self.two_variables()
            pairs = [
                f"({self.expression(1)}, {self.expression(1)})"
                for _ in range(self.draw(st.integers(0, 2)))
            ]
            iterable = "[" + ", ".join(pairs) + "]"
        else:
            items = [self.expression(1) for _ in range(self.draw(st.integers(0, 3)))]
            iterable = "[" + ", ".join(items) + "]"
        target = ", ".join(names)
        lines = [f"for {target} in {iterable}:"]
        outer = set(self.defined)
        self.defined.update(names)
        body = self.loop_body(depth)
        self.defined &= outer
        self.maybe.update(names)
        return lines + body + self.loop_else(depth)

    def function(self) -> str:
        """The whole generated function."""
        lines: list[str] = []
        for name in _VARIABLES:
            if self.chance(60):
                lines.append(f"{name} = {self.expression(1)}")
                self.assigned(name)
        lines += self.block(0)
        if self.chance(50):
            lines.append(f"return {self.expression()}")
        body = "\n".join("    " + line for line in lines)
        return f"def program(a, b, log):\n{body}\n"


@st.composite
def programs(
    draw: Callable[[st.SearchStrategy[Any]], Any], max_statements: int = 20
) -> str:
    """Draws the source of a module: ``HELPERS`` and ``program(a, b, log)``.

    Args:
        draw: Supplied by hypothesis.
        max_statements: An upper bound on the statements of the body (loop
            fuel bookkeeping not counted).

    Returns:
        Python source text defining ``program``.
    """
    budget = draw(st.integers(1, max_statements))
    return HELPERS + "\n\n" + _Writer(draw, budget).function()


_module_ids = itertools.count()


@contextlib.contextmanager
def loaded_program(source: str, name: str = "program") -> Iterator[Callable[..., Any]]:
    """Imports ``source`` from a real file and yields its function ``name``.

    The module lives in ``sys.modules`` (as a user's module would) until the
    context exits; then it and its temporary file are removed.

    Args:
        source: Module source text, e.g. from ``programs()``.
        name: The function to yield.

    Yields:
        The function, whose source ``inspect.getsource`` can read.
    """
    module_name = f"autograph_generated_{os.getpid()}_{next(_module_ids)}"
    with tempfile.TemporaryDirectory(prefix="autograph-gen-") as directory:
        path = Path(directory) / f"{module_name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(module_name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
            yield getattr(module, name)
        finally:
            del sys.modules[module_name]
