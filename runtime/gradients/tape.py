"""`GradientTape`: records ops, then walks them backwards.

The walk (`backprop`) is shared by tapes and by the gradients of `If` and
`While`, which record a replay of their subgraphs on a private tape. A
record is an `Operation` (graph mode) or an `_Record` with the same
`opdef`, `inputs`, `outputs` and `attrs` (eager mode).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from runtime import dtypes, nest
from runtime.context import STATE
from runtime.graph import Graph
from runtime.op_registry import OpDef, convert_to_tensor, lookup_variable
from runtime.ops.creation import ones_like, zeros_like
from runtime.ops.grad_ops import (
    DIFFERENTIABLE,
    add_grads,
    needs_gradient,
    wanting_gradients,
    zeros_for,
)
from runtime.ops.state import Variable
from runtime.tensor import SymbolicTensor, Tensor

__all__ = [
    "GradientTape",
    "SubgraphGrads",
    "backprop",
    "differentiable",
    "needs_gradient",
]


def differentiable(t: Any) -> bool:
    """Whether gradients flow through tensor `t` (floats and list handles)."""
    return isinstance(t, Tensor) and t.dtype in DIFFERENTIABLE


class _Record:
    """One eagerly run op, as a tape keeps it."""

    __slots__ = ("attrs", "inputs", "opdef", "outputs")

    def __init__(
        self,
        opdef: OpDef,
        inputs: Sequence[Any],
        outputs: Sequence[Any],
        attrs: dict[str, Any],
    ) -> None:
        self.opdef = opdef
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.attrs = attrs

    @property
    def name(self) -> str:
        return self.opdef.default_name

    @property
    def location(self) -> None:
        return None


class SubgraphGrads:
    """What the gradient of an op with subgraphs returns: input gradients and
    the gradients of the variables its subgraphs read (by variable id)."""

    def __init__(self, inputs: list[Any], variables: dict[int, Any]) -> None:
        self.inputs = inputs
        self.variables = variables


def _subgraphs(op: Any) -> list[Any]:

    return [v for v in op.attrs.values() if isinstance(v, Graph)]


class GradientTape:
    """Records operations for reverse-mode differentiation (`rt.GradientTape`).

    Args:
        persistent: Allow several `gradient` calls (else only one).
        watch_accessed_variables: Watch every trainable `rt.Variable` read
            while the tape is active.
    """

    def __init__(
        self, persistent: bool = False, watch_accessed_variables: bool = True
    ) -> None:
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._all_variables = False  # private tapes of subgraph gradients
        self._records: list[Any] = []
        self._watched: set[int] = set()
        self._keep: list[Any] = []  # watched tensors stay alive: ids stay unique
        self._variables: dict[int, Any] = {}
        self._used = False

    # -- recording -------------------------------------------------------------

    def __enter__(self) -> GradientTape:
        STATE.tapes = (*STATE.tapes, self)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop()

    def _stop(self) -> None:
        STATE.tapes = tuple(t for t in STATE.tapes if t is not self)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops run inside the block are not recorded."""
        active = self in STATE.tapes
        self._stop()
        try:
            yield
        finally:
            if active:
                STATE.tapes = (*STATE.tapes, self)

    def watch(self, tensor: Any) -> None:
        """Watches `tensor` (a tensor, a `Variable`, or a nest of them)."""

        for leaf in nest.flatten(tensor):
            if isinstance(leaf, Variable):
                self._variables[leaf.id] = leaf
            elif isinstance(leaf, Tensor):
                self._watched.add(id(leaf))
                self._keep.append(leaf)
            else:
                raise TypeError(
                    f"GradientTape.watch takes tensors and Variables, got "
                    f"{type(leaf).__name__} {leaf!r}"
                )

    def watched_variables(self) -> list[Any]:
        """The variables this tape watches, in the order it saw them."""
        return list(self._variables.values())

    def _watches_variable(self, var_id: int) -> bool:
        if var_id in self._variables:
            return True
        try:
            var = lookup_variable(var_id)
        except KeyError:
            return False
        if not (self._all_variables or (self._watch_accessed and var.trainable)):
            return False
        if var.dtype not in dtypes.FLOATING:
            return False
        self._variables[var_id] = var
        return True

    def _record(
        self,
        opdef: OpDef,
        inputs: Sequence[Any],
        outputs: Sequence[Any],
        attrs: dict[str, Any],
        op: Any = None,
    ) -> None:
        """Called for every op run or built while this tape is active."""
        watched = self._watched
        if opdef.var_access == "read":
            if not self._watches_variable(attrs["var_id"]):
                return
        elif not any(id(x) in watched for x in inputs) and not (
            op is not None
            and any(
                self._watches_variable(v) for g in _subgraphs(op) for v in g.variables
            )
        ):
            return
        if op is not None and opdef.name == "While":
            _keep_iterations(op)
        record = op if op is not None else _Record(opdef, inputs, outputs, attrs)
        self._records.append(record)
        for t in outputs:
            if t.dtype in DIFFERENTIABLE:
                watched.add(id(t))

    # -- differentiating -------------------------------------------------------

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: str = "none",
    ) -> Any:
        """d(sum of `target`)/d`sources`, with the structure of `sources`.

        Args:
            target: A tensor or a nest of tensors (their gradients add up).
            sources: Tensors and `Variable`s, nested in lists, tuples, dicts.
            output_gradients: Gradients of `target` (default: ones).
            unconnected_gradients: "none" (None for a source `target` does
                not depend on) or "zero" (zeros of the source's shape).

        Raises:
            RuntimeError: A second call on a non-persistent tape.
            LookupError: An op on the path has no gradient (names the op).
        """

        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(
                "unconnected_gradients must be 'none' or 'zero', got "
                f"{unconnected_gradients!r}"
            )
        if self._used:
            raise RuntimeError(
                "a non-persistent GradientTape can compute gradients only once; "
                "use GradientTape(persistent=True) to call gradient() again"
            )
        with self.stop_recording():
            targets = nest.flatten(target)
            seeds = (
                [None] * len(targets)
                if output_gradients is None
                else nest.flatten(output_gradients)
            )
            grads: dict[int, Any] = {}
            for t, seed in zip(targets, seeds):
                if isinstance(t, Variable):
                    raise TypeError(
                        "the target of tape.gradient must be a tensor computed "
                        f"under the tape, not the Variable {t.name!r}"
                    )
                t = convert_to_tensor(t)
                g = ones_like(t) if seed is None else convert_to_tensor(seed, t.dtype)
                grads[id(t)] = add_grads(grads.get(id(t)), g)
            grads, var_grads = backprop(self._records, grads, self._watched)
            results = []
            for s in nest.flatten(sources):
                if isinstance(s, Variable):
                    g = var_grads.get(s.id)
                elif isinstance(s, Tensor):
                    g = grads.get(id(s))
                else:
                    raise TypeError(
                        "tape.gradient sources must be tensors or Variables, got "
                        f"{type(s).__name__} {s!r}"
                    )
                if g is None and unconnected_gradients == "zero":
                    g = zeros_like(s)
                results.append(g)
        if not self._persistent:
            self._used = True
            self._records = []
        return nest.pack_sequence_as(sources, results)


