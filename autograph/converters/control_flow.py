"""Turns `if`, `while` and `for` into calls of `ag__.if_stmt/while_stmt/for_stmt`.

Each body becomes a function of the variables it reads and changes (its
state), returning those the code after it needs; the call returns them:

    if x > 0:                        def if_body():
        y = x                            return x
    else:                   ->       def else_body():
        y = 0                            return 0
                                     y = ag__.if_stmt(
                                         x > 0, if_body, else_body, (), ('y',))

    while i < n:                     def loop_test(i, total):
        total += i                       return i < n
        i += 1              ->       def loop_body(i, total):
                                         total += i
                                         i += 1
                                         return (i, total)
                                     (i, total) = ag__.while_stmt(
                                         loop_test, loop_body, (i, total))

An `if` that ends its function (it holds the function's remaining `return`s,
see `return_statements`) becomes `return ag__.if_stmt(...)`, and so does an
`if` ending one of its branches (whose branches may both raise). A variable that
must travel as state but is unbound before the statement starts as
`ag__.Undefined('name')`, so reading it later still raises UnboundLocalError.
On a branch that returned (it set the `do_return` flag), such a variable goes
out as `ag__.after_return(name)`: nothing but a `finally` reads it there, so
a graph `if` may give it the other branch's type. The liveness and
definedness analyses decide all of this (STYLE 4).
"""

from __future__ import annotations

import ast
import inspect
import types
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from autograph.converters import cleanup
from autograph.core import builders as b
from autograph.core.converter import calls_anything
from autograph.core.survey import Marker
from autograph.directives import set_loop_options
from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity, definedness, liveness
from autograph.pyct.static_analysis.definedness import Defined
from autograph.pyct.static_analysis.liveness import Live


@dataclass
class _Scope:
    """The user function whose statements are being converted.

    Attributes:
        declared: Its `global`/`nonlocal` names: name -> 'global' | 'nonlocal'.
        cells: Its locals that live in cells (`activity.cells`).
        written_by_nested: Variables its nested functions assign outside
            themselves (`nonlocal`, `global`): any call may change them.
        hoisted: Names to start undefined at its top.
        in_place: The names its statements write where they live, not as
            state (its cells and declared names; asked about per statement).
    """

    declared: dict[str, str]
    cells: set[str] = field(default_factory=set)
    written_by_nested: set[str] = field(default_factory=set)
    hoisted: set[str] = field(default_factory=set)
    node: ast.FunctionDef | None = None
    locals: set[str] | None = None  # its local names, computed when needed
    in_place: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.in_place = frozenset(self.cells.union(self.declared))


def _contains_return(stmts: Iterable[ast.AST]) -> bool:
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, activity.SCOPES):
            continue
        stack.extend(transformer.child_statements(node))
    return False


def _returned(
    names: Sequence[str], after_return: AbstractSet[str] = frozenset()
) -> ast.expr:
    """The expression a body returns: one name bare, several as a tuple;
    `ag__.after_return(name)` for those in `after_return`."""
    values = [
        b.ag_call("after_return", b.name(n)) if n in after_return else b.name(n)
        for n in names
    ]
    return b.one_or_tuple(values)


