"""Seeing the speed-up: the same computation, eagerly and as a graph.

From "Introduction to graphs and tf.function" (Seeing the speed-up). Figures
depend on the machine; they are printed, never checked. Small computations
can be dominated by the overhead of calling a graph; the graph saves the
per-op Python dispatch of eager execution.

Run: python examples/speedup.py
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads

import timeit

import autograph
import runtime as rt

x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32, seed=0)


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


power_as_graph = autograph.function(power)
assert (power(x, 100).numpy() == power_as_graph(x, 100).numpy()).all()

number = 200
eager = timeit.timeit(lambda: power(x, 100), number=number)
graph = timeit.timeit(lambda: power_as_graph(x, 100), number=number)
print(f"Eager execution: {eager:.3f} s for {number} calls")
print(f"Graph execution: {graph:.3f} s for {number} calls")
print(f"speed-up: {eager / graph:.1f}x")


# A tiny model: the graph pays off most where many small ops run in Python.
class Dense:
    def __init__(self, n_in, n_out, seed):
        self.w = rt.Variable(rt.random.uniform([n_in, n_out], seed=seed))
        self.b = rt.Variable(rt.zeros([n_out]))

    def __call__(self, x):
        return rt.tanh(rt.matmul(x, self.w) + self.b)


layers = [Dense(8, 8, seed=i) for i in range(4)]


def model(x):
    for layer in layers:
        x = layer(x)
    return rt.reduce_sum(x)


model_as_graph = autograph.function(model)
inputs = rt.random.uniform([4, 8], seed=9)
model_as_graph(inputs)  # trace once, outside the timing
eager = timeit.timeit(lambda: model(inputs), number=number)
graph = timeit.timeit(lambda: model_as_graph(inputs), number=number)
print(f"small model, eager: {eager * 1e6 / number:.1f} us per call")
print(f"small model, graph: {graph * 1e6 / number:.1f} us per call")
