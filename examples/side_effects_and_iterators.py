"""Side effects, globals, objects and iterators: Python state is read when tracing.

From "Better performance with tf.function" (Limitations; Depending on Python
global and free variables; Depending on Python objects; Using Python
iterators and generators).

Run: python examples/side_effects_and_iterators.py
"""

import autograph
import runtime as rt

external_list = []


@autograph.function
def side_effect(x):
    print("Python side effect")
    external_list.append(x)


side_effect(1)
side_effect(1)
side_effect(1)
# The list append only happened once!
print("len(external_list) =", len(external_list))


@autograph.function
def buggy_consume_next(iterator):
    rt.print("Value:", next(iterator))


iterator = iter([1, 2, 3])
buggy_consume_next(iterator)
# This reuses the first value from the iterator, rather than consuming the next.
buggy_consume_next(iterator)
buggy_consume_next(iterator)


@autograph.function
def buggy_add():
    return 1 + foo


@autograph.function
def recommended_add(foo):
    return 1 + foo


foo = 1
print("Buggy:", buggy_add().numpy())
print("Correct:", recommended_add(foo).numpy())
print("Updating the value of `foo` to 100!")
foo = 100
print("Buggy:", buggy_add().numpy())  # Did not change!
print("Correct:", recommended_add(foo).numpy())


class SimpleModel:
    def __init__(self):
        # These values are *not* rt.Variables.
        self.bias = 0.0
        self.weight = 2.0


@autograph.function
def evaluate(model, x):
    return model.weight * x + model.bias


simple_model = SimpleModel()
x = rt.constant(10.0)
print(evaluate(simple_model, x).numpy())
print("Adding bias!")
simple_model.bias += 5.0
print(evaluate(simple_model, x).numpy())  # Didn't change: same object, same trace.


class BetterModel:
    def __init__(self):
        self.bias = rt.Variable(0.0)
        self.weight = rt.Variable(2.0)


better_model = BetterModel()
print(evaluate(better_model, x).numpy())
print("Adding bias!")
better_model.bias.assign_add(5.0)  # Note: instead of better_model.bias += 5
print(evaluate(better_model, x).numpy())  # This works!
