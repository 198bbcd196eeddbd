"""Samples: the walrus operator, nested generators, returns under a graph `if`."""

from . import Sample, tensors


def countdown_walrus(x):
    n = 0
    while (x := x - 1) > 0:
        n += 1
    return n, x


def walrus_loop_with_break(x, log):
    n = 0
    while (x := x - 1) > 0:
        log.append(x)
        if x == 3:
            break
        n += 1
    else:
        n = -n
    return n, x


def walrus_loop_with_continue(x):
    n = 0
    while (x := x - 1) > 0:
        if x % 2 == 0:
            continue
        n += x
    return n, x


def walrus_loop_with_return(x):
    n = 0
    while (x := x - 1) > 0:
        if n > 6:
            return n * 10 + x
        n += x
    return n


def nested_walrus_loops(n):
    total = 0
    i = 0
    while (i := i + 1) <= n:
        j = 0
        while (j := j + 1) <= i:
            total += j
    return total, i


def walrus_in_if_test(x):
    if (y := x * 2) > 3:
        x = y + 1
    return x, y


def walrus_in_comprehension(xs, k):
    out = 0
    if k > 0:
        big = [y for v in xs if (y := v * k) > 2]
        out = len(big) + y
    return out


def walrus_in_loop_body_and_iterable(xs):
    total = 0
    for v in (items := sorted(xs)):
        if (half := v // 2) > 1:
            total += half
    return total, items


def walrus_comparison_chain(a, b):
    if 0 < a < (c := b * 2):
        return c
    return -1


SAMPLES = [
    Sample(countdown_walrus, [(5,), (0,), (1,)], tensors((5,), (0,))),
    Sample(walrus_loop_with_break, [(6, []), (3, []), (2, []), (1, [])]),
    Sample(walrus_loop_with_continue, [(9,), (0,)], tensors((9,), (0,))),
    Sample(walrus_loop_with_return, [(9,), (3,), (0,)]),
    Sample(nested_walrus_loops, [(4,), (0,)], tensors((4,), (0,))),
    Sample(walrus_in_if_test, [(1,), (3,)], tensors((1,), (3,))),
    Sample(walrus_in_comprehension, [([1, 2, 3], 2), ([1, 2, 3], 0), ([], 1)]),
    Sample(walrus_in_loop_body_and_iterable, [([5, 2, 9],), ([],)]),
    Sample(walrus_comparison_chain, [(1, 3), (0, 3), (5, 1)]),
]