def backprop(
    records: Sequence[Any], grads: dict[int, Any], watched: set[int] | None = None
) -> tuple[dict, dict]:
    """Walks `records` backwards from `grads` (tensor id -> gradient).

    `watched` (the recording tape's) lets gradient functions skip operands
    that depend on no source (`needs_gradient`).

    Returns:
        (tensor id -> gradient, variable id -> gradient); `grads` is updated.

    Raises:
        LookupError: A gradient reaches an op that declares none.
    """
    with wanting_gradients(watched):
        return _walk(records, grads)


def _walk(records: Sequence[Any], grads: dict[int, Any]) -> tuple[dict, dict]:
    var_grads: dict[int, Any] = {}
    for record in reversed(records):
        out_grads = [grads.get(id(t)) for t in record.outputs]
        if all(g is None for g in out_grads):
            continue
        opdef = record.opdef
        if opdef.var_access == "read":
            var_id = record.attrs["var_id"]
            var_grads[var_id] = add_grads(var_grads.get(var_id), out_grads[0])
            continue
        if opdef.grad is None:
            where = record.location
            raise LookupError(
                f"no gradient is defined for op type {opdef.name!r} "
                f"(op {record.name!r}{'' if where is None else f' created at {where}'})"
                "; it cannot be differentiated. Wrap its input in rt.stop_gradient "
                "if no gradient should flow through it"
            )
        result = opdef.grad(record, out_grads)
        if isinstance(result, SubgraphGrads):
            for var_id, g in result.variables.items():
                var_grads[var_id] = add_grads(var_grads.get(var_id), g)
            result = result.inputs
        for x, g in zip(record.inputs, result):
            if g is None or not isinstance(x, Tensor):
                continue
            grads[id(x)] = add_grads(grads.get(id(x)), g)
    return grads, var_grads


def _keep_iterations(op: Any) -> None:
    """Makes a graph `While` keep its iterations' loop variables (one more
    output, a list), which its gradient walks backwards."""

    if op.attrs.get("record"):
        return
    op.attrs["record"] = True
    n = len(op.outputs)
    op.outputs = (*op.outputs, SymbolicTensor(op, n, dtypes.variant, ()))


def private_tape(sources: Sequence[Any]) -> GradientTape:
    """A persistent tape watching `sources` and every variable read."""
    tape = GradientTape(persistent=True)
    tape._all_variables = True
    for s in sources:
        tape._watched.add(id(s))
        tape._keep.append(s)
    return tape


def zeros_if_none(g: Any, like: Any) -> Any:
    """`g`, or a zero gradient shaped like `like`."""
    return zeros_for(like) if g is None else g
