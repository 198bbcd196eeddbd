"""Tree walking: base visitors, and child iteration that skips what has no children.

Converters subclass `Base` and return replacement nodes from `visit_*`
methods; a list of statements may replace one statement. Analyses subclass
`Visitor`. Conversion walks each tree several times, so walking is cheap
here: the fields a node class can hold children in are computed once per
class (`child_fields`), leaving out expression contexts (`Load`, `Store`,
`Del`) and operator singletons (`Add`, `Not`, `Lt`, ...), which have no
children, carry no positions and are never rewritten; they are a third of
a typical tree's nodes.

    >>> import ast
    >>> child_fields(ast.Name), child_fields(ast.BinOp)
    ((), ('left', 'right'))
    >>> statement_fields(ast.If), statement_fields(ast.Lambda)
    (('body', 'orelse'), ())
    >>> [type(n).__name__ for n in walk(ast.parse("y = -x").body[0])]
    ['Assign', 'Name', 'UnaryOp', 'Name']
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from autograph.pyct import anno

NodeT = TypeVar("NodeT")

# Fields that never hold a node with children (on Python >= 3.10): names and
# other scalars, expression contexts, and operators.
_LEAF_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "ops",
        "id",
        "attr",
        "arg",
        "name",  # a str (FunctionDef, alias, ...), but see _NODE_NAMED
        "asname",
        "module",
        "level",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "simple",
        "tag",
    }
)
# Node classes whose `name` is a node: 3.12's `type X = ...` (ast.TypeAlias).
_NODE_NAMED = frozenset({"TypeAlias"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}
CHILD_FIELDS = _CHILD_FIELDS
"""`child_fields`' cache, class -> fields, for walks that look a class up
per node without a call (a class not in it yet: call `child_fields`)."""
_BLOCK_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
_STATEMENT_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls: type) -> tuple[str, ...]:
    """The fields of node class `cls` that may hold child nodes (cached)."""
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        leaves = _LEAF_FIELDS
        if cls.__name__ in _NODE_NAMED:
            leaves = leaves - {"name"}
        fields = tuple(f for f in cls._fields if f not in leaves)  # type: ignore[attr-defined]
        _CHILD_FIELDS[cls] = fields
    return fields


def statement_fields(cls: type) -> tuple[str, ...]:
    """The fields of node class `cls` that hold statements (or handlers)."""
    fields = _STATEMENT_FIELDS.get(cls)
    if fields is None:
        if issubclass(cls, (ast.stmt, ast.excepthandler, ast.match_case)):
            fields = tuple(f for f in cls._fields if f in _BLOCK_FIELDS)  # type: ignore[attr-defined]
        else:
            fields = ()  # e.g. a Lambda's body is an expression
        _STATEMENT_FIELDS[cls] = fields
    return fields


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The children of `node` in field order (contexts and operators left out)."""
    children: list[ast.AST] = []
    cls = type(node)
    fields = _CHILD_FIELDS.get(cls)
    for field in child_fields(cls) if fields is None else fields:
        value = getattr(node, field, None)
        if type(value) is list:
            children.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


def child_statements(node: ast.AST) -> list[ast.AST]:
    """The statements (and except handlers) in the blocks of `node`: what a
    search for a statement needs to look at (expressions hold none)."""
    children: list[ast.AST] = []
    for field in statement_fields(type(node)):
        children.extend(getattr(node, field, ()))
    return children


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and its descendants, depth first in field order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children = child_nodes(current)
        children.reverse()
        stack.extend(children)


