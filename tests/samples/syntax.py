"""Samples: the walrus operator, nested generators, returns under a graph `if`."""

import contextlib

from . import Sample, tensors


def countdown_walrus(x):
    n = 0
    while (x := x - 1) > 0:
        n += 1
    return n, x


def walrus_loop_with_continue(x):
    n = 0
    while (x := x - 1) > 0:
        if x % 2 == 0:
            continue
        n += x
    return n, x


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


def walrus_in_a_returned_comprehension(a, n):
    # After lowering, this return is one arm of a conditional: the walrus
    # must still bind `z` in the function, not in a lambda made of the arm.
    z = 1
    while n > 0:
        n -= 1
        if a > 3:
            return -1
    return sum([(z := z + a) for k in range(3)])


def walrus_in_an_or_operand(a, b):
    # The right side of `or` becomes a lambda: the walrus sets the function's
    # `z`, which lives in a cell, and a graph `or` carries it.
    z = 0
    found = a > 2 or (z := b * 2) > 3
    return found, z


def walrus_in_an_augmented_comprehension(n):
    # The walrus binds x only if the comprehension iterates: the second
    # `del x` raises UnboundLocalError when it does not.
    x = 1
    total = 0
    for _ in range(2):
        del x
        total += sum([(x := k) for k in range(n)])
    return total


def local_context_manager(n, log):
    @contextlib.contextmanager
    def tagged(tag):
        log.append("enter " + tag)
        try:
            yield tag.upper()
        finally:
            log.append("exit " + tag)

    total = 0
    with tagged("sum") as label:
        for i in range(n):
            if i % 2:
                total += i
        log.append(label)
    return total


def local_context_manager_around_graph_code(x):
    events = []

    @contextlib.contextmanager
    def scope(tag):
        events.append(tag)
        yield
        events.append("/" + tag)

    with scope("a"):
        if x > 0:
            y = x * 2
        else:
            y = -x
    return y, len(events)


def nested_generator_reads_converted_state(n):
    def evens(k):
        for i in range(k):
            if i % 2 == 0:
                yield i

    scale = 1
    if n > 3:
        scale = 10

    def scaled():
        for v in evens(n):
            yield v * scale

    s = 0
    for v in scaled():
        s += v
    return s


SAMPLES = [
    Sample(countdown_walrus, [(5,), (0,), (1,)], tensors((5,), (0,))),
    Sample(walrus_loop_with_continue, [(9,), (0,)], tensors((9,), (0,))),
    Sample(nested_walrus_loops, [(4,), (0,)], tensors((4,), (0,))),
    Sample(walrus_in_if_test, [(1,), (3,)], tensors((1,), (3,))),
    Sample(walrus_in_comprehension, [([1, 2, 3], 2), ([1, 2, 3], 0), ([], 1)]),
    Sample(walrus_in_loop_body_and_iterable, [([5, 2, 9],), ([],)]),
    Sample(walrus_comparison_chain, [(1, 3), (0, 3), (5, 1)]),
    Sample(
        walrus_in_a_returned_comprehension,
        [(1, 2), (5, 2), (2, 0)],
        tensors((1, 2), (5, 2), (2, 0)),
    ),
    Sample(
        walrus_in_an_or_operand,
        [(3, 1), (0, 1), (0, 5)],
        tensors((3, 1), (0, 1), (0, 5)),
    ),
    Sample(walrus_in_an_augmented_comprehension, [(0,), (3,)]),
    Sample(local_context_manager, [(5, []), (0, ["x"])]),
    Sample(
        local_context_manager_around_graph_code, [(3,), (-2,)], tensors((3,), (-2,))
    ),
    Sample(nested_generator_reads_converted_state, [(6,), (2,)]),
]
