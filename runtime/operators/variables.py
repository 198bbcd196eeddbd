"""Undefined values: what a variable holds before its first assignment.

Converted code passes state explicitly, so a variable that Python would leave
unbound (assigned in one branch only, deleted with `del`, first assigned in a
loop) holds an `Undefined` instead. Reading it through `ld` raises the same
`UnboundLocalError` Python would have raised at that read:

    >>> y = Undefined('y')
    >>> ld(y)
    Traceback (most recent call last):
    ...
    UnboundLocalError: cannot access local variable 'y' where it is not ...
"""

from __future__ import annotations

import sys

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import getattr, isinstance, setattr, type
from collections.abc import Callable
from typing import Any

from runtime.op_registry import convert_to_tensor
from runtime.tensor import register_tensor_conversion


def _unbound_message(name: str) -> str:
    # The wording changed in 3.11; use the running interpreter's.
    if sys.version_info >= (3, 11):
        return (
            f"cannot access local variable '{name}' where it is not associated "
            "with a value"
        )
    return f"local variable '{name}' referenced before assignment"


class Undefined:
    """The value of a variable that has not been assigned (yet) on this path.

    Attributes:
        symbol_name: The user's variable name, for error messages.
        deleted_by: What unbound it on this path, for error messages: "del"
            (`del x`), "except" (the end of an `except ... as x` block), or
            "" (never bound here).
        origin: The cell of a variable a statement carries in a place (a
            variable of a `try`), or None: each statement reads the empty
            cell as its own `Undefined`, and this tells they are one
            variable (`staging.born`).
    """

    __slots__ = ("deleted_by", "origin", "symbol_name")

    def __init__(
        self, symbol_name: str, deleted_by: str = "", origin: Any = None
    ) -> None:
        self.symbol_name = symbol_name
        self.deleted_by = deleted_by
        self.origin = origin

    def __repr__(self) -> str:
        return f"Undefined({self.symbol_name!r})"

    def __bool__(self) -> bool:
        raise UnboundLocalError(_unbound_message(self.symbol_name))


class Unbound:
    """Converted code's annotation of a local that lives in a cell and has no
    value yet (`x: ag__.Unbound`): the annotation makes `x` a variable of the
    function, which the functions it defines write as `nonlocal x`. Local
    annotations are never evaluated; this class only names the idea."""


class UndefinedReturnValue(Undefined):
    """The return value of a function that has not returned yet."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("retval_")


class UnboundUntilRun(Undefined):
    """A variable that a graph may or may not have assigned: whether it is
    bound is known only when the graph runs (a name first assigned inside a
    graph loop). Reading it (`ld`) gives `read()`: its value, checked where
    it is read, so the graph raises only if that read runs unassigned.

    Attributes:
        value: Its value if it is bound (a tensor; zeros if not).
        flag: Whether it is bound (a bool tensor, or a Python bool).
        message: The error a read raises when it is not.
        read: Returns `value`, checked (a graph op).
    """

    __slots__ = ("flag", "message", "read", "value")

    def __init__(
        self,
        symbol_name: str,
        value: Any,
        flag: Any,
        message: str,
        read: Callable[[], Any],
    ) -> None:
        super().__init__(symbol_name)
        self.value = value
        self.flag = flag
        self.message = message
        self.read = read

    def __repr__(self) -> str:
        return f"<{self.symbol_name}: unset unless a staged loop set it>"


def _checked_operator(name: str) -> Callable[..., Any]:
    def operator(self: UnboundUntilRun, *args: Any) -> Any:
        # Code the compiler did not wrap in `ag__.ld` (a helper reading an
        # item a loop of its caller may set): checked where it is used.
        return getattr(self.read(), name)(*args)

    operator.__name__ = name
    return operator


# An item or attribute a graph loop may be the first to set holds an
# `UnboundUntilRun` after it (`places.write_results`); these operators read
# it checked, so it never takes part in an expression unchecked.
_OPERATORS = (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__pow__",
    "__rpow__",
    "__matmul__",
    "__rmatmul__",
    "__neg__",
    "__pos__",
    "__abs__",
    "__invert__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__getitem__",
    "__int__",
    "__float__",
    "__index__).split(",
)
for _name in _OPERATORS:
    setattr(UnboundUntilRun, _name, _checked_operator(_name))


class UnboundAfterReturn(Undefined):
    """A variable still unbound on a path that has returned.

    Only a `finally` block may read it there (and raises, as in Python); a
    graph `if` may give it any value of its type in that branch, since the
    function reads it on no path that continues.
    """

    __slots__ = ()


def after_return(value: Any) -> Any:
    """The value of a variable on a branch that has returned (see above)."""
    if type(value) is Undefined:
        return UnboundAfterReturn(value.symbol_name)
    return value


def _free_message(name: str) -> str:
    if sys.version_info >= (3, 11):
        return (
            f"cannot access free variable '{name}' where it is not associated with a "
            "value in enclosing scope"
        )
    return f"free variable '{name}' referenced before assignment in enclosing scope"


def ld(value: Any, free: bool = False) -> Any:
    """Reads a variable that may be undefined on some path (raises like Python).

    Args:
        value: The variable's value.
        free: The read is in a nested function (a closure): Python raises
            NameError there rather than UnboundLocalError.
    """
    if type(value) is Undefined or type(value) is UnboundAfterReturn:
        if free:
            raise NameError(_free_message(value.symbol_name))
        raise UnboundLocalError(_unbound_message(value.symbol_name))
    if type(value) is UnboundUntilRun:
        return value.read()
    return value


def ld_cell(read: Callable[[], Any]) -> Any:
    """Reads a variable of the user's function that may be unbound, from a
    function it (or conversion) defined: `read` is `lambda: x`. Raises the
    UnboundLocalError that reading `x` in its own function raises, where
    Python would say NameError for a free variable; and like `ld` when `x`
    holds an Undefined value."""
    try:
        value = read()
    except NameError as e:
        if type(e) is not NameError:
            raise
        name = read.__code__.co_freevars[0]
        raise UnboundLocalError(_unbound_message(name)) from None
    return ld(value)  # it may also hold an Undefined value


def set_cell(read: Callable[[], Any], value: Any) -> Any:
    """`(x := value)` in a lazy operand, which conversion makes a lambda (a
    walrus there would bind a name of the lambda): sets the cell of the
    user's variable that `read` (`lambda: x`) reads, and gives `value`."""
    read.__closure__[0].cell_contents = value
    return value


def is_undefined(value: Any) -> bool:
    """True for `Undefined` and `UndefinedReturnValue` values."""
    return isinstance(value, Undefined)


def _convert_unbound_until_run(value: UnboundUntilRun, dtype: Any) -> Any:
    # Code that passes the item straight to an op (`rt.add(d['born'], 1)` in
    # a helper): the op reads it checked, as its operators do. (JAX has no
    # such hook: `verification.unset_reaches_library`.)
    return convert_to_tensor(value.read(), dtype)


register_tensor_conversion(UnboundUntilRun, _convert_unbound_until_run)
