"""Automatic control dependencies: effects run in program order.

From "Better performance with tf.function" (older editions: Automatic
control dependencies): the graph orders Variable writes and `rt.print`s as
the Python code wrote them, so the Function computes what eager code does.

Run: python examples/control_dependencies.py
"""

import autograph
import runtime as rt

a = rt.Variable(1.0)
b = rt.Variable(2.0)


@autograph.function
def f(x, y):
    a.assign(y * b)
    b.assign_add(x * a)
    return a + b


print("f(1.0, 2.0) =", f(1.0, 2.0).numpy())  # 10.0
print("a =", a.numpy(), "b =", b.numpy())


@autograph.function
def ordered_prints(x):
    rt.print("first", x)
    rt.print("second", x + 1)
    rt.print("third", x + 2)


ordered_prints(rt.constant(1))
ordered_prints(rt.constant(10))
