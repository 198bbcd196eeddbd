"""Lowering of jumps (`break`, `continue`, `return`) to flags and guards.

Functional control flow has no jumps, so each jump becomes an assignment to a
flag, and the code a jump would skip runs under a guard. Guards are avoided
where the structure allows: when one branch of an `if` always jumps, the
statements after the `if` move into the other branch instead.

    while c:                         while c:
        if a:                            if a:
            break              ->            break_ = True
        x += 1                           else:
                                             x += 1

`Lowering` is configured per jump kind by the converters that use it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import NamedTuple

from autograph.core import builders as b
from autograph.core.survey import Marker
from autograph.pyct import anno, naming, transformer
from autograph.pyct.static_analysis import activity

_LOOPS = (ast.For, ast.While, ast.AsyncFor)
_SCOPES_AND_LOOPS = (*activity.SCOPES, *_LOOPS)
TRIES: tuple[type[ast.stmt], ...] = (ast.Try,) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()  # Python 3.11+
)


# What lowering may add to a tree (see `Context.kinds`): flag assignments,
# guards `if not flag:`, loop tests `not flag and ...`, `pass` in emptied
# blocks, the test of an emptied `if` (`not c;`) kept for its effects, and
# `try: ... except BaseException: if not finally_jumped: raise`.
EMITS = frozenset(
    {
        ast.Try,
        ast.ExceptHandler,
        ast.Raise,
        ast.Assign,
        ast.Expr,
        ast.Name,
        ast.Constant,
        ast.If,
        ast.Pass,
        ast.UnaryOp,
        ast.Not,
        ast.BoolOp,
        Marker.GENERATED_CODE,
    }
)


class Pending(NamedTuple):
    """A kind of jump that may leave a try statement's body, handlers or
    else block (`anno.Basic.PENDING_JUMPS`).

    A jump in the try's finally block cancels it, and an exception from the
    finally block discards it: what the jump set goes back to what it was
    before the try. That is `False` for the flag (code before the try ran,
    so no such jump was pending), unless the try lies in a finally block
    that such a jump may be pending across (`nested`): then the flag and
    what it carries (`retval_`) go back to the values saved right before the
    try.
    """

    flag: str
    values: tuple[str, ...]  # the flag and what it carries
    finally_flags: tuple[str, ...]  # enclosing finally blocks' flags it sets
    nested: bool


class Lowering:
    """Replaces one kind of jump within a block by a flag and guards.

    Args:
        jump: The class of the jump being lowered (`ast.Break`, ...).
        replace: The statements a jump becomes (e.g. `break_ = True`).
        flag: The flag's name, or a function asked for it the first time a
            guard `if not flag:` needs it (so a flag no guard reads is never
            named); the guards skip the statements after a jump.
        into_loops: Whether jumps inside nested loops are lowered too (true
            for `return`, which leaves every loop).
        namer: Names the flag of a `finally` block that jumps (see
            `_lower_try`).
        on_loop: Called with each nested loop that contains a lowered jump
            (only when `into_loops`) and the flag that tells it to stop, e.g.
            to add an extra loop test.
        leave: For `tail_block`: what a statement holding a jump that
            cannot stay a jump becomes, given the statements after it (for
            `return`: flags, the statement lowered, and a final check).
        carried: The names a jump sets along with the flag (for `return`:
            `retval_`), which a cancelled jump must restore (see `Pending`).
    """

    def __init__(
        self,
        jump: type[ast.stmt],
        replace: Callable[[ast.stmt], list[ast.stmt]],
        flag: str | Callable[[], str],
        *,
        namer: naming.Namer,
        into_loops: bool = False,
        on_loop: Callable[[ast.stmt, str], None] | None = None,
        leave: Callable[[ast.stmt, list[ast.stmt]], list[ast.stmt]] | None = None,
        carried: Callable[[], tuple[str, ...]] = tuple,
    ) -> None:
        self.jump = jump
        self.replace = replace
        self._flag = flag
        self.namer = namer
        self.into_loops = into_loops
        self.on_loop = on_loop
        self.leave = leave
        self.carried = carried
        self.guards_used = False
        self.dropped = False  # whether code after a jump was dropped
        self.moved = False  # whether tail_block moved or dropped code
        # How many statements around the block being lowered may catch an
        # exception (a try with handlers, a with, a finally that jumps), and
        # the flags of the finally blocks that jump around it.
        self._catchers = 0
        self._finally_flags: list[str] = []
        # For each finally block being lowered (one holding this kind of
        # jump), whether such a jump may be pending across it.
        self._across: list[bool] = []
        # The statements saving values before a try (by the try's id).
        self._saves: dict[int, list[ast.stmt]] = {}
        # The flag's resets in finally blocks: (try, its handler, the reset,
        # the statement saving values before the try, if one was added).
        self._resets: list[
            tuple[ast.Try, ast.ExceptHandler, list[ast.stmt], list[ast.stmt]]
        ] = []

    @property
    def flag(self) -> str:
        """The flag's name (named now if it was not yet)."""
        if not isinstance(self._flag, str):
            self._flag = self._flag()
        return self._flag

    @property
    def flag_named(self) -> bool:
        """Whether the flag has a name (some guard or statement uses it)."""
        return isinstance(self._flag, str)

    def _guard_flag(self) -> str:
        """The flag a guard tests: in a finally block that jumps, whether it
        jumped (a jump pending from before it must not skip its code)."""
        if self._finally_flags:
            return self._finally_flags[-1]
        self.guards_used = True
        return self.flag

    def contains(self, node: ast.AST) -> bool:
        """Whether `node` (a statement or a list) holds a jump of this kind."""
        jump = self.jump
        # (a jump in a nested function is that function's; a break/continue
        # in a nested loop is that loop's)
        closed = activity.SCOPES if self.into_loops else _SCOPES_AND_LOOPS
        stack: list[ast.AST] = list(node) if isinstance(node, list) else [node]
        while stack:
            item = stack.pop()
            kind = type(item)
            if kind is jump:
                return True
            fields = transformer.statement_fields(kind)
            if fields and not issubclass(kind, closed):
                for field in fields:
                    stack.extend(getattr(item, field))
        return False

    def always_jumps(self, stmts: Sequence[ast.stmt]) -> bool:
        """Whether every path through `stmts` ends in a jump of this kind."""
        for stmt in stmts:
            if isinstance(stmt, self.jump):
                return True
            if self._endless(stmt):
                return True
            if (
                isinstance(stmt, ast.If)
                and stmt.orelse
                and self.always_jumps(stmt.body)
                and self.always_jumps(stmt.orelse)
            ):
                return True
        return False

    def block(self, stmts: Sequence[ast.stmt]) -> list[ast.stmt]:
        """Lowers the jumps of a block; see the module docstring."""
        return self._block(stmts, tail=False)

    def tail_block(self, stmts: Sequence[ast.stmt]) -> list[ast.stmt]:
        """Lowers a block that ends its function: a jump there may stay.

        A jump that ends the block stays as it is, and so do those in the
        branches of an `if`, a `with` or a `try` that ends it (the code
        after a branch that always jumps moves into the other branch, as in
        `block`). A statement holding a jump that cannot stay (in a loop,
        or followed by more code) becomes what `leave` makes of it.
        """
        return self._block(stmts, tail=True)

    def _block(self, stmts: Sequence[ast.stmt], tail: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            if not self.contains(stmt):
                out.append(stmt)
                continue
            # Every path below returns: `rest` is copied once per block.
            rest = list(stmts[i + 1 :])
            endless = self._endless(stmt)  # (asked before lowering changes it)
            if isinstance(stmt, self.jump):
                out.extend([stmt] if tail else self.replace(stmt))
                self.dropped |= bool(rest)
                self.moved |= bool(rest)
                return out  # what follows a jump never runs
            if isinstance(stmt, ast.If):
                body_jumps = self.always_jumps(stmt.body)
                orelse_jumps = self.always_jumps(stmt.orelse)
                if body_jumps and not orelse_jumps:
                    stmt.body = self._block(stmt.body, tail)
                    stmt.orelse = self._block(stmt.orelse + rest, tail)
                    self.moved |= bool(rest)
                    out.append(stmt)
                    return out
                if orelse_jumps and not body_jumps:
                    stmt.body = self._block(stmt.body + rest, tail)
                    stmt.orelse = self._block(stmt.orelse, tail)
                    self.moved |= bool(rest)
                    out.append(stmt)
                    return out
                if not tail or body_jumps or not rest:
                    stmt.body = self._block(stmt.body, tail)
                    stmt.orelse = self._block(stmt.orelse, tail)
                    out.append(stmt)
                    if body_jumps or tail:  # (then both jump, or nothing follows)
                        self.dropped |= bool(rest)
                        self.moved |= bool(rest)
                        return out
            elif tail and not rest and self._may_stay(stmt):
                self._lower_tail_children(stmt)
                out.append(stmt)
                return out
            elif not tail:
                out.extend(self._lower_children(stmt))
            if endless:  # only its jumps leave it: what follows never runs
                self.dropped |= bool(rest)
                self.moved |= bool(rest)
                rest = []
            if tail:
                out.extend(self.leave(stmt, rest))
                return out
            if rest:
                # if not flag: <rest>
                guard = b.not_(b.name(self._guard_flag()))
                out.append(b.if_(guard, self.block(rest)))
            return out
        return out

    def _endless(self, stmt: ast.stmt) -> bool:
        """Whether `stmt` is a loop holding a jump of this kind (lowered
        inside loops) that nothing else leaves (`never_ends`)."""
        return self.into_loops and never_ends(stmt) and self.contains(stmt)

    def _may_stay(self, stmt: ast.stmt) -> bool:
        """Whether the jumps of `stmt`, which ends its function, may stay."""
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            return True
        return (
            isinstance(stmt, ast.Try)
            and not stmt.orelse  # falling off the body runs `else`, not a jump
            and (
                not self.contains(stmt.finalbody)
                # A finally block that always jumps ends the function
                # whatever happens before; Python runs it as it is. (Unless
                # the body or a handler jumps inside a statement: a `return`
                # in a graph `if` would need a value on every path, which the
                # finally block discards; those are lowered to flags.)
                or (
                    self.always_jumps(stmt.finalbody)
                    and self._jumps_only_at_top(stmt.body)
                    and all(self._jumps_only_at_top(h.body) for h in stmt.handlers)
                )
            )
        )

    def _jumps_only_at_top(self, stmts: Sequence[ast.stmt]) -> bool:
        """Whether every jump in `stmts` is one of them, not inside one."""
        return all(isinstance(s, self.jump) or not self.contains(s) for s in stmts)

    def _lower_tail_children(self, stmt: ast.stmt) -> None:
        """Lowers the blocks of a `with` or `try` that ends its function."""
        stmt.body = self.tail_block(stmt.body)
        for handler in getattr(stmt, "handlers", ()):
            handler.body = self.tail_block(handler.body)
        if isinstance(stmt, ast.Try):
            stmt.finalbody = self.tail_block(stmt.finalbody)

    def _lower_children(self, stmt: ast.stmt) -> list[ast.stmt]:
        """Lowers the jumps inside `stmt`; returns what replaces it."""
        if isinstance(stmt, _LOOPS):
            stmt.body = self.block(stmt.body)
            stmt.orelse = self.block(stmt.orelse)
            if self.on_loop is not None:
                self.on_loop(stmt, self._guard_flag())
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            pending = self.contains(stmt.body)
            self._catchers += 1  # its context manager may suppress exceptions
            stmt.body = self.block(stmt.body)
            self._catchers -= 1
            if pending and self._catchers:
                return self._with_saves(stmt, self._reset_if_exit_raises(stmt))
        elif isinstance(stmt, TRIES):
            return self._with_saves(stmt, self._lower_try(stmt))
        # else e.g. `match`: rejected before conversion; keep as is
        return [stmt]

    def _with_saves(self, stmt: ast.stmt, out: list[ast.stmt]) -> list[ast.stmt]:
        """`out` (what replaces `stmt`) after the statements saving the
        values a jump pending from `stmt` set (see `Pending`): placed before
        it, they are assigned wherever it is read from (`do_return_before =
        do_return`)."""
        return [*self._saves.pop(id(stmt), []), *out]

    def _lower_try(self, stmt: ast.stmt) -> list[ast.stmt]:
        """Lowers a `try` statement's jumps as Python runs them.

        Its `else` block runs only when the body ends without a jump. A jump
        in its `finally` block cancels the jumps pending from the other
        blocks (their flags are reset) and discards the exception in flight:

            try:                          finally_jumped = False
                B                         try:
            finally:              ->          try:
                return 1                          B'
                                              finally:
                                                  retval_ = 1
                                                  do_return = True
                                                  finally_jumped = True
                                          except BaseException:
                                              if not finally_jumped:
                                                  raise

        Cancelling a jump undoes what it set (see `Pending`); so does an
        exception from the finally block (`_reset_if_finally_raises`).
        """
        body_jumps = self.contains(stmt.body)
        pending = body_jumps or any(self.contains(h.body) for h in stmt.handlers)
        final_jumps = self.contains(stmt.finalbody)
        self._catchers += final_jumps  # its wrapper catches what all blocks raise
        catches = any(map(_may_catch, stmt.handlers))
        self._catchers += catches
        stmt.body = self.block(stmt.body)
        self._catchers -= catches
        for handler in stmt.handlers:
            handler.body = self.block(handler.body)
        pending |= self.contains(stmt.orelse)
        stmt.orelse = self.block(stmt.orelse)
        # (Its own wrapper re-raises what its finally block raises.)
        if pending and _may_raise(stmt.finalbody) and self._catchers - final_jumps:
            self._reset_if_finally_raises(stmt)
        if body_jumps and stmt.orelse:
            # else: if not flag: <else block>
            guard = b.not_(b.name(self._guard_flag()))
            stmt.orelse = [b.if_(guard, stmt.orelse)]
        flags = anno.getanno(stmt, anno.Basic.PENDING_JUMPS, ())
        # (A flag with no name yet is read by no guard: nothing to cancel.)
        if pending and self.flag_named and all(p.flag != self.flag for p in flags):
            flags = (*flags, self._pending())
            anno.setanno(stmt, anno.Basic.PENDING_JUMPS, flags)
        if not final_jumps:
            stmt.finalbody = self.block(stmt.finalbody)
            return [stmt]
        jumped = anno.getanno(stmt, anno.Basic.FINALLY_JUMPED, None)
        out = [stmt]
        if jumped is None:  # the first kind of jump found in this block
            jumped = self.namer.new_symbol("finally_jumped")
            anno.setanno(stmt, anno.Basic.FINALLY_JUMPED, jumped)
            # finally_jumped = False
            # try: <stmt> / except BaseException: if not finally_jumped: raise
            out = [
                b.assign(jumped, b.const(False)),
                _discard_exception_unless(stmt, jumped),
            ]
        cancels = [p for p in flags if p.flag != self.flag]
        replace = self.replace

        def in_finally(jump: ast.stmt) -> list[ast.stmt]:
            # <undo other jumps>; <jump's replacement>; finally_jumped = True
            undo = [s for p in cancels for s in self._undo(stmt, p)[0]]
            return [*undo, *replace(jump), b.assign(jumped, b.const(True))]

        self.replace = in_finally
        self._finally_flags.append(jumped)
        self._across.append(pending)
        try:
            stmt.finalbody = self.block(stmt.finalbody)
        finally:
            self.replace = replace
            self._finally_flags.pop()
            self._across.pop()
            self._catchers -= 1
        return out

    def _pending(self) -> Pending:
        """This kind of jump, pending from the try being lowered."""
        values = (self.flag, *self.carried())
        return Pending(self.flag, values, tuple(self._finally_flags), any(self._across))

    def _undo(
        self, stmt: ast.stmt, jump: Pending
    ) -> tuple[list[ast.stmt], list[ast.stmt]]:
        """What undoes `jump`, pending from `stmt`'s blocks (see `Pending`):
        `flag = False` (or `flag = flag_before`, ...), then the enclosing
        finally blocks' flags it set back to `False`; and the statements
        added to save values right before `stmt`."""
        if not jump.nested:
            undo = [b.assign(jump.flag, b.const(False))]
            added: list[ast.stmt] = []
        else:
            saved = anno.getanno(stmt, anno.Basic.SAVED_BEFORE, None)
            if saved is None:
                saved = {}
                anno.setanno(stmt, anno.Basic.SAVED_BEFORE, saved)
            added = []
            for name in jump.values:
                if name not in saved:
                    # try: do_return_before = do_return; ...
                    saved[name] = self.namer.new_symbol(name.rstrip("_") + "_before")
                    added.append(b.assign(saved[name], b.name(name)))
            # (saved right before the statement: `_with_saves`)
            self._saves.setdefault(id(stmt), []).extend(added)
            undo = [b.assign(n, b.name(saved[n])) for n in jump.values]
        undo += (b.assign(f, b.const(False)) for f in jump.finally_flags)
        return undo, added

    def _reset_if_exit_raises(self, stmt: ast.stmt) -> list[ast.stmt]:
        """An exception from a context manager's `__exit__` discards the
        jumps pending from the `with` block, as one from a finally block
        does: `try: <with> / except BaseException: flag = False; raise`
        where something may catch it before the jump's target.

        (A flag with no name is read by no guard: only the enclosing
        finally blocks' flags are reset then.)
        """
        handler = anno.getanno(stmt, anno.Basic.EXIT_RESETS, None)
        out = [stmt]
        if handler is None:
            handler = b.except_base([b.raise_()])
            anno.setanno(stmt, anno.Basic.EXIT_RESETS, handler)
            out = [b.try_([stmt], [handler])]
        if self.flag_named:
            undo = self._undo(stmt, self._pending())[0]
        else:
            undo = [b.assign(f, b.const(False)) for f in self._finally_flags]
        handler.body[-1:-1] = undo
        return out

    def _reset_if_finally_raises(self, stmt: ast.stmt) -> None:
        """An exception from a finally block discards the pending jumps.

        Only needed where something may catch that exception before the
        jump's target: `finally: F` -> `finally: try: F / except
        BaseException: flag = False; raise`, one such handler for every kind
        of jump.
        """
        handler = anno.getanno(stmt, anno.Basic.FINALLY_RESETS, None)
        if handler is None:
            # finally: try: <F> / except BaseException: raise
            handler = b.except_base([b.raise_()])
            anno.setanno(stmt, anno.Basic.FINALLY_RESETS, handler)
            stmt.finalbody = [b.try_(stmt.finalbody, [handler])]
        # except BaseException: flag = False; finally_jumped = False; raise
        jump = self._pending()
        undo, added = self._undo(stmt, jump)
        own = undo[: len(undo) - len(jump.finally_flags)]
        self._resets.append((stmt, handler, own, added))
        handler.body[-1:-1] = undo

    def drop_resets(self) -> None:
        """Removes the flag's resets (for a flag that no guard reads), and the
        handlers around finally blocks that are left with nothing to do."""
        for stmt, handler, own, added in self._resets:
            handler.body = [s for s in handler.body if s not in own]
            for save in added:  # (it stays, saving nothing: `x_before = None`)
                save.value = b.const(None)
            if len(handler.body) == 1:  # just `raise`
                (guard,) = stmt.finalbody
                stmt.finalbody = guard.body
                anno.delanno(stmt, anno.Basic.FINALLY_RESETS)
        self._resets.clear()


def never_ends(stmt: ast.stmt) -> bool:
    """Whether `stmt` is a loop that only a `return` or an exception leaves:
    `while True:` (a constant true test) with no `break` of its own.

        >>> never_ends(ast.parse("while True:\\n  if c: return x").body[0])
        True
        >>> loop = "while 1:\\n  for y in z: break\\n  else: break"
        >>> never_ends(ast.parse(loop).body[0])  # (the `else` leaves it)
        False
    """
    if not (
        isinstance(stmt, ast.While)
        and isinstance(stmt.test, ast.Constant)
        and stmt.test.value
    ):
        return False
    stack: list[ast.AST] = list(stmt.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break):
            return False
        if isinstance(node, activity.SCOPES):
            continue
        if isinstance(node, _LOOPS):
            stack.extend(node.orelse)  # (a `break` in its body is its own)
            continue
        stack.extend(transformer.child_statements(node))
    return True


def _may_catch(handler: ast.ExceptHandler) -> bool:
    """Whether an except handler may end without raising. One that only
    assigns names and ends in `raise` (as lowering's resets do) cannot."""
    *effects, last = handler.body
    return not (
        isinstance(last, ast.Raise)
        and last.exc is None
        and all(
            isinstance(s, ast.Assign)
            and all(isinstance(t, ast.Name) for t in s.targets)
            and isinstance(s.value, (ast.Name, ast.Constant))
            for s in effects
        )
    )


def _may_raise(stmts: list[ast.stmt]) -> bool:
    """Whether `stmts` may raise (`break`, `continue` and `pass` cannot)."""
    return any(not isinstance(s, (ast.Break, ast.Continue, ast.Pass)) for s in stmts)


def _discard_exception_unless(stmt: ast.stmt, jumped: str) -> ast.Try:
    """`try: stmt / except BaseException: if not jumped: raise`."""
    reraise = b.if_(b.not_(b.name(jumped)), [b.raise_()])
    return b.try_([stmt], [b.except_base([reraise])])


def invert_empty_ifs(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`if c: (nothing) else: B` -> `if not c: B`; `if c: (nothing)` -> `not c`.

    Used after removing flag assignments nobody reads (e.g. a `continue` whose
    flag guards nothing), recursively over nested blocks.
    """
    out: list[ast.stmt] = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(
                stmt, activity.SCOPES
            ):
                setattr(stmt, field, invert_empty_ifs(getattr(stmt, field)))
        if isinstance(stmt, ast.If) and not stmt.body:
            if not stmt.orelse:
                if not isinstance(stmt.test, ast.Constant):
                    # Python still evaluates the test and asks for its truth
                    # value, which may raise or call `__bool__`.
                    out.append(b.expr(b.not_(stmt.test)))  # not c
                continue
            stmt.test = b.not_(stmt.test)
            stmt.body, stmt.orelse = stmt.orelse, []
        out.append(stmt)
    return out


def fill_empty_blocks(node: ast.AST) -> None:
    """Puts `pass` into every statement list that lowering left empty.

    (Only statements and except handlers hold statement lists: expressions
    are not walked.)
    """
    stack: list[ast.AST] = [node]
    while stack:
        child = stack.pop()
        block = getattr(child, "body", None)
        if type(block) is list and not block:
            block.append(b.pass_())
        stack.extend(transformer.child_statements(child))