class ControlFlowTransformer(transformer.Base):
    """Rewrites if/while/for of every function, outermost statement first."""

    statements_only = True  # it rewrites statements; expressions stay

    def __init__(self, ctx: object, cache: activity.Cache | None = None) -> None:
        super().__init__(ctx)
        self.scopes: list[_Scope] = []
        # The analyses' names of statements: statements are read before
        # they are rewritten (outermost first), so what it holds stays true.
        self.cache = cache or activity.Cache()
        # `if`s that end a branch of an `if` ending its function: see visit_If.
        self.tail_ifs: set[ast.If] = set()
        # Where every `return` ends its function's body, no `if` holds one
        # (return lowering, which leaves them in tail `if`s, marks the tree).
        self.returns_inside = Marker.RETURN_NOT_LAST in ctx.kinds
        # The return flags return lowering made (none: no branch returned).
        self.flags = frozenset(
            n for n in ctx.namer.generated if n.startswith("do_return")
        )
        # Per statement, the item and attribute targets `_targets` found in
        # it: a statement nested in others is searched once, not once per
        # enclosing statement. Each is found after the statement was
        # rewritten (a `try` in it, whose blocks change in place, too), and
        # nothing rewrites it afterwards.
        self.targets_found: dict[ast.AST, list[ast.expr]] = {}
        # The containers whose keys or attributes the function observes
        # (`variables.presence_reads`): a loop's item of one is marked.
        self.presence_reads: AbstractSet[str] = frozenset()
        # Whether definedness noted the ifs' and loops' states (`transform`);
        # without them every name asked about is bound before its statement.
        self.states = True
        # Whether the functions made here are tidied as they are made
        # (`cleanup.tidy`): where no nested function of the user's is in the
        # tree, whose locals cleanup changes before it would tidy the
        # functions around it (see `transform`).
        self.tidy = Marker.NESTED_FUNCTION not in ctx.kinds

    # --- functions -------------------------------------------------------

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        kinds = self.ctx.kinds
        has_declarations = ast.Global in kinds or ast.Nonlocal in kinds
        cells = anno.getanno(node, anno.Basic.CELLS, None)
        scope = _Scope(
            declared=activity.declarations(node) if has_declarations else {},
            cells=activity.cells(node) if cells is None else cells,
            node=node,
        )
        nested = anno.getanno(node, anno.Basic.NESTED_WRITES, None)
        if nested is None and Marker.NESTED_FUNCTION in kinds:
            local = activity.local_names(node)
            nested = activity.written_by_nested(node) - (local - scope.cells)
        scope.written_by_nested = nested or set()
        self.scopes.append(scope)
        node.body = self.visit_block(node.body)
        self.scopes.pop()
        if scope.hoisted:
            # Bound on some paths only, by code that stays Python (e.g. a try
            # block): start them undefined at the top, where it is safe.
            doc = 1 if _has_docstring(node.body) else 0
            # x = ag__.Undefined('x')
            inits = [b.undefined_init(n) for n in sorted(scope.hoisted)]
            node.body[doc:doc] = inits
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    # --- helpers ---------------------------------------------------------

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def _modified(self, stmts: list[ast.stmt]) -> set[str]:
        """The local names `stmts` change that travel as explicit state: a
        name a nested function assigns through `nonlocal` lives in a cell, or
        in no local of this function at all."""
        return self.cache.binds(stmts) - self.scope.in_place

    def _places(
        self,
        blocks: Sequence[list[ast.stmt]],
        written: AbstractSet[str] = frozenset(),
        test: ast.expr | None = None,
        *,
        loop: bool = False,
    ) -> ast.keyword | None:
        """`places=(...)`: what the blocks change in place (items,
        attributes, cells, declared names), for a backend to carry; None when
        they change nothing there. `written` adds names a loop's target or
        test binds; a loop `test` runs inside the op too. A `loop`'s item or
        attribute of a container whose keys the function observes is marked
        (`ag__.item(..., observed=True)`): a staged loop refuses to create it."""
        stmts = [s for block in blocks for s in block]
        written = self.cache.writes(stmts) | written
        in_place = self.scope.in_place
        names = written & in_place
        nested = self.scope.written_by_nested
        if nested:  # (most functions have no nested function: no walk)
            evaluated = [*stmts, test] if test is not None else stmts
            if any(calls_anything(node) for node in evaluated):
                names |= nested
        items = self._targets(stmts)
        if not names and not items:
            return None
        # places=(ag__.var(lambda: a), ag__.item("d['k']", d, 'k'), ...)
        keyword = b.var_places(names)
        observed = self.presence_reads if loop else frozenset()
        keyword.value.elts += _item_places(items, written, observed)
        return keyword if keyword.value.elts else None

    def _targets(self, stmts: Sequence[ast.stmt]) -> list[ast.expr]:
        """Item and attribute targets of assignments in the statements' scope
        (in the functions conversion made of their blocks too, `_generated`),
        the last statement's first."""
        found: list[ast.expr] = []
        known = self.targets_found
        for stmt in reversed(stmts):
            targets = known.get(stmt)
            found += self._targets_of(stmt) if targets is None else targets
        return found

    def _targets_of(self, node: ast.AST) -> list[ast.expr]:
        """`_targets` of one statement (or except handler, `with` item):
        its own targets, then those of its blocks' statements."""
        kind = type(node)
        if kind is ast.Assign or kind is ast.Delete:
            targets = node.targets
        elif kind in _ONE_TARGET:
            targets = [node.target]
        elif kind is ast.withitem:
            targets = [] if node.optional_vars is None else [node.optional_vars]
        elif kind in _SCOPE_KINDS and not _generated(node):
            targets = []
            self.targets_found[node] = targets
            return targets
        else:
            targets = []
        found = []
        if targets:
            for target in activity.unpacked(targets):
                if isinstance(target, (ast.Subscript, ast.Attribute)):
                    found.append(target)
        if kind is ast.With or kind is ast.AsyncWith:
            found += self._targets(node.items)
        for block in reversed(transformer.statement_fields(kind)):
            found += self._targets(getattr(node, block))
        self.targets_found[node] = found
        return found

    def _state_inits(self, node: ast.stmt, state: Iterable[str]) -> list[ast.stmt]:
        """`x = ag__.Undefined('x')` for state that may be unbound here."""
        if not self.states:
            return []
        may = anno.getanno(node, Defined.MAY_IN, frozenset())
        must = anno.getanno(node, Defined.MUST_IN, frozenset())
        before = []
        for name in state:
            if name not in may:
                before.append(b.undefined_init(name))  # x = ag__.Undefined('x')
            elif name not in must:
                self.scope.hoisted.add(name)
        return before

    def _def(
        self, name: str, params: Sequence[str], body: list[ast.stmt]
    ) -> ast.FunctionDef:
        """`def name(*params): global g / nonlocal n / body`: declares the
        scope's names that live in place and that the body assigns; tidied
        (`cleanup.tidy`) where `self.tidy`."""
        decls: list[ast.stmt] = []
        scope = self.scope
        if scope.in_place:
            writes = activity.writes(body) & scope.in_place
            declared = scope.declared
            globals_ = sorted(n for n in writes if declared.get(n) == "global")
            nonlocals = sorted(n for n in writes if declared.get(n) != "global")
            if globals_:
                decls.append(b.global_(globals_))
            if nonlocals:
                decls.append(b.nonlocal_(nonlocals))
        node = b.def_(name, params, decls + body)
        if self.tidy:
            cleanup.tidy(node, self.ctx.namer)
        return node

    # --- loop options ----------------------------------------------------

    def _loop_options(self, loop: ast.stmt) -> ast.expr | None:
        """Takes a leading `autograph.set_loop_options(...)` out of a loop body.

        Returns its keyword arguments as a dict node, for the loop operator's
        `opts`: `{'shape_invariants': [(x, (None,))]}`. They are evaluated when
        the loop starts, which is when the graph loop needs them. Arguments
        that call user code or `print`, or read a local that may be unbound
        when the loop starts, are evaluated only if the loop becomes a graph
        loop: `opts=lambda: {...}`, and the call stays in the body, so a
        Python loop evaluates them once per iteration, as Python does (a
        directive is honoured or refused, never dropped). A call with
        positional, `**` or unknown arguments stays (it raises, as in Python).
        """
        body = loop.body
        first = body[0] if body else None
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Call)):
            return None
        call = first.value
        func, args = call.func, call.args
        if b.is_ag_attr(func, "converted_call") and args:  # wrapped by call_trees
            func, args = args[0], args[1:]
        if args or any(k.arg not in _LOOP_OPTIONS for k in call.keywords):
            return None
        if not self._is_loop_options(func):
            return None
        lazy = self._may_be_unbound(loop, call) or _calls_user_code(call.keywords)
        if lazy:
            values = [transformer.copy_node(k.value) for k in call.keywords]
        else:
            values = [k.value for k in call.keywords]
            del body[0]
            if not body:
                body.append(b.pass_())
        # {'shape_invariants': [...], ...}
        options = b.dict_([b.const(k.arg) for k in call.keywords], values)
        # lambda: {'maximum_iterations': ag__.converted_call(limit)}
        return b.thunk(options) if lazy else options

    def _may_be_unbound(self, loop: ast.stmt, call: ast.Call) -> bool:
        """Whether `call` reads a local not certainly bound before `loop`."""
        must = anno.getanno(loop, Defined.MUST_IN, frozenset())
        local = self._locals(self.scope)
        return any(
            isinstance(n, ast.Name) and n.id in local and n.id not in must
            for n in ast.walk(call)
        )

    def _is_loop_options(self, func: ast.expr) -> bool:
        """Whether `func` is `set_loop_options`, spelled through a free name
        (and attributes of modules or of other objects: what it resolves to
        when the function is converted)."""
        path = []
        while isinstance(func, ast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or (path and path[0] != "set_loop_options"):
            return False
        if any(func.id in self._locals(scope) for scope in self.scopes):
            return False
        value = self.ctx.lookup(func.id)
        for attr in reversed(path):
            if isinstance(value, types.ModuleType):
                value = getattr(value, attr, None)
            else:
                # Another object (a namespace that re-exports the directive):
                # read without running properties or `__getattr__`.
                value = inspect.getattr_static(value, attr, None)
                if isinstance(value, staticmethod):
                    value = value.__func__
        return value is set_loop_options

    @staticmethod
    def _locals(scope: _Scope) -> set[str]:
        if scope.locals is None:
            scope.locals = activity.local_names(scope.node) if scope.node else set()
        return scope.locals

    # --- if --------------------------------------------------------------

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        live_out = anno.getanno(node, Live.OUT, frozenset())
        live_in = anno.getanno(node, Live.BODY_IN, frozenset()) | anno.getanno(
            node, Live.ORELSE_IN, frozenset()
        )
        modified = self._modified(node.body) | self._modified(node.orelse)
        is_tail = (self.returns_inside and _contains_return([node])) or (
            node in self.tail_ifs
        )
        self.tail_ifs.discard(node)
        if is_tail:
            # An `if` ending a branch gives that branch's value too, not
            # None: one whose branches both raise gives none, which the `if`
            # around it fills with its other branch's type (`if a: return x`
            # `else: (if b: raise ... else: raise ...)`).
            self.tail_ifs.update(
                block[-1]
                for block in (node.body, node.orelse)
                if block and isinstance(block[-1], ast.If)
            )
        outputs = [] if is_tail else sorted(modified & live_out)
        params = sorted(modified & live_in)
        inits = self._state_inits(node, params)
        namer = self.ctx.namer
        # (`loop_else`, `loop_returned` for the guards jump lowering writes
        # after a loop: the runtime's messages name the loop)
        body_name = namer.new_symbol(anno.getanno(node, anno.Basic.GUARD, "if_body"))
        # Without an else block, if_stmt returns the state as it came in;
        # write an else_body only when that is not what is needed.
        orelse_name = None
        returns = [
            self._unbound_after_return(node, b, outputs)
            for b in (node.body, node.orelse)
        ]
        if (
            node.orelse
            or (is_tail and params)
            or (outputs and outputs != params)
            or returns[1]
        ):
            orelse_name = namer.new_symbol("else_body")

        # def if_body(*params):          def else_body(*params):
        #     <body>                         <orelse>
        #     return (*outputs)              return (*outputs)
        body = self.visit_block(node.body)
        orelse = self.visit_block(node.orelse)
        if outputs:
            body.append(b.ret(_returned(outputs, returns[0])))
            orelse.append(b.ret(_returned(outputs, returns[1])))
        defs = [self._def(body_name, params, body)]
        if orelse_name:
            defs.append(self._def(orelse_name, params, orelse or [b.ret(None)]))

        # outputs = ag__.if_stmt(test, if_body, else_body, (*params),
        #                        ('output', ...), places=(...))
        # (trailing arguments left out where they are the defaults;
        # `return ag__.if_stmt(...)` for an `if` that ends its function)
        args = [node.test, b.name(body_name)]
        optional = [
            b.name(orelse_name) if orelse_name else b.const(None),
            b.names(params),
            b.strings(outputs),
        ]
        while optional and _is_default(optional[-1]):
            optional.pop()
        places = self._places([node.body, node.orelse])
        if (
            places is not None
            and self._is_guard(node.test)
            and any(_reads_names(place) for place in places.value.elts)
        ):
            # Jump lowering's `if do_return:`: where the flag is set, a name
            # a place reads may be unbound (`try: root = next(it)` /
            # `except StopIteration: return`), so the places are read only
            # if a backend takes the test (a staged return).
            places.value = b.thunk(places.value)
        call = b.ag_call(
            "if_stmt", *args, *optional, keywords=[places] if places else []
        )
        return _located(
            node, [*inits, *defs, _assign(None if is_tail else outputs, call)]
        )

    def _unbound_after_return(
        self, node: ast.If, block: list[ast.stmt], outputs: Sequence[str]
    ) -> set[str]:
        """Outputs that may be unbound at the end of a branch that returns.

        Returning sets the return flag (`do_return = True`, see
        `return_statements`); after that the function reads none of its
        variables but in a `finally`. Such outputs go out through
        `ag__.after_return`, so that a graph `if` does not ask for them to be
        defined in both branches.
        """
        if not outputs or not self.flags or not self.states:
            return set()
        # A guard of jump lowering, `if not do_return:`, has no else block:
        # the path around it is the one that returned.
        guard = (
            block is node.orelse
            and isinstance(node.test, ast.UnaryOp)
            and isinstance(node.test.op, ast.Not)
            and self._is_flag(node.test.operand)
        )
        if not guard and not self._returns(block):
            return set()
        must = anno.getanno(node, Defined.MUST_IN, frozenset())
        return set(outputs) - must - self.cache.writes(block)

    def _is_guard(self, test: ast.expr) -> bool:
        """Whether `test` is a jump flag or its negation (`not do_return`)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        return self._is_flag(test)

    def _is_flag(self, node: ast.AST | None) -> bool:
        """Whether `node` is the name of a return flag (`do_return`)."""
        return isinstance(node, ast.Name) and node.id in self.flags

    def _returns(self, block: list[ast.stmt]) -> bool:
        """Whether every path through `block` sets the return flag (or raises)."""
        for s in block:
            if (
                isinstance(s, ast.Assign)
                and self._is_flag(s.targets[0])
                and isinstance(s.value, ast.Constant)
                and s.value.value is True
            ):
                return True
            if (
                isinstance(s, ast.If)
                and self._returns(s.body)
                and self._returns(s.orelse)
            ):
                return True
            if isinstance(s, ast.Try) and (
                self._returns(s.finalbody)
                or (
                    not s.orelse
                    and self._returns(s.body)
                    and all(self._returns(h.body) for h in s.handlers)
                )
            ):
                return True
        return False

    # --- while -----------------------------------------------------------

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        live_out = anno.getanno(node, Live.OUT, frozenset())
        header = anno.getanno(node, Live.LOOP_HEADER, frozenset())
        test_writes = activity.writes(node.test)
        modified = self._modified(node.body) | (test_writes - self.scope.in_place)
        state = sorted(modified & (header | live_out))
        inits = self._state_inits(node, state)
        namer = self.ctx.namer
        test_name, body_name = (
            namer.new_symbol("loop_test"),
            namer.new_symbol("loop_body"),
        )

        # def loop_test(*state):         def loop_body(*state):
        #     return <test>                  <body>
        #                                    return (*state)
        opts = self._loop_options(node)
        body = self.visit_block(node.body)
        if state:
            body.append(b.ret(_returned(state)))
        test_def = self._def(test_name, state, [b.ret(node.test)])
        body_def = self._def(body_name, state, body)
        # state = ag__.while_stmt(loop_test, loop_body, (*state), opts={...},
        #                         places=(...))
        # The loop variables' names are the loop functions' parameters; the
        # operator reads them from there for its messages.
        args = [b.name(test_name), b.name(body_name)]
        if state:
            args.append(b.names(state))
        keywords = [] if opts is None else [b.keyword("opts", opts)]
        places = self._places([node.body], test_writes, node.test, loop=True)
        if places:
            keywords.append(places)
        call = b.ag_call("while_stmt", *args, keywords=keywords)
        orelse = self.visit_block(node.orelse)
        return _located(
            node, [*inits, test_def, body_def, _assign(state, call), *orelse]
        )

    # --- for -------------------------------------------------------------

    def visit_For(self, node: ast.For) -> list[ast.stmt]:
        live_out = anno.getanno(node, Live.OUT, frozenset())
        header = anno.getanno(node, Live.LOOP_HEADER, frozenset())
        targets = activity.writes(node.target)
        modified = self._modified(node.body)
        carried = targets - self.scope.in_place
        state = sorted((modified & (header | live_out)) | (carried & live_out))
        inits = self._state_inits(node, state)
        namer = self.ctx.namer
        body_name = namer.new_symbol("loop_body")
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        test_name = namer.new_symbol("extra_test") if extra_test is not None else None

        opts = self._loop_options(node)
        body = self.visit_block(node.body)
        if (
            isinstance(node.target, ast.Name)
            and node.target.id not in state
            and node.target.id not in self.scope.in_place
        ):
            item = node.target.id
        else:
            item = namer.new_symbol("itr")
            body.insert(0, b.assign(node.target, b.name(item)))  # <target> = itr
        # def loop_body(item, *state):    def extra_test(*state):
        #     <body>                          return <not break_ and ...>
        #     return (*state)
        if state:
            body.append(b.ret(_returned(state)))
        defs = [self._def(body_name, [item, *state], body)]
        # state = ag__.for_stmt(iter, loop_body, (*state), places=(...),
        #                       extra_test=extra_test, opts={...})
        args = [node.iter, b.name(body_name)]
        if state:
            args.append(b.names(state))
        keywords = []
        places = self._places([node.body], targets, loop=True)
        if places:
            keywords.append(places)
        if test_name is not None:
            defs.append(self._def(test_name, state, [b.ret(extra_test)]))
            keywords.append(b.keyword("extra_test", b.name(test_name)))
        if opts is not None:
            keywords.append(b.keyword("opts", opts))
        call = b.ag_call("for_stmt", *args, keywords=keywords)
        orelse = self.visit_block(node.orelse)
        return _located(node, [*inits, *defs, _assign(state, call), *orelse])


def _item_places(
    assigned: Sequence[ast.expr],
    written: AbstractSet[str],
    observed: AbstractSet[str] = frozenset(),
) -> list[ast.expr]:
    """`ag__.item(...)`/`ag__.attr(...)` for the items and attributes
    assigned (`ControlFlowTransformer._targets`), outermost first; those of
    an `observed` container (its text) are marked `observed=True`.

    A target is a place when it is a chain of constant or unchanged-name
    subscripts and attributes on a name the statements do not rebind
    (`d['a']`, `x[0]`, `d[k]`, `self.total`, `x['a']['b']`); one inside
    another place that is assigned too is carried with it.
    """
    found: dict[str, ast.expr] = {}
    untracked: dict[str, None] = {}
    targets = sorted(assigned, key=_position)
    for target in targets:
        place = _is_place(target, written)
        if place:
            found.setdefault(ast.unparse(target), target)
        elif place is None:
            untracked.setdefault(_as_written(target))
    places = []
    for text, target in found.items():
        if any(_is_prefix(other, text) for other in found if other != text):
            continue
        place = _place(target)
        if _as_written(target.value) in observed:
            place.keywords.append(b.keyword("observed", b.const(True)))
        places.append(place)
    # A backend refuses these: it could not carry them.
    for text in untracked:
        places.append(b.ag_call("untracked", b.const(text)))  # ag__.untracked('x[i]')
    return places


def _reads_names(place: ast.expr) -> bool:
    """Whether the place `ag__.item(...)`/`ag__.attr(...)` reads names when
    it is made (its container, a key); `ag__.var(lambda: x)` and
    `ag__.untracked('x[i]')` read none."""
    return isinstance(place, ast.Call) and (
        b.is_ag_attr(place.func, "item") or b.is_ag_attr(place.func, "attr")
    )


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _is_prefix(outer: str, text: str) -> bool:
    return text.startswith(outer) and text[len(outer)] in ".["


# Statements with one assignment target, `target` (see `_targets_of`).
_ONE_TARGET = frozenset({ast.AugAssign, ast.AnnAssign, ast.For})
_SCOPE_KINDS = frozenset(activity.SCOPES)


def _generated(node: ast.AST) -> bool:
    """A function conversion made of a converted statement's block (an inner
    statement converted first, as in a `try`'s `else`): what it assigns in
    place is the enclosing statement's too. A user's function is not."""
    return isinstance(node, ast.FunctionDef) and not anno.hasanno(
        node, anno.Basic.ORIGINAL_LOCALS
    )


def _is_place(node: ast.expr, written: AbstractSet[str]) -> bool | None:
    """True for a place; False for an item of something the statements
    rebind (its new value travels with the name); None for an item that
    cannot be carried (a key that changes or is computed, a slice)."""
    trackable = True
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript):
            key = node.slice
            if isinstance(key, ast.Name):
                trackable &= key.id not in written
            elif not isinstance(key, ast.Constant):
                trackable = False
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    if node.id in written:
        return False
    return trackable or None


class _Unload(ast.NodeTransformer):
    """`ag__.ld(x, ...)` (a read another pass wrapped) back to `x`."""

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        return node.args[0] if b.is_ag_attr(node.func, "ld") else node


def _as_written(node: ast.expr) -> str:
    """The text of the target `node` as the user wrote it, for messages."""
    if not any(isinstance(n, ast.Call) for n in ast.walk(node)):
        return ast.unparse(node)
    return ast.unparse(_Unload().visit(transformer.copy_node(node)))


def _place(node: ast.expr) -> ast.expr:
    """`ag__.item("d['a']", d, 'a')` or `ag__.attr("self.x", self, 'x')`."""
    container = node.value
    if isinstance(container, ast.Name):
        owner: ast.expr = b.name(container.id)
    else:  # read when the place is, through the place of the container
        owner = _place(container)
    text = b.const(ast.unparse(node))
    if isinstance(node, ast.Attribute):
        return b.ag_call("attr", text, owner, b.const(node.attr))
    key = node.slice
    key = b.name(key.id) if isinstance(key, ast.Name) else transformer.copy_node(key)
    return b.ag_call("item", text, owner, key)


def _located(node: ast.stmt, stmts: list[ast.stmt]) -> list[ast.stmt]:
    """Generated statements take the span of the statement they replace.

    Only the top-level statements are set here; the nodes inside them that
    have no position inherit it later (`codegen.fill_locations`), and the
    user's statements keep their own.
    """
    lineno = getattr(node, "lineno", None)
    if lineno is None:
        return stmts  # a generated statement: positions come later
    for stmt in stmts:
        if getattr(stmt, "lineno", None) is None:
            stmt.lineno, stmt.col_offset = lineno, node.col_offset
            stmt.end_lineno = node.end_lineno
            stmt.end_col_offset = node.end_col_offset
    return stmts


def _calls_user_code(keywords: list[ast.keyword]) -> bool:
    """Whether the arguments call a converted function or `print`."""
    return any(
        isinstance(n, ast.Call)
        and (b.is_ag_attr(n.func, "converted_call") or b.is_ag_attr(n.func, "print_"))
        for k in keywords
        for n in ast.walk(k.value)
    )


# The keyword arguments `set_loop_options` takes.
_LOOP_OPTIONS = frozenset(inspect.signature(set_loop_options).parameters)


def _is_default(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Tuple) and not node.elts


def _assign(outputs: Sequence[str] | None, call: ast.expr) -> ast.stmt:
    """`outputs = call`, `call` alone (no outputs) or `return call` (None)."""
    if outputs is None:
        return b.ret(call)
    if not outputs:
        return b.expr(call)
    if len(outputs) == 1:
        return b.assign(outputs[0], call)
    return b.assign(b.names(outputs, ast.Store), call)


def _has_docstring(body: list[ast.stmt]) -> bool:
    first = body[0] if body else None
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Runs liveness and definedness, then rewrites the control flow of `node`."""
    if not isinstance(node, activity.FUNCTIONS):
        ctx.rewrote = False
        return node  # a lambda has no statements
    cache = activity.Cache()
    liveness.annotate(node, cache)
    walrus = ast.NamedExpr in ctx.kinds  # (no pass emits one)
    transformer_ = ControlFlowTransformer(ctx, cache)
    transformer_.states = definedness.converted_states_needed(
        node, cache, walrus=walrus, outputs=bool(transformer_.flags)
    )
    if transformer_.states:
        definedness.annotate(node, converted=True, cache=cache, walrus=walrus)
    transformer_.presence_reads = anno.getanno(
        node, anno.Basic.PRESENCE_READS, frozenset()
    )
    node = transformer_.visit(node)
    if transformer_.tidy:
        # What cleanup would do to the generated functions is done, and it
        # has only `node` to see. (logical_expressions, which runs in
        # between, rewrites expressions only, none that tidying looks at:
        # names, constants, tuples, calls of the state operators.)
        anno.setanno(node, anno.Basic.TIDIED, True)
    return node
