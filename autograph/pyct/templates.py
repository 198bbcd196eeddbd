"""Code-shaped templates with named, checked placeholders.

A template is ordinary Python source. ``replace`` parses it and substitutes
the placeholders named by its keyword arguments:

* a ``Name`` in an expression or target position, e.g. ``test`` in
  ``if test: ...`` or ``state`` in ``state = f(state)``;
* a ``def`` or ``class`` name, e.g. ``def fn(): ...``;
* a parameter name, e.g. ``args`` in ``def fn(args): ...``;
* a keyword name in a call, e.g. ``key`` in ``f(key=1)``;
* a name standing alone as a statement, e.g. ``body`` in
  ``def fn():\\n    body``.

What a replacement may be, by where its placeholder stands:

======================  ====================================================
replacement             becomes
======================  ====================================================
``str``                 a ``Name`` (``"a.b"`` becomes ``a.b``), or the new
                        identifier of a ``def``/parameter/keyword
ast expression         a copy of it
list/tuple of the two   a ``Tuple`` of them, also with one element or none:
                        ``state`` given ``["a", "b"]`` in ``state = f()``
                        becomes ``(a, b) = f()``, given ``[]`` it becomes
                        ``() = f()``; as parameters, the parameters spliced in
ast statement(s)       only for a placeholder alone on its line: the
                        statements spliced in (an empty list removes the line;
                        a block left empty gets ``pass``)
======================  ====================================================

The ``ctx`` (Load/Store/Del) of what is inserted follows the place it
lands in, recursively through tuples, lists and starred targets. Replacements
are copied for every use (their annotations travel with the copies), so the
caller's nodes are never changed and one node may be used twice. The template's
own nodes carry no positions: give them the user's with
``origin_info.copy_locations``.

Example:
    >>> from autograph.pyct import parser
    >>> nodes = replace(
    ...     "state = fn(state, key=value)",
    ...     state=["x", "y"],
    ...     fn="ag__.step",
    ...     key="scale",
    ...     value=parser.parse_source("2 * k").body[0].value,
    ... )
    >>> (assign,) = nodes
    >>> parser.unparse(assign.targets[0]), parser.unparse(assign.value)
    ('(x, y)', 'ag__.step((x, y), scale=2 * k)')
"""

from __future__ import annotations

import ast
import keyword
import textwrap
from collections.abc import Mapping
from typing import Any, TypeVar

from autograph.pyct import anno, transformer

__all__ = ["copy_node", "replace", "replace_as_expression"]

_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_TARGETS = (ast.Name, ast.Attribute, ast.Subscript, ast.Starred)
_SEQUENCES = (ast.Tuple, ast.List)
# Blocks Python requires to be non-empty.
_NONEMPTY_BODIES = ("body",)

NodeT = TypeVar("NodeT")


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


def replace(template: str, /, **replacements: Any) -> list[ast.stmt]:
    """Parses ``template`` and substitutes its placeholders (see module doc).

    Args:
        template: Python statements; dedented first.
        **replacements: Placeholder name -> ``str``, ast node, or a list of them.

    Returns:
        The template's statements, without positions.

    Raises:
        ValueError: A keyword names no placeholder of the template, or a
            replacement cannot stand where its placeholder is.
        TypeError: A replacement is of an unsupported type.

    Example:
        >>> from autograph.pyct import parser
        >>> body = parser.parse_source("y = x\\nreturn y").body
        >>> print(parser.unparse(replace("def fn(args):\\n    body",
        ...                              fn="if_body", args=["x"], body=body)))
        def if_body(x):
            y = x
            return y
    """
    module = ast.parse(textwrap.dedent(template))
    return _substitute(module, replacements, template).body


def replace_as_expression(template: str, /, **replacements: Any) -> ast.expr:
    """Like ``replace`` for a template that is a single expression.

    Raises:
        ValueError: ``template`` is not one expression, or as for ``replace``.

    Example:
        >>> from autograph.pyct import parser
        >>> parser.unparse(replace_as_expression("fn(a, b)", fn="f", a="x",
        ...                                      b=["y", "z"]))
        'f(x, (y, z))'
    """
    try:
        expression = ast.parse(textwrap.dedent(template).strip(), mode="eval")
    except SyntaxError as error:
        raise ValueError(
            f"template is not a single expression: {template!r}"
        ) from error
    return _substitute(expression, replacements, template).body


def _substitute(tree: Any, replacements: Mapping[str, Any], template: str) -> Any:
    for node in transformer.walk(tree):
        for name in _POSITIONS:
            node.__dict__.pop(name, None)
    replacer = _Replacer(replacements)
    replacer.visit_fields(tree)
    unused = sorted(set(replacements) - replacer.used)
    if unused:
        names = ", ".join(repr(name) for name in unused)
        raise ValueError(
            f"the template has no placeholder {names}:\n{textwrap.dedent(template)}"
        )
    return tree


def _is_statements(value: Any) -> bool:
    if isinstance(value, ast.stmt):
        return True
    return isinstance(value, (list, tuple)) and all(
        isinstance(item, ast.stmt) for item in value
    )


