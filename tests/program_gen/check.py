"""Runs one generated program three ways and judges the outcome.

``check_program(source, inputs, tensor)`` loads the program and checks:

(a) original == converted code forced (``assert_same_behaviour`` under
    ``always_run_converted``): values, exception types and messages, printed
    output, arguments after the call (the ``log``);
(b) tensor mode only, under one staging backend (``BACKENDS``):
    ``autograph.function(program)`` called with ``rt.constant(a),
    rt.constant(b)`` ("graph"), or ``jax.jit(autograph.to_graph(program))``
    called with ``jnp.asarray(a), jnp.asarray(b)`` ("jax"); one trace, reused
    for every input pair. It returns the original's numbers on the Python
    inputs, compared as NumPy values (int kinds alike, floats to float32
    precision); under JAX, which prints when the compiled function runs, each
    call also prints what the original prints. One judgement serves every
    backend: a backend is only how to stage the program, how to pass the
    inputs, and which error reports a failure when the staged program runs.

A program that uses ``rt.Variable``s (the ``variables`` feature: module-level
ones it names, and those of ``FIRST_CALL_STATE`` it makes on its first call)
is judged on their values too. Each run of an input pair starts from the same
Variable state (values, and which are made yet), and after it every Variable
must hold what it holds after the original's run, in (a) and (b). The staged
function is called twice on each pair: the second call of the same trace,
from the state the first left (a counter a program does not reset has moved
on from the value it had while tracing), must leave them right too.

The result is a ``Verdict``: ``ok``; ``refusal`` (an error the contract
allows, counted separately: ``LEGITIMATE_REFUSALS``); ``mismatch`` (a wrong
value, a wrong or missing exception, an error the contract does not allow, or
a hang); or ``invalid`` (the original raised something a generated program
never should: a generator bug). ``Verdict.kind_of_failure`` is a short,
normalized description that groups mismatches into classes.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import io
import re
import signal
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tests.equivalence import (
    _assert_close,
    _to_numpy,
    assert_same_behaviour,
    run_captured,
)
from tests.program_gen import loaded_program

__all__ = [
    "ALLOWED_ERRORS",
    "BACKENDS",
    "FIRST_CALL_STATE",
    "LEGITIMATE_REFUSALS",
    "Verdict",
    "check_program",
    "time_limit",
]

ALLOWED_ERRORS = (
    ZeroDivisionError,
    AssertionError,
    NameError,
    KeyError,
    ValueError,
    AttributeError,
    IndexError,
    OverflowError,
)
"""What a generated program may raise; anything else is a generator bug.

