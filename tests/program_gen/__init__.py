"""A hypothesis strategy that writes whole Python programs.

``programs()`` draws the source of a module that defines fixed helpers
(``HELPERS``) and one generated function, ``program(a, b, log)`` (Python
mode) or ``program(a, b)`` (tensor mode), built from the control flow the
compiler rewrites. Without features (``CORE``): nested ``if``/``elif``/
``else``, ``while`` and ``for`` (over ``range(...)`` and over lists, sometimes
with ``else``), ``break``/``continue``, early and bare ``return`` anywhere,
``and``/``or``/``not``, conditional expressions, (augmented) assignments,
``del``, calls to pure helpers and to ``record`` (which appends to ``log`` and
prints: side effects in order), ``max``/``min`` of two values, ``print``,
``assert`` and integer division.
Each name in ``FEATURE_ISSUES`` switches on one more family of constructs
(the patterns of issues 10 and 11); ``FEATURES`` is the set ``make test``
enables.

Every program terminates: each ``while`` loop burns a fuel counter of its
own every iteration, ``range`` bounds are constants or the small inputs
``a``/``b`` (which are never reassigned), loops nest at most three deep, and
generators and comprehensions run over small constant ranges. Programs are
deterministic: no ``id()``, ``hash()``, sets iterated, or time; module-level
state (``COUNTER``, ``RESULTS``) is reset by the program itself.

Python mode: a program may raise, and must do so the same way once
converted: ``ZeroDivisionError``, ``AssertionError``, ``UnboundLocalError``
and ``NameError`` (a name assigned on some paths only, or deleted),
``KeyError``/``ValueError`` (raised on purpose, or a deleted key),
``AttributeError``/``IndexError`` (a deleted attribute or list item).

Tensor mode (``tensor=True``) writes programs whose results a traced graph
can compute from ``rt.constant(a)``, ``rt.constant(b)`` (int32 scalars):

* numeric state only: every variable has one fixed type (int ``x y z``,
  float ``u v``, bool ``p q``) and is assigned before the body; ``and``/
  ``or``/``not`` and tests take bools only (no truth value of an int);
* no Python side effects (no ``log``, ``print``, ``record``, ``assert``,
  globals, list appends, ``with``) and no exceptions on purpose except the
  ``raise`` statements of ``try``: no division by a variable, no ``del``, no
  reads of maybe-unbound names except the names born in loops of
  ``loop_names``;
* bounded values: assignments are clamped to [-9, 9] (``clamp``/``fclamp``)
  and augmented assignments add constants, so int32 never overflows; float
  constants are dyadic, so float32 and float64 agree exactly;
* every ``return`` returns the same structure: a value, then all state
  (``state_values``), so no path returns ``None`` (``container_returns``:
  in a list, a tuple holding a list or a dict, the value maybe a list built
  by appending in a loop, the same for every ``return`` of a program);
* chained comparisons (``0 < x <= y``) only with the ``chained`` feature.
Only the features in ``TENSOR_FEATURES`` apply in tensor mode, and those of
``BACKEND_FEATURES`` only for their backends (JAX's ``print`` of
``traced_print``; the graph's ``datasets`` and ``variables``).

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
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.program_gen.core import Writer
from tests.program_gen.data import DataFeatures
from tests.program_gen.methods import MethodFeatures
from tests.program_gen.real_python import RealPythonFeatures
from tests.program_gen.reference import ReferenceFeatures
from tests.program_gen.returns import ReturnFeatures
from tests.program_gen.state import StateFeatures
from tests.program_gen.syntax import SyntaxFeatures
from tests.program_gen.variables import VariableFeatures

__all__ = [
    "BACKEND_FEATURES",
    "FEATURES",
    "FEATURE_ISSUES",
    "HELPERS",
    "INPUTS",
    "TENSOR_FEATURES",
    "fuzz_settings",
    "loaded_program",
    "programs",
]

FEATURE_ISSUES = {
    "floats": "issue 10 (Prove it): float and bool values",
    "items": "issue 10 item 1: dict/list items are state",
    "attributes": "issue 10 item 1: attributes are state",
    "closures": "issue 10 item 2: closures see current values; late binding",
    "nonlocal": "issue 10 item 2: nonlocal writes survive",
    "globals": "issue 10 item 2: global writes, module-level lists",
    "loop_names": "issue 10 item 3: names first assigned in loops",
    "builtins": "issue 10 item 4: builtins as values",
    "del": "issues 10/11: del of names, items, attributes, loop targets",
    "try": "issue 11: try/except/else/finally, raise, jumps in every clause",
    "with": "issue 11: with blocks that log and that suppress",
    "walrus": "issue 11: walrus in tests and comprehensions",
    "comprehensions": "issue 11: dict/set/generator comprehensions",
    "iteration": "issue 11: for over items/enumerate/zip/strings/reversed",
    "print": "issue 11: print with sep/end, bare print",
    "generators": "issue 11: nested generator functions, local contextmanager",
    "chained": "tensor mode: chained comparisons (Python mode always has them)",
    "directives": "issue 22 class 1: set_loop_options whose argument calls a helper",
    "born_values": "issue 22 class 2: dicts first assigned in loops",
    "new_items": "issue 22 class 3: items and attributes first set in loops",
    "nested_items": "issue 22 class 4: a missing nested item written",
    "growing_lists": "issue 22 class 7: a list that grows in a loop",
    "unpacking": "issue 21 class 1: tuple unpacking right before a return",
    "super": "issue 21 classes 2, 5: super() in branches and loops of a local class",
    "try_comprehension": "issue 21 class 4: comprehensions reusing loop names in try",
    "methods": "issue 20: containers changed through methods in branches and loops",
    "lazy": "issue 20: lazy operands reading names unbound on the path",
    "aliases": "issue 20: a list or dict two names share across a loop",
    "shared_reads": "fix-gaps B1: a list or dict two names share, only read after",
    "spies": "real code: callees that log what is asked of them, as mocks do",
    "logging": "real code: a logger's records name the program's lines",
    "branch_born": "issue 20: a name one branch assigns, a loop in the other may",
    "class_calls": "issue 20 probes: static/class/base methods called through a class",
    "index_items": "issue 20 probes: list items stored by a Python range index",
    "static_tuples": "JAX fix: a string beside an array in a tuple an if/loop carries",
    "traced_print": "JAX fix: print in traced branches and loops, on the path taken",
    "index_keys": "JAX fix: a range index used as a set member or a dict key",
    "py_state": "mixed code: an iterator advanced, an array changed in place",
    "widening": "graph fix: a Python int that loops and branches make a float",
    "datasets": "hunt: for over a dataset, enumerate/zip of datasets, cardinality()",
    "variables": "TF guides: rt.Variable state updated in branches and loops, read",
    "array_rows": "JAX hunt: for over an array's rows, a constant one's traced break",
    "handler_returns": "thirdparty: an except returns, then items keyed by a try name",
    "container_returns": "real code: lists, tuples, dicts, appended lists returned",
}
"""Each switchable feature and the issue item its programs prove."""

FEATURES = frozenset(FEATURE_ISSUES)
"""The features ``make test`` (and ``make fuzz``) enable: edit here."""

TENSOR_FEATURES = frozenset(
    {
        "floats",
        "items",
        "attributes",
        "closures",
        "nonlocal",
        "loop_names",
        "builtins",
        "walrus",
        "chained",
        "try",
        "directives",
        "born_values",
        "new_items",
        "nested_items",
        "growing_lists",
        "methods",
        "lazy",
        "aliases",
        "shared_reads",
        "branch_born",
        "class_calls",
        "index_items",
        "iteration",
        "static_tuples",
        "traced_print",
        "index_keys",
        "py_state",
        "widening",
        "datasets",
        "variables",
        "array_rows",
        "container_returns",
    }
)
"""The features that have a tensor-friendly form (see the module docs)."""

BACKEND_FEATURES = {
    "traced_print": frozenset({"jax"}),
    "datasets": frozenset({"python", "graph"}),
    "variables": frozenset({"graph"}),
}
"""Features written for some backends only (``python``: Python mode; tensor
mode with another staging backend ignores them): ``traced_print`` for JAX,
which prints when the compiled function runs, on the path taken, as Python
does (the graph prints once, while tracing, as TensorFlow does);
``datasets`` for Python and the graph (JAX has no datasets); ``variables``
for the graph (JAX has no Variables; Python mode has no typed state to keep
them bounded)."""


HELPERS = """\
import contextlib
import logging
import sys
import types

