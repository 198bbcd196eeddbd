"""Samples: return statements before the end, also inside loops."""

from . import Sample, tensors


def is_prime(n):
    if n < 2:
        return False
    for d in range(2, n):
        if d * d > n:
            return True
        if n % d == 0:
            return False
    return True


def first_negative_index(xs):
    for i, x in enumerate(xs):
        if x < 0:
            return i
    return -1


def count_found(xs, targets):
    # A helper whose `return` ends an enumerate() loop, called in a loop.
    found = 0
    for t in targets:
        if index_of(xs, t) >= 0:
            found += 1
    return found


def index_of(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            return i
    return -1


def smallest_divisor(n):
    d = 2
    while d * d <= n:
        if n % d == 0:
            return d
        d += 1
    return n


def double_non_negative(x):
    if x < 0:
        return
    return x * 2


def first_square_above(n):
    i = 0
    while True:
        i += 1
        if i * i > n:
            return i


def newton_until_still(a):
    # `while True:` left only by its `return`: no path returns None.
    x = a
    while True:
        nx = (x + a / x) / 2
        if abs(nx - x) < 1e-6:
            return nx
        x = nx


def halve_below_one(a):
    x = a
    while True:
        x = x / 2
        if x < 1:
            return x
    return None  # never reached


def find_in_grid(rows, cols, target):
    for r in range(rows):
        for c in range(cols):
            if r * cols + c == target:
                return r, c
    return -1, -1


def classify_triangle(a, b, c):
    if a + b <= c or a + c <= b or b + c <= a:
        return "invalid"
    if a == b:
        if b == c:
            return "equilateral"
        return "isosceles"
    if b == c or a == c:
        return "isosceles"
    return "scalene"


def countdown_to_threshold(n, threshold):
    while n > 0:
        n -= 3
        if n < threshold:
            return n
    return 0


def return_in_else(x):
    if x > 10:
        y = x - 10
    else:
        return -x
    y = y * 2
    return y


def no_return_value(log):
    log.append("start")
    if len(log) > 5:
        return
    log.append("end")


SAMPLES = [
    Sample(
        is_prime,
        [(0,), (2,), (9,), (13,), (25,), (97,)],
        tensors((2,), (9,), (13,), (97,)),
    ),
    Sample(
        first_negative_index,
        [([3, 1, -2, 5],), ([1, 2],), ([],)],
        tensors(([3, 1, -2, 5],), ([1, 2],), ([],)),
    ),
    Sample(
        count_found,
        [([1, 2, 3], [3, 5, 1]), ([], [1])],
        tensors(([1, 2, 3], [3, 5, 1]), ([4], [1, 2])),
    ),
    Sample(smallest_divisor, [(2,), (15,), (49,), (97,)], tensors((15,), (97,))),
    Sample(double_non_negative, [(-1,), (4,)]),
    # Python only: a tensor `return` in a `while True` loop is a TypeError (API.md).
    Sample(first_square_above, [(0,), (10,), (99,)], tensors((0,), (10,), (99,))),
    Sample(newton_until_still, [(2.0,), (9.0,)], tensors((2.0,), (9.0,))),
    Sample(halve_below_one, [(0.5,), (5.0,)], tensors((0.5,), (5.0,))),
    Sample(
        find_in_grid,
        [(3, 4, 7), (2, 2, 9), (0, 3, 0)],
        tensors((3, 4, 7), (2, 2, 9)),
    ),
    Sample(classify_triangle, [(1, 1, 5), (2, 2, 2), (2, 2, 3), (3, 4, 5)]),
    Sample(
        countdown_to_threshold,
        [(10, 3), (10, -10), (0, 1)],
        tensors((10, 3), (10, -10), (0, 1)),
    ),
    # Python only: `y` is assigned in one branch of the `if` (API.md).
    Sample(return_in_else, [(15,), (5,)]),
    Sample(no_return_value, [([],), ([1, 2, 3, 4, 5],)]),
]
