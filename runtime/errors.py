"""Errors raised while running ops, eagerly or in a graph.

    >>> import runtime as rt
    >>> try:
    ...     rt.gather([1, 2, 3], 7)
    ... except rt.errors.InvalidArgumentError as e:
    ...     print(e.op_type)
    GatherV2

Errors found while *building* a graph that are about types (`int32 + float32`)
raise `TypeError`; wrong values or shapes raise `InvalidArgumentError` both at
build time (when shapes are static) and at run time.
"""

from __future__ import annotations

__all__ = [
    "DTypeMismatch",
    "InvalidArgumentError",
    "OpError",
    "OutOfRangeError",
    "raised_as",
]


class DTypeMismatch(TypeError):
    """Two values that must share a dtype do not, found while building: an
    op's operands (`int32 + float32`), a loop variable before and after an
    iteration, a cond output's two branches. A `TypeError`, as TensorFlow's;
    a graph loop that fails with one may widen a Python number it carries
    (`total = 0` before float additions) and build again."""


class OpError(Exception):
    """An op could not run.

    Attributes:
        message: What went wrong, without the op context.
        op_type: The op's type (`"MatMul"`), or None.
        op_name: The graph node's name (`"matmul_1"`), or None for eager ops.
        location: `file:line` of the user code that created the op, or None.
    """

    def __init__(
        self,
        message: str,
        op_type: str | None = None,
        op_name: str | None = None,
        location: str | None = None,
    ) -> None:
        self.message = message
        self.op_type = op_type
        self.op_name = op_name
        self.location = location
        super().__init__(self._text())

    def _text(self) -> str:
        text = self.message
        if self.op_type is not None:
            text += f" [Op:{self.op_type}]"
        if self.op_name is not None:
            text += f" (node '{self.op_name}'"
            if self.location:
                text += f", created at {self.location}"
            text += ")"
        elif self.location:
            text += f" (at {self.location})"
        return text

    def with_context(
        self,
        op_type: str,
        op_name: str | None = None,
        location: str | None = None,
    ) -> OpError:
        """This error with the op context it lacks filled in."""
        filled = (
            self.op_type or op_type,
            self.op_name or op_name,
            self.location or location,
        )
        if filled == (self.op_type, self.op_name, self.location):
            return self
        return type(self)(self.message, *filled)

    def __reduce__(self):  # pragma: no cover - pickling support only
        return type(self), (self.message, self.op_type, self.op_name, self.location)


class InvalidArgumentError(OpError):
    """An op got a value it cannot work on: out-of-range index, wrong shape."""


class OutOfRangeError(OpError):
    """An iterator was asked for an element past its end."""


# One subclass per builtin exception type, made on first use.
_RAISED_AS: dict[type[BaseException], type[InvalidArgumentError]] = {}


def raised_as(error_type: type[BaseException]) -> type[InvalidArgumentError]:
    """The `InvalidArgumentError` a graph raises for an exception that Python
    code raised while a branch or loop body was traced (API.md): also an
    instance of `error_type` when that is a builtin exception, so an
    `except KeyError` around the call catches a missing item as in Python.

        >>> issubclass(raised_as(KeyError), KeyError)
        True
    """
    if error_type.__module__ != "builtins" or not issubclass(error_type, Exception):
        return InvalidArgumentError
    cls = _RAISED_AS.get(error_type)
    if cls is None:
        try:
            # Named as it is shown: `runtime.errors.InvalidArgumentError:
            # KeyError: 'b' (...)`; its message as written (KeyError's own
            # `str` would quote it).
            cls = type(
                "InvalidArgumentError",
                (InvalidArgumentError, error_type),
                {"__str__": Exception.__str__, "__module__": __name__},
            )
        except TypeError:  # a layout that cannot be combined (OSError)
            cls = InvalidArgumentError
        _RAISED_AS[error_type] = cls
    return cls
