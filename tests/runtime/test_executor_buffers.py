"""Buffer reuse in the executor: only where it cannot be observed."""

import numpy as np

import runtime as rt
from runtime import executor
from runtime.graph import Graph


def _compile(build, *specs):
    graph = Graph()
    with graph.as_default():
        inputs = [
            graph.placeholder(dtype, shape, f"x{i}")
            for i, (dtype, shape) in enumerate(specs)
        ]
        outputs = build(*inputs)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    return executor.compile(graph, inputs, outputs)


def test_a_chain_of_elementwise_ops_writes_into_one_temporary():
    run = _compile(lambda x: rt.tanh(x * 2.0 + 1.0) - x, (rt.float32, (3,)))
    assert run.source.count("out=") == 3
    a = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(run([a])[0], np.tanh(a * 2 + 1) - a, rtol=1e-6)


def test_the_callers_input_array_is_never_written():
    run = _compile(lambda x: rt.exp(x) + x, (rt.float32, (2,)))
    a = np.array([0.0, 1.0], np.float32)
    run([a])
    np.testing.assert_array_equal(a, [0.0, 1.0])


def test_a_temporary_read_twice_is_not_reused():
    def build(x):
        t = x * 2.0
        return rt.exp(t) + t

    run = _compile(build, (rt.float32, (2,)))
    a = np.array([0.0, 1.0], np.float32)
    # Had exp(t) overwritten t, this would be exp(2a) + exp(2a).
    np.testing.assert_allclose(run([a])[0], np.exp(a * 2) + a * 2, rtol=1e-6)


def test_a_graph_output_is_never_overwritten():
    def build(x):
        t = x + 1.0
        return t, rt.exp(t)

    run = _compile(build, (rt.float32, (2,)))
    first, second = run([np.zeros(2, np.float32)])
    np.testing.assert_array_equal(first, [1.0, 1.0])
    np.testing.assert_allclose(second, np.exp([1.0, 1.0]), rtol=1e-6)


def test_unknown_shapes_and_scalars_allocate_as_before():
    assert (
        "out=" not in _compile(lambda x: rt.exp(x + 1.0), (rt.float32, (None,))).source
    )
    assert "out=" not in _compile(lambda x: rt.exp(x + 1.0), (rt.float32, ())).source


def test_a_dtype_change_is_not_written_into_the_input_buffer():
    run = _compile(lambda x: rt.cast(x + 1, rt.float32) * 2.0, (rt.int32, (2,)))
    np.testing.assert_array_equal(run([np.array([1, 2], np.int32)])[0], [4.0, 6.0])


def test_temporaries_inside_a_loop_body_are_reused_each_iteration():
    def build(x):
        return rt.while_loop(
            lambda v: rt.reduce_sum(v) > 1.0, lambda v: rt.tanh(v * 1.0), (x,)
        )[0]

    run = _compile(build, (rt.float32, (5,)))
    value = np.ones(5, np.float32)
    expected = value.copy()
    while expected.sum() > 1:
        expected = np.tanh(expected * 1.0)
    np.testing.assert_allclose(run([value])[0], expected, rtol=1e-6)
    np.testing.assert_array_equal(value, np.ones(5, np.float32))
