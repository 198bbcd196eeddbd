"""`ConcreteFunction.graph` is the graph as traced, `.optimized_graph` the one
that runs (issue 23: the guide's measure_graph_size lesson)."""

from __future__ import annotations

import autograph
import runtime as rt


def _train(dataset):
    loss = rt.constant(0)
    for x, y in dataset:
        loss += rt.abs(y - x)  # Some dummy computation.
    return loss


def _size(f, data):
    return len(f.get_concrete_function(data).graph.as_graph_def().node)


def test_a_python_list_loop_grows_the_traced_graph_a_dataset_loop_does_not():
    small = [(1, 1)] * 3
    big = [(1, 1)] * 10
    assert _size(autograph.function(_train), big) > _size(
        autograph.function(_train), small
    )
    as_dataset = autograph.function(_train)
    sizes = {
        _size(
            as_dataset,
            rt.data.Dataset.from_generator(lambda d=d: d, (rt.int32, rt.int32)),
        )
        for d in (small, big)
    }
    assert len(sizes) == 1


def test_the_optimized_graph_is_what_runs_and_the_traced_graph_is_kept():
    f = autograph.function(_train)
    concrete = f.get_concrete_function([(1, 3)] * 10)
    traced = len(concrete.graph.get_operations())
    assert len(concrete.optimized_graph.get_operations()) < traced
    assert int(concrete()) == 20


def test_optimize_false_runs_the_graph_as_traced():
    concrete = autograph.function(_train, optimize=False).get_concrete_function(
        [(1, 3)] * 2
    )
    assert concrete.optimized_graph is concrete.graph
    assert int(concrete()) == 4


def test_show_draws_the_traced_graph_or_the_optimized_one(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)  # text, not SVG
    concrete = autograph.function(_train).get_concrete_function([(1, 3)] * 4)
    traced = str(autograph.show(concrete))
    optimized = str(autograph.show(concrete.optimized_graph))
    assert traced.endswith(str(concrete.graph.as_graph_def()))
    assert optimized.endswith(str(concrete.optimized_graph.as_graph_def()))
    assert len(optimized) < len(traced)


def test_a_dataset_loop_over_elements_of_unknown_shape_relaxes_its_state():
    # The guide's from_generator(gen, output_types): `loss` (shape ()) plus an
    # element of unknown shape; TensorFlow's Dataset.reduce relaxes the same.
    data = [(1, 4), (2, 2)]
    ds = rt.data.Dataset.from_generator(lambda: data, (rt.int32, rt.int32))
    f = autograph.function(_train)
    assert int(f(ds)) == 3
    assert f.get_concrete_function(ds).structured_outputs.shape is None