def _name_chain(dotted: str, placeholder: str) -> ast.expr:
    parts = dotted.split(".")
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in parts):
        raise ValueError(
            f"replacement for {placeholder!r} is not a (dotted) name: {dotted!r}"
        )
    node: ast.expr = ast.Name(id=parts[0], ctx=ast.Load())
    for part in parts[1:]:
        node = ast.Attribute(value=node, attr=part, ctx=ast.Load())
    return node


def _set_ctx(node: ast.expr, ctx: ast.AST, placeholder: str) -> None:
    """Gives ``node`` (and the targets nested in it) the context ``ctx``."""
    if isinstance(node, _SEQUENCES):
        node.ctx = type(ctx)()
        for element in node.elts:
            _set_ctx(element, ctx, placeholder)
    elif isinstance(node, ast.Starred):
        node.ctx = type(ctx)()
        _set_ctx(node.value, ctx, placeholder)
    elif isinstance(node, _TARGETS):
        node.ctx = type(ctx)()
    elif not isinstance(ctx, ast.Load):
        raise ValueError(
            f"replacement for {placeholder!r} lands in a "
            f"{type(ctx).__name__} position, where a {type(node).__name__} "
            "cannot stand"
        )


def _as_identifier(value: Any, placeholder: str) -> str:
    if isinstance(value, ast.Name):
        value = value.id
    if not isinstance(value, str):
        raise TypeError(
            f"replacement for {placeholder!r} names a definition, parameter or "
            f"keyword, so it must be a str or a Name; got {type(value).__name__}"
        )
    if not value.isidentifier() or keyword.iskeyword(value):
        raise ValueError(
            f"replacement for {placeholder!r} is not an identifier: {value!r}"
        )
    return value


class _Replacer:
    """Walks a template, substituting placeholders and recording which it met."""

    def __init__(self, replacements: Mapping[str, Any]) -> None:
        self.replacements = replacements
        self.used: set[str] = set()

    def _take(self, name: str) -> Any:
        self.used.add(name)
        return self.replacements[name]

    def _is_placeholder(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id in self.replacements

    def visit_fields(self, node: ast.AST) -> None:
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                items: list[Any] = []
                for item in value:
                    if isinstance(item, ast.AST):
                        items.extend(self.visit_in_list(item))
                    else:
                        items.append(item)
                if value and not items and field in _NONEMPTY_BODIES:
                    items = [ast.Pass()]
                setattr(node, field, items)
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))

    def visit_in_list(self, node: ast.AST) -> list[ast.AST]:
        """Visits an item of a list field; what it returns is spliced in."""
        if isinstance(node, ast.Expr) and self._is_placeholder(node.value):
            value = self._take(node.value.id)
            if _is_statements(value):
                value = value if isinstance(value, (list, tuple)) else [value]
                return [copy_node(statement) for statement in value]
        if isinstance(node, ast.arg) and node.arg in self.replacements:
            value = self._take(node.arg)
            if isinstance(value, (list, tuple)):
                return [self._param(item, node) for item in value]
            return [self._param(value, node)]
        return [self.visit(node)]

    def visit(self, node: ast.AST) -> ast.AST:
        if self._is_placeholder(node):
            value = self._take(node.id)
            return self._expression(value, node.ctx, node.id)
        if isinstance(node, ast.arg) and node.arg in self.replacements:
            return self._param(self._take(node.arg), node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in self.replacements:
                node.name = self._identifier(node.name)
        elif isinstance(node, ast.keyword) and node.arg in self.replacements:
            node.arg = self._identifier(node.arg)
        self.visit_fields(node)
        return node

    def _identifier(self, placeholder: str) -> str:
        return _as_identifier(self._take(placeholder), placeholder)

    def _param(self, value: Any, template: ast.arg) -> ast.arg:
        """A parameter named by ``value`` in place of the ``template`` one."""
        if isinstance(value, (list, tuple)):
            raise ValueError(
                f"replacement for {template.arg!r} is a list, but it stands for a "
                "single parameter (*args or **kwargs)"
            )
        if isinstance(value, ast.arg):
            value = value.arg
        param = ast.arg(arg=_as_identifier(value, template.arg), annotation=None)
        if template.annotation is not None:
            param.annotation = self.visit(template.annotation)
        return param

    def _expression(self, value: Any, ctx: ast.AST, placeholder: str) -> ast.expr:
        if isinstance(value, str):
            node = _name_chain(value, placeholder)
        elif isinstance(value, ast.expr):
            node = copy_node(value)
        elif isinstance(value, (list, tuple)):
            elements = [self._expression(item, ctx, placeholder) for item in value]
            node = ast.Tuple(elts=elements, ctx=ast.Load())
        elif isinstance(value, ast.stmt):
            raise ValueError(
                f"replacement for {placeholder!r} is a statement "
                f"({type(value).__name__}), but the placeholder stands in an "
                "expression; put it alone on its own line in the template"
            )
        else:
            raise TypeError(
                f"replacement for {placeholder!r} must be a str, an ast node or a "
                f"list of them, got {type(value).__name__}"
            )
        _set_ctx(node, ctx, placeholder)
        return node
