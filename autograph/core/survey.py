"""What a function holds: one walk before conversion, and the markers it sets.

`survey` records the names the tree uses (generated names must differ) and
the node classes it holds, plus the markers below for what a node class
alone does not tell. The pipeline (`impl/transpiler.PIPELINE`) runs a pass
only if these kinds trigger it; each pass run adds what it emits.

    >>> import ast
    >>> source = "def f(xs):\\n    for x in xs:\\n        xs.pop()\\n    else: pass"
    >>> names, kinds = survey(ast.parse(source).body[0])
    >>> sorted(names)
    ['f', 'x', 'xs']
    >>> Marker.LOOP_ELSE in kinds, Marker.LIST_METHOD_CALL in kinds, ast.For in kinds
    (True, True, True)
"""

from __future__ import annotations

import ast
import enum

from autograph.pyct import transformer


class Marker(enum.Enum):
    """What `Context.kinds` holds besides node classes (and `ast.Not`, which
    stands for a `not`: operators are not walked).

    Set by the survey:
    """

    # By identity, as equality is: Enum's own hash is a Python call, and
    # the pipeline hashes markers in every `kinds` test (~80 per function).
    __hash__ = object.__hash__

    NESTED_FUNCTION = "a def inside the function"
    LOOP_ELSE = "a loop with an else block (break lowering moves it after the loop)"
    LIST_METHOD_CALL = "a call of a method named append or pop (lists rewrites them)"
    COMPARE_CHAIN = "a comparison chain, a < b < c (logical_expressions splits it)"
    RETURN_NOT_LAST = (
        "a return that is not the last statement of its function's body (return "
        "lowering has something to move, flag or merge)"
    )
    # Set by passes:
    UNBOUND_READ = (
        "an ag__.ld(x) read of a maybe-unbound local (cleanup checks those that "
        "moved into generated functions)"
    )
    GENERATED_CODE = "helper code a pass generated (flags, functions) for cleanup"
    DROPPED_CODE = (
        "dead code jump lowering dropped: it may have been the only binding of "
        "a local, which cleanup then keeps local"
    )


# The node classes the survey looks into (beyond noting their class).
_NOTED = frozenset(
    {
        ast.Name,
        ast.arg,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.Return,
        ast.alias,
        ast.ExceptHandler,
        ast.Global,
        ast.Nonlocal,
        ast.For,
        ast.While,
        ast.UnaryOp,
        ast.Compare,
        ast.Call,
    }
)


def survey(node: ast.AST) -> tuple[set[str], set[type | Marker]]:
    """The names `node` uses and the kinds it holds (node classes, markers).

    Names are every identifier a generated one could clash with: names read
    and bound, parameters, definitions, imports, `except ... as`, and
    `global`/`nonlocal` declarations.
    """
    names: set[str] = set()
    kinds: set[type | Marker] = set()
    # The returns that end a function's body (a function is popped before
    # the statements it holds): any other return triggers return lowering.
    last_returns: set[int] = set()
    child_fields_of = transformer.CHILD_FIELDS  # (a lookup, not a call, per node)
    stack: list = [node]
    while stack:  # a walk, in no particular order
        child = stack.pop()
        if not isinstance(child, ast.AST):
            continue  # e.g. the names of a `global` statement
        kind = type(child)
        kinds.add(kind)
        fields = child.__dict__
        names_ = child_fields_of.get(kind)
        for name in transformer.child_fields(kind) if names_ is None else names_:
            value = fields.get(name)
            if type(value) is list:
                stack.extend(value)
            elif value is not None:
                stack.append(value)
        if kind not in _NOTED:
            continue
        if kind is ast.Name:
            names.add(child.id)
        elif kind is ast.arg:
            names.add(child.arg)
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            names.add(child.name)
            if child is not node:
                kinds.add(Marker.NESTED_FUNCTION)
            body = child.body
            if body and type(body[-1]) is ast.Return:
                last_returns.add(id(body[-1]))
        elif kind is ast.Return and id(child) not in last_returns:
            kinds.add(Marker.RETURN_NOT_LAST)
        elif kind is ast.alias:
            names.add((child.asname or child.name).split(".")[0])
        elif kind is ast.ExceptHandler and child.name:
            names.add(child.name)
        elif kind in (ast.Global, ast.Nonlocal):
            names.update(child.names)
        elif kind in (ast.For, ast.While) and child.orelse:
            kinds.add(Marker.LOOP_ELSE)
        elif kind is ast.UnaryOp and type(child.op) is ast.Not:
            kinds.add(ast.Not)
        elif kind is ast.Compare and len(child.ops) > 1:
            kinds.add(Marker.COMPARE_CHAIN)
        elif (
            kind is ast.Call
            and type(child.func) is ast.Attribute
            and child.func.attr in ("append", "pop")
        ):
            kinds.add(Marker.LIST_METHOD_CALL)
    return names, kinds