import numpy

import autograph
import runtime

COUNTER = 0
RESULTS = []

# The `variables` feature's state: Variables the program resets at its
# start, as it resets COUNTER, and MODEL's, made on its first call (the
# TensorFlow guide's `if self.v is None: self.v = tf.Variable(...)`).
VI = runtime.Variable(0)
VF = runtime.Variable(0.0)
VB = runtime.Variable(False)
MODEL = types.SimpleNamespace(w=None, f=None, ws=None)


class Meter:
    # A model object whose Variable attribute its method updates in a branch
    # (the guides' `self.v`); the program resets it.
    def __init__(self):
        self.v = runtime.Variable(0)

    def add(self, k):
        if k > 0:
            self.v.assign_add(k)
        else:
            self.v.assign_sub(1)
        return self.v.read_value()


METER = Meter()


class LineHandler(logging.Handler):
    # Prints each record's message and line: a record names the line of
    # the program that logged it (stdout is compared).
    def emit(self, record):
        print("logged", record.getMessage(), record.lineno)


LOGGER = logging.getLogger("program_gen")
LOGGER.propagate = False
LOGGER.setLevel(logging.INFO)
LOGGER.handlers[:] = [LineHandler()]


def log_for_caller(v):
    LOGGER.info("for caller %s", v, stacklevel=2)
    return v


