"""Non-strict execution: a graph runs only the ops its results and effects need.

From "Introduction to graphs and tf.function" (Non-strict execution): eagerly,
an out-of-range `gather` raises at once; in a graph whose result does not use
it, it never runs, so it cannot raise. Effects (`rt.print`, Variable writes,
asserts) always run.

Run: python examples/non_strict_execution.py
"""

import autograph
import runtime as rt


def unused_return_eager(x):
    # Get index 1 will fail when `len(x) == 1`.
    rt.gather(x, [1])  # unused
    return x


try:
    print(unused_return_eager(rt.constant([0.0])))
except rt.errors.InvalidArgumentError as error:
    # All operations are run during eager execution, so an error is raised.
    print(f"{type(error).__name__}: {error}")


@autograph.function
def unused_return_graph(x):
    rt.gather(x, [1])  # unused
    return x


# Only needed operations are run during graph execution: no error is raised.
print(unused_return_graph(rt.constant([0.0])))


@autograph.function
def effects_still_run(x):
    rt.gather(x, [1])  # unused: pruned
    rt.print("rt.print is an effect: it runs, x =", x)
    return x * 2.0


print(effects_still_run(rt.constant([0.0])))
graph = effects_still_run.get_concrete_function(rt.constant([0.0])).graph
print("ops traced:", [op.type for op in graph.get_operations()])
