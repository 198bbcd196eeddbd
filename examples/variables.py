"""Variables: created once, outside the function or on its first trace.

From "Better performance with tf.function" (Creating tf.Variables; Changing
Python global and free variables): a Function may create Variables only on
its first call, and only once (the first call traces twice to check); a
Python counter guarding a write is frozen into the graph.

Run: python examples/variables.py
"""

import autograph
import runtime as rt


@autograph.function
def f(x):
    v = rt.Variable(1.0)  # a new Variable on every call: refused
    return v + x


try:
    f(1.0)  # the first call traces twice; the second trace creates it again
except ValueError as error:
    print(f"ValueError: {error}".replace(__file__, "variables.py"))


state = []


@autograph.function
def scale(x):
    if not state:  # created once, from the first call's input
        state.append(rt.Variable(2.0 * x))
    return state[0] * x


print("initial value from the input:", scale(rt.constant(1.0)).numpy())
print("second call reuses it:", scale(rt.constant(3.0)).numpy())


class Count:
    def __init__(self):
        self.count = None

    @autograph.function
    def __call__(self):
        if self.count is None:
            self.count = rt.Variable(0)
        return self.count.assign_add(1)


c = Count()
print(c().numpy())
print(c().numpy())


class Model:
    def __init__(self):
        self.v = rt.Variable(0)
        self.counter = 0

    @autograph.function
    def __call__(self):
        if self.counter == 0:
            # A Python side effect: it runs only while tracing...
            self.counter += 1
            # ...but the write it guards is now part of the graph.
            self.v.assign_add(1)
        return self.v


m = Model()
for _ in range(3):
    print(m().numpy())  # prints 1, 2, 3
