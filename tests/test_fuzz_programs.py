"""Generated programs: converted code behaves like the original.

``programs()`` (tests/program_gen) writes whole functions full of control
flow, with switchable features (the patterns of issues 10 and 11). Each
program is checked by ``check_program`` (tests/program_gen/check.py) on a
few small inputs: (a) original == converted code forced, values, exceptions,
printed output and log; (b) in the staged modes also the staged program ==
the original's numbers, under one backend per mode (``check.BACKENDS``):
``tensor`` is ``autograph.function`` on ``rt.constant`` inputs, ``jax`` is
``jax.jit(autograph.to_graph(program))`` on ``jnp`` inputs; the same
programs and one judgement for every backend. Refusals the contract allows
pass; mismatches fail.

``make test`` checks a derandomized few hundred programs per mode: each
feature alone (over the core constructs), then all features that pass
together (jax: 15 per feature, 100 with all). ``make fuzz``
(``HYPOTHESIS_PROFILE=fuzz``) checks 10,000 new programs per mode with all
features, and more per feature. A campaign that does not stop at the first
failure: ``python -m tests.program_gen.campaign --mode jax --features all``.

Features that fail today are listed in ``KNOWN_FAILING`` (one table, with
the issue item): their tests are strict xfails, so a fix that makes one pass
turns the test red until its entry is deleted. On failure the program's
source is printed.

The other tests check the generator itself, without the compiler: its
programs compile, terminate, and cover the constructs they are meant to.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, find, given, note, settings
from hypothesis import strategies as st

from tests.equivalence import require_jax, run_captured
from tests.program_gen import (
    BACKEND_FEATURES,
    FEATURE_ISSUES,
    FEATURES,
    INPUTS,
    TENSOR_FEATURES,
    fuzz_settings,
    loaded_program,
    programs,
)
from tests.program_gen.check import ALLOWED_ERRORS, check_program, time_limit

INPUT_PAIRS = st.lists(st.tuples(INPUTS, INPUTS), min_size=1, max_size=3)

MODES = ("python", "tensor", "jax")
"""``tensor`` stages programs as graphs, ``jax`` under ``jax.jit``: the same
programs and the same judgement (tests/program_gen/check.py) for every backend."""

KNOWN_FAILING: dict[tuple[str, str], str] = {
    # (mode, feature): the issue item whose fix makes its programs pass.
    # "core" is the programs without features; "all" the programs with every
    # feature of FEATURES that is not listed here for that mode.
}
"""Features whose programs fail today: delete an entry when its fix lands.

