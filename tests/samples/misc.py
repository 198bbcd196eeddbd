"""Samples: comprehensions, try / except / finally, with, raise, unpacking."""

import contextlib

from . import Sample


def even_squares(n):
    return [i * i for i in range(n) if i % 2 == 0]


def word_lengths(words):
    return {w: len(w) for w in words if w}


def distinct_remainders(xs, k):
    return sorted({x % k for x in xs})


def nested_comprehension(n):
    return [[i * j for j in range(i)] for i in range(n)]


def safe_divide(a, b):
    try:
        result = a / b
    except ZeroDivisionError:
        result = float("inf")
    return result


def parse_ints(texts):
    values = []
    for text in texts:
        try:
            values.append(int(text))
        except ValueError:
            continue
    return values


def cleanup_always_runs(x, log):
    try:
        log.append("try")
        if x < 0:
            raise ValueError("negative input")
        return x * 2
    finally:
        log.append("finally")


@contextlib.contextmanager
def tagged(log, tag):
    log.append("enter " + tag)
    try:
        yield tag.upper()
    finally:
        log.append("exit " + tag)


def use_context_manager(n, log):
    total = 0
    with tagged(log, "sum") as label:
        for i in range(n):
            total += i
        log.append(label)
    return total


def validate_age(age):
    if age < 0:
        raise ValueError(f"age must be non-negative, got {age}")
    if age > 150:
        raise ValueError("age is not realistic")
    return age


def sum_pairs(pairs):
    total = 0
    for a, b in pairs:
        if a > b:
            total += a - b
        else:
            total += b - a
    return total


def average(xs):
    # An empty list raises ZeroDivisionError.
    return sum(xs) // len(xs)


def dict_counts(words):
    counts = {}
    for w in words:
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    return counts


def format_report(values):
    lines = []
    for i, v in enumerate(values):
        status = "ok" if v >= 0 else "bad"
        lines.append(f"{i}: {v:.2f} {status}")
    return "\n".join(lines)


def nan_passthrough(x):
    if x != x:
        return x
    return x + 1.0


SAMPLES = [
    Sample(even_squares, [(0,), (7,)]),
    Sample(word_lengths, [(["a", "", "abc"],)]),
    Sample(distinct_remainders, [([1, 4, 7, 2], 3), ([], 2)]),
    Sample(nested_comprehension, [(4,)]),
    Sample(safe_divide, [(1, 2), (1, 0)]),
    Sample(parse_ints, [(["1", "x", "-3", ""],)]),
    Sample(cleanup_always_runs, [(3, []), (-3, [])]),
    Sample(use_context_manager, [(4, []), (0, ["x"])]),
    Sample(validate_age, [(30,), (-1,), (200,)]),
    Sample(sum_pairs, [([(1, 2), (5, 3)],), ([],)]),
    Sample(average, [([1, 2, 6],), ([],)]),
    Sample(dict_counts, [(["a", "b", "a"],)]),
    Sample(format_report, [([1.5, -2.0, 0.0],)]),
    Sample(nan_passthrough, [(float("nan"),), (1.0,)]),
]
