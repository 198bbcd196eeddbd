"""Samples: and / or / not, chained comparisons, short-circuiting."""

from . import Sample, tensors


def in_range(x, lo, hi):
    return lo <= x < hi


def either_is_zero(a, b):
    return a == 0 or b == 0


def not_both(p, q):
    return not (p and q)


def first_truthy(value, default):
    return value or default


def guarded_value(flag, value):
    return flag and value


def safe_ratio_above(a, b, threshold):
    if b != 0 and a // b > threshold:
        return True
    return False


def note(log, value):
    log.append(value)
    return value


def short_circuit_order(x, log):
    if note(log, x > 0) and note(log, x > 10) or note(log, x == -1):
        return "yes"
    return "no"


def exclusive_or(p, q):
    return (p or q) and not (p and q)


def all_positive(xs):
    return all(x > 0 for x in xs)


def count_in_band(xs, lo, hi):
    count = 0
    for x in xs:
        if not (x < lo or x > hi):
            count += 1
    return count


def truthy_branches(x):
    if x:
        return "truthy"
    elif not x and x is not None:
        return "falsy"
    return "none"


SAMPLES = [
    Sample(
        in_range,
        [(5, 0, 10), (10, 0, 10), (-1, 0, 10)],
        tensors((5, 0, 10), (10, 0, 10), (-1, 0, 10)),
    ),
    Sample(either_is_zero, [(0, 1), (1, 0), (1, 1)], tensors((0, 1), (1, 1))),
    Sample(
        not_both,
        [(True, True), (True, False), (0, 5), ([], [1])],
        tensors((True, True), (True, False)),
    ),
    Sample(first_truthy, [(0, 7), (3, 7), ("", "empty"), (None, [])]),
    Sample(guarded_value, [(False, 3), (True, 3), (1, "x"), ([], 1)]),
    Sample(
        safe_ratio_above,
        [(7, 0, 1), (7, 2, 1), (7, 2, 5)],
        tensors((7, 0, 1), (7, 2, 1), (7, 2, 5)),
    ),
    Sample(short_circuit_order, [(5, []), (50, []), (-1, []), (-5, [])]),
    Sample(
        exclusive_or,
        [(True, False), (True, True), (0, 3), (0, 0)],
        tensors((True, False), (True, True), (False, False)),
    ),
    Sample(all_positive, [([1, 2],), ([1, -2],), ([],)]),
    Sample(
        count_in_band,
        [([1, 5, 9, 12], 2, 10), ([], 0, 1)],
        tensors(([1, 5, 9, 12], 2, 10)),
    ),
    Sample(truthy_branches, [(1,), (0,), (None,), ("",)]),
]