def double(v):
    return v * 2


def cap(n):
    return n


def clamp(v):
    if v > 9:
        return 9
    if v < -9:
        return -9
    return v


def fclamp(v):
    if v > 9.0:
        return 9.0
    if v < -9.0:
        return -9.0
    return v


def vector(*values):
    # The values as one 1-D array of the kind of the first (a parameter):
    # a graph tensor or a JAX array where the program is staged, a list in
    # Python; tensor mode's `for` over enumerate()/zip() of arrays.
    library = type(values[0]).__module__.partition(".")[0]
    if library == "jax":
        return sys.modules["jax"].numpy.stack(values)
    if library == "runtime":
        return runtime.stack(values)
    return list(values)


def stacked(values):
    # A list of ints as one 1-D array (container_returns): rt.stack or
    # jnp.stack where the program is staged (a TensorArray, the list a
    # graph loop appended to, too), a NumPy int32 array in Python (as
    # rt.stack of Python ints gives).
    for value in values if isinstance(values, list) else [values]:
        library = type(value).__module__.partition(".")[0]
        if library == "jax":
            return sys.modules["jax"].numpy.stack(values)
        if library == "runtime":
            return runtime.stack(values)
    return numpy.array(values, dtype=numpy.int32)


def record(log, v):
    log.append(v)
    print("record", v)
    return v


def apply(f, v):
    return f(v)


def convert_apply(f, v):
    # Converts the function it is given, as `Dataset.map` does: given a
    # lambda the program's conversion already converted.
    return autograph.to_graph(f)(v)


class Tally:
    def __init__(self):
        self.n = 0

    def bump(self, v):
        self.n = clamp(self.n + v)

    def __iadd__(self, v):
        # Called by `+=` itself, so not converted: no `if` on its values
        # (stays in [-9, 9] by a floor modulo).
        self.n = (self.n + v + 9) % 19 - 9
        return self


class Box:
    def __init__(self):
        self.total = 0
        self.count = 0
        self.inner = types.SimpleNamespace(n=0)

    def add(self, n):
        for i in range(n):
            self.total += i
        return self.total


class Logged:
    def __init__(self, log, name):
        self.log = log
        self.name = name

    def __enter__(self):
        self.log.append(("enter", self.name))
        return len(self.log)

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.name, kind.__name__ if kind else None))
        return False


class ExitRaises:
    def __init__(self, log, when):
        self.log = log
        self.when = when

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", kind.__name__ if kind else None))
        if self.when:
            raise ValueError("exit")
        return False


class Base:
    def __init__(self, log):
        self.log = log

    def m(self, n):
        self.log.append(("m", n))
        return n * 2


class Spy:
    # Logs what is asked of it besides its call and method, as a mock does.
    def __init__(self, log):
        object.__setattr__(self, "log", log)

    def __call__(self, v):
        self.log.append(("called", v))
        return v

    def method(self, v):
        self.log.append(("method", v))
        return v

    def __hash__(self):
        self.log.append("hash")
        return 0

    def __eq__(self, other):
        self.log.append("eq")
        return self is other

    def __getattr__(self, name):
        self.log.append(("getattr", name))
        raise AttributeError(name)


