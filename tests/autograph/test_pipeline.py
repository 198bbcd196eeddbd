"""The pipeline skips a pass only when that pass would change nothing.

`transpiler.convert_node` runs a pass only if `step.triggered(ctx.kinds)`,
where `ctx.kinds` starts as what the survey finds in the tree (node classes
and markers) and grows by what each pass run may emit (`Pass.emits`). Two
properties keep that exact, checked here on every sample function and on
generated programs:

* the tracked kinds always include what the survey would find in the tree
  at that point (loop tests attached as annotations included), so passes
  record all they add;
* a pass judged not needed leaves the tree exactly as it is (and cleanup,
  told no code was dropped, has no lost local to re-bind).
"""

from __future__ import annotations

import ast
import copy
import inspect
import pkgutil
import textwrap
import types

import pytest
from hypothesis import given

from autograph import converters
from autograph.converters import call_trees, cleanup, variables
from autograph.core.converter import user_locals
from autograph.core.survey import Marker, survey
from autograph.impl import code_registry, transpiler
from autograph.pyct import anno, parser, transformer
from autograph.pyct.static_analysis import activity, definedness, liveness
from tests.autograph.converters.util import context
from tests.program_gen import FEATURES, fuzz_settings, programs
from tests.samples import ALL_SAMPLES


def _kinds(node: ast.AST) -> set[type]:
    """What the survey finds in the tree, loop tests attached to loops too."""
    _, kinds = survey(node)
    for child in transformer.walk(node):
        test = anno.getanno(child, anno.Basic.EXTRA_LOOP_TEST, None)
        if test is not None:
            kinds |= _kinds(test)
    return kinds


def _check_pipeline(node: ast.FunctionDef) -> list[str]:
    """Runs the pipeline pass by pass, checking both properties; returns the
    names of the passes that ran."""
    ctx = context(node)
    ran = []
    for step in transpiler.PIPELINE:
        missing = _kinds(node) - ctx.kinds
        assert not missing, f"before {step.name}: untracked {_named(missing)}"
        if step.triggered(ctx.kinds):
            node = step.run(node, ctx)
            ran.append(step.name)
        else:
            before = ast.dump(node)
            trial = step.module.transform(copy.deepcopy(node), copy.deepcopy(ctx))
            assert ast.dump(trial) == before, (
                f"{step.name} was skipped but changes the tree"
            )
    missing = _kinds(node) - ctx.kinds
    assert not missing, f"after the pipeline: untracked {_named(missing)}"
    if Marker.UNBOUND_READ not in ctx.kinds:
        # cleanup then skips its search for `ag__.ld(x)` reads that moved
        # into generated functions: there must be no such read anywhere.
        reads = [
            n
            for n in ast.walk(node)
            if isinstance(n, ast.Call) and ast.unparse(n.func) == "ag__.ld"
        ]
        assert all(len(n.args) > 1 for n in reads), "an untracked ag__.ld(x)"
    if not _CLEANUP.triggered(ctx.kinds):
        # cleanup then skips re-binding locals whose bindings left the
        # function (dropped or moved into generated functions): there must
        # be none to re-bind.
        for fn in transformer.walk(node):
            original = anno.getanno(fn, anno.Basic.ORIGINAL_LOCALS, None)
            if original is not None:
                trial = copy.deepcopy(fn)
                cells = anno.getanno(fn, anno.Basic.CELLS, frozenset())
                cleanup.CleanupTransformer(ctx)._keep_locals(trial, original, cells)
                assert ast.dump(trial) == ast.dump(fn), "a lost local went unnoticed"
    return ran


_CLEANUP = next(step for step in transpiler.PIPELINE if step.module is cleanup)


def _named(kinds: set) -> list[str]:
    return sorted(getattr(k, "__name__", None) or k.name for k in kinds)


def _program(source: str) -> ast.FunctionDef:
    """The generated function of a program from `programs()`."""
    module = ast.parse(textwrap.dedent(source))
    (program,) = [
        n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "program"
    ]
    return program


def _function_node(fn) -> ast.FunctionDef:
    fn = inspect.unwrap(fn)
    while hasattr(fn, "func"):  # functools.partial
        fn = fn.func
    return parser.parse_entity(getattr(fn, "__func__", fn)).node


def test_skipped_passes_change_nothing_on_the_sample_corpus():
    runs: dict[str, int] = {}
    for sample in ALL_SAMPLES:
        node = _function_node(sample.fn)
        if not isinstance(node, ast.FunctionDef):
            continue  # a lambda
        for name in _check_pipeline(node):
            runs[name] = runs.get(name, 0) + 1
    # Each pass is run somewhere in the corpus, and each that has triggers
    # is skipped somewhere too.
    assert set(runs) == {step.name for step in transpiler.PIPELINE}
    assert all(
        runs[step.name] < len(ALL_SAMPLES)
        for step in transpiler.PIPELINE
        if step.triggers is not None
    )


