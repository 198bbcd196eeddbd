"""Functions and Variables used from many threads at once.

Every test starts 16 threads at a barrier with the interpreter's switch
interval forced low (`sys.setswitchinterval(1e-6)`), so that a check-then-act
race in the tracer or a read-modify-write race in a Variable shows up on
nearly every run.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import runtime as rt
from autograph.tracing import function

THREADS = 16
# Traced bodies sleep this long (seconds), so that a trace is still running
# when the other threads arrive: a race, if there is one, always happens.
TRACE_DELAY = 0.002


@pytest.fixture(autouse=True)
def _fast_switching() -> Iterator[None]:
    """Threads switch every microsecond inside the test (restored after)."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def run_in_threads(work: Callable[[int], Any], threads: int = THREADS) -> list[Any]:
    """Runs `work(i)` for i in range(threads), all released at once; returns
    the results in order and re-raises the first exception any thread hit."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads
    errors: list[BaseException] = []

    def target(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except BaseException as e:  # handed to the main thread
            errors.append(e)

    workers = [threading.Thread(target=target, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    return results


def test_concurrent_first_calls_trace_once():
    side_effects = []

    @function
    def double(x):
        side_effects.append(1)  # a Python side effect: runs once per trace
        time.sleep(TRACE_DELAY)
        return x * 2.0

    results = run_in_threads(lambda i: double(rt.constant(float(i))))
    assert [float(r) for r in results] == [2.0 * i for i in range(THREADS)]
    assert double.tracing_count == 1
    assert len(side_effects) == 1


def test_concurrent_get_concrete_function_returns_one_trace():
    @function
    def square(x):
        time.sleep(TRACE_DELAY)
        return x * x

    spec = rt.TensorSpec((None,), rt.float32)
    concretes = run_in_threads(lambda i: square.get_concrete_function(spec))
    assert all(c is concretes[0] for c in concretes)
    assert square.tracing_count == 1


def test_concurrent_new_signatures_trace_each_once():
    @function
    def total(x):
        return rt.reduce_sum(x)

    def work(i: int) -> list[float]:
        # Every thread walks the same sizes, in a different order; tensors
        # with known shapes go through the relaxed match too.
        sizes = [(i + k) % 8 + 1 for k in range(8)]
        total.get_concrete_function(rt.TensorSpec((None, i % 3 + 1), rt.float32))
        return [float(total(np.ones((n, i % 3 + 1), np.float32))) for n in sizes]

    results = run_in_threads(work)
    for i, sums in enumerate(results):
        assert sorted(sums) == [float(n * (i % 3 + 1)) for n in range(1, 9)]
    # The three TensorSpec traces serve every call (the most general fits).
    assert total.tracing_count == 3


def test_concurrent_bound_method_calls_share_one_trace():
    class Model:
        @function
        def scale(self, x):
            time.sleep(TRACE_DELAY)
            return x * 3.0

    model = Model()
    run_in_threads(lambda i: model.scale(rt.constant(1.0)))
    assert model.scale.tracing_count == 1


def test_variables_are_created_only_by_the_first_trace_under_concurrency():
    created = []

    class Counter:
        total = None

    counter = Counter()

    @function
    def count(x):
        if counter.total is None:
            time.sleep(TRACE_DELAY)
            counter.total = rt.Variable(0.0)
            created.append(counter.total)
        counter.total.assign_add(x)
        return counter.total.read_value()

    run_in_threads(lambda i: count(rt.constant(1.0)))
    assert len(created) == 1
    assert float(created[0].numpy()) == THREADS


def test_input_signature_function_traces_once_under_concurrency():
    side_effects = []

    @function(input_signature=[rt.TensorSpec((), rt.float32)])
    def negate(x):
        side_effects.append(1)
        time.sleep(TRACE_DELAY)
        return -x

    run_in_threads(lambda i: negate(rt.constant(1.0)))
    assert len(side_effects) == 1


def test_eager_assign_add_from_threads_loses_no_update():
    v = rt.Variable(0)
    updates = 300

    def work(i: int) -> None:
        for _ in range(updates):
            v.assign_add(1)
            v.assign_sub(2)
            v.assign_add(2)

    run_in_threads(work)
    assert int(v.numpy()) == THREADS * updates


def test_graph_assign_add_from_threads_loses_no_update():
    v = rt.Variable(0)

    @function
    def bump(n):
        for _ in rt.range(n):
            v.assign_add(1)
        return v.read_value()

    bump(rt.constant(1))  # traced here, so the threads only run it
    runs = 20

    def work(i: int) -> None:
        for _ in range(runs):
            bump(rt.constant(10))

    run_in_threads(work)
    assert int(v.numpy()) == 1 + THREADS * runs * 10


@pytest.mark.filterwarnings("ignore::autograph.tracing.diagnostics.RetracingWarning")
def test_reading_the_traces_while_other_threads_add_some_never_fails():
    # Iterating the trace cache while another thread inserts into it used
    # to raise "dictionary changed size during iteration".
    @function
    def total(x):
        return rt.reduce_sum(x)

    total.get_concrete_function(rt.TensorSpec((None, 1), rt.float32))

    def work(i: int) -> int:
        seen = 0
        for n in range(1, 25):
            if i % 2:
                total(np.ones((n, i + 2), np.float32))
            else:
                seen = max(seen, len(total.concrete_functions))
                total(np.ones((n, 1), np.float32))  # relaxed match: (None, 1)
        return seen

    run_in_threads(work)
    assert total.tracing_count == 1 + (THREADS // 2) * 24
