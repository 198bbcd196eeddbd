"""Which code objects conversion made, and which of them it generated.

`is_converted_code`: code produced by conversion (a converted function and
the functions and lambdas nested in it, which are converted already), so
`converted_call` runs it as it is. `is_generated_code`: the functions the
compiler generated from a user's (converted statements' bodies, thunks),
whose frames stand for the user's function's frame (runtime.operators.frames).
Both are held weakly, by identity.
"""

from __future__ import annotations

import ast
import types
import weakref

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import id, isinstance, len, type
from collections.abc import Set as AbstractSet
from typing import Any

from autograph.pyct import transformer

__all__ = [
    "WeakIdentityMap",
    "is_converted_code",
    "is_generated_code",
    "remember",
    "user_names",
]


class WeakIdentityMap:
    """A dict keyed by objects' identity, holding its keys weakly.

    Not `weakref.WeakKeyDictionary`: that compares keys with `==`, and code
    objects of different functions compare equal when their bytecode, names
    and line match (the file is not compared). An entry made for one would
    then serve the other, and die with the first.
    """

    def __init__(self) -> None:
        self._data: dict[int, tuple[weakref.ref[Any], Any]] = {}

    def get(self, key: Any) -> Any:
        found = self._data.get(id(key))
        if found is not None and found[0]() is key:
            return found[1]
        return None

    def set(self, key: Any, value: Any) -> None:
        data, ident = self._data, id(key)

        def forget(ref: weakref.ref[Any]) -> None:
            found = data.get(ident)
            if found is not None and found[0] is ref:
                del data[ident]

        data[ident] = (weakref.ref(key, forget), value)

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


# Code objects made by conversion, nested ones included: functions and
# lambdas defined inside converted code are converted already. The value
# says whether the compiler generated it (`is_generated_code`); one map, so
# each code object costs one weak reference.
# Held weakly, by identity, like `_cache`.
_converted_codes = WeakIdentityMap()
_OPTIMIZED = 0x1  # inspect.CO_OPTIMIZED: a function's code, not a class body's
_USERS, _GENERATED = "user's", "generated"  # the values


def is_converted_code(code: types.CodeType) -> bool:
    """Whether `code` was produced by conversion."""
    return _converted_codes.get(code) is not None


def remember(code: types.CodeType, user_names: AbstractSet[str]) -> None:
    """Remembers `code` and the functions nested in it as converted, except
    class bodies: they run as Python, and their methods are converted when
    called (a class body's code is not `CO_OPTIMIZED`).

    Also which nested functions the compiler generated (`is_generated_code`):
    those not named in `user_names` (the user's own functions, lambdas and
    comprehensions).
    """
    stack = [code]
    while stack:
        current = stack.pop()
        generated = current is not code and current.co_name not in user_names
        _converted_codes.set(current, _GENERATED if generated else _USERS)
        for const in current.co_consts:
            if type(const) is types.CodeType and const.co_flags & _OPTIMIZED:
                stack.append(const)


def is_generated_code(code: types.CodeType) -> bool:
    """Whether `code` is a function the compiler generated from a user's
    (a converted statement's body, a thunk): its frames stand for the
    user's function's frame."""
    return _converted_codes.get(code) is _GENERATED


def user_names(node: ast.AST, code: types.CodeType | None = None) -> set[str]:
    """The code names of the functions the user wrote in `node`; thunks the
    compiler makes (`lambda: x`) are told from the user's lambdas by their
    parameters, so a user's lambda without any counts all as the user's.

    With `code`, the code object compiled from `node`: when it holds no
    nested code (most functions: no nested function, lambda or
    comprehension), `node` is not walked. (Nested code the compiler dropped
    as unreachable is code that converted code never runs either.)
    """
    names = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}
    if code is not None and not any(type(c) is types.CodeType for c in code.co_consts):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Lambda) and not _has_parameters(node):
            names.add("<lambda>")
        return names
    fields_of = transformer.CHILD_FIELDS  # (a lookup, not a call, per node)
    stack: list = [node]
    while stack:  # (in no particular order)
        child = stack.pop()
        if not isinstance(child, ast.AST):
            continue  # e.g. the names of a `global` statement
        kind = type(child)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            names.add(child.name)
        elif kind is ast.Lambda and not _has_parameters(child):
            names.add("<lambda>")
        fields = fields_of.get(kind)
        values = child.__dict__
        for field in transformer.child_fields(kind) if fields is None else fields:
            value = values.get(field)
            if type(value) is list:
                stack.extend(value)
            elif value is not None:
                stack.append(value)
    return names


def _has_parameters(node: ast.Lambda) -> bool:
    a = node.args
    return bool(a.posonlyargs or a.args or a.vararg or a.kwonlyargs or a.kwarg)
