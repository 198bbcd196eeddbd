"""Definedness: which local names are bound, possibly or surely, at each point.

One forward walk over the structured statements (a loop's body takes a
second pass when the first changed the state at its start). A state is a
pair of sets: `may` (bound on some path) and `must` (bound on every path);
`None` stands for "unreachable" (after `return`, `break`, ...).

Two modes:
- plain: Python's own semantics; used to find reads that may raise
  `UnboundLocalError` (the variables converter wraps them in `ag__.ld`).
  Only `must` is observed: each statement gets `MUST_IN` (unless told
  not to, `states`), each read that may be unbound `DEFINITELY` False (the
  others, most reads, nothing).
  The statements' names (`activity.Cache`) are collected on the same walk.
- converted (`converted=True`): a converted `if` or loop binds every variable
  it outputs on every path (to an `Undefined` where Python would leave it
  unbound); used by the control-flow converter to decide where such
  `Undefined` initial values are needed. Only ifs and loops are annotated
  (`MAY_IN`, `MUST_IN`): those are what it converts. Most functions need
  none of it: `converted_states_needed` tells, in a walk of the statements
  alone.

    >>> import ast
    >>> from autograph.pyct import anno
    >>> fn = ast.parse("def f(c):\\n  if c:\\n    y = 1\\n  return y").body[0]
    >>> sorted(annotate(fn))  # names read while maybe unbound
    ['y']
    >>> anno.getanno(fn.body[1].value, Defined.DEFINITELY)
    False
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis.liveness import Live
from autograph.pyct.transformer import statement_fields


class Defined(enum.Enum):
    """Definedness annotations."""

    __hash__ = object.__hash__  # by identity (see anno.NoValue)

    DEFINITELY = (
        "On a Name being read while it may be unbound: False (the reads "
        "bound on every path are not annotated)."
    )
    MAY_IN = (
        "On an if/for/while, converted semantics only: names bound on some "
        "path before it: a frozenset."
    )
    MUST_IN = (
        "On a statement (plain semantics, unless `annotate` is told not to), "
        "or on an if/for/while (converted semantics): names bound on every "
        "path before it: a frozenset."
    )


_NONE: frozenset[str] = frozenset()


class _State(NamedTuple):
    may: frozenset[str]  # (holds `must`)
    must: frozenset[str]

    def bind(self, names: set[str] | frozenset[str]) -> _State:
        if names <= self.must:  # (most assignments rebind a name)
            return self
        return _State(self.may | names, self.must | names)

    def bind_walrus(self, expr: ast.AST | None) -> _State:
        """The state after evaluating `expr`, for its walrus targets."""
        if expr is None:
            return self
        always, sometimes = activity.walrus_binds(expr)
        return _State(self.may | always | sometimes, self.must | always)

    def unbind(self, names: set[str] | frozenset[str]) -> _State:
        if not names:
            return self
        return _State(self.may - names, self.must - names)

    def unbind_must(self, names: set[str] | frozenset[str]) -> _State:
        """Names that may be unbound (still bound on some path)."""
        return _State(self.may | names, self.must - names)


def _merge(*states: _State | None) -> _State | None:
    live = [s for s in states if s is not None]
    if len(live) < 2:
        return live[0] if live else None
    if len(live) == 2:  # (the common case: no generator expressions)
        a, b = live
        return a if a == b else _State(a.may | b.may, a.must & b.must)
    may = frozenset().union(*(s.may for s in live))
    must = live[0].must.intersection(*(s.must for s in live[1:]))
    return _State(may, must)


_HEADED = (ast.If, ast.For, ast.While)
"""The statements whose names `_Analyzer._writes` puts together itself."""

_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.With,
    ast.AsyncWith,
    ast.Match,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
)
"""Statements whose bindings `_Analyzer.dead` does not follow."""
if hasattr(ast, "TryStar"):
    _COMPOUND += (ast.TryStar,)


class _ReadMarker(transformer.Visitor):
    """Marks each Name read (outside nested scopes) as definitely bound or not."""

    def __init__(self, must: frozenset[str], unbound: set[str]) -> None:
        self.must = must
        self.unbound = unbound  # collects the names read while maybe unbound

    def visit_Name(self, node: ast.Name) -> None:
        # (`del x` reads x too)
        if isinstance(node.ctx, (ast.Load, ast.Del)) and node.id not in self.must:
            anno.setanno(node, Defined.DEFINITELY, False)
            self.unbound.add(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):  # `x += 1` reads x
            if node.target.id not in self.must:
                anno.setanno(node.target, Defined.DEFINITELY, False)
        else:
            self.visit(node.target)
        self.visit(node.value)

    def _skip(self, node: ast.AST) -> None:
        pass  # reads inside nested scopes happen later, when called

    visit_Lambda = visit_FunctionDef = visit_AsyncFunctionDef = _skip
    visit_ClassDef = visit_ListComp = visit_SetComp = _skip
    visit_DictComp = visit_GeneratorExp = _skip


class _MarkingCollector(activity.Collector):
    """`activity.collect` of a simple statement that also marks its reads
    as `_ReadMarker` does: one walk of the statement rather than two."""

    def __init__(self, must: frozenset[str], unbound: set[str]) -> None:
        super().__init__()
        self.must = must
        self.unbound = unbound
        self.marking = True  # off inside nested scopes (read later)

    def visit_Name(self, node: ast.Name) -> None:
        ctx = node.ctx
        if isinstance(ctx, ast.Load):
            self.read.add(node.id)
        else:
            self.written.add(node.id)
            if not isinstance(ctx, ast.Del):
                return
            self.deleted = self.deleted | {node.id}  # `del x` reads x too
        if self.marking and node.id not in self.must:
            anno.setanno(node, Defined.DEFINITELY, False)
            self.unbound.add(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        if not isinstance(target, ast.Name):
            super().visit_AugAssign(node)
            return
        # `x += 1` reads x too (marked as `_ReadMarker` marks it)
        self.read.add(target.id)
        self.written.add(target.id)
        if self.marking and target.id not in self.must:
            anno.setanno(target, Defined.DEFINITELY, False)
        self.visit(node.value)

    def _unmarked(self, node: ast.AST) -> None:
        marking, self.marking = self.marking, False
        try:
            if isinstance(node, activity.COMPREHENSIONS):
                self._visit_comprehension(node)
            else:
                self._visit_nested(node)
        finally:
            self.marking = marking

    visit_Lambda = visit_FunctionDef = visit_AsyncFunctionDef = _unmarked
    visit_ClassDef = visit_ListComp = visit_SetComp = _unmarked
    visit_DictComp = visit_GeneratorExp = _unmarked


class _Analyzer:
    def __init__(
        self, converted: bool, cache: activity.Cache, walrus: bool, states: bool
    ) -> None:
        self.converted = converted
        self.cache = cache
        self.walrus = walrus
        self.states = states and not converted  # (each statement's MUST_IN)
        # Per enclosing loop: states at its `break`s and its `continue`s.
        self.breaks: list[list[_State | None]] = []
        self.continues: list[list[_State | None]] = []
        # What the enclosing finally blocks delete (a jump runs them on its
        # way out), and how many there were outside each enclosing loop.
        self.final_deletes: list[set[str]] = []
        self.finals_outside_loop: list[int] = []
        self.unbound: set[str] = set()
        # How many enclosing loops are on their body's second pass.
        self.again = 0
        # `_writes` of the ifs and loops (converted semantics).
        self.written: dict[ast.stmt, set[str]] = {}

    def after(self, state: _State, expr: ast.AST | None) -> _State:
        """The state after evaluating `expr`: what its walruses bind (no
        walk of it where the function holds no walrus)."""
        return state.bind_walrus(expr) if self.walrus else state

    def mark(self, node: ast.AST | None, state: _State) -> None:
        # Converted semantics are for statements' states only: reads keep
        # the marks of Python's semantics.
        if node is not None and not self.converted:
            _ReadMarker(state.must, self.unbound).visit(node)

    def block(self, stmts: Sequence[ast.stmt], state: _State | None) -> _State | None:
        before = state
        for i, stmt in enumerate(stmts):
            if state is None:
                if before is not None:
                    self.dead(stmts[i:], before.must)
                break
            before = state
            if self.states:
                anno.setanno(stmt, Defined.MUST_IN, state.must)
            kind = type(stmt)
            method = _METHODS.get(kind) or _method(kind)
            state = method(self, stmt, state)
        return state

    def dead(self, stmts: Sequence[ast.stmt], must: frozenset[str]) -> None:
        """Code Python never runs (after `return`, `break`, ...) binds nothing
        and its statements are left unannotated, but converted code may
        still trace it (a graph branch guarded by a jump flag). Its reads are
        marked as if the statement that left had fallen through (`must`: the
        names bound on every path before it): a name it did not surely bind
        may hold the placeholder of a graph loop there, which only `ag__.ld`
        reads."""
        if self.converted:
            return
        state = _State(must, must)
        for stmt in stmts:
            if isinstance(stmt, _COMPOUND):
                _ReadMarker(state.must, self.unbound).visit(stmt)
            else:  # (what it binds is bound for the next statements)
                state = self.simple(stmt, state)

    def names(self, node: ast.stmt, state: _State) -> activity.Collector:
        """`cache.of(node)` for a simple statement, its reads marked
        (Python's semantics): seen first, both in one walk."""
        if self.converted:
            return self.cache.of(node)
        # (seen already only on a loop body's second pass)
        names = self.cache.known(node) if self.again else None
        if names is None:
            names = _MarkingCollector(state.must, self.unbound)
            names.visit(node)
            self.cache.put(node, names)
        else:
            _ReadMarker(state.must, self.unbound).visit(node)
        return names

    def header(
        self, node: ast.stmt, state: _State, target: ast.expr | None, expr: ast.expr
    ) -> activity.Collector | None:
        """Marks the reads of `expr`, the test or iterable of `node`, an if
        or loop. Seen first in Python's semantics, `node`'s names are
        collected on the way (a loop's `target` too): `cached` completes
        them with its blocks' (`cache.of(node)` without a second walk)."""
        if self.converted:
            return None
        if self.again and self.cache.known(node) is not None:
            self.mark(expr, state)
            return None
        found = _MarkingCollector(state.must, self.unbound)
        if target is not None:
            found.marking = False  # (its reads were never marked)
            found.visit(target)
            found.marking = True
        found.visit(expr)
        return found

    def cached(self, node: ast.stmt, found: activity.Collector) -> None:
        """Puts `header`'s names of `node` in the cache, with its blocks'."""
        of = self.cache.of
        for field in statement_fields(type(node)):
            for child in getattr(node, field):
                found.merge(of(child))
        self.cache.put(node, found)

    def simple(self, node: ast.stmt, state: _State) -> _State:
        names = self.names(node, state)
        if names.through or names.deleted or names.walrus:
            return self.bind(node, names, state)
        return state.bind(names.written)  # (most statements)

    def compound(self, node: ast.stmt, state: _State) -> _State:
        """A compound statement whose blocks this analysis does not follow
        (a `match`, a class, an `async for`): what it binds is bound after it."""
        self.mark(node, state)
        return self.bind(node, self.cache.of(node), state)

    def bind(self, node: ast.stmt, names: activity.Collector, state: _State) -> _State:
        """The state after `node`, which binds and deletes `names`."""
        bound = names.written
        if names.through or names.deleted:
            bound = (bound | names.through) - names.deleted
        if names.walrus:  # some may be bound only sometimes
            always, sometimes = activity.walrus_binds(node)
            maybe = sometimes - always - (names.written - names.walrus)
            if maybe:
                state = _State(state.may | maybe, state.must)
                bound = bound - maybe
        return state.bind(bound).unbind(names.deleted)

    def visit_AugAssign(self, node: ast.AugAssign, state: _State) -> _State:
        target = node.target
        if not self.converted:
            self.names(node, state)
            if isinstance(target, ast.Name) and target.id not in state.must:
                self.unbound.add(target.id)
        # The target, and what a walrus in the value binds on every path
        # (one inside a comprehension may bind only if it iterates).
        return self.after(state.bind(_target_names(target)), node.value)

    def _converted_in(self, node: ast.stmt, state: _State) -> None:
        """Notes the state before an if or loop (what control flow reads)."""
        if self.converted:
            anno.setanno(node, Defined.MAY_IN, state.may)
            anno.setanno(node, Defined.MUST_IN, state.must)

    def _converted_outputs(self, node: ast.stmt, state: _State | None) -> _State | None:
        if state is None or not self.converted:
            return state
        outputs = self._writes(node) & anno.getanno(node, Live.OUT, frozenset())
        return state.bind(outputs)

    def _writes(self, node: ast.stmt) -> set[str]:
        """`activity.writes(node)`. An if's or loop's test or iterable binds
        nothing where the function holds no walrus: its names are its
        blocks' (and a for loop's target), with no walk of its own."""
        found = self.cache.known(node)
        if found is None and not self.walrus and type(node) in _HEADED:
            written = self.written.get(node)
            if written is None:
                if type(node) is ast.For:
                    written = _target_names(node.target)
                else:
                    written = set()
                for field in statement_fields(type(node)):
                    for child in getattr(node, field):
                        written |= self._writes(child)
                self.written[node] = written
            return written
        if found is None:
            found = self.cache.of(node)
        return found.written | found.through

    def _converted_params(
        self, node: ast.stmt, one: Live, other: Live
    ) -> frozenset[str]:
        """In converted code, the state a body receives as parameters is
        bound: what `node` writes that is live at `one` or `other`."""
        if not self.converted:
            return _NONE
        live = anno.getanno(node, one, _NONE) | anno.getanno(node, other, _NONE)
        return frozenset(self._writes(node) & live)

    def visit_If(self, node: ast.If, state: _State) -> _State | None:
        self._converted_in(node, state)
        found = self.header(node, state, None, node.test)
        state = self.after(state, node.test)
        params = self._converted_params(node, Live.BODY_IN, Live.ORELSE_IN)
        inner = state.bind(params & state.may)
        body = self.block(node.body, inner)
        orelse = self.block(node.orelse, inner)
        if found is not None:
            self.cached(node, found)
        return self._converted_outputs(node, _merge(body, orelse))

    def _loop(
        self,
        node: ast.stmt,
        state: _State,
        item_names: set[str],
        test: ast.expr | None = None,
        found: activity.Collector | None = None,
    ) -> _State | None:
        header: _State | None = state
        params = self._converted_params(node, Live.LOOP_HEADER, Live.OUT)
        # A while test runs before every iteration (and once more at the end).
        tested = self.after(header, test)
        start = tested.bind(item_names | params)
        for again in range(2):  # a second pass sees what the first iteration bound
            self.breaks.append([])
            self.continues.append([])
            self.finals_outside_loop.append(len(self.final_deletes))
            self.again += again
            body = self.block(node.body, start)
            self.again -= again
            self.finals_outside_loop.pop()
            breaks = self.breaks.pop()
            # Never None: the loop may run no iteration at all.
            header = _merge(state, body, *self.continues.pop())
            tested = self.after(header, test)
            entry, start = start, tested.bind(item_names | params)
            # A second pass that would start where the first did changes
            # nothing; in Python's semantics only `must` counts (`may` is
            # noted in converted semantics only).
            if start == entry if self.converted else start.must == entry.must:
                break
        if test is not None:
            # A while test runs before every iteration, not just the first.
            found = self.header(node, header, None, test)
        orelse = self.block(node.orelse, tested)
        if found is not None:
            self.cached(node, found)
        after = _merge(orelse, *breaks)
        if after is not None and not self.converted:
            # Whether a graph loop bound a name it may be the first to bind
            # is known only when the graph runs: until then the name holds a
            # placeholder that reads check (`ag__.ld`), even where Python
            # knows that every path out of the loop bound it (a `break`
            # after the assignment, an `else` that assigns it too).
            born = (self.cache.writes(node.body) | item_names) - state.must
            after = _State(after.may, after.must - born)
        return self._converted_outputs(node, after)

    def visit_While(self, node: ast.While, state: _State) -> _State | None:
        self._converted_in(node, state)
        return self._loop(node, state, set(), test=node.test)

    def visit_For(self, node: ast.For, state: _State) -> _State | None:
        self._converted_in(node, state)
        found = self.header(node, state, node.target, node.iter)
        state = self.after(state, node.iter)
        return self._loop(node, state, _target_names(node.target), found=found)

    def _through_finals(self, state: _State) -> _State:
        """The state a `break`/`continue` leaves with: the finally blocks
        it passes through on the way may delete names."""
        deleted = set().union(*self.final_deletes[self.finals_outside_loop[-1] :])
        return state.unbind_must(deleted) if deleted else state

    def visit_Break(self, node: ast.Break, state: _State) -> None:
        if self.breaks:
            self.breaks[-1].append(self._through_finals(state))

    def visit_Continue(self, node: ast.Continue, state: _State) -> None:
        if self.continues:
            self.continues[-1].append(self._through_finals(state))

    def visit_Return(self, node: ast.Return | ast.Raise, state: _State) -> None:
        if not self.converted:
            self.names(node, state)  # (marks its reads)

    visit_Raise = visit_Return

    def visit_With(self, node: ast.With, state: _State) -> _State | None:
        for item in node.items:
            self.mark(item.context_expr, state)
            if item.optional_vars is not None:
                state = state.bind(activity.writes(item.optional_vars))
        after = self.block(node.body, state)
        # The context manager may suppress an exception from anywhere in the
        # body, so what it deletes may be unbound after it, and a body that
        # never ends normally may still be left.
        deleted: set[str] = set()
        for stmt in node.body:
            deleted |= self.cache.of(stmt).deleted
        if after is None:
            return _State(
                state.may | self.cache.writes(node.body), state.must - deleted
            )
        return after.unbind_must(deleted) if deleted else after

    visit_AsyncWith = visit_With

    def visit_Try(self, node: ast.Try, state: _State) -> _State | None:
        final_deletes: set[str] = set()
        for stmt in node.finalbody:
            final_deletes |= self.cache.of(stmt).deleted
        self.final_deletes.append(final_deletes)
        try:
            return self._try(node, state)
        finally:
            self.final_deletes.pop()

    def _try(self, node: ast.Try, state: _State) -> _State | None:
        body = self.block(node.body, state)
        # A handler may start anywhere in the body: what the body binds is
        # possible there, what it deletes is not certain any more.
        may = state.may | self.cache.writes(node.body)
        deleted: set[str] = set()
        for stmt in node.body:
            deleted |= self.cache.of(stmt).deleted
        entry = _State(may, state.must - deleted)
        ends = []
        for handler in node.handlers:
            if handler.name is None:
                ends.append(self.block(handler.body, entry))
                continue
            # `except E as e:` deletes e however the handler ends (as a
            # `finally` block would: a `break` out of it too).
            unbound = {handler.name}
            self.final_deletes.append(unbound)
            end = self.block(handler.body, entry.bind(unbound))
            self.final_deletes.pop()
            ends.append(None if end is None else end.unbind(unbound))
        if body is None:
            # No path of the body ends normally: Python never runs the else
            # block, but converted code may trace it (behind a `return`'s
            # flag), its reads marked as `dead` code's are.
            self.dead(node.orelse, entry.must)
            orelse = None
        else:
            orelse = self.block(node.orelse, body)
        after = _merge(orelse, *ends)
        if not node.finalbody:
            return after
        # The finally block may also start anywhere in the other blocks.
        others = [*node.handlers, *node.orelse]
        for stmt in others:
            deleted |= self.cache.of(stmt).deleted
        may |= self.cache.writes(others)
        final = self.block(
            node.finalbody, _merge(after, _State(may, state.must - deleted))
        )
        if after is None or final is None:
            return None
        # Past the finally block on the normal path: what it binds on every
        # path is bound, what it may delete may be unbound.
        unbound: set[str] = set()
        for stmt in node.finalbody:
            unbound |= self.cache.of(stmt).deleted
        return _State(after.may | final.may, (after.must - unbound) | final.must)

    visit_TryStar = visit_Try

    def visit_FunctionDef(self, node: ast.FunctionDef, state: _State) -> _State:
        self.mark(node.args, state)
        for decorator in node.decorator_list:
            self.mark(decorator, state)
        annotate(
            node,
            converted=self.converted,
            cache=self.cache,
            walrus=self.walrus,
            states=self.states,
        )
        return state.bind({node.name})

    visit_AsyncFunctionDef = visit_FunctionDef


def _params(args: ast.arguments) -> set[str]:
    """`activity.writes(args)` where no walrus is (in a default or an
    annotation), without a walk."""
    names = {arg.arg for arg in args.args}
    if args.posonlyargs:
        names.update([arg.arg for arg in args.posonlyargs])
    if args.kwonlyargs:
        names.update([arg.arg for arg in args.kwonlyargs])
    if args.vararg is not None:
        names.add(args.vararg.arg)
    if args.kwarg is not None:
        names.add(args.kwarg.arg)
    return names


def _target_names(target: ast.expr) -> set[str]:
    """`activity.writes(target)`, without a walk for a plain name."""
    if type(target) is ast.Name:
        return {target.id}
    return activity.writes(target)


# Statement class -> the `_Analyzer` method that visits it (looked up once).
_METHODS: dict[type, Callable[..., _State | None]] = {}


def _method(kind: type) -> Callable[..., _State | None]:
    method = getattr(_Analyzer, "visit_" + kind.__name__, None)
    if method is None:
        method = _Analyzer.compound if statement_fields(kind) else _Analyzer.simple
    _METHODS[kind] = method
    return method


def annotate(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    *,
    converted: bool = False,
    cache: activity.Cache | None = None,
    walrus: bool = True,
    states: bool = True,
) -> set[str]:
    """Annotates `fn`'s statements and reads (and nested functions') with `Defined`.

    Args:
        fn: The function.
        converted: Use converted-code semantics (see the module docstring)
            for the statements' states; reads are not marked. Needs
            `liveness.annotate(fn)` first.
        cache: Statements' names, when the caller shares them with other
            analyses of the same tree.
        walrus: Whether `fn` may hold a walrus (`:=`); False spares looking
            for one in each test and iterable (`survey`'s kinds tell).
        states: Whether to note each statement's `MUST_IN` in Python's
            semantics (the variables pass reads them only where a nested
            scope reads the function's names); the reads are marked anyway.

    Returns:
        The names `fn` itself (not a nested scope) may read while unbound,
        globals and builtins included (Python semantics only).
    """
    params = _params(fn.args) if not walrus else activity.writes(fn.args)
    analyzer = _Analyzer(converted, cache or activity.Cache(), walrus, states)
    analyzer.block(fn.body, _State(frozenset(params), frozenset(params)))
    return analyzer.unbound


# After these, the rest of a block is unreachable.
_JUMPS: tuple[type, ...] = (ast.Return, ast.Raise, ast.Break, ast.Continue)


class _SequenceRule:
    """`converted_states_needed`'s walk of the statements (no expressions)."""

    def __init__(self, cache: activity.Cache, outputs: bool) -> None:
        self.cache = cache
        self.outputs = outputs
        # Whether the statement (or block) just walked may leave on every
        # path (a jump): what follows it may be unreachable, and `annotate`
        # leaves unreachable statements without states.
        self.ends = False

    def block(self, stmts: Sequence[ast.stmt], bound: set[str]) -> set[str] | None:
        """The names `stmts` bind, if every if and loop among them (nested
        ones too) finds the names control flow asks it about in `bound` (left
        unchanged) or bound by the statements before it in sequence; None
        where one does not, or where the rule cannot tell."""
        written: set[str] = set()
        own = False  # (whether `bound` is a copy of the caller's yet)
        ends = False
        for stmt in stmts:
            kind = type(stmt)
            follow = _FOLLOWED[kind] if kind in _FOLLOWED else _follow(kind)
            if follow is None:  # a simple statement
                names = self.cache.of(stmt)
                if names.deleted:
                    return None
                changed = names.written
                if not changed <= bound:
                    if not own:
                        bound, own = set(bound), True
                    bound |= changed
            else:
                if ends:
                    return None
                changed = follow(self, stmt, bound)
                if changed is None:
                    return None
                ends = self.ends
            written |= changed
        self.ends = ends
        return written

    def jump(self, node: ast.stmt, bound: set[str]) -> frozenset[str]:
        """A `return`, `raise`, `break` or `continue` binds nothing (there
        is no walrus), and what follows it is unreachable."""
        self.ends = True
        return _NONE

    def other(self, node: ast.stmt, bound: set[str]) -> None:
        """A compound statement the rule does not follow (a class, a
        `match`, an `async for`)."""
        return None

    def converted(self, node: ast.stmt, bound: set[str]) -> set[str] | None:
        """What the if or loop `node` binds, if the names control flow asks
        it about (and its nested ifs and loops) are in `bound`."""
        kind = type(node)
        if kind is ast.If:
            body = self.block(node.body, bound)
            if body is None:
                return None
            ends = self.ends
            orelse = self.block(node.orelse, bound)
            if orelse is None:
                return None
            self.ends = ends and self.ends
            changed = body | orelse
            asked = _IF_ASKED if self.outputs else _IF_ASKED[:2]
        else:
            first = node.body[0] if node.body else None
            if type(first) is ast.Expr and type(first.value) is ast.Call:
                return None  # (a loop option's reads are asked about too)
            target = _target_names(node.target) if kind is ast.For else set()
            body = self.block(node.body, bound | target if target else bound)
            # (the loop ends where its else block does: it may run no
            # iteration at all)
            orelse = None if body is None else self.block(node.orelse, bound)
            if orelse is None:
                return None
            changed = body | orelse | target
            asked = _LOOP_ASKED
        loose = changed - bound  # (most often none)
        if loose:
            for key in asked:  # (those live around it are asked about)
                if not loose.isdisjoint(anno.getanno(node, key, _NONE)):
                    return None
        return changed

    def try_(self, node: ast.Try, bound: set[str]) -> set[str] | None:
        """A `try` (whose handlers name no exception: one would unbind its
        name) binds what its blocks bind; a block after the body may start
        anywhere in it, so each starts from `bound`."""
        written: set[str] = set()
        handlers_end = True
        for handler in node.handlers:
            if handler.name is not None:
                return None
            found = self.block(handler.body, bound)
            if found is None:
                return None
            handlers_end = handlers_end and self.ends
            written |= found
        body = self.block(node.body, bound)
        if body is None:
            return None
        body_ends = self.ends
        if body_ends and node.orelse:
            return None  # (it may be unreachable: left without states)
        orelse = self.block(node.orelse, bound)
        if orelse is None:
            return None
        orelse_end = body_ends or self.ends
        final = self.block(node.finalbody, bound)
        if final is None:
            return None
        self.ends = self.ends or (handlers_end and orelse_end)
        return written | body | orelse | final

    def with_(self, node: ast.With, bound: set[str]) -> set[str] | None:
        """A `with` binds its targets before its body; it may suppress an
        exception, so even a body that always jumps may be left."""
        targets: set[str] = set()
        for item in node.items:
            if item.optional_vars is not None:
                targets |= activity.writes(item.optional_vars)
        body = self.block(node.body, bound | targets if targets else bound)
        self.ends = False
        return None if body is None else body | targets

    def function(self, node: ast.FunctionDef, bound: set[str]) -> set[str] | None:
        """A nested function: its own statements, from its parameters."""
        names = self.cache.of(node)
        if names.deleted or self.block(node.body, _params(node.args)) is None:
            return None
        self.ends = False
        return names.written


# Where control flow asks about the names an if or loop changes: where they
# are live (an if's OUT only where return lowering made flags).
_IF_ASKED = (Live.BODY_IN, Live.ORELSE_IN, Live.OUT)
_LOOP_ASKED = (Live.LOOP_HEADER, Live.OUT)

# Statement class -> the `_SequenceRule` method that follows it, or None for
# a simple statement (looked up once).
_FOLLOWED: dict[type, Callable[..., AbstractSet[str] | None] | None] = {
    ast.If: _SequenceRule.converted,
    ast.For: _SequenceRule.converted,
    ast.While: _SequenceRule.converted,
    ast.Try: _SequenceRule.try_,
    ast.With: _SequenceRule.with_,
    ast.AsyncWith: _SequenceRule.with_,
    ast.FunctionDef: _SequenceRule.function,
    ast.AsyncFunctionDef: _SequenceRule.function,
}
if hasattr(ast, "TryStar"):
    _FOLLOWED[ast.TryStar] = _SequenceRule.try_
for _jump in _JUMPS:
    _FOLLOWED[_jump] = _SequenceRule.jump


def _follow(kind: type) -> Callable[..., AbstractSet[str] | None] | None:
    follow = _SequenceRule.other if statement_fields(kind) else None
    _FOLLOWED[kind] = follow
    return follow


def converted_states_needed(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    cache: activity.Cache,
    *,
    walrus: bool,
    outputs: bool,
) -> bool:
    """Whether control flow needs `annotate(fn, converted=True)`.

    At each if and loop, control flow asks whether the names it may change
    that are live around it (its `Live` sets: at the start of its blocks, a
    loop's at its header and after it) are bound on every path before it
    (`MUST_IN`): those need no `Undefined` to start with. Mostly they are,
    in plain sequence: parameters, or names that a simple statement before
    it, in its block or an enclosing one, binds (a for loop's target in its
    body). Where nothing unbinds a name (no `del`, no `except ... as`, no
    walrus) and the if or loop is reachable (it follows no jump), such a
    name is bound on every path in converted semantics too. This checks
    that in a walk of the statements alone (a class or a `match` in `fn`:
    it does not tell), finding their names in `cache`, which liveness
    filled. False: every name control flow asks about is bound before its
    statement, and it needs no states.

    Args:
        fn: The function, annotated by `liveness.annotate(fn, cache)`.
        cache: Its statements' names.
        walrus: Whether `fn` may hold a walrus (`survey`'s kinds tell).
        outputs: Whether control flow also asks an if about the names it
            may change that are live after it (where return lowering made
            flags).
    """
    if walrus:
        return True
    rule = _SequenceRule(cache, outputs)
    return rule.block(fn.body, _params(fn.args)) is None
