"""Samples: calls to helpers, recursion, closures, methods, partials, lambdas."""

import functools

from . import Sample, Static, tensors


def square(x):
    return x * x


def sum_of_squares_to(n):
    total = 0
    for i in range(n):
        total += square(i)
    return total


def factorial_recursive(n):
    if n <= 1:
        return 1
    return n * factorial_recursive(n - 1)


def fib_recursive(n):
    if n < 2:
        return n
    return fib_recursive(n - 1) + fib_recursive(n - 2)


def make_adder(k):
    def add(x):
        if x > 0:
            return x + k
        return x - k

    return add


def apply_twice(x):
    def step(v):
        return v * 2 + 1

    return step(step(x))


def count_with_nonlocal(n):
    count = 0

    def bump():
        nonlocal count
        count += 1

    for _ in range(n):
        bump()
    return count


_calls = 0


def count_with_global(n):
    global _calls
    _calls = 0
    while _calls < n:
        _calls += 1
    return _calls


class Accumulator:
    """A running total, to test bound and unbound methods."""

    def __init__(self, start):
        self.total = start

    def total_with(self, xs):
        total = self.total
        for x in xs:
            if x > 0:
                total += x
        return total

    def add_all(self, xs):
        for x in xs:
            if x > 0:
                self.total += x
        return self.total

    def add_all_twice(self, xs):
        self.add_all(xs)
        return self.add_all(xs)


def scaled_sum(xs, scale, offset=0):
    total = offset
    for x in xs:
        total += x * scale
    return total


def total_of(*values, start=0):
    total = start
    for v in values:
        total += v
    return total


def describe(name, **options):
    parts = [name]
    for key in sorted(options):
        if options[key]:
            parts.append(key)
    return "-".join(parts)


def uses_keyword_call(n):
    return scaled_sum(range(n), scale=2, offset=-1) + total_of(1, 2, start=n)


def step_with_default(n, step=3):
    count = 0
    while n > 0:
        n -= step
        count += 1
    return count


def sort_by_distance(xs, center):
    return sorted(xs, key=lambda x: abs(x - center))


cube = lambda x: x * x * x


def builtins_mix(xs):
    if len(xs) == 0:
        return 0
    return max(xs) - min(xs) + sum(abs(x) for x in xs)


def map_helper(xs):
    return list(map(square, xs))


def divide_all(xs, d):
    # d == 0 raises ZeroDivisionError inside the helper.
    return [safe_floor_div(x, d) for x in xs]


def safe_floor_div(a, b):
    return a // b


def apply_builtin(f, *args):
    return f(*args)


def builtins_as_values(n):
    # Builtins bound to names or passed as arguments mean what they mean
    # when named directly: `fn(n)` over a graph tensor is one graph loop.
    fn, f = range, abs
    total = 0
    for i in fn(n):
        total += apply_builtin(f, i - 2)
    return apply_builtin(float, total + apply_builtin(int, n))


SAMPLES = [
    Sample(sum_of_squares_to, [(0,), (5,)], tensors((0,), (5,))),
    Sample(factorial_recursive, [(0,), (6,)], tensors((Static(6),))),
    Sample(fib_recursive, [(0,), (1,), (10,)]),
    Sample(make_adder(3), [(5,), (-5,)], tensors((5,), (-5,)), name="make_adder.add"),
    Sample(apply_twice, [(0,), (4,)], tensors((4,))),
    Sample(count_with_nonlocal, [(0,), (4,)]),
    Sample(count_with_global, [(0,), (5,)]),
    Sample(
        Accumulator(10).total_with,
        [([1, -2, 3],), ([],)],
        name="Accumulator.total_with(bound)",
    ),
    Sample(
        Accumulator.add_all_twice,
        [(Accumulator(0), [1, 2]), (Accumulator(-1), [-5])],
        name="Accumulator.add_all_twice(unbound)",
    ),
    Sample(
        functools.partial(scaled_sum, scale=3),
        [([1, 2, 3],), ([],), ([1], 5)],
        name="partial(scaled_sum)",
    ),
    Sample(total_of, [(), (1, 2, 3), (1.5, -1)]),
    Sample(describe, [("plain",)]),
    Sample(
        functools.partial(describe, fast=True, safe=0, loud=1),
        [("mode",)],
        name="partial(describe)",
    ),
    Sample(uses_keyword_call, [(0,), (4,)]),
    Sample(step_with_default, [(10,), (0,), (-1,)], tensors((10,), (0,))),
    Sample(sort_by_distance, [([1, 5, 9, 4], 4), ([], 0)]),
    Sample(cube, [(3,), (-2,)], tensors((3,), (-2,)), name="cube_lambda"),
    Sample(builtins_mix, [([3, -1, 2],), ([],)]),
    Sample(map_helper, [([1, 2, 3],)]),
    Sample(divide_all, [([7, 8], 2), ([7], 0)]),
    Sample(builtins_as_values, [(0,), (5,)], tensors((0,), (5,))),
]
