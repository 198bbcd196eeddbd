"""Whether a list or dict two names share is ever observed as one object.

`aliasing.refuse_lost_aliases` refuses a staged statement after which one
name would hold a copy of a list or dict that Python's names share
(`ys = xs` before a graph loop that rebinds `ys`): a later change through
one name would not show in the other. Where nothing can make that change or
tell the two objects apart, the copy holds the same values as Python's
object, so the statement gives Python's value (as TensorFlow does) and is
not refused. `observation` decides that from the source of the user's
function, conservatively: any use it cannot read as a read of the values
keeps the refusal.

    xs = [0, 0]
    ys = xs
    for i in range(n):       # staged: `ys` becomes a copy of `xs`'s values
        ys = [ys[0] + 1, 0]
    return ys[0], xs[0]      # only reads: Python's value, not refused

    ...
    xs[0] += 1               # a change through one name: refused, as before

The names (`holders`, with every name a `zs = ys` assignment makes another
holder) are observed only through reads: an item or slice read (`xs[i]`,
`xs[1:]`), a truth or comparison test other than `is`, iteration, `in`, an
operator (`xs + [z]`, a new list), a reading method (`d.get`, `d.keys()`,
`xs.count`, ...), a builtin that only reads (`len`, `sum`, `list`, ...),
`return` from the function itself (what it returns is a copy anyway), and
printing. A holder is bound only to a fresh container (a display, a
comprehension, `list(...)`, an operator's result), to another holder, or
to an item of one; never as a parameter, in a nested function or class, or
through `global`/`nonlocal`, so no code outside the function holds the
object. The object's items must be immutable (numbers, strings, tensors, tuples
of them), so an item read cannot reach anything a change could go through.
"""

from __future__ import annotations

import ast
import builtins
import functools
import linecache
import types

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import all, any, frozenset, isinstance, min, set, tuple, type
from collections.abc import Iterable, Mapping
from typing import Any

from runtime.tensor import Tensor

_READING_CALLS = frozenset(
    {
        "all",
        "any",
        "bool",
        "dict",
        "enumerate",
        "float",
        "int",
        "isinstance",
        "iter",
        "len",
        "list",
        "max",
        "min",
        "print",
        "repr",
        "reversed",
        "sorted",
        "str",
        "sum",
        "tuple",
        "type",
        "zip",
    }
)
"""Builtins that read a list or dict given them and keep no way to change it
(`iter`, `zip`, `enumerate`, `reversed`: an iterator over it)."""
_FRESH_CALLS = frozenset({"dict", "list", "sorted"})
"""Builtins whose result is a new list or dict."""
_NAMESPACE_CALLS = frozenset({"eval", "exec", "locals", "vars"})
"""Builtins through which a function may use a name its source does not
spell out (`locals()['ys'].append(1)`)."""
_READING_METHODS = frozenset(
    {"copy", "count", "get", "index", "items", "keys", "values"}
)
_IMMUTABLE = (bool, int, float, complex, str, bytes, type(None))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def observation(
    code: types.CodeType,
    global_names: Mapping[str, Any],
    holders: Iterable[str],
    obj: Any,
) -> str | None:
    """How the function of `code` (the user's, its globals `global_names`)
    may observe the list or dict `obj`, which the names `holders` all hold,
    as one object: the first use of a holder that is more than a read of
    its values (`"`sb[0] += 1` at f.py:8"`), or why no use can be relied
    on ("its items may change"; "" where the source cannot be found). None
    where every use reads its values only (see the module docstring)."""
    if not _immutable_items(obj):
        return "its items may change"
    function = _function_node(code)
    if function is None:
        return ""
    return _first_use(function, set(holders), global_names, code.co_filename)


def _immutable_items(obj: Any) -> bool:
    items = obj.values() if isinstance(obj, dict) else obj
    return all(_immutable(v) for v in items)


def _immutable(value: Any) -> bool:
    if isinstance(value, (*_IMMUTABLE, Tensor)):
        return True
    if type(value) is tuple:
        return all(_immutable(v) for v in value)
    # A JAX array (a tracer too) is immutable; a NumPy array is not.
    return type(value).__module__.partition(".")[0] in ("jax", "jaxlib")


def _function_node(code: types.CodeType) -> ast.AST | None:
    """The `def` of `code` in its file's source, or None."""
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return None
    tree = _parsed("".join(lines))
    if tree is None:
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == code.co_name
            # (A decorated function's code starts at its first decorator.)
            and min(d.lineno for d in (node, *node.decorator_list))
            == code.co_firstlineno
        ):
            return node
    return None


