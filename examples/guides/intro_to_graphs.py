"""The guide "Introduction to graphs and tf.function", cell by cell, with rt.

Each cell of the TensorFlow guide is ported to `runtime` (as `rt`) and
`autograph.function` (for `tf.function`), in the guide's order, and every
statement the guide makes about what a cell prints or returns is checked
with an `assert` (so `make examples` and tests/test_examples.py fail when a
behaviour drifts). Where this project differs from TensorFlow on purpose,
the comment says so.

Run: python examples/guides/intro_to_graphs.py
"""

import io
import sys
import timeit
from contextlib import redirect_stdout

import numpy as np

import autograph
import runtime as rt


def printed(fn, *args):
    """What `fn(*args)` prints, and its result."""
    out = io.StringIO()
    with redirect_stdout(out):
        result = fn(*args)
    sys.stdout.write(out.getvalue())
    return out.getvalue(), result


# -- Taking advantage of graphs --------------------------------------------------------


def function_to_get_faster(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


# Create a `Function` object that contains a graph.
a_function_that_uses_a_graph = autograph.function(function_to_get_faster)

x1 = rt.constant([[1.0, 2.0]])
y1 = rt.constant([[2.0], [3.0]])
b1 = rt.constant(4.0)

orig_value = function_to_get_faster(x1, y1, b1).numpy()
tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
print("function_to_get_faster:", tf_function_value)
# "It just works": the same value as the Python function.
assert np.array_equal(orig_value, tf_function_value)
assert tf_function_value.tolist() == [[12.0]]


# A Function traces any Python function it calls.
def inner_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


@autograph.function
def outer_function(x):
    y = rt.constant([[2.0], [3.0]])
    b = rt.constant(4.0)
    return inner_function(x, y, b)


print("outer_function:", outer_function(rt.constant([[1.0, 2.0]])).numpy())
assert outer_function(rt.constant([[1.0, 2.0]])).numpy().tolist() == [[12.0]]
inner_ops = outer_function.get_concrete_function(x1).graph.get_operations()
assert "MatMul" in [op.type for op in inner_ops]  # inner_function is in the graph


# -- Converting Python functions to graphs ---------------------------------------------


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


tf_simple_relu = autograph.function(simple_relu)
print("First branch, with graph:", tf_simple_relu(rt.constant(1)).numpy())
print("Second branch, with graph:", tf_simple_relu(rt.constant(-1)).numpy())
assert tf_simple_relu(rt.constant(1)).numpy() == 1
assert tf_simple_relu(rt.constant(-1)).numpy() == 0

# The graph-generating output of AutoGraph: the `if` became a functional call.
code = autograph.to_code(simple_relu)
print(code)
assert "ag__.if_" in code and "    if " not in code

# The graph itself: one `cond` node for the `if`.
graph_def = tf_simple_relu.get_concrete_function(rt.constant(1)).graph.as_graph_def()
print(graph_def)
assert [node.op for node in graph_def.node].count("If") == 1


# -- Polymorphism: one Function, many graphs -------------------------------------------


@autograph.function
def my_relu(x):
    return rt.maximum(0.0, x)


# `my_relu` creates new graphs as it observes more signatures.
print(my_relu(rt.constant(5.5)))
print(my_relu([1, -1]))
print(my_relu(rt.constant([3.0, -3.0])))
assert my_relu(rt.constant(5.5)).numpy() == 5.5
assert my_relu([1, -1]).numpy().tolist() == [1.0, 0.0]
assert my_relu(rt.constant([3.0, -3.0])).numpy().tolist() == [3.0, 0.0]

# These two calls do *not* create new graphs.
print(my_relu(rt.constant(-2.5)))  # Signature matches `rt.constant(5.5)`.
print(my_relu(rt.constant([-1.0, 1.0])))  # Signature matches `rt.constant([3., -3.])`.
signatures = my_relu.pretty_printed_concrete_signatures()
print(signatures)
# "Three graphs": a scalar tensor, a Python list, a vector tensor.
assert signatures.count("my_relu(x") == 3, signatures


# -- Using graph execution -------------------------------------------------------------


@autograph.function
def get_MSE(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = rt.pow(y_true - y_pred, 2)
    return rt.reduce_mean(sq_diff)


y_true = rt.random.uniform([5], maxval=10, dtype=rt.int32)
y_pred = rt.random.uniform([5], maxval=10, dtype=rt.int32)
expected_mse = int(np.mean((y_true.numpy() - y_pred.numpy()) ** 2))


def three_calls():
    return [get_MSE(y_true, y_pred) for _ in range(3)]


# Graph execution: the Python `print` runs once, while tracing.
text, errors = printed(three_calls)
assert text.count("Calculating MSE!") == 1
assert {int(e) for e in errors} == {expected_mse}

# `run_functions_eagerly(True)`: the Python code runs on every call.
autograph.run_functions_eagerly(True)
try:
    text, errors = printed(three_calls)
finally:
    autograph.run_functions_eagerly(False)
assert text.count("Calculating MSE!") == 3
assert {int(e) for e in errors} == {expected_mse}
assert not autograph.functions_run_eagerly()


# -- Non-strict execution --------------------------------------------------------------


def unused_return_eager(x):
    # Get index 1 will fail when `len(x) == 1`.
    rt.gather(x, [1])  # unused
    return x


try:
    print(unused_return_eager(rt.constant([0.0])))
    raise AssertionError("the eager gather should have failed")
except rt.errors.InvalidArgumentError as e:
    # All operations are run during eager execution so an error is raised.
    print(f"{type(e).__name__}: {e}")


@autograph.function
def unused_return_graph(x):
    rt.gather(x, [1])  # unused
    return x


# Only needed operations are run during graph execution: no error.
print(unused_return_graph(rt.constant([0.0])))
assert unused_return_graph(rt.constant([0.0])).numpy().tolist() == [0.0]


# -- Seeing the speed-up ---------------------------------------------------------------

x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32)


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


power_as_graph = autograph.function(power)
power_as_graph(x, 100)  # trace once, outside the timing
eager = timeit.timeit(lambda: power(x, 100), number=10)
graph = timeit.timeit(lambda: power_as_graph(x, 100), number=10)
print("Eager execution:", eager, "seconds")
print("Graph execution:", graph, "seconds")
# The guide's claim is about speed, which a script cannot check reliably on a
# shared machine (bench/ measures it); the results must agree.
assert np.array_equal(power(x, 100).numpy(), power_as_graph(x, 100).numpy())


# -- When is a Function tracing? -------------------------------------------------------


@autograph.function
def a_function_with_python_side_effect(x):
    print("Tracing!")  # An eager-only side effect.
    return x * x + rt.constant(2)


# This is traced the first time.
text, result = printed(a_function_with_python_side_effect, rt.constant(2))
assert text == "Tracing!\n" and result.numpy() == 6
# The second time through, you won't see the side effect.
text, result = printed(a_function_with_python_side_effect, rt.constant(3))
assert text == "" and result.numpy() == 11
# This retraces each time the Python argument changes, as a Python argument
# could be an epoch count or other hyperparameter.
text, result = printed(a_function_with_python_side_effect, 2)
assert text == "Tracing!\n" and result.numpy() == 6
text, result = printed(a_function_with_python_side_effect, 3)
assert text == "Tracing!\n" and result.numpy() == 11

print("intro_to_graphs: every statement checked")
