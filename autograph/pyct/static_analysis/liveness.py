"""Liveness: which names may still be read after each statement.

Python's control flow is structured, so liveness is one backward walk over
the statement lists; a loop's body takes one pass to find what is live at
the loop's header, and a second one only when that grew and the body holds
statements annotated with what is live there (see `_Analyzer._loop`).
Cost is linear in the function's size for sequential code. Nested function
definitions are analysed on their own, when the walk reaches them.

Annotations written (keys in `Live`), on the statements conversion turns
into operator calls (`if`, `for`, `while`) only, and only the sets their
readers (`converters.control_flow`, converted-mode definedness) ask for:
they ask about no other statement, and two annotations per statement were
a third of the analysis' time:

    >>> import ast
    >>> from autograph.pyct import anno
    >>> src = "def f(x):\\n  y = 1\\n  if x:\\n    y = 2\\n  return y"
    >>> fn = ast.parse(src).body[0]
    >>> annotate(fn)
    >>> sorted(anno.getanno(fn.body[1], Live.OUT))
    ['y']
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Sequence

from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity


class Live(enum.Enum):
    """Liveness annotations on statements."""

    __hash__ = object.__hash__  # by identity (see anno.NoValue)

    OUT = "Names possibly read after this statement completes: a set."
    BODY_IN = "For ifs: names live on entry to the body: a set."
    ORELSE_IN = "For ifs: names live on entry to the else block: a set."
    LOOP_HEADER = (
        "For loops: names live before each evaluation of the test (while) or "
        "before drawing each item (for): a set."
    )


_EMPTY: frozenset[str] = frozenset()
# The statements annotated (with `Live.OUT`; and each with its own keys).
_ANNOTATED = frozenset({ast.If, ast.For, ast.While})


class _Analyzer:
    def __init__(self, cache: activity.Cache) -> None:
        # Per enclosing loop: (live after the loop, live at its header).
        self.loops: list[tuple[frozenset[str], frozenset[str]]] = []
        # Live on entry to each enclosing finally block (a jump runs it on
        # its way out), and how many there were outside each enclosing loop.
        self.finals: list[frozenset[str]] = []
        self.finals_outside_loop: list[int] = []
        # Live wherever an exception may leave a statement: what the
        # handlers of the enclosing `try`s, and what follows the enclosing
        # `with`s (which may suppress it), read.
        self.on_raise: frozenset[str] = _EMPTY
        self.cache = cache
        # Statements whose `on_raise` the caller asks for (`on_raise`).
        self.watched: dict[ast.stmt, frozenset[str]] | None = None
        # How many sets were recorded for statements (annotations, watched
        # statements): a loop body that recorded none needs no last pass.
        self.recorded = 0

    def block(self, stmts: Sequence[ast.stmt], out: frozenset[str]) -> frozenset[str]:
        live = out
        on_raise = self.on_raise
        for stmt in reversed(stmts):
            if on_raise:
                live = live | on_raise
            if type(stmt) in _ANNOTATED:
                anno.setanno(stmt, Live.OUT, live)
                self.recorded += 1
            if self.watched is not None and stmt in self.watched:
                self.watched[stmt] = on_raise  # a loop's last pass wins
                self.recorded += 1
            live = self.stmt(stmt, live)
        return live

    def _guarded(
        self, stmts: Sequence[ast.stmt], out: frozenset[str], on_raise: frozenset[str]
    ) -> frozenset[str]:
        """`block`, for a body an exception may leave anywhere, after which
        `on_raise` is live."""
        outer = self.on_raise
        self.on_raise = outer | on_raise
        try:
            return self.block(stmts, out) | on_raise
        finally:
            self.on_raise = outer

    def stmt(self, node: ast.stmt, out: frozenset[str]) -> frozenset[str]:
        kind = type(node)
        method = _METHODS[kind] if kind in _METHODS else _method(kind)
        if method is not None:
            return method(self, node, out)
        names = self.cache.of(node)  # loop bodies are walked more than once
        killed = names.written | names.through
        if names.walrus:  # one in a comprehension binds only if it iterates
            killed = killed - activity.walrus_binds(node)[1]
        return (out - killed) | names.read

    def visit_If(self, node: ast.If, out: frozenset[str]) -> frozenset[str]:
        body = self.block(node.body, out)
        orelse = self.block(node.orelse, out)
        anno.setanno(node, Live.BODY_IN, body)
        anno.setanno(node, Live.ORELSE_IN, orelse)
        test = activity.collect(node.test)
        after = body | orelse
        if test.walrus:  # bound by the test before either block runs
            after = after - activity.walrus_binds(node.test)[0]
        return frozenset(test.read) | after

    def _loop(
        self,
        node: ast.stmt,
        out: frozenset[str],
        head_reads: set[str],
        bound_per_item: set[str],
    ) -> frozenset[str]:
        """The names live at a loop's header: a fixpoint of the body's pass.

        Every statement's effect on the live set is `A | (live & P)` for
        sets `A` and `P` of its own (it adds the names it reads, keeps those
        it does not bind), and so is a block's, a loop's included. So the
        header after one pass, `H1 = H0 | ((A | (H0 & P)) - bound)`, is the
        fixpoint already: a second pass from `H1` adds nothing to it. It
        runs only to record the sets of the statements in the body with
        `H1` live at its end, and is skipped when they record none.
        """
        orelse = self.block(node.orelse, out)
        header = frozenset(head_reads) | orelse
        while True:
            recorded = self.recorded
            self.loops.append((out, header))
            self.finals_outside_loop.append(len(self.finals))
            body = self.block(node.body, header)
            self.finals_outside_loop.pop()
            self.loops.pop()
            new_header = header | (body - bound_per_item)
            if new_header == header:
                break
            header = new_header
            if self.recorded == recorded:
                # The second pass would only confirm `header` (see `_loop`'s
                # docstring): nothing in the body records what it finds.
                break
        anno.setanno(node, Live.LOOP_HEADER, header)
        return header

    def visit_While(self, node: ast.While, out: frozenset[str]) -> frozenset[str]:
        return self._loop(node, out, activity.reads(node.test), set())

    def visit_For(self, node: ast.For, out: frozenset[str]) -> frozenset[str]:
        target = activity.writes(node.target)
        head_reads = activity.reads(node.target)
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        if extra_test is not None:
            head_reads |= activity.reads(extra_test)
        header = self._loop(node, out, head_reads, target)
        return header | activity.reads(node.iter)

    def _finals_in_loop(self) -> frozenset[str]:
        """What the finally blocks a break/continue leaves through read."""
        return _EMPTY.union(*self.finals[self.finals_outside_loop[-1] :])

    def visit_Break(self, node: ast.Break, out: frozenset[str]) -> frozenset[str]:
        return self.loops[-1][0] | self._finals_in_loop() if self.loops else out

    def visit_Continue(self, node: ast.Continue, out: frozenset[str]) -> frozenset[str]:
        return self.loops[-1][1] | self._finals_in_loop() if self.loops else out

    def visit_Return(self, node: ast.Return, out: frozenset[str]) -> frozenset[str]:
        value = frozenset(activity.reads(node.value)) if node.value else _EMPTY
        return value.union(*self.finals)  # the finally blocks run first

    def visit_Raise(self, node: ast.Raise, out: frozenset[str]) -> frozenset[str]:
        return frozenset(activity.reads(node))

    def visit_With(self, node: ast.With, out: frozenset[str]) -> frozenset[str]:
        # The context manager may suppress an exception from anywhere in the
        # body: what is live after the `with` is live throughout it.
        body = self._guarded(node.body, out, out)
        bound: set[str] = set()
        read: set[str] = set()
        for item in node.items:
            read |= activity.reads(item.context_expr)
            if item.optional_vars is not None:
                bound |= activity.writes(item.optional_vars)
                read |= activity.reads(item.optional_vars)
        return (body - bound) | read

    visit_AsyncWith = visit_With

    def visit_Try(self, node: ast.Try, out: frozenset[str]) -> frozenset[str]:
        # Conservative: a handler may start anywhere in the body, so whatever
        # it needs is live throughout the body.
        after = self.block(node.finalbody, out)
        if node.finalbody:
            self.finals.append(after)
        # An exception from a handler or the `else` block runs the finally
        # block: what it reads is live throughout them.
        final_in = after if node.finalbody else _EMPTY
        handlers = _EMPTY
        for handler in node.handlers:
            live = self._guarded(handler.body, after, final_in)
            if handler.name is not None:
                live = live - {handler.name}
            if handler.type is not None:
                live = live | activity.reads(handler.type)
            handlers |= live
        orelse = self._guarded(node.orelse, after, final_in)
        body = self._guarded(node.body, orelse | handlers | after, handlers | after)
        if node.finalbody:
            self.finals.pop()
        return body | handlers | after

    visit_TryStar = visit_Try

    def visit_FunctionDef(
        self, node: ast.FunctionDef, out: frozenset[str]
    ) -> frozenset[str]:
        annotate(node, self.cache)
        return (out - {node.name}) | self.cache.of(node).read

    visit_AsyncFunctionDef = visit_FunctionDef


# Statement class -> the `_Analyzer` method that visits it, or None for a
# simple statement (looked up once).
_METHODS: dict[type, Callable[..., frozenset[str]] | None] = {}


def _method(kind: type) -> Callable[..., frozenset[str]] | None:
    method = getattr(_Analyzer, "visit_" + kind.__name__, None)
    _METHODS[kind] = method
    return method


def annotate(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, cache: activity.Cache | None = None
) -> None:
    """Annotates every statement of `fn` (and of nested functions) with `Live`.

    Args:
        fn: The function.
        cache: Statements' names, when the caller shares them with other
            analyses of the same tree.
    """
    _Analyzer(cache or activity.Cache()).block(_asked_part(fn.body), _EMPTY)


def on_raise(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    stmts: Sequence[ast.stmt],
    cache: activity.Cache | None = None,
) -> dict[ast.stmt, frozenset[str]]:
    """For each of `stmts` (statements of `fn`): the names that may be read
    after an exception leaves it half-way, by the handlers and `finally`
    blocks of the enclosing `try`s, by what follows an enclosing `with`, and
    by what runs after those. (It annotates `fn` as `annotate` does.)

        >>> src = (
        ...     "def f(n):\\n"
        ...     "  try:\\n"
        ...     "    if n: x, y = 1, 1\\n"
        ...     "  finally:\\n"
        ...     "    x = 2\\n"
        ...     "    print(x, y)"
        ... )
        >>> fn = ast.parse(src).body[0]
        >>> guarded = fn.body[0].body[0]
        >>> sorted(on_raise(fn, [guarded])[guarded])
        ['print', 'y']
    """
    analyzer = _Analyzer(cache or activity.Cache())
    analyzer.watched = dict.fromkeys(stmts, _EMPTY)
    analyzer.block(_asked_part(fn.body), _EMPTY)
    return analyzer.watched


def _asked_part(body: list[ast.stmt]) -> list[ast.stmt]:
    """A function's `body` from its first statement holding statements on.

    The simple statements before it record nothing, and the names live
    before them (the function's own live-in) are asked about by no one.
    (An exception leaving one of them leaves the function: `on_raise` is
    empty there.)
    """
    for i, stmt in enumerate(body):
        if transformer.statement_fields(type(stmt)):
            return body[i:]
    return []
