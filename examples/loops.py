"""Loops: over a tensor they become one graph `while`; over Python data they unroll.

From "Better performance with tf.function" (Loops; Looping over Python
data): a loop whose condition or iterable is a tensor is traced once into a
`while` node; a loop over a Python list runs while tracing, adding its body
to the graph once per item.

Run: python examples/loops.py
"""

import autograph
import runtime as rt


@autograph.function
def f(x):
    while rt.reduce_sum(x) > 1:
        rt.print(x)
        x = rt.tanh(x)
    return x


print(f(rt.random.uniform([5], seed=3)))
print(autograph.to_code(f))


def measure_graph_size(f, label, data):
    # The graph as traced, as the guide shows it (`.optimized_graph` runs).
    g = f.get_concrete_function(data).graph
    size = len(g.as_graph_def().node)
    print(f"{f.__name__}({label}) contains {size} nodes in its graph")


@autograph.function
def train(dataset):
    loss = rt.constant(0)
    for x, y in dataset:
        loss += rt.abs(y - x)  # Some dummy computation.
    return loss


small_data = [(1, 1)] * 3
big_data = [(1, 1)] * 10
measure_graph_size(train, "small_data", small_data)
measure_graph_size(train, "big_data", big_data)


@autograph.function
def train_on_tensor(dataset):
    loss = rt.constant(0)
    for row in dataset:
        loss += rt.abs(row[1] - row[0])
    return loss


measure_graph_size(train_on_tensor, "rt.constant(small_data)", rt.constant(small_data))
measure_graph_size(train_on_tensor, "rt.constant(big_data)", rt.constant(big_data))


@autograph.function
def sum_even(items):
    s = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


print("sum_even:", sum_even(rt.constant([10, 12, 15, 20])).numpy())
