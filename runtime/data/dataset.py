"""`Dataset`: a pipeline of elements, each a nest of tensors.

    >>> import runtime as rt
    >>> ds = rt.data.Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0]))
    >>> [x.numpy().tolist() for x, y in ds.batch(2)]
    [[1, 2], [3]]
    >>> ds.element_spec
    (TensorSpec(shape=(), dtype=rt.int32), TensorSpec(shape=(), dtype=rt.float32))

Internally a dataset produces *flat* elements: tuples of NumPy values, one
per leaf of `element_spec` (`nest.flatten` order); iteration packs them into
the element structure as eager tensors. Functions given to `map`, `filter`
and `reduce` are converted (when `autograph` is loaded: it installs its
converter with `set_function_converter`) and traced once into a graph for
the element spec, which then runs once per element. Everything runs on
demand, in the thread that iterates: `prefetch` is accepted and changes
nothing.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from runtime import dtypes, executor, nest
from runtime.context import STATE
from runtime.errors import InvalidArgumentError, raised_as
from runtime.graph import Graph
from runtime.op_registry import OpDef, apply, convert_to_tensor, register
from runtime.shapes import is_compatible
from runtime.tensor import EagerTensor, Tensor, as_numpy
from runtime.tensor_spec import TensorSpec

__all__ = [
    "INFINITE",
    "UNKNOWN",
    "Dataset",
    "DatasetSpec",
    "convert_function",
    "set_function_converter",
]

INFINITE = -1
UNKNOWN = -2

_CONVERTER: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = []


def set_function_converter(
    convert: Callable[[Callable[..., Any]], Callable[..., Any]],
) -> None:
    """Installs the function that converts `map`/`filter`/`reduce` functions
    before they are traced (autograph's `to_graph`; `runtime` never imports it)."""
    _CONVERTER[:] = [convert]


def convert_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` converted by the installed converter (`fn` itself if none)."""
    return _CONVERTER[0](fn) if _CONVERTER else fn


def _leaf_value(value: Any) -> np.ndarray:
    if isinstance(value, Tensor):
        if not isinstance(value, EagerTensor):
            raise TypeError(
                f"a dataset cannot be built from the graph tensor {value.name!r}; "
                "build it outside the Function (or pass it as an argument)"
            )
        return np.asarray(value.numpy())
    if hasattr(value, "read_value"):  # a Variable: its current value
        return np.asarray(value.numpy())
    return np.asarray(as_numpy(value))


def _structure(value: Any) -> Any:
    """`value` with lists (and arrays) as leaves: only tuples and dicts nest."""
    if isinstance(value, tuple):
        return tuple(_structure(v) for v in value)
    if isinstance(value, dict):
        return {k: _structure(v) for k, v in value.items()}
    return _leaf_value(value)


def _leaves(value: Any) -> list[Any]:
    """The leaves of an element: only tuples and dicts nest (a list is one
    tensor), dicts in sorted key order as `nest.flatten` has them."""
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _leaves(value[k])]
    return [value]


def _spec_of(leaf: np.ndarray, drop_first: bool) -> TensorSpec:
    shape = leaf.shape[1:] if drop_first else leaf.shape
    return TensorSpec(shape, dtypes.from_numpy(leaf.dtype))


def _call(fn: Callable[..., Any], element: Any) -> Any:
    """`fn(*element)` for a tuple element, else `fn(element)` (as TF does)."""
    if type(element) is tuple:
        return fn(*element)
    return fn(element)


class _TracedFunction:
    """A user function traced once for an element spec; runs on flat values."""

    def __init__(self, fn: Callable[..., Any], spec: Any, what: str, extra: Any = None):
        converted = convert_function(fn)
        graph = Graph(f"{what}_{getattr(fn, '__name__', 'fn')}")
        with graph.as_default():
            structure = spec if extra is None else (extra, spec)
            leaves = [
                graph.placeholder(s.dtype, s.shape) for s in nest.flatten(structure)
            ]
            packed = nest.pack_sequence_as(structure, leaves)
            if extra is None:
                out = _call(converted, packed)
            else:
                out = converted(packed[0], packed[1])
            out = nest.map_structure(convert_to_tensor, out)
        flat = nest.flatten(out)
        self.output_spec = nest.pack_sequence_as(
            out, [TensorSpec(t.shape, t.dtype) for t in flat]
        )
        self.graph = graph
        self._run = executor.compile(graph, leaves, flat)

    def __call__(self, values: Sequence[Any]) -> list[Any]:
        return self._run(list(values))


class Dataset:
    """A sequence of elements (nests of tensors) built by a pipeline.

    Make one with `Dataset.range`, `from_tensor_slices`, `from_tensors` or
    `from_generator`; transformations return new datasets.
    """

    def __init__(self, element_spec: Any) -> None:
        self._element_spec = element_spec
        self._flat_specs: list[TensorSpec] = nest.flatten(element_spec)

    # -- what subclasses provide ----------------------------------------------

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        """Flat elements: tuples of NumPy values, one per spec leaf."""
        raise NotImplementedError

    def _cardinality(self) -> int:
        return UNKNOWN

    # -- a Function's dataset argument --------------------------------------------

    def _argument(self) -> _GraphRoot | None:
        """The graph root (see `_GraphRoot`) this pipeline starts from, if any."""
        source = getattr(self, "_source", None)
        return None if source is None else source._argument()

    def _with_argument(self, dataset: Dataset) -> Dataset:
        """This pipeline, starting from `dataset` instead of the argument."""
        source = getattr(self, "_source", None)
        if source is None:
            return self
        rebuilt = copy.copy(self)
        rebuilt._source = source._with_argument(dataset)
        return rebuilt

    def _built(self, inputs: Sequence[Any]) -> Dataset:
        """This pipeline as it runs: its graph root (if any) built from the
        values `inputs` of the root's input tensors."""
        root = self._argument()
        return self if root is None else self._with_argument(root.build(inputs))

    # -- reading ----------------------------------------------------------------

    @property
    def element_spec(self) -> Any:
        """The structure of an element, a `TensorSpec` per tensor."""
        return self._element_spec

    def cardinality(self) -> Tensor:
        """The number of elements (int64): -1 infinite, -2 unknown.

        Inside a `Function`, a pipeline that starts from graph values (a
        dataset argument, `range(n)` with a tensor `n`) whose size is not
        known while tracing is counted when the graph runs (an op), as
        TensorFlow counts it; a size known while tracing is a constant.
        """
        n = self._cardinality()
        root = self._argument()
        if n != UNKNOWN or root is None or STATE.graph is None:
            return EagerTensor(np.int64(n))
        return apply(_CARDINALITY, root.inputs, {"dataset": self})

    def _pack(self, values: Sequence[Any]) -> Any:
        return nest.pack_sequence_as(
            self._element_spec, [EagerTensor(v) for v in values]
        )

    def __iter__(self) -> Iterator[Any]:
        """Eager tensors, element by element (`iter(ds)`, `next(it)`).

        While a graph is built (inside a `Function`), an iterator op of the
        graph instead: `next(it)` draws the next element when the graph
        runs, and past the end raises `rt.errors.OutOfRangeError` then; a
        converted `for x in it` continues where the last `next` stopped.
        """
        # (graph_loop imports this module: the allow-listed lazy import)
        from runtime.data.graph_loop import DatasetIterator, GraphIterator

        if STATE.graph is not None:
            return GraphIterator(self)
        return DatasetIterator(self)

    def as_numpy_iterator(self) -> Iterator[Any]:
        """The elements as NumPy values (scalars as NumPy scalars)."""
        spec = self._element_spec
        for values in self._flat_iter():
            yield nest.pack_sequence_as(spec, list(values))

    def __len__(self) -> int:
        n = self._cardinality()
        if n < 0:
            raise TypeError(
                "the length of this dataset is "
                + ("infinite" if n == INFINITE else "unknown")
            )
        return n

    def __repr__(self) -> str:
        return f"<{type(self).__name__} element_spec={self._element_spec}>"

    # -- constructors -------------------------------------------------------------

    @staticmethod
    def range(*args: int, dtype: dtypes.DType = dtypes.int64) -> Dataset:
        """Like Python's `range`: scalar elements (int64 by default).

        Inside a `Function` the bounds may be graph tensors (integer
        scalars), read when a loop over the dataset starts.
        """
        dtype = dtypes.as_dtype(dtype)
        if any(_is_graph_tensor(a) for a in args):
            return _GraphRoot(
                [_count_tensor(a, "range") for a in args],
                TensorSpec((), dtype),
                lambda values: _Range(range(*[int(v) for v in values]), dtype),
            )
        return _Range(range(*[int(a) for a in args]), dtype)

    @staticmethod
    def from_tensor_slices(tensors: Any) -> Dataset:
        """The slices of `tensors` along their first dimension.

        `tensors` is a tensor, array or list (one tensor), or a tuple or dict
        of them (elements with that structure); all must have the same first
        dimension. Inside a `Function` they are graph values: a Python list
        or an eager tensor becomes a constant of the graph (its data is
        embedded), a graph tensor is read when the loop starts.
        """
        if STATE.graph is not None:
            return _in_graph(_graph_structure(tensors), _Slices, slices=True)
        return _Slices(_structure(tensors))

    @staticmethod
    def from_tensors(tensors: Any) -> Dataset:
        """One element: `tensors` itself (graph values inside a `Function`,
        as for `from_tensor_slices`)."""
        if STATE.graph is not None:
            return _in_graph(_graph_structure(tensors), _Tensors, slices=False)
        return _Tensors(_structure(tensors))

    @staticmethod
    def from_generator(
        generator: Callable[[], Any],
        output_types: Any = None,
        output_shapes: Any = None,
        args: Sequence[Any] = (),
        output_signature: Any = None,
    ) -> Dataset:
        """The values `generator(*args)` yields, converted to `output_signature`
        (a nest of `rt.TensorSpec`; or `output_types` and `output_shapes`).

        The generator is called anew for each iteration, when the dataset is
        iterated (also when a graph loop over it runs), so a graph that loops
        over it holds no data.
        """
        if output_signature is None:
            if output_types is None:
                raise TypeError(
                    "from_generator needs output_signature (or output_types)"
                )
            shapes = (
                nest.map_structure(lambda _: None, output_types)
                if output_shapes is None
                else output_shapes
            )
            types = nest.flatten(output_types)
            flat_shapes = _flat_shapes(shapes, len(types))
            output_signature = nest.pack_sequence_as(
                output_types,
                [TensorSpec(s, dtypes.as_dtype(t)) for s, t in zip(flat_shapes, types)],
            )
        return _Generator(generator, tuple(args), output_signature)

    @staticmethod
    def zip(*datasets: Any, strict: bool = False) -> Dataset:
        """The elements of `datasets` side by side, as Python's `zip`: an
        element is a tuple of theirs (`zip(a, b)` or `zip((a, b))`; a dict
        of datasets gives dicts); it ends where the shortest ends (with
        `strict`, raises ValueError there, as Python does, if another goes
        on)."""
        one = len(datasets) == 1 and not isinstance(datasets[0], Dataset)
        structure = datasets[0] if one else datasets
        sources = nest.flatten(structure)
        if not sources or not all(isinstance(d, Dataset) for d in sources):
            raise TypeError(
                "Dataset.zip needs datasets (a tuple or dict of them), got "
                f"{structure!r}"
            )
        roots = [d._argument() for d in sources]
        if all(r is None for r in roots):
            return _Zip(structure, sources, strict)
        # Some start from graph values: one root whose inputs are all theirs,
        # which rebuilds each pipeline from its share when the graph runs.
        inputs: list[Any] = []
        ends = []
        for root in roots:
            inputs.extend([] if root is None else root.inputs)
            ends.append(len(inputs))

        def build(values: Sequence[Any]) -> Dataset:
            starts = [0, *ends[:-1]]
            built = [d._built(values[a:b]) for d, a, b in zip(sources, starts, ends)]
            return _Zip(structure, built, strict)

        spec = _Zip.spec_of(structure, sources)
        return _GraphRoot(inputs, spec, build)

    # -- transformations ------------------------------------------------------------

    def map(self, map_func: Callable[..., Any]) -> Dataset:
        """`map_func(element)` for each element (a tuple is passed unpacked)."""
        return _Map(self, _TracedFunction(map_func, self._element_spec, "map"))

    def filter(self, predicate: Callable[..., Any]) -> Dataset:
        """The elements for which `predicate` gives a true bool scalar."""
        traced = _TracedFunction(predicate, self._element_spec, "filter")
        spec = traced.output_spec
        if (
            not isinstance(spec, TensorSpec)
            or spec.dtype is not dtypes.bool_
            or spec.shape != ()
        ):
            raise TypeError(
                f"the filter predicate must return a bool scalar, got {spec}"
            )
        return _Filter(self, traced)

    def batch(self, batch_size: int, drop_remainder: bool = False) -> Dataset:
        """Consecutive elements stacked `batch_size` at a time."""
        if _is_graph_tensor(batch_size):
            spec = nest.map_structure(
                lambda s: TensorSpec((None, *s.shape), s.dtype), self._element_spec
            )
            return _deferred(
                self, "batch", batch_size, spec, lambda d, n: d.batch(n, drop_remainder)
            )
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        return _Batch(self, batch_size, bool(drop_remainder))

    def take(self, count: int) -> Dataset:
        """The first `count` elements (all for -1)."""
        if _is_graph_tensor(count):
            return _deferred(self, "take", count, self._element_spec, Dataset.take)
        return _Take(self, int(count))

    def skip(self, count: int) -> Dataset:
        """All but the first `count` elements."""
        if _is_graph_tensor(count):
            return _deferred(self, "skip", count, self._element_spec, Dataset.skip)
        return _Skip(self, int(count))

    def repeat(self, count: int | None = None) -> Dataset:
        """The elements `count` times over (forever for None or -1)."""
        if _is_graph_tensor(count):
            return _deferred(self, "repeat", count, self._element_spec, Dataset.repeat)
        return _Repeat(self, None if count is None or int(count) < 0 else int(count))

    def shuffle(
        self,
        buffer_size: int,
        seed: int | None = None,
        reshuffle_each_iteration: bool = True,
    ) -> Dataset:
        """Elements drawn at random from a buffer of `buffer_size`.

        With a `seed` the orders are deterministic: the n-th iteration over
        the dataset gives the same order in every run of the program.
        """
        if int(buffer_size) <= 0:
            raise ValueError(f"buffer_size must be positive, got {buffer_size}")
        return _Shuffle(self, int(buffer_size), seed, reshuffle_each_iteration)

    def enumerate(self, start: int = 0) -> Dataset:
        """`(index, element)` pairs, the index an int64 scalar."""
        if _is_graph_tensor(start):
            spec = (TensorSpec((), dtypes.int64), self._element_spec)
            return _deferred(self, "enumerate", start, spec, Dataset.enumerate)
        return _Enumerate(self, int(start))

    def prefetch(self, buffer_size: int) -> Dataset:
        """Accepted for compatibility: elements are produced on demand in the
        iterating thread, so this returns an equivalent dataset."""
        return _Prefetch(self)

    def reduce(self, initial_state: Any, reduce_func: Callable[[Any, Any], Any]) -> Any:
        """`reduce_func(state, element)` folded over the elements.

        Eagerly the function runs as Python; inside a `Function` it is one
        graph loop over the dataset.
        """
        if STATE.graph is not None:
            from runtime.data.graph_loop import reduce_in_graph

            return reduce_in_graph(self, initial_state, reduce_func)
        state = nest.map_structure(convert_to_tensor, initial_state)
        for element in self:
            state = reduce_func(state, element)
        return state


def _flat_shapes(shapes: Any, count: int) -> list[Any]:
    if count == 1 and (shapes is None or not isinstance(shapes, (tuple, list, dict))):
        return [shapes]
    if (
        isinstance(shapes, (tuple, list))
        and all(s is None or isinstance(s, int) for s in shapes)
        and count == 1
    ):
        return [tuple(shapes)]
    flat = nest.flatten(shapes) if isinstance(shapes, dict) else list(shapes)
    return [None if s is None else tuple(s) for s in flat]


class DatasetSpec:
    """The trace key of a dataset argument of a `Function`: its element spec.

    Two datasets with equal element specs share a trace: the traced graph
    takes the dataset as an input (a `variant` placeholder).
    """

    dtype = dtypes.variant
    shape = ()

    def __init__(self, element_spec: Any) -> None:
        self.element_spec = element_spec
        self._key = repr(element_spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and other._key == self._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"DatasetSpec({self._key})"


class _GraphRoot(Dataset):
    """Where a pipeline starts while a graph is built: a `Function`'s dataset
    argument, or a dataset made from graph tensors. Its iterator ops take
    `inputs` (graph tensors) and build the real dataset from their values
    when the graph runs (`build`)."""

    def __init__(
        self,
        inputs: Sequence[Any],
        element_spec: Any,
        build: Callable[[Sequence[Any]], Dataset],
    ) -> None:
        super().__init__(element_spec)
        self.inputs = list(inputs)
        self.build = build

    def _argument(self) -> _GraphRoot | None:
        return self

    def _with_argument(self, dataset: Dataset) -> Dataset:
        return dataset

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        raise TypeError(
            "a dataset made from graph tensors (or a Function's dataset argument) "
            "can be iterated only by a converted `for` loop (or .reduce) inside "
            "the Function"
        )


def argument(handle: Any, spec: DatasetSpec) -> Dataset:
    """The dataset a traced `Function` sees for a dataset argument."""
    return _GraphRoot([handle], spec.element_spec, lambda values: values[0])


def rest_of(handle: Any, element_spec: Any) -> Dataset:
    """What is left of the dataset iterator `handle` (a graph tensor whose
    run-time value has the Python `iterator` of flat elements), as a
    dataset: a loop over `zip(it, ...)` or `enumerate(it)` draws from the
    iterator itself, so a later `next(it)` goes on from there."""
    return _GraphRoot(
        [handle], element_spec, lambda values: _Rest(values[0], element_spec)
    )


class _Rest(Dataset):
    def __init__(self, value: Any, element_spec: Any) -> None:
        super().__init__(element_spec)
        self._value = value

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        return self._value.iterator


def _in_graph(structure: Any, make: Callable[[Any], Dataset], slices: bool) -> Dataset:
    """A dataset of graph tensors (`from_tensor_slices`/`from_tensors` while
    a graph is built): the tensors are graph values (constants embed their
    data in the graph) and the dataset is made from them when it runs."""
    tensors = nest.flatten(structure)
    specs = []
    for t in tensors:
        shape = t.shape
        if slices:
            if shape is not None and len(shape) == 0:
                raise ValueError(
                    "from_tensor_slices needs tensors of rank >= 1, got a scalar"
                )
            shape = None if shape is None else shape[1:]
        specs.append(TensorSpec(shape, t.dtype))
    spec = nest.pack_sequence_as(structure, specs)

    def build(values: Sequence[Any]) -> Dataset:
        arrays = [np.asarray(v) for v in values]
        return make(nest.pack_sequence_as(structure, arrays))

    return _GraphRoot(tensors, spec, build)


def _is_graph_tensor(value: Any) -> bool:
    return isinstance(value, Tensor) and not isinstance(value, EagerTensor)


def _count_tensor(value: Any, what: str) -> Any:
    """`value` (a bound or count of `what`) as a graph tensor: an integer
    scalar."""
    t = convert_to_tensor(value)
    if not t.dtype.is_integer or (t.shape is not None and len(t.shape) != 0):
        raise TypeError(
            f"Dataset.{what} needs integer scalars, got the tensor {t.name!r} "
            f"({t.dtype.name}, shape {t.shape})"
        )
    return t


def _deferred(
    source: Dataset,
    what: str,
    count: Any,
    element_spec: Any,
    make: Callable[[Dataset, int], Dataset],
) -> Dataset:
    """`make(source, count)` for a graph tensor `count` (`take(n)` inside a
    `Function`): a graph root whose inputs are those of `source`'s root and
    `count`; when the graph runs it rebuilds the pipeline from their values."""
    root = source._argument()
    base = [] if root is None else root.inputs
    k = len(base)

    def build(values: Sequence[Any]) -> Dataset:
        return make(source._built(values[:k]), int(values[k]))

    return _GraphRoot([*base, _count_tensor(count, what)], element_spec, build)


def _graph_structure(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_graph_structure(v) for v in value)
    if isinstance(value, dict):
        return {k: _graph_structure(v) for k, v in value.items()}
    return convert_to_tensor(value)


# -- sources --------------------------------------------------------------------


class _Range(Dataset):
    def __init__(self, r: range, dtype: dtypes.DType) -> None:
        super().__init__(TensorSpec((), dtype))
        self._range = r
        self._type = dtype.np_dtype.type

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        make = self._type
        return ((make(i),) for i in self._range)

    def _cardinality(self) -> int:
        return len(self._range)


class _Slices(Dataset):
    def __init__(self, structure: Any) -> None:
        leaves = nest.flatten(structure)
        if not leaves:
            raise ValueError("from_tensor_slices needs at least one tensor")
        for leaf in leaves:
            if leaf.ndim == 0:
                raise ValueError(
                    "from_tensor_slices needs tensors of rank >= 1, got a scalar"
                )
        sizes = {leaf.shape[0] for leaf in leaves}
        if len(sizes) != 1:
            raise ValueError(
                "from_tensor_slices: the tensors' first dimensions differ: "
                f"{sorted(sizes)}"
            )
        super().__init__(
            nest.pack_sequence_as(structure, [_spec_of(x, True) for x in leaves])
        )
        self._leaves = leaves
        self._size = leaves[0].shape[0]

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        if len(self._leaves) == 1:
            return ((v,) for v in self._leaves[0])
        return zip(*self._leaves)

    def _cardinality(self) -> int:
        return self._size

    def _batches(self, n: int, drop: bool) -> Iterator[tuple[Any, ...]]:
        stop = self._size - (self._size % n if drop else 0)
        if len(self._leaves) == 1:
            (leaf,) = self._leaves
            for i in range(0, stop, n):
                yield (leaf[i : i + n],)
            return
        for i in range(0, stop, n):
            yield tuple([leaf[i : i + n] for leaf in self._leaves])


class _Tensors(Dataset):
    def __init__(self, structure: Any) -> None:
        leaves = nest.flatten(structure)
        super().__init__(
            nest.pack_sequence_as(structure, [_spec_of(x, False) for x in leaves])
        )
        self._leaves = tuple(leaves)

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        yield self._leaves

    def _cardinality(self) -> int:
        return 1


class _Generator(Dataset):
    def __init__(self, generator: Callable[..., Any], args: tuple[Any, ...], spec: Any):
        super().__init__(spec)
        self._generator = generator
        self._args = args

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        specs = self._flat_specs
        name = getattr(self._generator, "__name__", "generator")
        for value in self._generator(*self._args):
            try:
                leaves = _leaves(value)
                if len(leaves) != len(specs):
                    raise TypeError(
                        f"it has {len(leaves)} components for {len(specs)} in "
                        "the signature"
                    )
                out = []
                for leaf, spec in zip(leaves, specs):
                    array = as_numpy(
                        leaf, spec.dtype, cast=isinstance(leaf, np.ndarray)
                    )
                    if not is_compatible(spec.shape, np.shape(array)):
                        raise ValueError(
                            f"shape {np.shape(array)} does not fit {spec.shape}"
                        )
                    out.append(array)
            except (TypeError, ValueError) as e:
                raise InvalidArgumentError(
                    f"from_generator: {name} yielded {value!r}, which does not match "
                    f"output_signature {self._element_spec}: {e}"
                ) from None
            yield tuple(out)


# -- transformations ------------------------------------------------------------


class _Map(Dataset):
    def __init__(self, source: Dataset, traced: _TracedFunction) -> None:
        super().__init__(traced.output_spec)
        self._source = source
        self._fn = traced

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        fn = self._fn
        for values in self._source._flat_iter():
            yield tuple(fn(values))

    def _cardinality(self) -> int:
        return self._source._cardinality()


class _Filter(Dataset):
    def __init__(self, source: Dataset, traced: _TracedFunction) -> None:
        super().__init__(source.element_spec)
        self._source = source
        self._fn = traced

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        fn = self._fn
        for values in self._source._flat_iter():
            if fn(values)[0]:
                yield values


class _Batch(Dataset):
    def __init__(self, source: Dataset, n: int, drop: bool) -> None:
        first = n if drop else None
        spec = nest.map_structure(
            lambda s: TensorSpec((first, *s.shape), s.dtype), source.element_spec
        )
        super().__init__(spec)
        self._source, self._n, self._drop = source, n, drop

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        if isinstance(self._source, _Slices):
            return self._source._batches(self._n, self._drop)
        return self._stacked()

    def _stacked(self) -> Iterator[tuple[Any, ...]]:
        iterator = self._source._flat_iter()
        while True:
            chunk = list(itertools.islice(iterator, self._n))
            if not chunk or (self._drop and len(chunk) < self._n):
                return
            yield tuple(np.stack(column) for column in zip(*chunk))

    def _cardinality(self) -> int:
        n = self._source._cardinality()
        if n < 0:
            return n
        return n // self._n if self._drop else -(-n // self._n)


class _Take(Dataset):
    def __init__(self, source: Dataset, count: int) -> None:
        super().__init__(source.element_spec)
        self._source, self._count = source, count

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        if self._count < 0:
            return self._source._flat_iter()
        return itertools.islice(self._source._flat_iter(), self._count)

    def _cardinality(self) -> int:
        n = self._source._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE:
            return self._count
        return n if n == UNKNOWN else min(n, self._count)


class _Skip(Dataset):
    def __init__(self, source: Dataset, count: int) -> None:
        super().__init__(source.element_spec)
        self._source, self._count = source, count

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        return itertools.islice(self._source._flat_iter(), max(self._count, 0), None)

    def _cardinality(self) -> int:
        n = self._source._cardinality()
        return n if n < 0 else max(n - max(self._count, 0), 0)


class _Repeat(Dataset):
    def __init__(self, source: Dataset, count: int | None) -> None:
        super().__init__(source.element_spec)
        self._source, self._count = source, count

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        rounds = itertools.count() if self._count is None else range(self._count)
        for _ in rounds:
            yield from self._source._flat_iter()

    def _cardinality(self) -> int:
        n = self._source._cardinality()
        if self._count is None:
            return 0 if n == 0 else INFINITE if n != UNKNOWN else UNKNOWN
        return n if n < 0 else n * self._count


class _Shuffle(Dataset):
    def __init__(self, source: Dataset, size: int, seed: int | None, reshuffle: bool):
        super().__init__(source.element_spec)
        self._source, self._size = source, size
        self._seed = seed
        self._reshuffle = reshuffle
        self._seeds = np.random.default_rng(seed)
        self._fixed = int(self._seeds.integers(2**62))

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        epoch_seed = (
            int(self._seeds.integers(2**62)) if self._reshuffle else self._fixed
        )
        rng = np.random.default_rng(epoch_seed)
        buffer: list[Any] = []
        for values in self._source._flat_iter():
            if len(buffer) < self._size:
                buffer.append(values)
                continue
            i = int(rng.integers(len(buffer)))
            yield buffer[i]
            buffer[i] = values
        order = rng.permutation(len(buffer))
        for i in order:
            yield buffer[i]

    def _cardinality(self) -> int:
        return self._source._cardinality()


class _Enumerate(Dataset):
    def __init__(self, source: Dataset, start: int) -> None:
        super().__init__((TensorSpec((), dtypes.int64), source.element_spec))
        self._source, self._start = source, start

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        for i, values in enumerate(self._source._flat_iter(), self._start):
            yield (np.int64(i), *values)

    def _cardinality(self) -> int:
        return self._source._cardinality()


class _Zip(Dataset):
    def __init__(
        self, structure: Any, sources: Sequence[Dataset], strict: bool = False
    ) -> None:
        super().__init__(self.spec_of(structure, sources))
        self._sources = list(sources)
        self._strict = strict

    @staticmethod
    def spec_of(structure: Any, sources: Sequence[Dataset]) -> Any:
        return nest.pack_sequence_as(structure, [d.element_spec for d in sources])

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        # (zip draws from the first, then the next, ...: none past the end
        # of an earlier one, as Python's zip)
        parts = zip(*(d._flat_iter() for d in self._sources), strict=self._strict)
        try:
            for part in parts:
                yield tuple(v for values in part for v in values)
        except ValueError as e:  # strict: lengths differ (Python's message)
            raise raised_as(ValueError)(str(e)) from None

    def _cardinality(self) -> int:
        # TensorFlow's rule: unknown if any is; else the shortest finite one.
        counts = [d._cardinality() for d in self._sources]
        if UNKNOWN in counts:
            return UNKNOWN
        finite = [n for n in counts if n != INFINITE]
        return min(finite) if finite else INFINITE


class _Prefetch(Dataset):
    def __init__(self, source: Dataset) -> None:
        super().__init__(source.element_spec)
        self._source = source

    def _flat_iter(self) -> Iterator[tuple[Any, ...]]:
        return self._source._flat_iter()

    def _cardinality(self) -> int:
        return self._source._cardinality()


def _cardinality_kernel(*inputs: Any, dataset: Dataset) -> np.int64:
    return np.int64(dataset._built(inputs)._cardinality())


_CARDINALITY = register(
    OpDef(
        "DatasetCardinality",
        lambda inputs, attrs: [(dtypes.int64, ())],
        _cardinality_kernel,
        default_name="cardinality",
    )
)
