"""Conditionals: `if` on a tensor becomes a graph `cond`; on Python values it runs.

From "Better performance with tf.function" (AutoGraph transformations:
Conditionals): a Python `if` runs while tracing and leaves one branch in the
graph; an `if` on a tensor traces both branches into one `cond` node.

Run: python examples/conditionals.py
"""

import autograph
import runtime as rt


@autograph.function
def fizzbuzz(n):
    for i in rt.range(1, n + 1):
        print("Tracing for loop")
        if i % 15 == 0:
            print("Tracing fizzbuzz branch")
            rt.print("fizzbuzz")
        elif i % 3 == 0:
            print("Tracing fizz branch")
            rt.print("fizz")
        elif i % 5 == 0:
            print("Tracing buzz branch")
            rt.print("buzz")
        else:
            print("Tracing default branch")
            rt.print(i)


fizzbuzz(rt.constant(5))
fizzbuzz(rt.constant(20))


@autograph.function
def clip(x, use_graph_if):
    if use_graph_if:  # noqa: SIM102 - a Python bool: decided while tracing
        if x > 1.0:  # a tensor: a graph cond
            x = rt.constant(1.0)
    return x


for flag in (True, False):
    graph = clip.get_concrete_function(rt.constant(3.0), flag).graph
    ops = [op.name for op in graph.get_operations()]
    print(f"use_graph_if={flag}: clip(3.0) = {clip(rt.constant(3.0), flag).numpy()}")
    print(f"  ops: {ops}")