Only failures the derandomized run of ``make test`` meets are listed; rarer
ones (``with``: about 1 in 500 programs) show in ``make fuzz``."""

EXPECTED_ERRORS = {
    ZeroDivisionError: (),
    AssertionError: (),
    UnboundLocalError: (),
    KeyError: ("try", "nested_items"),
    ValueError: ("try",),
    AttributeError: ("attributes", "del"),
}
"""What generated programs raise on purpose, and the features that make them."""


class Mismatch(AssertionError):
    """Converted code differed from the original (or refused illegitimately)."""


def _known_failing(mode: str, feature: str) -> str | None:
    """Why the programs of (mode, feature) fail today, or None. Every
    program holds the core constructs, so a failing core fails them all."""
    reasons = [KNOWN_FAILING.get((mode, feature)), KNOWN_FAILING.get((mode, "core"))]
    found = [r for r in dict.fromkeys(reasons) if r]
    return "; ".join(found) or None


def _enabled(mode: str, feature: str) -> frozenset[str]:
    if feature == "core":
        return frozenset()
    if feature == "all":
        listed = {f for (m, f) in KNOWN_FAILING if m == mode}
        return FEATURES - listed
    return frozenset({feature})


def _cases() -> list:
    cases = []
    for mode in MODES:
        offered = FEATURES if mode == "python" else FEATURES & TENSOR_FEATURES
        # (A backend's own features: none in Python mode, only its own.)
        backend = {"tensor": "graph"}.get(mode, mode)
        offered = offered - {
            f for f, on in BACKEND_FEATURES.items() if backend not in on
        }
        for feature in ("core", *sorted(offered), "all"):
            reason = _known_failing(mode, feature)
            marks = []
            if reason:
                marks = [pytest.mark.xfail(strict=True, raises=Mismatch, reason=reason)]
            cases.append(
                pytest.param(mode, feature, marks=marks, id=f"{mode}-{feature}")
            )
    return cases


# Programs per run of `make test` / `make fuzz`, by mode and test.
_EXAMPLES = {
    ("python", "feature"): (40, 1_000),
    ("python", "all"): (200, 10_000),
    ("tensor", "feature"): (25, 500),
    ("tensor", "all"): (150, 10_000),
    ("jax", "feature"): (15, 500),
    ("jax", "all"): (100, 10_000),
}


@pytest.mark.parametrize(("mode", "feature"), _cases())
def test_converted_programs_behave_like_the_original(mode: str, feature: str) -> None:
    tensor = mode != "python"
    backend = "jax" if mode == "jax" else "graph"
    if mode == "jax":
        require_jax()
    known = _known_failing(mode, feature) is not None
    examples, fuzz_examples = _EXAMPLES[
        (mode, "all" if feature == "all" else "feature")
    ]
    if known:  # stops at the first failure; a pass must be a real one
        examples = max(examples, 300)
    base = fuzz_settings(examples, fuzz_examples)
    phases = [Phase.explicit, Phase.generate] + ([] if known else [Phase.shrink])
    features = _enabled(mode, feature)

    @settings(base, phases=phases, report_multiple_bugs=False)
    @given(
        source=programs(features=features, tensor=tensor, backend=backend),
        inputs=INPUT_PAIRS,
    )
    def check(source: str, inputs: list[tuple[int, int]]) -> None:
        note(f"program source:\n{source}")
        verdict = check_program(source, inputs, tensor, backend)
        if verdict.kind == "invalid":
            raise AssertionError(f"generator bug: {verdict.kind_of_failure}")
        if verdict.kind == "mismatch":
            raise Mismatch(f"{verdict.kind_of_failure}\n{verdict.message}")

    check()


def test_known_failing_names_real_features() -> None:
    for mode, feature in KNOWN_FAILING:
        assert mode in MODES
        assert feature in {"core", "all", *FEATURE_ISSUES}, feature


@pytest.mark.parametrize("mode", ("python", "tensor"))  # jax's are tensor's
@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data(), inputs=INPUT_PAIRS)
def test_generated_programs_terminate_in_plain_python(
    mode: str, data: st.DataObject, inputs: list[tuple[int, int]]
) -> None:
    tensor = mode == "tensor"
    source = data.draw(programs(features=FEATURES, tensor=tensor))
    note(f"program source:\n{source}")
    with loaded_program(source) as program, time_limit(5):
        for a, b in inputs:
            error = run_captured(program, (a, b) if tensor else (a, b, []), {}).error
            if error is None:
                continue
            if tensor and isinstance(error, UnboundLocalError):
                assert re.search(r"'w\d+'", str(error)), error  # loop_names only
            elif tensor and isinstance(error, (KeyError, ValueError)):
                # try's raise; issue 22: an item born in a zero-trip loop, a
                # missing nested item
                assert re.fullmatch(r"'?(r\d+|born|missing)'?", str(error)), error
            elif tensor and isinstance(error, AttributeError):
                assert "'born'" in str(error), error  # issue 22: new_items only
            elif tensor or not isinstance(error, ALLOWED_ERRORS):
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
    "a return in a handler, then items keyed by the try's name": (
        r"except StopIteration:\n +return.*\n *for hv\d+ in hi\d+:"
    ),
    "comprehension": r"\[.* for k in range",
    "lambda": r"\(lambda k:",
    "unpacking for": r"for \w+, \w+ in",
    # issue 10
    "float variable": r"^ *[uv] = .*\d\.\d",
    "bool variable": r"^ *[pq] = ",
    "true division": r"\w / \(?[\w\d]",
    "item augmented": r"^ *(d\['a'\]|xs\[1\]|d\[key\]) [+-]= ",
    "item assigned": r"^ *(d\['b'\]|xs\[0\]) = ",
    "attribute update": r"^ *(box\.total|box\.inner\.n|ns\.total) [+-]?= ",
    "update through an alias": r"^ *ys\[0\] [+-]?= ",
    "alias made again": r"^ {8,}ys = xs$",
    "alias given its own list": r"^ {8,}ys = \[",
    "method updating an attribute": r"^ *box\.add\(",
    "closure called in a loop": r"^ {8,}.*(peek|later)\(\)",
    "lambda made in a loop": r"^ {8,}fs\.append\(lambda: ",
    "def made in a loop": r"^ {8,}def f\d+\(\):",
    "nonlocal call in a test": r"^ *(if|elif|while) .*bump\(",
    "global write": r"^ *COUNTER [+-]= ",
    "module list append in a loop": r"^ {8,}RESULTS\.append\(",
    "name born in a loop, read after": r"^ *\w = .*\bw\d+\b",
    "builtin range as a value": r"for \w+ in fn\(",
    "builtin passed as an argument": r"apply\((abs|float), ",
    "enumerate as a value": r"in en\(",
    "isinstance as a value": r"inst\(",
    "print as a value": r"^ *out\(",
    "del of an item": r"^ *del (d\['a'\]|xs\[0\])",
    "del of a loop target": r"^ *del i\d$",
    "del in finally": r"^ *finally:\n +del ",
    "raising test of a continue": (
        # (Bounded: an unbounded `.*` here backtracks for minutes on a long line.)
        r"if (\{'k': -?\d\}\['missing'\]|\([^\n]{0,200} // \w+\)|\(2\.0 / \w+\))"
        r":\n +continue"
    ),
    # issue 11
    "try/except/else/finally": r"^ *try:(.|\n)*^ *else:(.|\n)*^ *finally:",
    "raise": r"^ *raise (KeyError|ValueError)\(",
    "except as": r"^ *except .* as e:",
    "return in finally": r"^ *finally:\n( {8}.*\n)* +return\b",  # one way per line
    "continue in an except clause": r"except .*:\n( .*\n)* +continue\n",
    "with that logs": r"with Logged\(log",
    "with that suppresses": r"with Suppress\(log",
    "with whose exit raises": r"with ExitRaises\(log",
    "walrus in a test": r"^ *(if|while|elif) .*:= ",
    "walrus in a comprehension": r"\[\(\w := ",
    "dict comprehension": r"\{k: ",
    "set comprehension": r"len\(\{",
    "generator expression": r"for k in range\(\d\) if",
    "for over items": r"\.items\(\):",
    "for over enumerate": r"in enumerate\(",
    "for over zip": r"in zip\(",
    "for over a string": r"for ch in '",
    "for over reversed": r"in reversed\(",
    "print with sep or end": r"(sep|end)='\|'",
    "nested generator in a for": r"for \w+ in evens\(",
    "local contextmanager": r"with scope\(",
    # issue 22
    "directive calling a helper": r"^ +autograph\.set_loop_options\(.*cap\(",
    "dict born in a loop, read after": r"\bw\d+\['k'\]",
    "item first set in a loop": r"^ +nd\['born'\] = ",
    "attribute first set in a loop": r"^ +ob\.born = ",
    "presence of an item a loop creates": (
        r"(nd\.get|'born' in nd|len\(nd\)|hasattr\(ob)"
    ),
    "missing nested item written": r"nn\['missing'\]\['a'\] = ",
    "list grown in a loop": r"gl = gl \+ \[",
    # issue 21
    "unpacking before a return": r"^ *\(?\w\b.*= \[.*\n *return \w",
    "super() in a local class": r"super\(\)\.m\(",
    "comprehension reusing a loop name in try": r"for t in range\(\d\)\]",
    # real code
    "a spy called": r"= clamp\(Spy\(log\)\(",
    "a spy's method kept in a name": r"^ *fn\d+ = Spy\(log\)\.method$",
    "a logger's record": r"^ *LOGGER\.info\(",
    "a record for the caller": r"log_for_caller\(",
    # fixes of the JAX backend
    "a tuple's string kept": r"^ *c = \(c\[0\], ",
    "a tuple's string changed": r"^ *c = \('stop', ",
    "a range index as a set member": r"^ *if jk\d+ in \{",
    "a range index as a dict key": r"wk\[jk\d+\]",
    # datasets (hunt: enumerate(ds) crashed, cardinality() was wrong)
    "for over a dataset": r"^ *for dv\d+ in ds2?:",
    "for over enumerate of a dataset": r"^ *for i\d, dv\d+ in enumerate\(ds",
    "for over a zip of datasets": r"^ *for \w+, \w+ in zip\(ds2?, ds2?\):",
    "a dataset's cardinality": r"int\(ds2?\.cardinality\(\)\)",
    "a mapped, filtered, batched pipeline": r"\.map\(.*\.filter\(.*\.batch\(2\)",
    # container_returns
    "the argument list returned": r"^ *return (\S+, )?log$",
    "a list built by appending, returned": r"^ *return (\S+, )?rs\d+$",
}


def _search_settings() -> settings:
    return settings(
        max_examples=3000,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=[HealthCheck.too_slow],
    )


def _constructs_seen(
    patterns: dict[str, str], strategy: st.SearchStrategy[str], examples: int
) -> set[str]:
    """The names of ``patterns`` found in the bodies of ``examples`` programs."""
    seen: set[str] = set()

    @settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,  # drawing only: a slow shared core is no failure
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(source=strategy)
    def collect(source: str) -> None:
        body = source.split("\ndef program", 1)[1]
        for name, pattern in patterns.items():
            if name not in seen and re.search(pattern, body, re.MULTILINE):
                seen.add(name)

    collect()
    return seen


def test_generator_writes_each_construct() -> None:
    seen = _constructs_seen(CONSTRUCTS, programs(features=FEATURES), 1000)
    assert not set(CONSTRUCTS) - seen, f"never written: {set(CONSTRUCTS) - seen}"


TENSOR_CONSTRUCTS = {
    "name born in a loop": r"\bw\d+ = ",
    "name set before a break and in the loop's else": (
        r"^( *)    if .*:\n\1        (w\d+) = .*\n\1        break\n"
        r"(\1    .*\n)*\1else:\n\1    \2 = "
    ),
    "walrus": r"\(\w := ",
    "range as a value": r"for \w+ in fn\(",
    "nonlocal call": r"bump\(",
    "item update": r"d\['a'\] [+-]= ",
    "update through an alias": r"ys\[0\] [+-]?= ",
    "alias given its own list": r"^ {8,}ys = \[",
    "attribute update": r"box\.total [+-]?= ",
    "float variable": r"^ *u = ",
    "chained comparison": r"\(\S+ < \S+ <= ",
    "directive calling a helper": r"set_loop_options\(maximum_iterations=cap\(",
    "dict born in a loop": r"\bw\d+ = \{'k'",
    "item first set in a loop": r"nd\['born'\] = ",
    "item a loop creates if missing": r"nd\['born'\] = .*nd\.get\('born'",
    "missing nested item written": r"nn\['missing'\]\['a'\] = ",
    "list grown in a loop": r"gl = gl \+ \[",
    "list two names share across a loop": r"^ *sb = sa$",
    "dict shared in a loop body": r"^ *se = sd$",
    "list two names share, only read after a loop": r"^ *rb = ra$",
    "dict shared in a loop body, only read after it": r"^ *rf = rd$",
    "method called through a class": r"Ops\.s(quare|caled)\(",
    "base method called through a class": r"SubOps\(\)\.shifted\(",
    "class call whose __init__ has an if": r"Clipped\(.*\)\.v",
    "item stored by a range index": r"scan\[j\d+\] = ",
    "object changed in place by +=": r"^ *tally \+= ",
    "NumPy array changed in place by +=": r"^ *parr \+= 1$",
    "top-level loop storing items by its index": r"^ {4}for jt\d+ in range\(3\):",
    "enumerate() of arrays": r"^ *for \w+, \w+ in enumerate\(vector\(",
    "zip() of arrays": r"^ *for \w+, \w+ in zip\(vector\(",
    "enumerate() of a zip() of arrays": r"in enumerate\(zip\(vector\(",
    "lambda handed to a helper that converts it": r"convert_apply\(lambda k: ",
    "a tuple's string kept in a branch or loop": r"^ {8,}c = \(c\[0\], ",
    "a tuple's string changed in a branch or loop": r"^ {8,}c = \('stop', ",
    "a test of a tuple's string": r"\(c\[0\] [!=]= 'run'\)",
    "a range index as a set member": r"^ *if jk\d+ in \{",
    "a range index as a dict key": r"wk\[jk\d+\]",
    "for over a dataset": r"^ *for dv\d+ in ds2?:",
    "break in a loop over a dataset": (
        r"^( *)for dv\d+ in ds2?:\n(\1    .*\n)*\1    break"
    ),
    "for over enumerate of a dataset": r"^ *for kd\d+, dv\d+ in enumerate\(ds",
    "for over a zip of datasets": r"^ *for \w+, \w+ in zip\(ds2?, ds2?\):",
    "a dataset's cardinality": (
        r"runtime\.cast\(ds2?\.cardinality\(\), runtime\.int32\)"
    ),
    "a batched dataset's item": r"runtime\.reduce_sum\(dv\d+\)",
    # variables (TensorFlow's guides: tf.Variable state in tf.function)
    "a Variable made on the first call": r"MODEL\.w = runtime\.Variable\(",
    "Variables made in a loop on the first call": (
        r"MODEL\.ws\.append\(runtime\.Variable\("
    ),
    "a Variable updated in a branch or loop": (
        r"^ {8,}(VI|VF|MODEL\.\w+(\[1\])?|METER\.v)\.assign(_add|_sub)?\("
    ),
    "a Variable used directly as a condition": r"^ *if (not )?VB:",
    "a trip count read from a Variable": r"in range\(clamp\(\S+\.read_value\(\)\)\)",
    "an update's new value read": r"clamp\(\S+\.assign_(add|sub)\(",
    "a method updating a Variable attribute": r"METER\.add\(",
    "a Variable compared in a test": r"\((VI|VF|MODEL\.\w+|METER\.v)\S* [<>=!]=? ",
    # container_returns
    "a list returned": r"^ *return \[",
    "a tuple holding a list returned": r"^ *return [^\[{\n]+, \[",
    "a dict returned": r"^ *return \{'value': ",
    "a list built by appending, returned stacked": (
        r"^( *)rs\d+ = \[\]\n\1for kr\d+ in range\(\d\):\n.*\n\1return .*stacked\("
    ),
    "a list built by appending, returned as a list": r"^ *return \[?rs\d+,",
    "a list a graph loop builds, returned stacked": (
        r"^( *)for kr\d+ in range\([ab]\):\n.*\n\1return .*stacked\("
    ),
    "a container returned inside a loop": (
        r"^( *)(for (?!j in )|while ).*:\n(\1    .*\n)*\1    ( *)return [\[{]"
    ),
    "a dict returned inside a local function's loop, called": r"summary\(a\)\[",
}


def test_generator_writes_each_tensor_mode_construct() -> None:
    strategy = programs(features=FEATURES, tensor=True)
    # (1,100: derandomized drawing writes a `break` right in a dataset
    # loop's body from about the 1,060th program, since max/min and the
    # widening through `lag` joined the expressions; 1,300: since
    # container_returns joined, the first "item a loop creates if missing"
    # comes after the 1,100th.)
    seen = _constructs_seen(TENSOR_CONSTRUCTS, strategy, 1300)
    missing = set(TENSOR_CONSTRUCTS) - seen
    assert not missing, f"never written: {missing}"


JAX_CONSTRUCTS = {
    "print in a branch or loop": r"^ {8,}print\('t\d+', ",
    "a range index as a key in a loop over a traced trip count": (
        r"^ *for jk\d+ in range\([ab]\):"
    ),
}
"""What tensor-mode programs for JAX only have (``BACKEND_FEATURES``)."""


def test_generator_writes_each_jax_mode_construct() -> None:
    strategy = programs(features=FEATURES, tensor=True, backend="jax")
    seen = _constructs_seen(JAX_CONSTRUCTS, strategy, 300)
    missing = set(JAX_CONSTRUCTS) - seen
    assert not missing, f"never written: {missing}"


def test_graph_programs_leave_out_what_the_graph_is_not_given() -> None:
    # No print (the graph prints while tracing).
    patterns = dict(JAX_CONSTRUCTS)
    del patterns["a range index as a key in a loop over a traced trip count"]
    seen = _constructs_seen(patterns, programs(features=FEATURES, tensor=True), 300)
    assert not seen, f"written for the graph: {seen}"


def test_jax_programs_leave_out_datasets_and_variables() -> None:
    # JAX has no datasets and no Variables (BACKEND_FEATURES).
    patterns = {"a dataset": r"runtime\.data\.", "a Variable": r"\b(VI|MODEL|METER)\."}
    strategy = programs(features=FEATURES, tensor=True, backend="jax")
    seen = _constructs_seen(patterns, strategy, 100)
    assert not seen, f"written for JAX: {seen}"


def _raises(error_type: type[BaseException]) -> Callable[[tuple], bool]:
    def check(case: tuple[str, int, int]) -> bool:
        source, a, b = case
        with loaded_program(source) as program:
            error = run_captured(program, (a, b, []), {}).error
        return isinstance(error, error_type)

    return check


@pytest.mark.parametrize(
    ("error_type", "features"),
    EXPECTED_ERRORS.items(),
    ids=[e.__name__ for e in EXPECTED_ERRORS],
)
def test_generator_writes_programs_that_raise(
    error_type: type, features: tuple[str, ...]
) -> None:
    find(
        st.tuples(programs(features=features), INPUTS, INPUTS),
        _raises(error_type),
        settings=_search_settings(),
    )


def test_check_compares_what_a_backend_that_prints_when_run_prints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A staged program that prints other text than Python (JAX prints when
    # the compiled function runs, so its output must be Python's).
    from tests.program_gen import check

    def backend() -> check.StagedBackend:
        def stage(program: Callable[..., object]) -> Callable[..., object]:
            def run(a: int, b: int) -> object:
                print("staged", a)
                return program(a, b)

            return run

        return check.StagedBackend(
            name="printer",
            stage=stage,
            inputs=lambda a, b: (a, b),
            run_time_errors=lambda: (),
            prints_when_run=True,
        )

    monkeypatch.setitem(check.BACKENDS, "printer", backend)
    source = "def program(a, b):\n    print('t0', a)\n    return a + b\n"
    verdict = check_program(source, [(1, 2)], tensor=True, backend="printer")
    assert (verdict.kind, verdict.kind_of_failure) == (
        "mismatch",
        "wrong printed output",
    )


def test_a_scalar_the_graph_made_is_no_legitimate_refusal() -> None:
    from tests.program_gen.check import _legitimate

    hint = "; iterate over a 1-D or higher tensor, or use rt.range(n)"
    assert _legitimate(TypeError(f"cannot iterate over a scalar tensor 'x:0'{hint}"))
    for made in ("cond:0", "cond_1:0", "while:0", "loop_var:0"):
        error = TypeError(f"cannot iterate over a scalar tensor '{made}'{hint}")
        assert not _legitimate(error), made


def _variable_program(body: str) -> str:
    from tests.program_gen import HELPERS

    return HELPERS + "\n\ndef program(a, b):\n" + body


def _forgetful_backend(monkeypatch: pytest.MonkeyPatch, lose_on_call: int) -> list:
    # Runs the program as it is, then on call `lose_on_call` undoes one
    # update of VI: a staged function that leaves a Variable wrong.
    from tests.program_gen import check

    calls: list[bool] = []

    def backend() -> check.StagedBackend:
        def stage(program: Callable[..., object]) -> Callable[..., object]:
            def run(a: int, b: int) -> object:
                calls.append(program.__globals__["MODEL"].w is None)
                result = program(a, b)
                if len(calls) == lose_on_call:
                    program.__globals__["VI"].assign_sub(1)
                return result

            return run

        return check.StagedBackend(
            name="forgetful",
            stage=stage,
            inputs=lambda a, b: (a, b),
            run_time_errors=lambda: (),
        )

    monkeypatch.setitem(check.BACKENDS, "forgetful", backend)
    return calls


@pytest.mark.parametrize("lose_on_call", [1, 2])
def test_check_compares_variables_after_each_staged_call(
    monkeypatch: pytest.MonkeyPatch, lose_on_call: int
) -> None:
    # The returned value is right; the Variable is wrong after the call (the
    # second call of the same trace too: a program with Variables is called
    # twice per input pair).
    calls = _forgetful_backend(monkeypatch, lose_on_call)
    source = _variable_program("    VI.assign(a)\n    VI.assign_add(b)\n    return a\n")
    verdict = check_program(source, [(1, 2)], tensor=True, backend="forgetful")
    assert verdict.kind == "mismatch"
    assert verdict.kind_of_failure == "wrong variable VI holds # (int#), not # (int#)"
    assert len(calls) == lose_on_call


def test_check_lets_the_staged_first_call_make_the_first_calls_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _forgetful_backend(monkeypatch, 0)
    body = (
        "    VI.assign(a)\n"
        "    if MODEL.w is None:\n"
        "        MODEL.w = runtime.Variable(b)\n"
        "    else:\n"
        "        MODEL.w.assign(b)\n"
        "    return MODEL.w\n"
    )
    verdict = check_program(
        _variable_program(body), [(1, 2), (3, 4)], tensor=True, backend="forgetful"
    )
    assert verdict.kind == "ok"
    assert calls == [True, False, False, False]  # made by the first staged call


def test_check_calls_the_trace_again_from_the_state_its_first_call_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A "trace" that read the counter once, while tracing, and returns that
    # value on every call: right on the first call only (the program does
    # not reset VI, so the second call starts from another value).
    from tests.program_gen import check

    def backend() -> check.StagedBackend:
        def stage(program: Callable[..., object]) -> Callable[..., object]:
            traced: list[object] = []

            def run(a: int, b: int) -> object:
                if not traced:
                    traced.append(program(a, b))
                return traced[0]

            return run

        return check.StagedBackend(
            name="baked",
            stage=stage,
            inputs=lambda a, b: (a, b),
            run_time_errors=lambda: (),
        )

    monkeypatch.setitem(check.BACKENDS, "baked", backend)
    source = _variable_program("    VI.assign_add(a)\n    return VI.read_value()\n")
    verdict = check_program(source, [(1, 2)], tensor=True, backend="baked")
    assert verdict.kind == "mismatch"
    assert verdict.kind_of_failure.startswith("wrong value Arrays are not equal")


def test_an_alias_refusal_is_legitimate_only_where_the_function_sees_it() -> None:
    from tests.program_gen.check import _legitimate

    shared = (
        "'sa' holds the same list as 'sb' before a graph loop, but the loop's "
        "body would work on a copy (a graph picks values, not objects), so a "
        "change through one would not show in the other{}; give it its own "
        "list (`list(...)`) or keep one name for the object"
    )
    seen = " (which the function can see: `sb[0] += 1` at prog.py:7)"
    assert _legitimate(ValueError(shared.format(seen)))
    # Read only, the copy gives Python's value: the fuzz demands it.
    assert not _legitimate(ValueError(shared.format("")))
