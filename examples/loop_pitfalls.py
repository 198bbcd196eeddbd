"""Pitfalls of graph control flow, and the errors that explain them.

From "Better performance with tf.function" (AutoGraph transformations) and
the AutoGraph reference on control flow: a graph `if`/loop needs every
variable it produces to be defined on all paths, with one dtype and shape.
Each error names the variable and suggests the fix.

Run: python examples/loop_pitfalls.py
"""

import os

import autograph
import runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def show(title, function, *args):
    print(f"-- {title}")
    try:
        result = autograph.function(function)(*args)
    except (TypeError, ValueError, rt.errors.InvalidArgumentError) as error:
        # Messages name the user's file:line; print it relative to here.
        print(f"{type(error).__name__}: {str(error).replace(HERE, '')}")
    else:
        print("ok:", result)


def defined_in_one_branch(x):
    if x > 0:
        y = x * 2
    return y  # undefined when the else path runs


def changes_dtype(n):
    total = rt.constant(0)  # an int32 tensor (a Python 0 would be widened)...
    for i in rt.range(n):
        total = rt.cast(i, rt.float32) / 2  # ...but a float32 after one iteration
    return total


def changes_shape(n):
    x = rt.constant([1.0])
    while rt.reduce_sum(x) < rt.cast(n, rt.float32):
        x = rt.concat([x, x], axis=0)  # the shape grows each iteration
    return x


def first_assigned_in_loop(n):
    for i in rt.range(n):
        last = i * 2
    return last  # unbound when the loop runs zero times, as in Python


def python_bool_of_a_tensor(x):
    return bool(x > 0)


def fixed_dtype(n):
    total = rt.constant(0.0)  # the right dtype before the loop
    for i in rt.range(n):
        total = rt.cast(i, rt.float32) / 2
    return total


def allowed_to_grow(n):
    x = rt.constant([1.0])
    while rt.reduce_sum(x) < rt.cast(n, rt.float32):
        autograph.set_loop_options(shape_invariants=[(x, (None,))])
        x = rt.concat([x, x], axis=0)  # any length: the invariant says (None,)
    return x


show(
    "a name defined in only one branch of a graph if",
    defined_in_one_branch,
    rt.constant(1),
)
show("a loop variable that changes dtype", changes_dtype, rt.constant(3))
show("a loop variable that changes shape", changes_shape, rt.constant(8))
show(
    "a name first assigned inside a graph loop", first_assigned_in_loop, rt.constant(3)
)
show(
    "... read after the loop ran zero times (fails when the graph runs)",
    first_assigned_in_loop,
    rt.constant(0),
)
show(
    "a graph tensor where Python needs a bool", python_bool_of_a_tensor, rt.constant(1)
)
show("the fix: give the loop variable its dtype first", fixed_dtype, rt.constant(3))
show("the fix: let the loop variable change shape", allowed_to_grow, rt.constant(4))
