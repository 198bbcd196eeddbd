"""Python vs tensor arguments: Python values are part of the trace key.

From "Better performance with tf.function" (Pass tensors instead of python
literals): each new Python value traces a new graph, a tensor does not. A
Function that keeps retracing warns once, naming the argument and the fix.

Run: python examples/python_vs_tensor_arguments.py
"""

import warnings

import autograph
import runtime as rt


def train_one_step():
    pass


@autograph.function
def train(num_steps):
    print("Tracing with num_steps =", num_steps)
    rt.print("Executing with num_steps =", num_steps)
    for _ in rt.range(num_steps):
        train_one_step()


print("Retracing occurs for different Python arguments.")
train(num_steps=10)
train(num_steps=20)

print()
print("Traces are reused for Tensor arguments.")
train(num_steps=rt.constant(10))
train(num_steps=rt.constant(20))
print("traces:", train.tracing_count)

print()
print("A Function that keeps retracing warns once:")


@autograph.function
def scaled(x, factor):
    return x * factor


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for factor in range(8):
        scaled(rt.constant(1.0), factor)
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
