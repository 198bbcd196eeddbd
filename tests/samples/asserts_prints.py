"""Samples: assert statements and print calls (side effects in order)."""

from . import Sample, tensors


def checked_sqrt(x):
    assert x >= 0, "x must be non-negative"
    return x**0.5


def checked_half(n):
    assert n % 2 == 0
    return n // 2


def all_nonzero_product(xs):
    product = 1
    for i, x in enumerate(xs):
        assert x != 0, f"zero at index {i}"
        product *= x
    return product


def print_steps(n):
    for i in range(n):
        print("step", i)
    print("done")


def print_with_separators(a, b):
    print(a, b, sep=", ", end="!\n")
    print()
    return a + b


def print_branches(x):
    if x > 0:
        print("positive", x)
        x -= 1
    else:
        print("non-positive", x)
    print("after", x)
    return x


def countdown(n):
    while n > 0:
        print(n)
        n -= 1
    print("liftoff")
    return n


def collatz_trace(n):
    while n != 1:
        print(n, end=" ")
        n = n // 2 if n % 2 == 0 else 3 * n + 1
    print(n)


def log_and_print(xs, log):
    for x in xs:
        log.append(x)
        print("logged", x)
        if x < 0:
            print("negative, stopping")
            return len(log)
    return -1


def assert_in_loop_bound(n):
    total = 0
    for i in range(n):
        total += i
        assert total < 10, "total grew too large"
    return total


def check_in_loop_that_never_runs(a):
    # Fuzz-found (issue 20): XLA's compiler crashed (a segfault) on a loop it
    # can prove runs no iteration (`a < a`) whose body holds a run-time
    # check (the missing key), the loop state unchanged by the body.
    nn = {"a": {"a": 0}}
    if a != 0:
        return a
    fuel = 0
    while (a < a) and fuel > 0:
        fuel -= 1
        nn["missing"]["a"] = 2
    return a + nn["a"]["a"]


SAMPLES = [
    Sample(checked_sqrt, [(4.0,), (0,), (-1.0,)], tensors((4.0,), (0.0,))),
    Sample(checked_half, [(4,), (3,)], tensors((4,))),
    Sample(all_nonzero_product, [([1, 2, 3],), ([2, 0, 1],), ([],)]),
    Sample(print_steps, [(0,), (3,)]),
    Sample(print_with_separators, [(1, 2), ("a", "b")]),
    Sample(print_branches, [(3,), (-3,)]),
    Sample(countdown, [(3,), (0,)]),
    Sample(collatz_trace, [(6,), (1,)]),
    Sample(log_and_print, [([1, 2, -3, 4], []), ([1], [0])]),
    Sample(assert_in_loop_bound, [(3,), (10,)], tensors((3,))),
    Sample(check_in_loop_that_never_runs, [(0,), (5,)], tensors((0,), (5,))),
]
