"""`to_code` and the graph of `simple_relu`: what a Function is made of.

From "Introduction to graphs and tf.function" (Converting Python functions to
graphs): AutoGraph rewrites the Python `if` into a call that becomes a graph
`cond` when its condition is a tensor; the traced graph holds that node.

Run: python examples/to_code_and_graph.py
"""

import autograph
import runtime as rt


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


# `tf_simple_relu` is a Function that wraps `simple_relu`.
tf_simple_relu = autograph.function(simple_relu)

print("First branch, with graph:", tf_simple_relu(rt.constant(1)).numpy())
print("Second branch, with graph:", tf_simple_relu(rt.constant(-1)).numpy())

# This is the graph-generating output of AutoGraph.
print(autograph.to_code(simple_relu))

# This is the graph itself.
concrete = tf_simple_relu.get_concrete_function(rt.constant(1))
print(concrete.graph.as_graph_def())
print("nodes:", [node.name for node in concrete.graph.as_graph_def().node])
