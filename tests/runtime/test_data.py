"""rt.data.Dataset: constructors, transformations, eager iteration, and
`for x in ds` inside a Function as one graph loop."""

from __future__ import annotations

import tempfile
import types

import numpy as np
import pytest

import autograph
import runtime as rt
from autograph.impl import api
from runtime.data import Dataset


def _plain(v):
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    return np.asarray(v).tolist()


def values(ds):
    return [_plain(v) for v in ds.as_numpy_iterator()]


def test_constructors():
    assert values(Dataset.range(4)) == [0, 1, 2, 3]
    assert values(Dataset.range(1, 8, 3)) == [1, 4, 7]
    assert Dataset.range(3).element_spec == rt.TensorSpec((), rt.int64)
    assert values(Dataset.from_tensor_slices([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    pairs = Dataset.from_tensor_slices((np.arange(3), rt.constant([1.0, 2.0, 3.0])))
    assert [(int(a), float(b)) for a, b in pairs] == [(0, 1.0), (1, 2.0), (2, 3.0)]
    d = Dataset.from_tensor_slices({"x": [1, 2], "y": [[1.0], [2.0]]})
    assert d.element_spec["y"] == rt.TensorSpec((1,), rt.float32)
    assert [e["x"].numpy().tolist() for e in d] == [1, 2]
    one = Dataset.from_tensors([1, 2, 3])
    assert values(one) == [[1, 2, 3]] and int(one.cardinality()) == 1


def test_from_generator_checks_the_signature():
    def gen():
        yield 1, [1.0, 2.0]
        yield 2, [3.0]

    sig = (rt.TensorSpec((), rt.int32), rt.TensorSpec((None,), rt.float32))
    d = Dataset.from_generator(gen, output_signature=sig)
    assert values(d) == [(1, [1.0, 2.0]), (2, [3.0])]
    assert values(d) == values(d)  # a fresh generator per iteration
    bad = Dataset.from_generator(gen, output_signature=(sig[0], rt.TensorSpec((2,))))
    with pytest.raises(rt.errors.InvalidArgumentError, match="gen yielded"):
        values(bad)


def test_transformations():
    d = Dataset.range(10)
    assert values(d.map(lambda x: x * 2).filter(lambda x: x % 3 == 0)) == [0, 6, 12, 18]
    assert values(d.take(3)) == [0, 1, 2]
    assert values(d.skip(8)) == [8, 9]
    assert values(d.take(2).repeat(2)) == [0, 1, 0, 1]
    assert values(d.take(2).enumerate(5)) == [(5, 0), (6, 1)]
    assert values(d.prefetch(2)) == values(d)
    assert values(d.batch(4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert values(d.batch(4, drop_remainder=True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert d.batch(4).element_spec == rt.TensorSpec((None,), rt.int64)
    assert d.batch(4, True).element_spec == rt.TensorSpec((4,), rt.int64)
    mapped = d.filter(lambda x: x > 6).batch(2)  # generic batching, not slices
    assert values(mapped) == [[7, 8], [9]]
    pairs = Dataset.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: a + b)
    assert values(pairs) == [4, 6]


def test_map_function_is_converted_and_traced_once():
    calls = []

    def f(x):
        calls.append(1)
        if x > 2:  # a tensor condition: converted to a graph cond
            x = x * 10
        return x

    d = Dataset.range(5).map(f)
    assert values(d) == [0, 1, 2, 30, 40] and values(d) == [0, 1, 2, 30, 40]
    assert len(calls) == 1


def test_shuffle_is_deterministic_with_a_seed():
    a = Dataset.range(20).shuffle(5, seed=3)
    b = Dataset.range(20).shuffle(5, seed=3)
    first, second = values(a), values(a)
    assert first == values(b) and second == values(b)
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert first != second  # a new order per iteration, deterministically


def test_cardinality_reduce_and_iterators():
    assert int(Dataset.range(10).batch(3).cardinality()) == 4
    assert int(Dataset.range(10).repeat().cardinality()) == -1
    assert int(Dataset.range(10).filter(lambda x: x > 1).cardinality()) == -2
    total = Dataset.range(5).reduce(rt.constant(0, rt.int64), lambda s, x: s + x)
    assert int(total) == 10
    it = iter(Dataset.range(2))
    first = next(it)
    assert isinstance(first, rt.Tensor) and int(first) == 0
    assert int(next(it)) == 1
    with pytest.raises(StopIteration):
        next(it)


# -- inside a Function -----------------------------------------------------------------


@autograph.function
def total_until(ds, limit):
    s = rt.constant(0.0, rt.float64)
    for x in ds:
        if x > limit:
            break
        if x < 0:
            continue
        s += x
    return s


def test_for_over_a_dataset_is_one_loop_whose_graph_does_not_grow():
    small = Dataset.from_tensor_slices(np.arange(10.0))
    big = Dataset.from_tensor_slices(np.arange(10_000.0))
    assert float(total_until(small, 1e9)) == 45.0
    assert float(total_until(big, 1e9)) == sum(range(10_000))
    assert float(total_until(big, 3.0)) == 6.0
    signed = Dataset.from_tensor_slices(np.array([-1.0, 2.0, -3.0, 4.0]))
    assert float(total_until(signed, 1e9)) == 6.0

    def size(ds):
        graph = total_until.get_concrete_function(ds, 1e9).graph
        return len(graph.as_graph_def().node), [
            op.type for op in graph.get_operations()
        ]

    (n_small, kinds), (n_big, _) = size(small), size(big)
    assert n_small == n_big and kinds.count("While") == 1


def resume_after_break(ds):
    it = iter(ds)
    s1 = rt.constant(0, rt.int64)
    for x in it:
        if x >= 2:
            break
        s1 += x
    s2 = rt.constant(0, rt.int64)
    for x in it:
        s2 += x
    return s1, s2, next(iter(ds.skip(4)))


def test_a_break_takes_no_element_past_the_one_it_broke_on():
    # The loop drew the next element at the end of each body: a `break`
    # left it taken, so the next `for x in it` started one element late.
    ds = Dataset.range(5)
    expected = (1, 3 + 4, 4)
    converted = autograph.to_graph(resume_after_break)
    assert tuple(int(v) for v in converted(ds)) == expected
    assert tuple(int(v) for v in autograph.function(resume_after_break)(ds)) == expected

    @autograph.function
    def next_after_break(ds):
        it = iter(ds)
        for x in it:
            if x >= 2:
                break
        return next(it)

    assert int(next_after_break(ds)) == 3

    drawn = []

    def gen():
        for i in range(10):
            drawn.append(i)
            yield i

    @autograph.function
    def upto_two(ds):
        s = 0
        for x in ds:
            if x == 2:
                break
            s += x
        return s

    ds = Dataset.from_generator(gen, output_signature=rt.TensorSpec([], rt.int32))
    assert int(upto_two(ds)) == 1 and drawn == [0, 1, 2]


def test_a_dataset_argument_is_keyed_by_its_element_spec():
    traces = []

    @autograph.function
    def pairs(ds):
        traces.append(1)
        s = rt.constant(0)
        for x, y in ds:
            s += x * y
        return s

    a = Dataset.from_tensor_slices(([1, 2], [3, 4]))
    b = Dataset.from_tensor_slices(([5], [6]))
    assert int(pairs(a)) == 11 and int(pairs(b)) == 30
    assert len(traces) == 1  # the same spec reuses the trace
    assert (
        int(
            pairs(
                Dataset.from_tensor_slices(([1.0], [2.0])).map(
                    lambda x, y: (rt.cast(x, rt.int32), rt.cast(y, rt.int32))
                )
            )
        )
        == 2
    )
    assert len(traces) == 1
    with pytest.raises(ValueError, match="is a dataset"):
        autograph.save(pairs, tempfile.mkdtemp())


def test_return_inside_a_dataset_loop_and_transformations_of_an_argument():
    @autograph.function
    def first_over(ds, limit):
        for x in ds.map(lambda v: v * 2):
            if x > limit:
                return x
        return rt.constant(-1, rt.int64)

    assert int(first_over(Dataset.range(10), 7)) == 8
    assert int(first_over(Dataset.range(3), 70)) == -1


def test_datasets_of_graph_values_and_reduce_inside_a_function():
    @autograph.function
    def f(v):
        s = rt.constant(0.0)
        for x in Dataset.from_tensor_slices(v * 2.0):
            s += x
        r = Dataset.range(4).reduce(rt.constant(0, rt.int64), lambda a, x: a + x)
        return s, r

    s, r = f(rt.constant([1.0, 2.0, 3.0]))
    assert float(s) == 12.0 and int(r) == 6


def test_functions_written_in_a_function_pass_to_map_filter_reduce_converted_once():
    # The Function's conversion already converted these lambdas and the
    # nested def (their bodies rewritten: `if`, `a if c else b`, `and`);
    # the dataset runs them as they are rather than converting them again
    # (which found their source not matching the code they run).
    def pipeline(y):
        def halve_big(v):
            if v > 4:
                v = v / 2
            return v

        ds = Dataset.from_tensor_slices(y)
        kept = ds.filter(lambda v: v > 0 and v < 5)
        calls = ds.filter(lambda v: halve_big(v) > 2)  # (a converted call)
        clipped = ds.map(lambda v: v * 2 if v > 2 else v).map(halve_big)
        total = ds.reduce(rt.constant(0.0), lambda acc, v: acc + v if v > 2 else acc)
        s, c, n = 0.0, 0.0, 0.0
        for v in kept:
            s += v
        for v in clipped:
            c += v
        for v in calls:
            n += v
        return s, c, total, n

    y = rt.constant([1.0, 6.0, 3.0])
    expected = [4.0, 10.0, 9.0, 9.0]
    assert [float(v) for v in autograph.function(pipeline)(y)] == expected
    with api.always_run_converted():
        assert [float(v) for v in autograph.to_graph(pipeline)(y)] == expected
    assert [float(v) for v in pipeline(y)] == expected


def test_saving_a_function_that_iterates_a_dataset_refuses():
    @autograph.function
    def f(n):
        s = rt.constant(0, rt.int64)
        for x in Dataset.range(3):
            s += x + n
        return s

    assert int(f(rt.constant(1, rt.int64))) == 6
    with pytest.raises(ValueError, match=r"iterates an rt\.data\.Dataset"):
        autograph.save(f, tempfile.mkdtemp())


def test_from_generator_of_lists_and_dicts():
    def rows():
        yield [1.0, 2.0]
        yield [3.0]

    d = Dataset.from_generator(rows, output_signature=rt.TensorSpec((None,)))
    assert values(d) == [[1.0, 2.0], [3.0]]

    def records():
        yield {"b": 1, "a": [0.5]}

    spec = {"a": rt.TensorSpec((1,)), "b": rt.TensorSpec((), rt.int32)}
    d = Dataset.from_generator(records, output_signature=spec)
    (element,) = list(d)
    assert element["a"].numpy().tolist() == [0.5] and int(element["b"]) == 1


def _tensor_bound_pipeline(n, a, b, c):
    ds = Dataset.range(n)
    assert ds.element_spec == rt.TensorSpec((), rt.int64)
    assert Dataset.range(a, b, c).element_spec == rt.TensorSpec((), rt.int64)
    s = rt.constant(0, rt.int64)
    for x in ds:
        s += x
    m = rt.constant(0, rt.int64)
    for x in Dataset.range(a, b, c).map(lambda v: v * 2):
        m += x
    zero = rt.constant(0, rt.int64)
    r = Dataset.range(n).reduce(zero, lambda acc, v: acc + v)
    bs = rt.constant(0, rt.int64)
    for bt in Dataset.range(n).batch(2):
        bs += rt.reduce_sum(bt) * 10 + rt.cast(rt.size(bt), rt.int64)
    t = Dataset.range(10).take(n).reduce(zero, lambda acc, v: acc + v)
    k = Dataset.range(10).skip(n).reduce(zero, lambda acc, v: acc + v)
    nb = rt.constant(0, rt.int64)
    for bt in Dataset.range(10).batch(n + 1):
        nb += rt.cast(rt.size(bt), rt.int64) * 100 + rt.reduce_max(bt)
    e = rt.constant(0, rt.int64)
    for i, v in Dataset.range(a, b, c).repeat(n).enumerate(n):
        e += i * v
    return s, m, r, bs, t, k, nb, e


def _reference(n, a, b, c):
    """What `_tensor_bound_pipeline` computes, in plain Python."""
    batches = [list(range(n))[i : i + 2] for i in range(0, n, 2)]
    by_n = [list(range(10))[i : i + n + 1] for i in range(0, 10, n + 1)]
    stepped = list(range(a, b, c))
    return [
        sum(range(n)),
        2 * sum(stepped),
        sum(range(n)),
        sum(sum(x) * 10 + len(x) for x in batches),
        sum(range(10)[:n]),
        sum(range(10)[n:]),
        sum(len(x) * 100 + max(x) for x in by_n),
        sum(i * v for i, v in enumerate(stepped * n, n)),
    ]


def test_range_take_skip_batch_repeat_enumerate_of_graph_tensors_in_a_function():
    # Dataset.range(n) with n a Function's tensor argument was refused ("the
    # symbolic tensor 'n:0' cannot be used as a Python int"), as were
    # take/skip/batch/repeat/enumerate of one; TensorFlow reads them when the
    # graph runs (its numbers for (4, 1, 10, 3) and (0, 5, 0, -2) start
    # [6, 24, 6, 64, 6, 39] and [0, 18, 0, 0, 0, 45]). One trace serves all.
    function = autograph.function(_tensor_bound_pipeline)
    assert _reference(4, 1, 10, 3)[:6] == [6, 24, 6, 64, 6, 39]
    assert _reference(0, 5, 0, -2)[:6] == [0, 18, 0, 0, 0, 45]
    for args in [(4, 1, 10, 3), (0, 5, 0, -2), (3, 2, 9, 2)]:
        tensors = [rt.constant(v, rt.int64) for v in args]
        expected = _reference(*args)
        assert [int(v) for v in function(*tensors)] == expected, args
        with api.always_run_converted():
            converted = autograph.to_graph(_tensor_bound_pipeline)
            assert [int(v) for v in converted(*tensors)] == expected, args
        assert [int(v) for v in _tensor_bound_pipeline(*tensors)] == expected, args
    assert function.tracing_count == 1


def test_take_of_a_dataset_argument_by_a_tensor_and_bad_bounds():
    @autograph.function
    def first(ds, n):
        s = rt.constant(0, rt.int64)
        for x in ds.take(n):
            s += x
        return s

    assert int(first(Dataset.range(10), rt.constant(3, rt.int64))) == 3
    assert int(first(Dataset.range(5, 10), rt.constant(2, rt.int64))) == 11

    @autograph.function
    def floats(x):
        return Dataset.range(x).reduce(rt.constant(0, rt.int64), lambda a, v: a + v)

    with pytest.raises(TypeError, match=r"Dataset\.range needs integer scalars"):
        floats(rt.constant(2.0))

    @autograph.function
    def batched(n):
        return (
            Dataset.range(4)
            .batch(n)
            .reduce(rt.constant(0, rt.int64), lambda a, v: a + rt.reduce_sum(v))
        )

    assert int(batched(rt.constant(3, rt.int64))) == 6
    with pytest.raises(
        rt.errors.InvalidArgumentError, match="batch_size must be positive"
    ):
        batched(rt.constant(0, rt.int64))


def test_zip_of_datasets_pairs_their_elements_up_to_the_shortest():
    a, b = Dataset.range(3), Dataset.from_tensor_slices([10, 20, 30, 40])
    assert values(Dataset.zip(a, b)) == [(0, 10), (1, 20), (2, 30)]
    assert values(Dataset.zip((b, a))) == [(10, 0), (20, 1), (30, 2)]
    named = Dataset.zip({"x": a, "y": b})
    assert [(int(e["x"]), int(e["y"])) for e in named] == [(0, 10), (1, 20), (2, 30)]
    assert int(Dataset.zip(a, b).cardinality()) == 3
    assert int(Dataset.zip(a, b.repeat()).cardinality()) == 3
    assert int(Dataset.zip(a.repeat(), b.repeat()).cardinality()) == -1
    assert int(Dataset.zip(a, b.filter(lambda x: x > 0)).cardinality()) == -2
    with pytest.raises(TypeError, match=r"Dataset\.zip needs datasets"):
        Dataset.zip(a, [1, 2])


def _enumerate_and_zip(ds, t):
    # ds: 0..3 (int64); t: int64 tensor of 3 rows
    s = rt.constant(0, rt.int64)
    for i, x in enumerate(ds):
        s += i * x
    for i, x in enumerate(ds, 10):
        s += i * x
    for x, y in zip(ds, ds.skip(1)):
        s += 100 * x * y
    for i, (x, y) in enumerate(zip(ds, t)):
        s += 1000 * i * x * y
    for y, x in zip(t, ds):  # a tensor first: its rows
        s += 10000 * x * y
    it = iter(ds)
    first = next(it)
    for i, x in enumerate(it):  # the rest of the iterator
        if i == 1:
            break
        s += 100000 * (i + 1) * x
    return s, first, next(it)


def test_enumerate_and_zip_of_datasets_in_a_function_are_one_graph_loop():
    # A Function crashed on them ("'Rows' object has no attribute
    # '_argument'"); TensorFlow's AutoGraph makes them Dataset.enumerate /
    # Dataset.zip. Argument and made-inside datasets, against Python.
    def made_inside(t):
        return _enumerate_and_zip(Dataset.range(4), t)

    t = rt.constant([5, 6, 7], rt.int64)
    expected = [int(v) for v in _enumerate_and_zip(Dataset.range(4), t)]
    function = autograph.function(_enumerate_and_zip)
    assert [int(v) for v in function(Dataset.range(4), t)] == expected
    assert [int(v) for v in autograph.function(made_inside)(t)] == expected
    with api.always_run_converted():
        converted = autograph.to_graph(_enumerate_and_zip)
        assert [int(v) for v in converted(Dataset.range(4), t)] == expected
    graph = function.get_concrete_function(Dataset.range(4), t).graph
    loops = [op for op in graph.get_operations() if op.type == "While"]
    assert len(loops) == 6  # one graph loop each, whatever the sizes


def test_a_strict_zip_of_datasets_raises_pythons_value_error_where_one_ends():
    def dot(a, b):
        s = rt.constant(0, rt.int64)
        for x, y in zip(a, b, strict=True):
            s += x * y
        return s

    function = autograph.function(dot)
    assert int(function(Dataset.range(3), Dataset.range(3))) == 5
    for f in (dot, function):
        with pytest.raises(ValueError, match="argument 2 is shorter than argument 1"):
            f(Dataset.range(3), Dataset.range(2))


def test_zip_of_a_dataset_and_a_python_list_in_a_function_is_refused_at_its_line():
    @autograph.function
    def scaled(ds):
        s = rt.constant(0, rt.int64)
        for x, w in zip(ds, [1, 2, 3]):
            s += x * w
        return s

    with pytest.raises(
        TypeError, match=r"zip\(\.\.\.\) of an rt\.data\.Dataset and a list"
    ) as e:
        scaled(Dataset.range(3))
    assert "test_data.py" in str(e.value)


def test_cardinality_in_a_function_is_counted_when_the_graph_runs():
    # It was fixed while tracing: -2 (unknown) for a dataset argument or a
    # range of a tensor, where eager code (and TensorFlow's tf.function)
    # gives the size. A size known while tracing stays a constant.
    def counts(ds, n):
        return (
            ds.cardinality(),
            Dataset.range(n).batch(2).cardinality(),
            Dataset.zip(ds, Dataset.range(n)).cardinality(),
            Dataset.range(4).take(3).cardinality(),
            Dataset.range(n).filter(lambda x: x > 0).cardinality(),
        )

    function = autograph.function(counts)
    for ds, n in [(Dataset.range(5).batch(2), 5), (Dataset.range(7), 2)]:
        n = rt.constant(n, rt.int64)
        expected = [int(c) for c in counts(ds, n)]
        assert [int(c) for c in function(ds, n)] == expected
    assert expected == [7, 1, 2, 3, -2]
    assert function.tracing_count == 2  # (two element specs)
    graph = function.get_concrete_function(Dataset.range(7), n).graph
    kinds = [op.type for op in graph.get_operations()]
    assert kinds.count("DatasetCardinality") == 4  # (not range(4).take(3))


def _items_and_attributes_counted(a):
    d = {"b": 0}
    ns = types.SimpleNamespace(n=0)
    for _ in rt.data.Dataset.from_tensor_slices([4, a]):
        d["b"] += 2
        ns.n += 1
    return d["b"], ns.n


def test_a_dataset_loop_in_a_function_carries_the_items_and_attributes_it_changes():
    # (The dataset loop handed its places to the graph loop by position,
    # which the operators take by keyword: "got multiple values for argument
    # 'places'"; found by the program generator's datasets feature.)
    b, n = autograph.function(_items_and_attributes_counted)(rt.constant(2))
    assert (int(b), int(n)) == _items_and_attributes_counted(2) == (4, 2)