@fuzz_settings()
@given(source=programs())
def test_skipped_passes_change_nothing_on_generated_programs(source):
    _check_pipeline(_program(source))


def test_a_function_without_control_flow_runs_only_the_passes_it_needs():
    node = parser.parse_source("def f(x):\n    y = g(x) + 1\n    return y\n").body[0]
    assert _check_pipeline(node) == ["variables", "call_trees"]


@pytest.mark.parametrize(
    "source, lowered",
    [
        ("def f(x):\n    return x\n", False),
        ("def f(x):\n    def g():\n        return 1\n    return g\n", False),
        ("def f(x):\n    for i in x:\n        pass\n    return x\n", False),
        ("def f(x):\n    if x:\n        return 1\n    return 2\n", True),
        ("def f(x):\n    if x:\n        return 1\n    else:\n        return 2\n", True),
        ("def f(x):\n    for i in x:\n        return i\n", True),
        ("def f(x):\n    return x\n    x = 1\n", True),  # dead code after it
        ("def f(x):\n    def g():\n        if x:\n            return 1\n", True),
    ],
)
def test_return_lowering_runs_only_where_a_return_is_not_its_functions_last(
    source, lowered
):
    # (test_pipeline's other tests check that skipping it changes nothing)
    node = parser.parse_source(source).body[0]
    _, kinds = survey(node)
    assert (Marker.RETURN_NOT_LAST in kinds) is lowered
    assert ("return_statements" in _check_pipeline(node)) is lowered


@pytest.mark.parametrize(
    "source, helpers",
    [
        # Bound by a parameter (an ast.arg, not a Name).
        (
            """
            def f(if_body, else_body, x):
                if x:
                    y = 1
                else:
                    y = 2
                return y
            """,
            ["if_body", "else_body"],
        ),
        # Bound by `global` and `except ... as` (strings, not Names).
        (
            """
            def f(x):
                global loop_body
                try:
                    pass
                except ValueError as if_body:
                    pass
                for i in x:
                    pass
                if x:
                    y = 1
                else:
                    y = 2
                return y
            """,
            ["if_body", "loop_body"],
        ),
    ],
)
def test_generated_names_avoid_the_users_names(source, helpers):
    node = parser.parse_source(textwrap.dedent(source)).body[0]
    text = parser.unparse(transpiler.convert_node(node, filename="<test>"))
    for helper in helpers:
        assert f"def {helper}(" not in text


def _check_variables_shortcut(node: ast.FunctionDef) -> None:
    """The variables pass skips its walk when it finds nothing to rewrite,
    and the statements whose reads are all surely bound: the result must be
    what the whole walk gives."""
    fast = variables.transform(copy.deepcopy(node), context(node))
    full = copy.deepcopy(node)
    definedness.annotate(full)
    walk = variables.VariablesTransformer(context(node))
    walk.skipping = False
    full = walk.visit(full)
    assert ast.dump(fast) == ast.dump(full)
    for key in (anno.Basic.ORIGINAL_LOCALS, anno.Basic.NESTED_WRITES):
        assert anno.getanno(fast, key) == anno.getanno(full, key)
    # Each function's cells, found without the walk where no trigger is in
    # the tree, are what the walk finds.
    functions = [n for n in ast.walk(node) if isinstance(n, ast.FunctionDef)]
    converted = [n for n in ast.walk(fast) if isinstance(n, ast.FunctionDef)]
    for original, fn in zip(functions, converted, strict=True):
        assert anno.getanno(fn, anno.Basic.CELLS) == activity.cells(original)


@pytest.mark.parametrize(
    "source",
    [
        # Dead code after a compound statement the walk skipped reads with
        # the state of that statement's last reachable one, as if visited.
        """
        def f(c, d):
            for i in range(3):
                if c:
                    y = 1
                    return 0
                else:
                    if d:
                        z = 1
                    y = 2
                    break
                g = lambda: y + z
            return g
        """,
        # Free reads of a nested function, and a deleted name read later.
        """
        def f(c):
            if c:
                x = 1
            w = 0
            def g():
                return x + w
            k = [w for _ in range(2)]
            h = lambda: w
            del w
            return g, h, k
        """,
    ],
)
def test_the_variables_shortcut_changes_nothing_on_examples(source):
    _check_variables_shortcut(parser.parse_source(textwrap.dedent(source)).body[0])


def test_the_variables_shortcut_changes_nothing_on_the_sample_corpus():
    for sample in ALL_SAMPLES:
        node = _function_node(sample.fn)
        if isinstance(node, ast.FunctionDef):
            _check_variables_shortcut(node)


