"""When is a Function tracing? Add a Python `print` and watch.

From "Introduction to graphs and tf.function" (When is a Function tracing?)
and "Better performance with tf.function" (Rules of tracing): a Function
traces on a new signature; a new Python value is a new signature; separate
Function objects never share traces.

Run: python examples/when_tracing_happens.py
"""

import autograph
import runtime as rt


@autograph.function
def a_function_with_python_side_effect(x):
    print("Tracing!")  # An eager-only side effect.
    return x * x + rt.constant(2)


# This is traced the first time.
print(a_function_with_python_side_effect(rt.constant(2)))
# The second time through, you won't see the side effect.
print(a_function_with_python_side_effect(rt.constant(3)))

# This retraces each time the Python argument changes,
# as a Python argument could be an epoch count or other hyperparameter.
print(a_function_with_python_side_effect(2))
print(a_function_with_python_side_effect(3))
print("traces:", a_function_with_python_side_effect.tracing_count)


def f():
    print("Tracing!")
    rt.print("Executing")


# Separate Function objects are guaranteed not to share traces.
autograph.function(f)()
autograph.function(f)()
