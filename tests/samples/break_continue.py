"""Samples: break, continue, and loop ... else."""

from . import Sample, tensors


def sum_until_negative(xs):
    total = 0
    for x in xs:
        if x < 0:
            break
        total += x
    return total


def sum_even(n):
    total = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        total += i
    return total


def fizzbuzz_count(n):
    count = 0
    for i in range(1, n + 1):
        if i % 3 != 0 and i % 5 != 0:
            continue
        count += 1
    return count


def first_multiple(start, k):
    n = start
    while n < start + 1000:
        if n % k == 0:
            break
        n += 1
    return n


def contains(xs, target):
    for x in xs:
        if x == target:
            found = True
            break
    else:
        found = False
    return found


def first_power_of_two_above(n):
    p = 1
    while p <= n:
        p *= 2
    else:
        p += 0
    return p


def count_pairs_below(n, limit):
    count = 0
    for i in range(n):
        for j in range(n):
            if i + j >= limit:
                break
            count += 1
    return count


def count_until_limit(limit):
    total = 0
    i = 0
    while True:
        i += 1
        if total + i > limit:
            break
        total += i
    return i, total


def skip_multiples_of_three(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        total += i
    return total


def log_until_stop(words, log):
    for word in words:
        if word == "stop":
            break
        if not word:
            continue
        log.append(word.upper())
    return len(log)


def while_else_runs_when_no_break(n):
    i = 0
    while i < n:
        if i == 7:
            break
        i += 1
    else:
        i = -i
    return i


def find_pair_with_sum(xs, target):
    # The for ... else: continue / break idiom leaves both loops at once.
    for i, x in enumerate(xs):
        for y in xs[i + 1 :]:
            if x + y == target:
                break
        else:
            continue
        break
    else:
        return None
    return x, y


def matching_prefix(xs, ys):
    # zip() stops at the shorter; the break ends it earlier.
    n = 0
    for x, y in zip(xs, ys):
        if x != y:
            break
        n += 1
    return n


def weighted_sum_of_evens(xs):
    # enumerate() from 1 with continue, break and else.
    total = 0
    for i, x in enumerate(xs, start=1):
        if x % 2 == 1:
            continue
        if x > 50:
            break
        total += i * x
    else:
        total = -total
    return total


def dot_of_equal_lengths(xs, ys):
    # zip(strict=True): Python's ValueError where the lengths differ.
    total = 0
    for x, y in zip(xs, ys, strict=True):
        total += x * y
    return total


SAMPLES = [
    Sample(
        sum_until_negative,
        [([1, 2, -1, 5],), ([1, 2],), ([],)],
        tensors(([1, 2, -1, 5],), ([1, 2],)),
    ),
    Sample(sum_even, [(0,), (9,), (10,)], tensors((0,), (9,), (10,))),
    Sample(fizzbuzz_count, [(0,), (15,), (100,)], tensors((15,), (100,))),
    Sample(first_multiple, [(10, 7), (14, 7), (1, 1)], tensors((10, 7), (14, 7))),
    # (With tensors it was refused: "'found' must also be defined in the else
    # branch"; the graph `if` in the body now carries it with its flag.)
    Sample(
        contains,
        [([1, 2, 3], 2), ([1, 2, 3], 4), ([], 0)],
        tensors(([1, 2, 3], 2), ([1, 2, 3], 4)),
    ),
    Sample(first_power_of_two_above, [(0,), (1,), (100,)], tensors((1,), (100,))),
    Sample(count_pairs_below, [(4, 3), (3, 10), (0, 1)], tensors((4, 3), (3, 10))),
    # Python only: a tensor `break` in a `while True` loop is a TypeError (API.md).
    Sample(count_until_limit, [(0,), (10,), (100,)]),
    Sample(skip_multiples_of_three, [(0,), (10,), (12,)], tensors((0,), (10,), (12,))),
    Sample(find_pair_with_sum, [([1, 4, 6, 3], 9), ([1, 2], 7), ([], 0)]),
    Sample(
        matching_prefix,
        [([1, 2, 3], [1, 2, 5, 7]), ([1, 2, 3, 4], [1, 2, 3]), ("abc", "abd")],
        tensors(([1, 2, 3], [1, 2, 5, 7]), ([1, 2, 3, 4], [1, 2, 3])),
    ),
    Sample(
        weighted_sum_of_evens,
        [([2, 3, 4],), ([2, 3, 60, 4],), ([],)],
        tensors(([2, 3, 4],), ([2, 3, 60, 4],)),
    ),
    Sample(
        dot_of_equal_lengths,
        [([1, 2], [3, 4]), ([1, 2, 3], [4, 5]), ([1], [2, 3])],
        tensors(([1, 2], [3, 4]), ([0, 2, 3], [4, 5, 6])),
    ),
    Sample(log_until_stop, [(["a", "", "b", "stop", "c"], []), (["x"], ["y"])]),
    Sample(
        while_else_runs_when_no_break,
        [(3,), (10,), (0,)],
        tensors((3,), (10,), (0,)),
    ),
]