@functools.lru_cache(maxsize=8)
def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _first_use(
    function: ast.AST,
    holders: set[str],
    global_names: Mapping[str, Any],
    filename: str,
) -> str | None:
    """The first use in `function` of a name of `holders` (or of a name
    assigned one) that is more than a read; None if there is none."""
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    names = _with_aliases(function, holders)
    bound, otherwise = _bound_names(function)
    if not names <= bound or names & otherwise:
        # Not made here (a parameter, an import): others may hold it.
        return "a caller or another object may hold it"

    def builtin(name: str) -> bool:
        if name in bound or not hasattr(builtins, name):
            return False
        return global_names.get(name, getattr(builtins, name)) is getattr(
            builtins, name
        )

    use = _Uses(parents, names, builtin)
    found = [
        node
        for node in ast.walk(function)
        if (
            isinstance(node, ast.Name)
            and node.id in _NAMESPACE_CALLS
            and builtin(node.id)
        )
        or (isinstance(node, (ast.Global, ast.Nonlocal)) and names & set(node.names))
        or (
            isinstance(node, ast.Name)
            and node.id in names
            and (_nested(node, parents, function) or not use.reads(node))
        )
    ]
    if not found:
        return None
    first = min(found, key=lambda node: (node.lineno, node.col_offset))
    statement = first
    while not isinstance(statement, ast.stmt) and statement in parents:
        statement = parents[statement]
    text = ast.unparse(statement).splitlines()[0]
    return f"`{text}` at {filename}:{statement.lineno}"


def _with_aliases(function: ast.AST, holders: set[str]) -> set[str]:
    """`holders` and every name assigned one of them (`zs = ys`)."""
    names = set(holders)
    grown = True
    while grown:
        grown = False
        for node in ast.walk(function):
            value = getattr(node, "value", None)
            if isinstance(value, ast.Name) and value.id in names:
                for target in _assigned(node):
                    if isinstance(target, ast.Name) and target.id not in names:
                        names.add(target.id)
                        grown = True
    return names


def _assigned(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
        return [node.target]
    return []


def _bound_names(function: ast.AST) -> tuple[set[str], set[str]]:
    """The names `function` (and what it nests) binds: all, and those bound
    otherwise than by an assignment to a name (a parameter, `def`, `class`,
    `import`, `except ... as`, a `match` capture)."""
    other = _parameters(function.args)
    assigned = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            assigned.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other.add(node.name)
        elif isinstance(node, ast.alias):
            other.add(node.asname or node.name.partition(".")[0])
        elif isinstance(node, ast.arg):
            other.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) or type(node).__name__ in (
            "MatchAs",
            "MatchStar",
        ):
            if node.name:
                other.add(node.name)
        elif type(node).__name__ == "MatchMapping" and node.rest:
            other.add(node.rest)
    return assigned | other, other


def _parameters(args: ast.arguments) -> set[str]:
    every = (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
    return {a.arg for a in every if a is not None}


def _nested(node: ast.AST, parents: dict[ast.AST, ast.AST], function: ast.AST) -> bool:
    """Whether `node` is inside a function, lambda or class `function`
    defines (its names there may be the object let out of the function)."""
    parent = parents.get(node)
    while parent is not None and parent is not function:
        if isinstance(parent, _SCOPES):
            return True
        parent = parents.get(parent)
    return False


class _Uses:
    """Reads the use of a holder's name (`reads`)."""

    def __init__(
        self,
        parents: dict[ast.AST, ast.AST],
        names: set[str],
        builtin: Any,
    ) -> None:
        self.parents, self.names, self.builtin = parents, names, builtin

    def reads(self, node: ast.Name) -> bool:
        """Whether this use of the name only reads the object's values,
        or binds the name to a fresh object or another holder's."""
        parent = self.parents[node]
        if isinstance(node.ctx, ast.Del):
            return True  # (`del ys` unbinds the name)
        if isinstance(node.ctx, ast.Store):
            # `ys = ...` (not `ys += ...`, which changes a list in place).
            return (
                isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
                and parent.value is not None
                and self._fresh(parent.value)
            )
        if isinstance(parent, ast.Subscript):
            return isinstance(parent.ctx, ast.Load)  # an item or a slice
        if isinstance(parent, ast.Attribute):
            call = self.parents.get(parent)
            return (
                parent.attr in _READING_METHODS
                and isinstance(call, ast.Call)
                and call.func is parent
            )
        if isinstance(parent, ast.Call):
            return (
                node in parent.args
                and isinstance(parent.func, ast.Name)
                and parent.func.id in _READING_CALLS
                and self.builtin(parent.func.id)
            )
        if isinstance(parent, ast.Compare):
            return not any(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
            return parent.iter is node
        in_bool_op = False
        while isinstance(parent, ast.BoolOp):
            node, parent, in_bool_op = parent, self.parents[parent], True
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            return parent.test is node
        if in_bool_op:  # (`xs or ys` may be the object itself)
            return isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)
        if isinstance(parent, (ast.UnaryOp, ast.BinOp, ast.FormattedValue, ast.Expr)):
            return True
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            # `zs = ys`: `zs` is a holder too (`_with_aliases`).
            return all(isinstance(t, ast.Name) for t in _assigned(parent))
        if isinstance(parent, ast.Tuple):
            parent = self.parents.get(parent)
        return isinstance(parent, ast.Return)

    def _fresh(self, value: ast.AST) -> bool:
        """Whether `value` is a new object, a holder's, or an item of one."""
        if isinstance(
            value,
            (ast.List, ast.Dict, ast.ListComp, ast.DictComp, ast.Constant, ast.BinOp),
        ):
            return True
        if isinstance(value, ast.Name):
            return value.id in self.names
        if isinstance(value, ast.Subscript):
            return isinstance(value.value, ast.Name) and value.value.id in self.names
        if isinstance(value, ast.IfExp):
            return self._fresh(value.body) and self._fresh(value.orelse)
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in _FRESH_CALLS
            and self.builtin(value.func.id)
        )