class Ops:
    scale = 2

    @staticmethod
    def square(v):
        if v > 3 or v < -3:
            return 9
        return v * v

    @classmethod
    def scaled(cls, v):
        if v > 0:
            return clamp(v * cls.scale)
        return -v

    def shifted(self, v):
        if v < 0:
            return v + 1
        return v - 1


class SubOps(Ops):
    def shifted(self, v):
        return Ops.shifted(self, v) * 2 // 2


class Clipped:
    # Its `__init__` has an `if` on its argument: `Clipped(v)` runs it
    # converted (it once ran as it is, refusing a graph tensor).
    def __init__(self, v):
        if v > 3 or v < -3:
            v = 3
        self.v = v


class Suppress:
    def __init__(self, log, *kinds):
        self.log = log
        self.kinds = kinds

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None and issubclass(kind, self.kinds):
            self.log.append(("suppressed", kind.__name__))
            return True
        return False
"""
"""Helpers every generated program may call: pure ones (``cap``, for a loop
option computed by user code), ``record`` (effects),
``apply`` (takes a builtin as a value), ``convert_apply`` (converts the
function it is given, as ``Dataset.map`` does), ``Tally`` (``bump`` sets an attribute
of ``self``), ``Box`` (attributes; ``add`` updates
``self.total`` in a loop, as a method), and the context
managers ``Logged`` (logs entry and exit), ``ExitRaises`` (whose ``__exit__``
raises ValueError when told to, discarding a pending jump) and ``Suppress``
(swallows the given exception types), and ``Base``, the base class of the
local classes of the ``super`` feature (``m`` logs and doubles), and ``Ops``
and ``SubOps`` (methods called through the class: ``class_calls``), and
``Clipped`` (an ``if`` in ``__init__``, reached by the class call)."""

INPUTS = st.integers(min_value=-3, max_value=6)
"""Values for the program's arguments ``a`` and ``b``."""

settings.register_profile(
    "fuzz",
    max_examples=10_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def fuzz_settings(examples: int = 200, fuzz_examples: int = 10_000) -> settings:
    """Settings for tests over ``programs()``, chosen by ``HYPOTHESIS_PROFILE``.

    Args:
        examples: Programs per run of ``make test`` (derandomized: the same
            programs every run).
        fuzz_examples: Programs per run of ``make fuzz`` (new ones each run).

    Returns:
        A ``settings`` object to decorate a test with.
    """
    fuzz = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
    return settings(
        max_examples=fuzz_examples if fuzz else examples,
        derandomize=not fuzz,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


class _ProgramWriter(
    DataFeatures,
    MethodFeatures,
    RealPythonFeatures,
    ReferenceFeatures,
    StateFeatures,
    SyntaxFeatures,
    VariableFeatures,
    ReturnFeatures,
    Writer,
):
    """The writer with every feature's hooks (each checks ``on(feature)``)."""


@st.composite
def programs(
    draw: Callable[[st.SearchStrategy[Any]], Any],
    max_statements: int = 20,
    features: Iterable[str] = (),
    tensor: bool = False,
    backend: str = "graph",
) -> str:
    """Draws the source of a module: ``HELPERS`` and ``program``.

    Args:
        draw: Supplied by hypothesis.
        max_statements: An upper bound on the statements of the body (loop
            fuel bookkeeping not counted).
        features: Names from ``FEATURE_ISSUES`` to enable (none: ``CORE``).
        tensor: Write a tensor-friendly ``program(a, b)`` (features outside
            ``TENSOR_FEATURES`` are ignored) instead of ``program(a, b, log)``.
        backend: Tensor mode: the backend that will stage the program
            (``graph`` or ``jax``); features of ``BACKEND_FEATURES`` not
            meant for it are ignored.

    Returns:
        Python source text defining ``program``.
    """
    enabled = frozenset(features)
    unknown = enabled - set(FEATURE_ISSUES)
    if unknown:
        raise ValueError(f"unknown features: {sorted(unknown)}")
    if tensor:
        enabled &= TENSOR_FEATURES
        enabled -= {f for f, on in BACKEND_FEATURES.items() if backend not in on}
    budget = draw(st.integers(1, max_statements))
    writer = _ProgramWriter(draw, budget, enabled, tensor, backend)
    signature = "program(a, b)" if tensor else "program(a, b, log)"
    return HELPERS + "\n\n" + writer.function(signature)


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
