"""The graph backend's primitives for the staging core (`staging.backend`):
trial traces into scratch graphs, zeros of a value's type, the graph `cond`."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

from runtime import control_flow, dtypes, formatted, nest
from runtime import control_flow_checks as checks
from runtime.context import STATE, trial_trace
from runtime.errors import DTypeMismatch
from runtime.graph import Graph, keep_refusal
from runtime.op_registry import convert_to_tensor
from runtime.operators import verification
from runtime.operators.control_flow import as_state, unpack_state
from runtime.operators.staging import aliasing
from runtime.operators.staging import where as where_
from runtime.operators.variables import (
    is_undefined,
)
from runtime.ops import creation
from runtime.ops import math as math_ops
from runtime.ops.state import Variable, ensure_defined
from runtime.tensor import (
    SymbolicTensor,
)


def truth(value: Any) -> Any:
    """`value` as the bool a graph `cond` or `while` takes, as Python's truth
    test reads it: a numeric scalar tensor is `value != 0` (Python's
    `if n:`, and TensorFlow's If and While ops, which take any scalar); a
    bool tensor, or anything else, as it is (`rt.cond` refuses what no truth
    test reads: a string or a tensor of several elements). A Variable is
    the tensor it reads (`while n:` tests it on every iteration)."""
    if isinstance(value, Variable):
        value = value.read_value()
    if (
        isinstance(value, SymbolicTensor)
        and value.dtype is not dtypes.bool_
        and value.dtype in dtypes.NUMERIC
        and (value.shape is None or value.shape == ())
    ):
        return math_ops.not_equal(value, 0)
    return value


class _GraphBackend:
    """The graph runtime's primitives for the staging core (`staging.backend`)."""

    kind = "graph"
    program = "a graph"

    def checked_read(
        self,
        flag: Any,
        value: Any,
        message: str,
        raises: type[Exception] = UnboundLocalError,
    ) -> Any:
        # (A dict or list of tensors: each leaf is checked where it is read.)
        # The error is also a `raises` (`errors.raised_as`), as Python's.
        kind = raises.__name__
        return nest.map_structure(
            lambda leaf: ensure_defined(flag, leaf, message, raises=kind), value
        )

    def raise_at_run(self, error: Exception, message: str) -> None:
        # InvalidArgumentError("<type>: <message> (...)") when it runs (API.md).
        # The message shows the values of the graph tensors it shows.
        kind = type(error).__name__
        message = f"{kind}: {message}"
        shown = formatted.shown_in(message, readable_here)
        ensure_defined(False, 0, message, name="raise", raises=kind, shown=shown)

    def keep_refusal(self, refusal: Exception) -> None:
        keep_refusal(refusal, ours=True)  # raised when the trace ends

    def on_path(self, error: Exception) -> bool:
        return verification.raised_on_path(error)

    def branch_args(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        return state

    def trial(self, fn: Callable[[], Any]) -> Any:
        return dry_run(fn, ())

    def zeros(self, values: list[Any]) -> list[Any]:
        return [nest.map_structure(_zero_leaf, value) for value in values]

    def fill(self, value: Any, other: Any) -> Any:
        return _zeros_keeping_objects(other)

    def snapshot(self, values: list[Any]) -> list[Any]:
        return values  # (the graph's `cond` keeps objects itself)

    def keep_objects(self, out: list[Any], given: Any, copies: Any) -> list[Any]:
        return out

    def cond(
        self,
        pred: Any,
        true_fn: Callable[[], list[Any]],
        false_fn: Callable[[], list[Any]],
        keys: list[str],
    ) -> list[Any]:
        result = located_cond(
            pred,
            lambda: unpack_state(true_fn()),
            lambda: unpack_state(false_fn()),
            keys,
        )
        return list(as_state(result, len(keys)))


BACKEND = _GraphBackend()


def located_cond(
    pred: Any,
    true_fn: Callable[[], Any],
    false_fn: Callable[[], Any],
    names: Sequence[str],
) -> Any:
    """`control_flow.cond` of a converted `if` or `x if c else y` (two
    Python numbers give the wider, as in Python), its refusals naming the
    statement's line, which `rt.cond` does not know."""
    try:
        return control_flow.cond(
            truth(pred), true_fn, false_fn, names=names, python_numbers=True
        )
    except TypeError as error:
        located = not_a_tensor(error) or dtype_differs(error)
        if located is None:
            raise
        raise located from None
    except ValueError as error:
        located = set_on_one_path(error) or structure_differs(error)
        if located is None:
            raise
        raise located from None


# `checks.check_same_structure`'s refusal of one value.
_STRUCTURE_RULE = "; both branches must give it the same structure"


def structure_differs(error: ValueError) -> ValueError | None:
    """`rt.cond`'s refusal of a value whose structure differs between the
    branches (`error`), naming the statement's line, which `rt.cond` does
    not know; None for another error."""
    text = str(error)
    if _STRUCTURE_RULE not in text:
        return None
    at = where_.at(where_.current())
    return ValueError(
        text.replace(_STRUCTURE_RULE, f" in the graph `if`{at}{_STRUCTURE_RULE}", 1)
    )


# `checks.check_branch_dtypes`'s refusal of one value.
_DTYPE_RULE = " in the false branch; cast one of them so they match"


def dtype_differs(error: TypeError) -> DTypeMismatch | None:
    """`rt.cond`'s refusal of a value whose dtype differs between the
    branches (`error`), naming the statement's line; None for another
    error."""
    text = str(error)
    if not isinstance(error, DTypeMismatch) or _DTYPE_RULE not in text:
        return None
    at = where_.at(where_.current())
    rule = _DTYPE_RULE.replace(";", f" of the graph `if`{at};", 1)
    return DTypeMismatch(text.replace(_DTYPE_RULE, rule, 1))


# `checks.check_both_branches_set`'s refusal.
_SET_IN_ONE_BRANCH = re.compile(
    r"(.+) is (.+) in the true branch but (.+) in the false branch; give it a "
    r"value in both branches"
)


def not_a_tensor(error: TypeError) -> TypeError | None:
    """`rt.cond`'s refusal of an output no tensor can hold (`error`: a
    function, an object), naming the statement's line as the JAX backend's
    does (`rt.cond` knows no line); None for another error."""
    if "cannot be the result of a graph cond" not in str(error):
        return None
    # (e.g. an object a branch replaces while one holds tensors.)
    at = where_.at(where_.current())
    return TypeError(
        f"{error}, at the graph `if`{at}: a graph `if` carries tensors "
        "(and tuples, lists, dicts of them), and other values only "
        "where both branches give the same object; keep the object and "
        "assign its tensors, or choose with a Python value"
    )


def set_on_one_path(error: ValueError) -> ValueError | None:
    """`rt.cond`'s refusal of an output None on one path only (`error`),
    naming the statement's line as the JAX backend's does (`rt.cond` knows
    no line); None for another error."""
    found = _SET_IN_ONE_BRANCH.fullmatch(str(error))
    if found is None:
        return None
    label, a, b = found.groups()
    at = where_.at(where_.current())
    return ValueError(
        f"{label} is {a} on one path and {b} on the other, in the graph `if`{at}; "
        "a graph `if` needs a value of one kind on every path: give it one there"
    )


def _zeros_keeping_objects(value: Any) -> Any:
    """`zeros_like_spec(value)`, except that a list or dict whose values
    this graph can read stays the same object: a value never read, it then
    leaves the object the other branch gives unchanged (see
    `control_flow._keep_identity`), as Python would."""
    if type(value) in (list, dict) and all(
        readable_here(leaf) for leaf in nest.flatten(value, expand_composites=True)
    ):
        return value
    if nest.is_nested(value):
        children = [_zeros_keeping_objects(c) for c in nest.children(value)]
        return nest.rebuild(value, children)
    return _zero_leaf(value)


def _zero_leaf(value: Any) -> Any:
    """Zeros of a leaf's type; None, an undefined value and an object no
    tensor holds (a user's `Tally`, which the graph `cond` passes through
    when both branches give it) stand for themselves."""
    if value is None or is_undefined(value) or not checks.convertible(value):
        return value
    if type(value) in (bool, int, float):
        # A Python number's zero stays a Python number: the branch that
        # gives it never runs, and a number takes the other's dtype.
        return type(value)()
    return zeros_like_spec(value)


def readable_here(leaf: Any) -> bool:
    """Whether the graph being built can read `leaf` (not a tensor of a
    scratch graph)."""
    if not isinstance(leaf, SymbolicTensor):
        return True
    graph: Graph | None = STATE.graph
    while graph is not None:
        if leaf.graph is graph:
            return True
        graph = graph.outer_graph
    return False


def dry_run(body: Callable[..., Any], args: Sequence[Any]) -> Any:
    """Traces `body` once into a scratch graph that is thrown away.

    Used to learn the dtype and shape a value gets inside the loop (a return
    value, an empty list's elements). Python side effects of the body happen
    once more while tracing, as in TensorFlow, except the user's `print`
    (`context.trial_trace`).
    """
    outer = STATE.graph
    scratch = Graph("dry_run", outer_graph=outer)
    scratch.isolated = True  # what fails here may be tried another way
    with scratch.as_default(), aliasing.items_kept(), trial_trace():
        return body(*(_placeholders(scratch, a, True) for a in args))


def _placeholders(scratch: Graph, value: Any, top: bool = False) -> Any:
    """`value` with a placeholder of `scratch` for each `TypeGuess`, a
    tuple's, list's or dict's leaves too. A list that is an argument
    (`top`) is the trial's own and changed in place: whether the body
    appends to it or makes another shows in its identity."""
    if isinstance(value, TypeGuess):
        tensor = scratch.placeholder(value.dtype, value.shape)
        tensor.weak = value.weak
        return tensor
    if type(value) is list and top:
        value[:] = [_placeholders(scratch, v) for v in value]
    elif type(value) in (tuple, list):
        return type(value)(_placeholders(scratch, v) for v in value)
    elif type(value) is dict:
        return {k: _placeholders(scratch, v) for k, v in value.items()}
    return value


@dataclasses.dataclass(frozen=True)
class TypeGuess:
    """A type tried for a variable whose type a loop has not shown yet."""

    dtype: dtypes.DType
    shape: tuple[int | None, ...] | None
    weak: bool = False  # (a Python int's: `SymbolicTensor.weak`)


def zeros_like_spec(value: Any, relaxed: list[Any] | None = None) -> Any:
    """Zeros shaped like `value`, a (nested) value that may be of a scratch graph.

    A size (or rank) `value` does not know becomes 0 (a scalar); where
    `relaxed` is given, each such leaf is added to it as a `(zeros, shape)`
    pair, the shape invariant a loop carrying it needs (issue 22).
    """

    def zeros(leaf: Any) -> Any:
        if leaf is None:  # (a `return {'v': x, 'aux': None}`: no tensor)
            return None
        spec = leaf if isinstance(leaf, SymbolicTensor) else convert_to_tensor(leaf)
        if spec.dtype is dtypes.string:
            return convert_to_tensor("")
        if spec.shape is None:  # unknown rank
            out = creation.zeros((), dtype=spec.dtype)
        else:
            shape = tuple(0 if d is None else d for d in spec.shape)
            out = creation.zeros(shape, dtype=spec.dtype)
            if shape == spec.shape:
                return out
        if relaxed is not None:
            relaxed.append((out, spec.shape))
        return out

    return nest.map_structure(zeros, value)


def staged_and(a: Any, b: Callable[[], Any]) -> Any:
    return control_flow.cond(truth(a), b, lambda: a, names=["the value of the `and`"])
