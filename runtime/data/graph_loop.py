"""`for x in dataset:` inside a `Function`: one graph loop over the elements.

    iterator = MakeIterator()          # attr: the dataset; a fresh Python
    has, *x = IteratorGetNext(iterator)  # iterator each time the graph runs
    while has and <break/return flags>:
        state = body(x, state)
        if <break/return flags>:         # no element is taken past a break
            has, *x = IteratorGetNext(iterator)
        else:
            has = False

Both iterator ops are stateful (they run on every call, in program order).
The loop is the graph backend's `while_stmt` with the iterator's flag and
element as more loop variables, so everything a converted loop supports
(`break`, `continue`, `return`, places, loop-born names, loop options)
works here too. The graph holds the dataset by reference: its size does not
depend on the number of elements. Outside a graph, the loop is Python's.

This module registers `Dataset` types with `dispatch` for `for_stmt`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import control_flow, dtypes, nest, shapes
from runtime.context import STATE
from runtime.data.dataset import Dataset, convert_function, rest_of
from runtime.op_registry import OpDef, apply, convert_to_tensor, register
from runtime.operators import control_flow as operators
from runtime.operators import dispatch
from runtime.operators import graph_backend as _graph_backend  # noqa: F401  (while_stmt)
from runtime.operators.py_builtins import Rows
from runtime.operators.staging import where as where_
from runtime.ops import creation
from runtime.ops.state import ensure_defined
from runtime.tensor import EagerTensor, SymbolicTensor

__all__ = [
    "DatasetIterator",
    "GraphIterator",
    "get_next",
    "make_iterator",
    "reduce_in_graph",
]


class IteratorValue:
    """The run-time value of an iterator handle: a Python iterator over flat
    elements, plus what an exhausted iterator returns."""

    __slots__ = ("done", "iterator")
    dtype = dtypes.variant
    shape = ()
    ndim = 0

    def __init__(self, dataset: Dataset, inputs: Sequence[Any] = ()) -> None:
        dataset = dataset._built(inputs)
        self.iterator = dataset._flat_iter()
        self.done = tuple(
            np.zeros(
                tuple(0 if d is None else d for d in s.shape or ()), s.dtype.np_dtype
            )
            for s in dataset._flat_specs
        )

    def __repr__(self) -> str:
        return "<dataset iterator>"


def _make_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    return [(dtypes.variant, ())]


def _next_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    return [(dtypes.bool_, ()), *((s.dtype, s.shape) for s in attrs["specs"])]


def _next(handle: IteratorValue) -> tuple[Any, ...]:
    values = next(handle.iterator, None)
    if values is None:
        return (False, *handle.done)
    return (True, *values)


def _next_kernel(handle: IteratorValue, specs: Any) -> tuple[Any, ...]:
    return _next(handle)


_MAKE = register(
    OpDef(
        "MakeIterator",
        _make_rule,
        lambda *inputs, dataset: IteratorValue(dataset, inputs),
        stateful=True,
        default_name="iterator",
    )
)
_NEXT = register(
    OpDef(
        "IteratorGetNext",
        _next_rule,
        _next_kernel,
        stateful=True,
        num_outputs=-1,
        bind=lambda attrs: _next,
        default_name="iterator_get_next",
    )
)


def make_iterator(dataset: Dataset) -> Any:
    """An iterator handle over `dataset` (a fresh one each time it runs).

    A pipeline that starts from graph values (a `Function`'s dataset
    argument, or `from_tensor_slices` of graph tensors) takes them as inputs
    and builds its dataset from their values each time it runs.
    """
    root = dataset._argument()
    inputs = () if root is None else root.inputs
    return apply(_MAKE, inputs, {"dataset": dataset})


def get_next(handle: Any, dataset: Dataset) -> tuple[Any, list[Any]]:
    """(whether there was an element, its flat tensors: zeros if not)."""
    has, *leaves = apply(_NEXT, (handle,), {"specs": tuple(dataset._flat_specs)})
    return has, leaves


# Python code that iterates a graph iterator itself (`list(ds)` inside a
# Function) would never see its end while tracing: refused past this many.
_PYTHON_DRAWS = 10_000


class GraphIterator:
    """`iter(dataset)` inside a `Function`: an iterator op of the graph.

    `next(it)` adds an `IteratorGetNext` (stateful: it runs on every call,
    in program order) and gives the element, checked: past the end, the
    graph raises `rt.errors.OutOfRangeError` when it runs, as TensorFlow
    does. A converted `for x in it` is one graph loop over the rest.
    """

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.handle = make_iterator(dataset)
        self.draws = 0

    def __iter__(self) -> GraphIterator:
        return self

    def __next__(self) -> Any:
        self.draws += 1
        if self.draws > _PYTHON_DRAWS:
            raise TypeError(
                f"a dataset iterator was asked for more than {_PYTHON_DRAWS} elements "
                "while a Function was traced: inside a Function its end is known "
                "only when the graph runs, so iterate it with a converted `for` "
                "loop (or .reduce), not with Python code such as list(ds)"
            )
        has, leaves = get_next(self.handle, self.dataset)
        checked = [
            ensure_defined(has, leaf, "End of sequence", raises="OutOfRangeError")
            for leaf in leaves
        ]
        return nest.pack_sequence_as(self.dataset.element_spec, checked)

    def __repr__(self) -> str:
        return f"<graph iterator over {self.dataset!r}>"


class DatasetIterator:
    """`iter(dataset)` outside a `Function`: eager elements, one by one.

    Passed to a `Function` (as the guide's `good_consume_next(iterator)`
    does), `next(it)` while tracing is a graph op that draws from this very
    iterator each time the graph runs, as a TensorFlow iterator argument
    does: successive calls see successive elements, past the end the graph
    raises `rt.errors.OutOfRangeError`, and a converted `for x in it` is
    one graph loop over the rest. (The trace is keyed on the iterator's
    identity, like any other object argument.)
    """

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.value = IteratorValue(dataset)

    def __iter__(self) -> DatasetIterator:
        return self

    def __next__(self) -> Any:
        if STATE.graph is None:
            return self.dataset._pack(next(self.value.iterator))
        has, leaves = get_next(self.handle, self.dataset)
        checked = [
            ensure_defined(has, leaf, "End of sequence", raises="OutOfRangeError")
            for leaf in leaves
        ]
        return nest.pack_sequence_as(self.dataset.element_spec, checked)

    @property
    def handle(self) -> Any:
        """A handle op of the graph being built, for this iterator."""
        return apply(_PYTHON_HANDLE, (), {"iterator": self.value})

    def __repr__(self) -> str:
        return f"<iterator over {self.dataset!r}>"


_PYTHON_HANDLE = register(
    OpDef(
        "IteratorFromPython",
        _make_rule,
        lambda iterator: iterator,
        stateful=True,  # never folded into a constant, never pruned
        default_name="iterator",
    )
)


def _for_iterator(
    iterator: GraphIterator | DatasetIterator | Rows,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Sequence[Any] = (),
    opts: dict[str, Any] | None = None,
) -> Any:
    """`for x in it` over a graph iterator: the rest of its elements."""
    if STATE.graph is None:  # (a graph's iterator outside it: Python refuses)
        return NotImplemented
    if isinstance(iterator, Rows):  # enumerate(it) / zip(it, ...)
        return _for_dataset(iterator, body, state, names, extra_test, places, opts)
    return _loop(
        iterator.handle, iterator.dataset, body, state, names, extra_test, places, opts
    )


def _column(value: Any, where: str) -> Dataset:
    """A column of `zip(...)`/`enumerate(...)` with a dataset among them,
    inside a `Function`, as a dataset."""
    if isinstance(value, Rows):
        return rows_dataset(value, where)
    if isinstance(value, Dataset):
        return value
    if isinstance(value, (GraphIterator, DatasetIterator)):
        return rest_of(value.handle, value.dataset.element_spec)
    if isinstance(value, (SymbolicTensor, EagerTensor, np.ndarray)):
        return Dataset.from_tensor_slices(value)
    raise TypeError(
        f"the `for` loop{where} iterates over zip(...) of an rt.data.Dataset and "
        f"a {type(value).__name__}, which a graph loop over the dataset cannot "
        "iterate (its items would become tensors); make it a tensor (or "
        "Dataset.from_tensor_slices) first, or iterate the dataset alone"
    )


def rows_dataset(rows: Rows, where: str) -> Dataset:
    """`enumerate(ds, start)` / `zip(ds, ...)` inside a `Function` as the
    dataset TensorFlow's AutoGraph makes of them: `ds.enumerate(start)`,
    `Dataset.zip((ds, ...))` (a tensor or iterator among them as one too).
    A strict zip raises Python's ValueError when the graph runs, where the
    shortest ends."""
    columns = [_column(c, where) for c in rows.columns]
    if rows.start is not None:
        return columns[0].enumerate(rows.start)
    return Dataset.zip(tuple(columns), strict=rows.strict)


def _for_dataset(
    dataset: Dataset | Rows,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Sequence[Any] = (),
    opts: dict[str, Any] | None = None,
) -> Any:
    if STATE.graph is None:  # eagerly: Python's loop over the elements
        return operators.for_stmt(
            iter(dataset), body, state, names, extra_test, places=places, opts=opts
        )
    if isinstance(dataset, Rows):  # enumerate(ds) / zip(ds, ...)
        dataset = rows_dataset(dataset, where_.at(where_.current()))
    handle = make_iterator(dataset)
    return _loop(handle, dataset, body, state, names, extra_test, places, opts)


def _loop(
    handle: Any,
    dataset: Dataset,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Sequence[Any],
    opts: dict[str, Any] | None,
) -> Any:
    """The graph loop over what is left of iterator `handle` of `dataset`."""
    names = names or operators.state_names(body, skip=1)
    k = len(state)
    spec = dataset.element_spec
    flat_specs = dataset._flat_specs

    def take() -> tuple[Any, ...]:
        more, element = get_next(handle, dataset)
        return (more, *element)

    def fetch(values: Sequence[Any], previous: Callable[[], list[Any]]) -> Any:
        # The next element, drawn only while `break` and `return` let the
        # loop go on: an element past a `break` stays in the iterator (for a
        # later `for x in it` or `next(it)`, and a generator does not run
        # ahead), as in Python.
        if extra_test is None:
            return take()
        go = extra_test(*values)
        if isinstance(go, (bool, np.bool_)):
            return take() if go else (False, *previous())
        return control_flow.cond(go, take, lambda: (False, *previous()))

    def nothing() -> list[Any]:  # before the first element: zeros
        return [
            creation.zeros([d or 0 for d in s.shape or ()], s.dtype) for s in flat_specs
        ]

    has, *leaves = fetch(state, nothing)
    has = convert_to_tensor(has)  # a graph flag even when no loop can run
    m = len(leaves)

    def test(*values: Any) -> Any:
        more = values[k]
        if extra_test is None:
            return more
        flag = extra_test(*values[:k])
        if isinstance(flag, (bool, np.bool_)):
            return more if flag else False
        return control_flow.cond(more, lambda: flag, lambda: False)

    def step(*values: Any) -> tuple[Any, ...]:
        element = nest.pack_sequence_as(spec, list(values[k + 1 :]))
        out = operators.as_state(body(element, *values[:k]), k)
        return (*out, *fetch(out, lambda: list(values[k + 1 :])))

    loop_state = (*state, has, *leaves)
    loop_names = (
        *names,
        "the dataset iterator's has-next flag",
        *(["the dataset's next element"] * m),
    )
    first = test(*loop_state) if places else has
    if any(not shapes.is_fully_defined(s.shape) for s in dataset._flat_specs):
        # Elements of unknown shape: the state's shapes relax to fit them, as
        # TensorFlow's `Dataset.reduce` does (`loss += x` where x has no shape).
        opts = {**(opts or {}), "relax_shapes": True}
    impl = dispatch.lookup("while_stmt", has)
    result = impl(test, step, loop_state, loop_names, first, places=places, opts=opts)
    result = operators.as_state(result, k + 1 + m)
    return operators.unpack_state(result[:k])


def reduce_in_graph(
    dataset: Dataset, initial_state: Any, reduce_func: Callable[[Any, Any], Any]
) -> Any:
    """`Dataset.reduce` while a graph is built: one graph while loop."""
    fn = convert_function(reduce_func)
    handle = make_iterator(dataset)
    has, leaves = get_next(handle, dataset)
    state = nest.map_structure(convert_to_tensor, initial_state)
    spec = dataset.element_spec

    def cond(more: Any, state: Any, leaves: Any) -> Any:
        return more

    def body(more: Any, state: Any, leaves: Any) -> Any:
        new = fn(state, nest.pack_sequence_as(spec, list(leaves)))
        more, nxt = get_next(handle, dataset)
        return (more, new, nxt)

    result = control_flow.while_loop(cond, body, (has, state, leaves))
    return result[1]


def _subclasses(cls: type) -> list[type]:
    found = [cls]
    for sub in cls.__subclasses__():
        found.extend(_subclasses(sub))
    return found


def register_dataset_type(cls: type) -> None:
    """Makes `for` over instances of `cls` (a Dataset type) a graph loop."""
    dispatch.register("for_stmt", cls, _for_dataset)


for _cls in _subclasses(Dataset):
    register_dataset_type(_cls)
dispatch.register("for_stmt", GraphIterator, _for_iterator)
dispatch.register("for_stmt", DatasetIterator, _for_iterator)
