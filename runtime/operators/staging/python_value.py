"""A staged value used where Python needs its value: as an int (a list's
index, `math.factorial(k)`), hashed (a set member, a dict key), as a bool.

Such an error, raised while a staged body is traced, is about tracing,
not on a path of the program: it is never deferred to run time. A `for`
over a Python range whose staged form raises it is unrolled instead (the
JAX backend); a loop that must be staged is refused, naming its index,
the function and the line that needs the value.
"""

from __future__ import annotations

import ast
import linecache
import re
from collections.abc import Callable
from typing import Any

from runtime.operators.staging import where as where_
from runtime.tensor import NeedsValueError

INT = "a Python int"
HASHED = "a hashable Python value (a set member or a dict key)"
BOOL = "a Python bool"
CONCRETE = "a concrete Python value"
ARRAY = "a NumPy value (a NumPy array indexed with it, a NumPy function's argument)"

# JAX's errors about a tracer used as a Python value (by class name: JAX is
# imported lazily), and the graph's (`NeedsValueError.use`).
_JAX = {
    "TracerIntegerConversionError": INT,
    "TracerBoolConversionError": BOOL,
    "ConcretizationTypeError": CONCRETE,
    "TracerArrayConversionError": ARRAY,
}
_GRAPH = {"int": INT, "float": CONCRETE, "hash": HASHED, "array": ARRAY}


def needs_python_value(error: BaseException) -> str | None:
    """What a staged value (a graph tensor, a JAX tracer) was used as
    where Python needs its value (`INT`, `HASHED`, ...), or None when
    `error` is not such an error."""
    if not isinstance(error, TypeError):
        return None
    if isinstance(error, StagedIndexError):
        return error.what
    if isinstance(error, NeedsValueError):
        return _GRAPH[error.use]
    for cls in type(error).__mro__:
        if cls.__name__ in _JAX:
            return _JAX[cls.__name__]
    text = str(error)
    if text.startswith("unhashable type") and "Tracer" in text:
        return HASHED
    return None


class StagedIndexError(TypeError):
    """A staged loop's body needs a staged value (its index) as a Python
    value (`what`): the refusal `refuse_in_loop` raises."""

    def __init__(self, message: str, what: str) -> None:
        super().__init__(message)
        self.what = what


def refuse_in_loop(
    error: BaseException,
    body: Callable[..., Any],
    skip: int,
    kind: str,
    where: str,
    part: str = "body",
) -> None:
    """Raises `StagedIndexError` from `error` if it is a staged value used
    as a Python value (`needs_python_value`) in the body (or the condition:
    `part`) of a `kind` loop (`where`: its `' at file:line'`; `skip`: 1 for
    a `for`, whose body's first parameter is the index): the message names
    the index, or the loop variable, the user's line reads, the function,
    and that line."""
    what = needs_python_value(error)
    if what is None or isinstance(error, StagedIndexError):
        return
    line = where_.deepest_user_line(error)
    source = linecache.getline(line.filename, line.lineno).strip() if line else ""
    at = f" at {line}" + (f" (`{source}`)" if source else "") if line else ""
    function = where_.user_function(body)
    loop = f"the {kind} loop{where}" + (f" in {function!r}" if function else "")
    index = _index_name(body) if skip else None
    variable = None if skip else _variable_read(body, source)
    if index is not None and re.search(rf"\b{index}\b", source):
        head = (
            f"the index {index!r} of {loop} is a traced {kind} value, but its body "
            f"needs it as {what}{at}"
        )
    elif variable is not None:
        head = (
            f"the loop variable {variable!r} of {loop} is a traced {kind} value, "
            f"but its {part} needs it as {what}{at}"
        )
    else:
        head = f"the {part} of {loop} needs a traced {kind} value as {what}{at}"
    advice = (
        "rt.gather on a tensor"
        if kind == "graph"
        else "an array indexed with it, jnp functions"
    )
    instead = (
        f"compute with {kind} ops instead ({advice}, rather than a Python list, "
        "dict, set or a function of Python ints)"
    )
    if what == ARRAY:
        array = _indexed(source, index or variable) or "a"
        make = "rt.constant" if kind == "graph" else "jnp.asarray"
        instead = (
            f"make the NumPy array a {'tensor' if kind == 'graph' else 'JAX array'} "
            f"before the loop (`{array} = {make}({array})`), which {kind} ops index"
        )
    raise StagedIndexError(
        f"{head}: a {kind} loop traces its body once, so no Python value exists "
        f"there; {instead}, or make the loop a Python loop: a `for` over range() "
        "of Python ints with no traced `break` or `return`",
        what,
    ) from error


def _indexed(source: str, name: str | None) -> str | None:
    """What the user's line `source` indexes with `name` (`W` of `W[k]`)."""
    if name is None:
        return None
    try:
        tree = ast.parse(source if not source.endswith(":") else f"{source} pass")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.slice)
        ):
            return ast.unparse(node.value)
    return None


def _variable_read(body: Callable[..., Any], source: str) -> str | None:
    """The first of a `while` loop's variables (its body's or condition's
    parameters) that the user's line `source` reads, or None."""
    code = getattr(body, "__code__", None)
    names = code.co_varnames[: code.co_argcount] if code is not None else ()
    return next((n for n in names if re.search(rf"\b{n}\b", source)), None)


def _index_name(body: Callable[..., Any]) -> str | None:
    """The `for` body's first parameter, the loop's target, if the user
    named it (not converted code's own item, for a tuple target)."""
    code = getattr(body, "__code__", None)
    if code is None or not code.co_argcount:
        return None
    name = code.co_varnames[0]
    return None if re.fullmatch(r"itr(_\d+)?", name) else name


_SEQUENCE = "setting an array element with a sequence"


def stored_in_array(error: BaseException) -> TypeError | None:
    """The refusal of a staged value stored into a NumPy array (`buf[0] =
    x`), for NumPy's own `error` ("setting an array element with a
    sequence.", from a graph tensor's or a JAX tracer's refusal to give a
    value), or None for any other error: it names the array, the value,
    the user's line, and what to write instead."""
    cause = error.__cause__
    if (
        type(error) is not ValueError
        or not str(error).startswith(_SEQUENCE)
        or cause is None
        or needs_python_value(cause) is None
    ):
        return None
    kind = "graph" if isinstance(cause, NeedsValueError) else "JAX"
    line = where_.deepest_user_line(error)
    source = linecache.getline(line.filename, line.lineno).strip() if line else ""
    store = _store(source)
    if store is None:
        return None
    array, item, key, value = store
    instead = (
        "collect the values in a Python list and `rt.stack` it, or write them "
        "into an rt.TensorArray"
        if kind == "graph"
        else f"`{array} = jnp.asarray({array}).at[{key}].set({value})`"
    )
    refusal = TypeError(
        f"`{item} = {value}` at {line} stores a traced {kind} value into the NumPy "
        f"array {array!r}: a NumPy array holds values Python has while the "
        f"function is traced, and {value!r} has none until it runs; keep the "
        f"values in a {'tensor' if kind == 'graph' else 'JAX array'} instead: "
        f"{instead}"
    )
    refusal.__cause__ = error
    return refusal


def _store(source: str) -> tuple[str, str, str, str] | None:
    """The array, item, key and value texts of an item store `a[k] = v`."""
    try:
        node = ast.parse(source).body[0]
    except (SyntaxError, IndexError):
        return None
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target = node.targets[0]
    if not isinstance(target, ast.Subscript):
        return None
    texts = (target.value, target, target.slice, node.value)
    array, item, key, value = (ast.unparse(t) for t in texts)
    return array, item, key, value