def copy_node(node: NodeT) -> NodeT:
    """A deep copy of an ast node (or list of nodes) that keeps annotations.

    Fields and positions are copied recursively; each node's annotation dict
    is copied but its values are shared. (``copy.deepcopy`` also keeps them,
    but would copy whatever they refer to, e.g. the whole tree behind an
    analysis scope.)

    Example:
        >>> import ast
        >>> from autograph.pyct import anno
        >>> name = ast.Name(id="x", ctx=ast.Load())
        >>> anno.setanno(name, anno.Basic.QN, "x")
        >>> twin = copy_node(name)
        >>> twin is name, anno.getanno(twin, anno.Basic.QN)
        (False, 'x')
    """
    if isinstance(node, list):
        return [copy_node(item) for item in node]  # type: ignore[return-value]
    if not isinstance(node, ast.AST):
        return node
    new = type(node).__new__(type(node))
    for name in (*node._fields, *node._attributes):
        if name in node.__dict__:
            setattr(new, name, copy_node(node.__dict__[name]))
    if anno.ANNO_FIELD in node.__dict__:
        new.__dict__[anno.ANNO_FIELD] = dict(node.__dict__[anno.ANNO_FIELD])
    return new


def copy_blocks(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """A copy of a statement list for a trial rewrite of its blocks.

    Each statement (and except handler) is a new node, with its annotation
    dict copied (values shared, as `copy_node` does) and its blocks copied
    likewise; expressions are shared with the original: the trial may
    replace a statement's fields and blocks, never change an expression in
    place. (Expressions are most of a tree's nodes: cheaper than `copy_node`.)

    Example:
        >>> import ast
        >>> loop = ast.parse("for x in xs:\\n    if x:\\n        continue").body[0]
        >>> (twin,) = copy_blocks([loop])
        >>> twin is loop, twin.body[0] is loop.body[0], twin.iter is loop.iter
        (False, False, True)
    """
    out: list[ast.stmt] = []
    for stmt in stmts:
        cls = type(stmt)
        new = cls.__new__(cls)
        fields = new.__dict__
        fields.update(stmt.__dict__)
        if anno.ANNO_FIELD in fields:
            fields[anno.ANNO_FIELD] = dict(fields[anno.ANNO_FIELD])
        for field in statement_fields(cls):
            block = fields.get(field)
            if block:
                fields[field] = copy_blocks(block)
        out.append(new)
    return out


class _Dispatch:
    """Per visitor class, node class -> the function that visits it.

    `visit` looks the function up once per node class, not per node, and
    calls it unbound; a generic visit calls it directly for each child
    rather than through `visit`, unless the subclass overrides `visit`. A
    node class the visitor has no method for and whose nodes have no
    children to visit (names and constants for most visitors, statements
    without blocks for `statements_only` ones; also what is not a node,
    such as a dict's None key) maps to `_leaf`: a generic visit passes such
    a child over without a call (a third to a half of the children).
    """

    _table: dict[type, Callable[[Any, ast.AST], Any]] = {}
    _direct = True
    statements_only = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._table = {}
        cls._direct = cls.visit is _Dispatch.visit

    @staticmethod
    def _leaf(self: Any, node: ast.AST) -> Any:  # (the visit of a `_leaf` node)
        raise NotImplementedError

    def _method(self, cls: type) -> Callable[[Any, ast.AST], Any]:
        own = type(self)
        method = getattr(own, "visit_" + cls.__name__, None) or own.generic_visit
        if method is own.generic_visit and (
            not issubclass(cls, ast.AST)  # (a name in `global x`, a None key)
            or not (statement_fields if own.statements_only else child_fields)(cls)
        ):
            method = own._leaf
        own._table[cls] = method
        return method

    def visit(self, node: ast.AST) -> Any:
        """Dispatches to `visit_<Class>` (or `generic_visit`), like ast's."""
        cls = type(node)
        return (self._table.get(cls) or self._method(cls))(self, node)

    def generic_visit(self, node: ast.AST) -> Any:  # pragma: no cover
        raise NotImplementedError


class Visitor(_Dispatch, ast.NodeVisitor):
    """An `ast.NodeVisitor` that walks only fields that can hold children."""

    @staticmethod
    def _leaf(self: Any, node: ast.AST) -> None:
        return None

    visit_Constant = _leaf  # (not ast.NodeVisitor's, for deprecated names)

    def generic_visit(self, node: ast.AST) -> None:
        """Visits the children of `node`."""
        table = self._table
        direct = self._direct
        leaf = self._leaf
        # The two branches dispatch alike but stay unrolled: wrapping a
        # single child in a tuple made every walk ~15% slower.
        cls = type(node)
        fields = _CHILD_FIELDS.get(cls)  # (inlined `child_fields`: a call per node)
        for field in child_fields(cls) if fields is None else fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if direct:
                        cls = type(item)
                        method = table.get(cls) or self._method(cls)
                        if method is not leaf:
                            method(self, item)
                    elif isinstance(item, ast.AST):
                        self.visit(item)
            elif value is not None:
                if direct:
                    cls = type(value)
                    method = table.get(cls) or self._method(cls)
                    if method is not leaf:
                        method(self, value)
                elif isinstance(value, ast.AST):
                    self.visit(value)


def keep_position(new: Any, old: ast.AST) -> None:
    """Gives `new` (a node or a list of them, replacing `old`) `old`'s
    source position where it has none: code generated for a statement or
    expression stands at its line (tracebacks and messages name it), not at
    the enclosing statement's or the `def`'s."""
    if isinstance(new, list):
        for item in new:
            keep_position(item, old)
        return
    position = old.__dict__
    if (
        isinstance(new, ast.AST)
        and "lineno" in new._attributes
        and new.__dict__.get("lineno") is None
        and position.get("lineno") is not None
    ):
        ast.copy_location(new, old)


class Base(_Dispatch, ast.NodeTransformer):
    """An ast NodeTransformer carrying the conversion context `ctx`.

    A subclass that rewrites statements only sets `statements_only`: its
    generic visits then enter only statement blocks, never expressions
    (most of a tree's nodes).
    """

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    @staticmethod
    def _leaf(self: Any, node: ast.AST) -> ast.AST:
        return node

    visit_Constant = _leaf  # (not ast.NodeVisitor's, for deprecated names)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        """Visits the children of `node`, replacing them with what visits return.

        Same contract as `ast.NodeTransformer.generic_visit` (None removes a
        child from a list, a list splices in), but a list is only rebuilt when
        a visit changed something.
        """
        cls = type(node)
        if self.statements_only:
            fields = _STATEMENT_FIELDS.get(cls)
            if fields is None:
                fields = statement_fields(cls)
        else:
            fields = _CHILD_FIELDS.get(cls)
            if fields is None:
                fields = child_fields(cls)
        table = self._table
        direct = self._direct
        leaf = self._leaf
        for field in fields:
            old = getattr(node, field, None)
            if type(old) is list:
                new: list[Any] | None = None
                for i, item in enumerate(old):
                    if direct:
                        kind = type(item)
                        method = table.get(kind) or self._method(kind)
                        if method is leaf:  # (also what is no node)
                            if new is not None:
                                new.append(item)
                            continue
                        result = method(self, item)
                    elif isinstance(item, ast.AST):
                        result = self.visit(item)
                    else:
                        if new is not None:
                            new.append(item)
                        continue
                    if new is None:
                        if result is item:
                            continue
                        new = old[:i]
                    if result is None:
                        continue
                    keep_position(result, item)
                    if isinstance(result, list):
                        new.extend(result)
                    else:
                        new.append(result)
                if new is not None:
                    old[:] = new
            elif old is not None:
                if direct:
                    kind = type(old)
                    method = table.get(kind) or self._method(kind)
                    if method is leaf:
                        continue
                    result = method(self, old)
                elif isinstance(old, ast.AST):
                    result = self.visit(old)
                else:
                    continue
                if result is None:
                    delattr(node, field)
                elif result is not old:
                    keep_position(result, old)
                    setattr(node, field, result)
        return node

    def visit_block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """Visits a statement list; a visit may return None, a node or a list."""
        out: list[ast.stmt] = []
        for stmt in stmts:
            result = self.visit(stmt)
            if result is None:
                continue
            if result is not stmt:
                keep_position(result, stmt)
            if isinstance(result, list):
                out.extend(result)
            else:
                out.append(result)
        return out
