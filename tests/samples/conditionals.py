"""Samples: if / elif / else and conditional expressions."""

from . import Sample, tensors


def simple_relu(x):
    if x > 0:
        return x
    return 0.0


def abs_value(x):
    if x < 0:
        x = -x
    return x


def sign(x):
    if x > 0:
        result = 1
    elif x < 0:
        result = -1
    else:
        result = 0
    return result


def clip(x, lo, hi):
    if x < lo:
        x = lo
    else:
        if x > hi:
            x = hi
    return x


def max_of_three(a, b, c):
    if a >= b:
        if a >= c:
            largest = a
        else:
            largest = c
    else:
        if b >= c:
            largest = b
        else:
            largest = c
    return largest


def piecewise(x):
    if x < -1.0:
        y = -1.0
    elif x < 1.0:
        y = x * x
    else:
        y = 2.0 * x - 1.0
    return y


def is_leap_year(year):
    if year % 4 != 0:
        return False
    elif year % 100 != 0:
        return True
    else:
        return year % 400 == 0


def larger(x, y):
    return x if x > y else y


def bucket(x):
    return "small" if x < 10 else "medium" if x < 100 else "large"


def grade(score):
    if score >= 90:
        letter = "A"
    elif score >= 80:
        letter = "B"
    elif score >= 70:
        letter = "C"
    else:
        letter = "F"
    return letter


def sign_word(x):
    # Zero leaves `word` unbound: UnboundLocalError in plain Python.
    if x > 0:
        word = "positive"
    elif x < 0:
        word = "negative"
    return word


def shipping_cost(weight, express):
    cost = 5.0
    if weight > 10:
        cost += 0.5 * (weight - 10)
    if express:
        cost *= 2
    return cost


def swap_if_unordered(a, b):
    if a > b:
        a, b = b, a
    return a, b


def scratch_in_a_branch(x):
    # `tmp` changes in a graph `if` but nobody reads it afterwards.
    tmp = x
    if x > 0:
        tmp += x
    return x + 1


SAMPLES = [
    Sample(
        simple_relu,
        [(3.5,), (-2.0,), (0.0,), (float("nan"),), (7,)],
        tensors((3.5,), (-2.0,), (0.0,)),
    ),
    Sample(abs_value, [(-4,), (4,), (0,), (-2.5,)], tensors((-4,), (4,), (-2.5,))),
    Sample(sign, [(5,), (-5,), (0,)], tensors((5,), (-5,), (0,))),
    Sample(
        clip,
        [(5, 0, 10), (-3, 0, 10), (42, 0, 10), (1.5, 2.0, 3.0)],
        tensors((5, 0, 10), (-3, 0, 10), (42, 0, 10)),
    ),
    Sample(
        max_of_three,
        [(1, 2, 3), (3, 2, 1), (2, 3, 1), (2, 2, 2)],
        tensors((1, 2, 3), (3, 2, 1), (2, 3, 1)),
    ),
    Sample(piecewise, [(-3.0,), (0.5,), (4.0,)], tensors((-3.0,), (0.5,), (4.0,))),
    Sample(
        is_leap_year,
        [(2024,), (1900,), (2000,), (2023,)],
        tensors((2024,), (1900,), (2000,), (2023,)),
    ),
    Sample(larger, [(1, 2), (5, -5), (3, 3)], tensors((1, 2), (5, -5))),
    Sample(bucket, [(3,), (50,), (500,)]),
    Sample(grade, [(95,), (85,), (75,), (10,)]),
    Sample(sign_word, [(3,), (-3,), (0,)]),
    Sample(
        shipping_cost,
        [(4, False), (14, True), (20, 0)],
        tensors((4.0, False), (14.0, True)),
    ),
    Sample(swap_if_unordered, [(1, 2), (2, 1)], tensors((1, 2), (2, 1))),
    Sample(scratch_in_a_branch, [(3,), (-3,)], tensors((3,), (-3,))),
]