@fuzz_settings()
@given(source=programs())
def test_the_variables_shortcut_changes_nothing_on_generated_programs(source):
    _check_variables_shortcut(_program(source))


def test_an_emptied_if_kept_for_its_test_is_tracked():
    # The continue's `if` empties; its test may have effects, so lowering
    # keeps it as an expression statement (found by the fuzz profile).
    source = """
        def program(a, log):
            while a:
                a -= 1
                if len(log) < a:
                    continue
            return a
    """
    ran = _check_pipeline(parser.parse_source(textwrap.dedent(source)).body[0])
    assert "continue_statements" in ran


def test_every_converter_is_declared_once_in_the_pipeline():
    modules = sorted(info.name for info in pkgutil.iter_modules(converters.__path__))
    assert sorted(step.name for step in transpiler.PIPELINE) == modules


def _defined(fn: ast.FunctionDef, **kwargs) -> tuple[set[str], list]:
    """Definedness of a copy of `fn`: the unbound reads and every mark."""
    fn = copy.deepcopy(fn)
    cache = activity.Cache()
    if kwargs.get("converted"):
        liveness.annotate(fn, cache)
    unbound = definedness.annotate(fn, cache=cache, **kwargs)
    marks = [
        sorted(
            (key.name, anno.getanno(n, key))
            for key in anno.keys(n)
            if isinstance(key, definedness.Defined)
        )
        for n in transformer.walk(fn)
    ]
    return unbound, marks


def _check_gates(node: ast.FunctionDef, code: types.CodeType) -> None:
    """Work the analyses skip where its trigger is missing (issue 24) would
    have found nothing; walks they share give what separate walks give."""
    _, kinds = survey(node)
    if ast.NamedExpr not in kinds:
        for converted in (False, True):
            assert _defined(node, converted=converted, walrus=False) == _defined(
                node, converted=converted
            )
        # Without a walrus, statements that only evaluate expressions bind
        # nothing: the locals are found without walking them.
        for fn in transformer.walk(node):
            if isinstance(fn, activity.FUNCTIONS):
                found = activity.Cache().local_names(fn, walrus=False)
                assert found == activity.local_names(fn)
    # One walk marks a simple statement's reads and finds its names.
    for stmt in transformer.walk(node):
        if not isinstance(stmt, ast.stmt) or transformer.statement_fields(type(stmt)):
            continue
        read = sorted(activity.reads(stmt))
        must = frozenset(read[::2])
        marked, both = copy.deepcopy(stmt), copy.deepcopy(stmt)
        unbound_marked: set[str] = set()
        unbound_both: set[str] = set()
        definedness._ReadMarker(must, unbound_marked).visit(marked)
        names = activity.collect(marked)
        walk = definedness._MarkingCollector(must, unbound_both)
        walk.visit(both)
        assert unbound_both == unbound_marked
        for field in ("read", "written", "deleted", "walrus", "declared"):
            assert getattr(walk, field) == getattr(names, field), field
        for a, b in zip(transformer.walk(marked), transformer.walk(both), strict=True):
            assert anno.getanno(a, definedness.Defined.DEFINITELY, None) == (
                anno.getanno(b, definedness.Defined.DEFINITELY, None)
            )
    # The user's names for the code registry, without the walk.
    assert code_registry.user_names(node, code) == code_registry.user_names(node)
    # call_trees and lists take the locals the variables pass found: the
    # lowering before them adds only generated names (its flags).
    ctx = context(node)
    node = copy.deepcopy(node)
    for step in transpiler.PIPELINE:
        if step.module is call_trees:
            break
        if step.triggered(ctx.kinds):
            node = step.run(node, ctx)
    for fn in transformer.walk(node):
        if anno.hasanno(fn, anno.Basic.ORIGINAL_LOCALS):
            added = activity.local_names(fn) - user_locals(fn)
            assert added <= set(ctx.namer.generated), sorted(added)


def _code_of(source: str, name: str) -> types.CodeType:
    (code,) = [
        c
        for c in compile(textwrap.dedent(source), "<test>", "exec").co_consts
        if isinstance(c, types.CodeType) and c.co_name == name
    ]
    return code


def test_skipped_analyses_change_nothing_on_the_sample_corpus():
    for sample in ALL_SAMPLES:
        fn = inspect.unwrap(sample.fn)
        while hasattr(fn, "func"):  # functools.partial
            fn = fn.func
        fn = getattr(fn, "__func__", fn)
        node = _function_node(sample.fn)
        if isinstance(node, ast.FunctionDef):
            _check_gates(node, fn.__code__)


@fuzz_settings(examples=100)
@given(source=programs(features=FEATURES))
def test_skipped_analyses_change_nothing_on_generated_programs(source):
    _check_gates(_program(source), _code_of(source, "program"))
