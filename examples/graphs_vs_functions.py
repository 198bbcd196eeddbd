"""Graphs vs plain functions: a Function computes what the Python function does.

From "Introduction to graphs and tf.function": `autograph.function` takes a
Python function and returns a `Function`, a callable that traces the Python
code into a graph once and then runs the graph. It also traces (and
converts) every function it calls.

Run: python examples/graphs_vs_functions.py
"""

import autograph
import runtime as rt


def a_regular_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


# `a_function_that_uses_a_graph` is a Function.
a_function_that_uses_a_graph = autograph.function(a_regular_function)

x1 = rt.constant([[1.0, 2.0]])
y1 = rt.constant([[2.0], [3.0]])
b1 = rt.constant(4.0)

orig_value = a_regular_function(x1, y1, b1).numpy()
tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
print("plain Python function:", orig_value)
print("Function (graph):     ", tf_function_value)
assert orig_value == tf_function_value
print("same result:", bool(orig_value == tf_function_value))


def inner_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


@autograph.function
def outer_function(x):
    y = rt.constant([[2.0], [3.0]])
    b = rt.constant(4.0)
    return inner_function(x, y, b)


# The graph of `outer_function` includes the ops of `inner_function`.
print("outer_function:", outer_function(rt.constant([[1.0, 2.0]])).numpy())
graph = outer_function.get_concrete_function(rt.constant([[1.0, 2.0]])).graph
print("ops in its graph:", [op.type for op in graph.get_operations()])
