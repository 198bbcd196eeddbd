"""Polymorphism: one Function, many graphs (one per input signature).

From "Introduction to graphs and tf.function" (Polymorphism) and "Better
performance with tf.function" (Tracing, Obtaining concrete functions,
Controlling retracing).

Run: python examples/polymorphism.py
"""

import autograph
import runtime as rt


@autograph.function
def my_relu(x):
    return rt.maximum(0.0, x)


# `my_relu` creates new graphs as it sees more signatures.
print(my_relu(rt.constant(5.5)))
print(my_relu([1, -1]))
print(my_relu(rt.constant([3.0, -3.0])))

# These two calls do *not* create new graphs.
print(my_relu(rt.constant(-2.5)))  # Signature matches `rt.constant(5.5)`.
print(my_relu(rt.constant([-1.0, 1.0])))  # Matches `rt.constant([3., -3.])`.
print("traces:", my_relu.tracing_count)

# There are three ConcreteFunctions (one for each graph) in `my_relu`; each
# knows its return type and shape too.
print(my_relu.pretty_printed_concrete_signatures())
print()


@autograph.function
def double(a):
    print("Tracing with", a.dtype)
    return a + a


print(double(rt.constant(1)))
print(double(rt.constant(1.1)))
print(double(rt.constant([1, 2])))
print(double(rt.constant(2)))  # No "Tracing with": the int32 scalar trace exists.
print(double.pretty_printed_concrete_signatures())
print()

# Obtaining a concrete function: tensors, Python values or TensorSpecs.
double_ints = double.get_concrete_function(rt.TensorSpec(shape=[], dtype=rt.int32))
print(double_ints)
print(double_ints(rt.constant(3)))
print(double_ints(a=rt.constant(4)))
print(double_ints.structured_input_signature)
print(double_ints.structured_outputs)
try:
    double_ints(rt.constant(1.0))
except TypeError as error:
    print("TypeError:", error)


@autograph.function
def pow_(a, b):
    return a**b


# Python arguments stay in the signature, fixed to their traced value.
square = pow_.get_concrete_function(a=rt.TensorSpec(None, rt.float32), b=2)
print(square)
print("square(10.0) =", square(rt.constant(10.0)).numpy())
try:
    square(rt.constant(10.0), b=3)
except TypeError as error:
    print("TypeError:", error)

for node in double_ints.graph.as_graph_def().node:
    print(f"{node.input} -> {node.name}")
print()


# A fixed input_signature: one graph for every size, errors for the rest.
@autograph.function(input_signature=(rt.TensorSpec(shape=[None], dtype=rt.int32),))
def next_collatz(x):
    print("Tracing with", x.shape)
    return rt.where(x % 2 == 0, x // 2, 3 * x + 1)


print(next_collatz(rt.constant([1, 2])))
print(next_collatz(rt.constant([1, 2, 3, 4, 5])))  # No retrace: None matches any size.
for bad in (rt.constant([[1, 2], [3, 4]]), rt.constant([1.0, 2.0])):
    try:
        next_collatz(bad)
    except (TypeError, ValueError) as error:
        print(f"{type(error).__name__}:", error)