``NameError`` covers ``UnboundLocalError`` and a closure reading a free
variable not yet (or no longer) bound; ``KeyError``/``ValueError`` are raised
on purpose or come from a deleted key; ``AttributeError`` and ``IndexError``
from a deleted attribute or item; ``OverflowError`` from ``int()`` of a float
grown to infinity."""

LEGITIMATE_REFUSALS = (
    # API.md: a name assigned in only one branch of a graph `if`, used after;
    # and its loop form, a name first assigned on some paths of a loop body.
    (
        ValueError,
        r"(must also be defined in the (if|else) branch|is assigned in the "
        r"(if|else) branch of the \S+ `if` at .* but not (in its|when the))",
    ),
    # ... or unbound in one branch (`del`, `except ... as`) and kept in the other.
    (
        ValueError,
        r"is (deleted \(`del \w+`\)|unbound \(the end of an `except \.\.\. as \w+` "
        r"block unbinds it\)) in the (if|else) branch of the \S+ `if` at .* but bound",
    ),
    # ... and one a branch leaves unassigned where the other returns.
    (ValueError, r"is not assigned on the path that continues after the \S+ `if`"),
    (ValueError, r"first assigned inside a \S+ loop.*not on every path through"),
    # ... and a name only a loop's `else` block assigns (README).
    (ValueError, r"is assigned in the `else` block of the \S+ loop at .* but not on"),
    # API.md: a loop variable that changes dtype / shape.
    (TypeError, r"changed dtype from"),
    # README: a Python number a graph loop's body widens only on a path
    # that raises (the trial learns types from the paths that end one).
    (TypeError, r"a Python number before the graph loop .* only on a path that ends"),
    (ValueError, r"changed shape from"),
    # API.md: a `for` over a Python list with a graph-tensor (or traced JAX)
    # `break`, and a `for` over a scalar tensor (not the hints for
    # enumerate/zip, which suggest rt.range too but are a misuse the
    # generator never writes).
    # (Not a scalar the graph made itself, 'cond:0', 'loop_var:0': the
    # program iterates over none.)
    (
        TypeError,
        r"\A(?!.*scalar tensor '(cond|while|loop_var)(_\d+)?:\d+')"
        r".*(use rt\.range|rt\.range\(n\), to make it one graph loop"
        r"|range\(n\) with a traced n, to make it one JAX loop)",
    ),
    # Items a graph op cannot carry (a key that changes).
    (TypeError, r"so (graph|JAX) ops cannot carry it"),
    # A raise in a graph branch or loop that a `try` around it would catch
    # (each backend names what it builds: "a graph", "a compiled JAX function").
    (TypeError, r"(a graph|a compiled JAX function) cannot catch an exception"),
    # A list or dict two names share on one path of a graph statement only
    # (after it, one name would hold a copy; ARCHITECTURE.md), where the
    # function then changes it, tests its identity or lets it out (the
    # message names that use): where it only reads it, the copy gives
    # Python's value, which the fuzz demands.
    (
        ValueError,
        r"holds the same (list|dict) as .*\(which the function can see: `.+` at ",
    ),
    # An item changed through a name the graph statement assigns (`ys = xs`
    # then `ys[0] += 1` in a branch), which it cannot carry.
    (TypeError, r"through a name it assigns inside"),
    # API.md: a loop variable that changes structure (issue 22: a list that
    # a graph loop replaces by a longer one, `gl = gl + [v]`).
    (TypeError, r"is a list of \d+ items? before the (graph|JAX) loop"),
    # API.md, "Mutation through methods": a list, dict, set or object that a
    # call changes so that its structure depends on the branch or iteration.
    (TypeError, r"is changed (by the call at \S+ )?in (a branch|the body) of the"),
    # A NumPy array a staged loop carries that its body changes with `+=`.
    (TypeError, r"is changed in place by `.*` (at \S+ )?in the body of the \S+ loop"),
    # A dict whose key order would depend on the path (`d['a'] = d.pop('a')`
    # in one branch): a traced value cannot choose a dict's order.
    (TypeError, r"key order of the dict \S+ (depends on the branch|is changed in)"),
    # The same, for a dict the function returns from inside the statement.
    (TypeError, r"key order of the function's return value\S*, a dict, depends on"),
    # A name a graph `if` (in a `try`: a cell, always carried) rebinds to
    # another object than the other branch gives, while one holds tensors
    # (a loop-born `ob.born`); each message names the variable and the line.
    (TypeError, r"cannot be the result of a graph cond, at the graph `if` at"),
    (
        TypeError,
        r"is a \w+ \(.*\) on one path and a \w+ \(.*\) on the other, in the JAX "
        r"`if` at",
    ),
    # A string (a static value) beside arrays in a tuple that a traced `if`
    # or loop changes on one path (static_tuples): JAX makes it part of the
    # tuple's structure, which one staged statement cannot choose.
    (TypeError, r"\(item \S+ is .* in the other\), in the JAX `if` at"),
    (TypeError, r"\(item \S+ is .* after an iteration\) in the JAX loop at"),
    # A range index used as a set member or a dict key in a loop over a
    # traced trip count (index_keys): no Python index exists there.
    (
        TypeError,
        r"is a traced (graph|JAX) value, but its body needs it as a hashable"
        r" Python value",
    ),
    # An item or attribute a staged loop may create, where the program asks
    # whether it exists (new_items: `len(nd)`, `nd.get('born', 0)`).
    (TypeError, r"is created by the (graph|JAX) loop at .*, and the function asks"),
    # A `finally` block that may raise (an unset loop-born read) after its
    # `try` may already raise when the program runs.
    (TypeError, r"in a `finally` block whose `try` may already raise at"),
)
"""Errors a traced run may raise where Python computes a value (API.md,
"Converted control flow on graph tensors"): (type, message pattern)."""

_WALRUS_REFUSAL = r":=|walrus|assignment expression"
"""Issue 11: the walrus may be refused up front with a ConversionError."""

_TIME_LIMIT_S = 10.0

FIRST_CALL_STATE = "MODEL"
"""The module-level namespace whose ``rt.Variable``s a program makes on its
first call (``if MODEL.w is None: MODEL.w = runtime.Variable(a)``, the
TensorFlow guide's pattern): every run of an input pair starts from the
state before its first run, where they are not made yet on the first pair,
so that the staged function's first trace makes them."""


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The judgement on one program.

    Attributes:
        kind: ``ok``, ``refusal``, ``mismatch`` or ``invalid``.
        where: ``python`` (check a) or the backend of check (b) (``graph``,
            ``jax``); empty when ok.
        kind_of_failure: A normalized one-line class of the failure.
        message: The full description (inputs, outcomes, converted source).
    """

    kind: str
    where: str = ""
    kind_of_failure: str = ""
    message: str = ""


class TimeLimitExceeded(BaseException):
    """A program ran longer than its time limit (a hang). A BaseException, so
    that ``run_captured`` does not record it as the program's own error."""


@dataclasses.dataclass(frozen=True)
class StagedBackend:
    """How check (b) stages a tensor-mode program under one backend.

    Attributes:
        name: The backend's name in verdicts (``where``) and test ids.
        stage: Builds the staged callable from the loaded program, once per
            program (its traces are reused for every input pair).
        inputs: The staged callable's arguments for Python inputs ``(a, b)``.
        run_time_errors: The error types that report a failure found when the
            staged program runs (API.md: the graph's
            ``rt.errors.InvalidArgumentError``; JAX's runtime error around a
            callback's exception).
    """

    name: str
    stage: Callable[[Any], Callable[..., Any]]
    inputs: Callable[[int, int], tuple[Any, ...]]
    run_time_errors: Callable[[], tuple[type[BaseException], ...]]
    sorts_dicts: bool = False
    """Whether the staged callable gives back its dicts with their keys
    sorted (``jax.jit``'s outputs are pytrees: JAX's own behaviour, at its
    boundary; the order inside the program shows in ``list(d.values())``)."""
    prints_when_run: bool = False
    """Whether ``print`` runs when the staged program runs, on the path
    taken, so that each call prints what Python prints (JAX; the graph
    prints once, while tracing, as TensorFlow does)."""


def _graph_backend() -> StagedBackend:
    autograph = importlib.import_module("autograph")
    rt = importlib.import_module("runtime")
    return StagedBackend(
        name="graph",
        stage=autograph.function,
        inputs=lambda a, b: (rt.constant(a), rt.constant(b)),
        run_time_errors=lambda: (rt.errors.InvalidArgumentError,),
    )


def _jax_backend() -> StagedBackend:
    jax = importlib.import_module("jax")
    autograph = importlib.import_module("autograph")
    rt = importlib.import_module("runtime")

    def run_time_errors() -> tuple[type[BaseException], ...]:
        kinds: list[type[BaseException]] = [rt.errors.InvalidArgumentError]
        for name in ("JaxRuntimeError", "XlaRuntimeError"):
            kind = getattr(jax.errors, name, None)
            if kind is not None:
                kinds.append(kind)
        return tuple(kinds)

    def stage(program: Any) -> Callable[..., Any]:
        jitted = jax.jit(autograph.to_graph(program))

        def run(*args: Any) -> Any:
            try:
                return jax.block_until_ready(jitted(*args))
            finally:
                jax.effects_barrier()  # every print of this call printed

        return run

    return StagedBackend(
        name="jax",
        stage=stage,
        inputs=lambda a, b: (jax.numpy.asarray(a), jax.numpy.asarray(b)),
        run_time_errors=run_time_errors,
        sorts_dicts=True,
        prints_when_run=True,
    )


BACKENDS: dict[str, Callable[[], StagedBackend]] = {
    "graph": _graph_backend,
    "jax": _jax_backend,
}
"""Every staging backend check (b) runs a tensor-mode program under."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raises ``TimeLimitExceeded`` in the block after ``seconds``.

    Uses ``SIGALRM``, so it works in the main thread only. The alarm repeats
    every half second until the block ends: an exception raised while a
    callback runs (hypothesis's GC callback, a ``__del__``) is printed and
    dropped by Python, and the program would run on unjudged.
    """

    def expire(signum: int, frame: object) -> None:
        raise TimeLimitExceeded(f"ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.5)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _in_order_of(expected: Any, actual: Any) -> Any:
    """``actual`` with each dict's keys in the order of ``expected``'s dict
    in its place, where they have the same keys."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = list(expected) if set(expected) == set(actual) else list(actual)
        return {k: _in_order_of(expected.get(k), actual[k]) for k in keys}
    if (
        isinstance(expected, (list, tuple))
        and type(actual) is type(expected)
        and len(actual) == len(expected)
    ):
        return type(actual)(_in_order_of(e, a) for e, a in zip(expected, actual))
    return actual


def normalize(text: str) -> str:
    """The first line of ``text`` with numbers and generated labels masked,
    so that failures of one class read the same."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = re.sub(r"'\w+:\d+'", "'TENSOR'", line)
    line = re.sub(r" at 0x[0-9a-f]+", "", line)  # an object's address
    line = re.sub(r"\b([a-z]+)\d+\b", r"\1#", line)
    line = re.sub(r"-?\d+(\.\d+)?", "#", line)
    line = re.sub(r"/\S+\.py", "FILE", line)
    return line[:160]


def describe_error(error: BaseException) -> str:
    return f"{type(error).__name__}: {normalize(str(error))}"


_ONE_BRANCH = re.compile(
    r"'(w\d+)' is assigned in the (?:if|else) branch of the \S+ `if` at \S+:(\d+) "
)


def _refuses_a_search(error: BaseException, source: str) -> bool:
    """Whether `error` refuses, as bound in one branch only, a name that
    `loop_names` first assigns in a loop, under the `if` that starts the
    loop's body (`if c:` / `w = v`, maybe then `break`, the search idiom):
    the loop carries it, so the `if` gives it with its flag on every
    backend, also where the loop's first iterations run as Python (a
    `range` of constants, a list, `while True`)."""
    found = _ONE_BRANCH.search(str(error))
    if found is None:
        return False
    name, line = found.group(1), int(found.group(2))
    lines = source.splitlines()
    if not 2 <= line < len(lines) or not lines[line].strip().startswith(f"{name} = "):
        return False
    at = _indent(lines[line - 1])
    after = next((t for t in lines[line + 1 :] if t.strip() and _indent(t) <= at), "")
    if _indent(after) == at and re.match(r"\s*(else:|elif )", after):
        # (`loop_names` writes its `if` alone; one with an `else` is another
        # feature's, `branch_born`'s, whose else may leave the name unbound.)
        return False
    before, previous = lines[line - 3 : line - 1], lines[line - 2]
    header = re.match(r"\s*(for|while) .*:$", previous) and _indent(previous) == at - 4
    fuel = re.fullmatch(r"\s*fuel\d+ -= 1", previous) and _indent(previous) == at
    guard = (
        len(before) == 2
        and re.fullmatch(r"\s*if fuel\d+ < 0:", before[0]) is not None
        and _indent(before[0]) == at
    )
    return bool(header or fuel or guard)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _legitimate(
    error: BaseException, run_time: tuple[type[BaseException], ...] = ()
) -> bool:
    """Whether `error` is a refusal the contract allows: raised while
    tracing, or (JAX, API.md) raised by the compiled function when it runs,
    inside the backend's run-time error, because user code caught it while
    tracing (a `finally: return`), so that it runs as refused, never as if
    it had not been."""
    text = str(error)
    return any(
        re.search(pattern, text)
        and (
            isinstance(error, kind)
            or (isinstance(error, run_time) and f"{kind.__name__}: " in text)
        )
        for kind, pattern in LEGITIMATE_REFUSALS
    )


def _held(program: Any) -> dict[str, Any]:
    """The module-level objects the program names whose attributes may hold
    Variables: namespaces (``MODEL``) and objects of the module's classes."""
    scope = program.__globals__
    found = {}
    for name in program.__code__.co_names:
        value = scope.get(name)
        if isinstance(value, types.SimpleNamespace) or (
            type(value).__module__ == program.__module__
            and not isinstance(value, type)
            and hasattr(value, "__dict__")
        ):
            found[name] = value
    return found


def _variables(program: Any) -> dict[str, Any]:
    """The ``rt.Variable``s the program names: module-level ones, and those
    ``_held`` objects' attributes hold (maybe in a list), by label."""
    rt = importlib.import_module("runtime")
    found: dict[str, Any] = {}

    def add(label: str, value: Any) -> None:
        if isinstance(value, rt.Variable):
            found[label] = value
        elif isinstance(value, list):
            for index, item in enumerate(value):
                add(f"{label}[{index}]", item)

    for name in program.__code__.co_names:
        add(name, program.__globals__.get(name))
    for name, value in _held(program).items():
        for attribute, item in vars(value).items():
            add(f"{name}.{attribute}", item)
    return found


@dataclasses.dataclass(frozen=True)
class _State:
    """A program's Variable state at one moment, to run it again from there:
    the attributes of the objects holding Variables (``MODEL.w`` may still
    be None: not made yet) and each Variable's value."""

    attributes: list[tuple[Any, dict[str, Any]]]
    values: list[tuple[Any, np.ndarray]]

    def restore(self) -> None:
        for holder, attributes in self.attributes:
            for name, value in attributes.items():
                setattr(holder, name, value)
        for variable, value in self.values:
            variable.assign(value)


def _state(program: Any) -> _State | None:
    """The program's Variable state now; None if it names no Variable."""
    variables = _variables(program)
    if not variables and FIRST_CALL_STATE not in program.__code__.co_names:
        return None
    return _State(
        [(held, dict(vars(held))) for held in _held(program).values()],
        [(v, np.array(v.numpy(), copy=True)) for v in variables.values()],
    )


def _variable_values(program: Any) -> dict[str, np.ndarray]:
    """Each Variable's value now (a copy), by label."""
    return {
        label: np.array(variable.numpy(), copy=True)
        for label, variable in _variables(program).items()
    }


class _FromState:
    """``fn``, run from the Variable state ``start`` on every call (so that
    the original and converted code start alike); errors and messages name
    ``fn``'s file and lines as if it were called itself."""

    def __init__(self, fn: Any, start: _State) -> None:
        self.__wrapped__ = fn
        self.__code__ = fn.__code__
        self.__qualname__ = fn.__qualname__
        self.start = start

    def __call__(self, *args: Any) -> Any:
        self.start.restore()
        return self.__wrapped__(*args)


def _variables_differ(expected: dict[str, np.ndarray], program: Any) -> str | None:
    """How the program's Variables now differ from ``expected``, or None."""
    actual = _variable_values(program)
    if set(actual) != set(expected):
        return f"variables {sorted(actual)} instead of {sorted(expected)}"
    for label, value in expected.items():
        try:
            _assert_close(value, actual[label], f"variable {label}")
        except AssertionError:
            got = actual[label]
            return (
                f"variable {label} holds {got.tolist()!r} ({got.dtype}), not "
                f"{value.tolist()!r} ({value.dtype})"
            )
    return None


def _to_graph(autograph: Any, program: Any) -> Any:
    try:
        return autograph.to_graph(program)
    except SystemError as e:
        # CPython 3.11: when `time_limit`'s SIGALRM lands while `ast.parse`
        # builds its tree, the handler runs inside a GC callback there and
        # leaves the parser's recursion count off ("AST constructor
        # recursion depth mismatch"). Not the compiler's doing: parse again.
        if "recursion depth mismatch" not in str(e):
            raise
        return autograph.to_graph(program)


def _check_python(program: Any, args: tuple[Any, ...]) -> Verdict:
    """Check (a): original == converted code forced, on Python values."""
    autograph = importlib.import_module("autograph")
    from autograph.impl.api import always_run_converted

    start = _state(program)
    expected = run_captured(program, args, {})
    if expected.error is not None and not isinstance(expected.error, ALLOWED_ERRORS):
        return Verdict("invalid", "python", describe_error(expected.error))
    variables = _variable_values(program)
    try:
        converted = _to_graph(autograph, program)
    except Exception as e:  # a conversion that fails up front
        if isinstance(e, autograph.ConversionError) and re.search(
            _WALRUS_REFUSAL, str(e)
        ):
            return Verdict("refusal", "python", describe_error(e), str(e))
        return Verdict("mismatch", "python", "to_graph " + describe_error(e), str(e))
    original = program
    if start is not None:  # each run from the same Variable state
        original, converted = _FromState(program, start), _FromState(converted, start)
    try:
        assert_same_behaviour(original, converted, *args)
    except AssertionError as e:
        with always_run_converted():
            actual = run_captured(converted, args, {})
        if isinstance(actual.error, autograph.ConversionError) and re.search(
            _WALRUS_REFUSAL, str(actual.error)
        ):
            return Verdict("refusal", "python", describe_error(actual.error), str(e))
        if actual.error is not None and type(actual.error) is not type(expected.error):
            what = "raised " + describe_error(actual.error)
        elif actual.error is not None:
            what = "wrong message " + describe_error(actual.error)
        elif expected.error is not None:
            what = f"no {type(expected.error).__name__} raised"
        else:
            what = "wrong " + normalize(str(e).split("differs: ", 1)[-1])
        return Verdict("mismatch", "python", what, str(e))
    difference = _variables_differ(variables, program)
    if difference and expected.error is None:
        what = "wrong " + normalize(difference)
        return Verdict("mismatch", "python", what, difference)
    return Verdict("ok")


def _names_variable(graph_error: BaseException, python_error: BaseException) -> bool:
    names = re.findall(r"'(\w+)'", str(python_error))
    return bool(names) and f"'{names[0]}'" in str(graph_error)


def _check_staged(
    program: Any,
    function: Any,
    backend: StagedBackend,
    a: int,
    b: int,
    source: str,
) -> Verdict:
    """Check (b): the staged program computes the original's numbers, and
    leaves its Variables as the original does from the same state."""
    start = _state(program)
    expected = run_captured(program, (a, b), {})
    expected_result = copy.deepcopy(_to_numpy(expected.result))  # (Variables')
    variables = _variable_values(program)
    if start is not None:
        start.restore()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            traced, error = function(*backend.inputs(a, b)), None
        except Exception as e:  # judged below
            traced, error = None, e
    where = backend.name
    run_time = backend.run_time_errors()
    text = f"program({a}, {b}) staged ({where}) vs Python\n{source}"
    if error is not None:
        text += f"\ntraced run raised {type(error).__name__}: {error}"
        if expected.error is not None:
            if type(error) is type(expected.error):
                return Verdict("ok")
            if (
                isinstance(expected.error, NameError)
                and isinstance(error, run_time)
                and _names_variable(error, expected.error)
            ):
                return Verdict("ok")
            if (
                isinstance(expected.error, (KeyError, AttributeError))
                and isinstance(error, run_time)
                and "no iteration has assigned it" in str(error)
            ):
                # An item or attribute first set in a graph loop that ran no
                # iteration, read after it (API.md's loop-born rule).
                return Verdict("ok")
            raised = f"{type(expected.error).__name__}: {expected.error}"
            if isinstance(error, run_time) and raised in str(error):
                return Verdict("ok")  # a raise in a graph branch or loop
            # (`r#`: the program's own raise; `missing`: a missing nested
            # item written at the top level, issue 22's `nested_items`;
            # `born`: an item `new_items` sets only in a loop, where no
            # traced path set it.)
            own = isinstance(error, (KeyError, ValueError)) and re.fullmatch(
                r"'?(r\d+|missing|born)'?", str(error)
            )
            unbound = isinstance(error, UnboundLocalError) and re.search(
                r"'w\d+'", str(error)
            )
            # (`born`: an attribute `new_items` sets only in a loop, read
            # after it outside any graph statement: Python's AttributeError
            # while tracing, API.md, when no traced path set it.)
            unset = isinstance(error, AttributeError) and re.search(
                r"has no attribute 'born'", str(error)
            )
            if (own or unbound or unset) and where == "jax":
                # A raise (or unbound read) every traced path reaches raises
                # while `jax.jit` traces, for every input: before a JAX `if`
                # that raises first would (the graph tracer stages it after
                # the graph's effects: `concrete._raised_when_run`).
                return Verdict("refusal", where, describe_error(error), text)
        # (`scan[jt..]`: a top-level `for` over a Python range, index_items;
        # no graph statement encloses it, so it unrolls and nothing refuses.)
        top_level_item = re.match(r"scan\[jt\d+\]", str(error))
        legitimate = _legitimate(error, run_time) and not top_level_item
        if legitimate and not _refuses_a_search(error, source):
            return Verdict("refusal", where, describe_error(error), text)
        return Verdict("mismatch", where, "raised " + describe_error(error), text)
    if expected.error is not None:
        what = f"no {type(expected.error).__name__} raised"
        return Verdict("mismatch", where, what, text)
    if backend.sorts_dicts:
        traced = _in_order_of(expected.result, traced)
    try:
        _assert_close(expected_result, _to_numpy(traced), "result")
    except AssertionError as e:
        text += f"\nexpected {expected.result!r}\ngot {traced!r}\n{e}"
        what = "wrong value " + normalize(str(e).replace("\n", " "))
        return Verdict("mismatch", where, what, text)
    if backend.prints_when_run and printed.getvalue() != expected.stdout:
        text += f"\nPython printed {expected.stdout!r}\nstaged {printed.getvalue()!r}"
        return Verdict("mismatch", where, "wrong printed output", text)
    difference = _variables_differ(variables, program)
    if difference:
        text += f"\n{difference}"
        return Verdict("mismatch", where, "wrong " + normalize(difference), text)
    return Verdict("ok")


def check_program(
    source: str,
    inputs: Sequence[tuple[int, int]],
    tensor: bool = False,
    backend: str = "graph",
) -> Verdict:
    """Checks one program on every input pair; the first non-ok verdict wins.

    Args:
        source: A module from ``programs()``.
        inputs: ``(a, b)`` pairs.
        tensor: Whether ``source`` is a tensor-mode program (then check (b)
            runs too, after (a) passed for that pair).
        backend: The staging backend of check (b), a key of ``BACKENDS``.

    Returns:
        The ``Verdict``.
    """
    staged = BACKENDS[backend]() if tensor else None
    refusal = None
    with loaded_program(source) as program:
        function = staged.stage(program) if staged else None
        for a, b in inputs:
            args = (a, b) if tensor else (a, b, [])
            try:
                with time_limit(_TIME_LIMIT_S):
                    start = _state(program)
                    verdict = _check_python(program, args)
                    if start is not None:
                        start.restore()  # (a's runs made their own Variables)
                    # A program with Variables: the same trace called again,
                    # from the state the first call left.
                    calls = 0 if staged is None else 1 + (start is not None)
                    for _ in range(calls):
                        if verdict.kind != "ok" or staged is None:
                            break
                        verdict = _check_staged(program, function, staged, a, b, source)
            except TimeLimitExceeded as e:
                where = staged.name if staged else "python"
                verdict = Verdict("mismatch", where, "hang")
                verdict = dataclasses.replace(verdict, message=f"{e}\n{source}")
            if verdict.kind in ("mismatch", "invalid"):
                return verdict
            if verdict.kind == "refusal":
                refusal = refusal or verdict
    return refusal or Verdict("ok")
