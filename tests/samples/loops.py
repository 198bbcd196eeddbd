"""Samples: for and while loops without break, continue or return inside."""

from . import Sample, tensors


def sum_to(n):
    total = 0
    for i in range(n):
        total += i
    return total


def factorial(n):
    result = 1
    while n > 1:
        result *= n
        n -= 1
    return result


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def count_digits(n):
    digits = 1
    while n >= 10:
        n = n // 10
        digits += 1
    return digits


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def power(x, n):
    result = 1
    for _ in range(n):
        result = result * x
    return result


def sum_of_squares(xs):
    total = 0
    for x in xs:
        total += x * x
    return total


def multiplication_table_sum(n):
    total = 0
    for i in range(1, n + 1):
        for j in range(1, i + 1):
            total += i * j
    return total


def sum_below_limit(n, limit):
    i = 0
    total = 0
    while i < n and total + i <= limit:
        total += i
        i += 1
    return total, i


def reverse_digits(n):
    reversed_n = 0
    while n > 0:
        reversed_n = reversed_n * 10 + n % 10
        n //= 10
    return reversed_n


def loop_variable_after_loop(n):
    # An empty range leaves `i` unbound: UnboundLocalError in plain Python.
    for i in range(n):
        pass
    return i


def countdown_range(n):
    seen = 0
    for i in range(n, 0, -2):
        seen = seen * 10 + i
    return seen


def newton_sqrt(x):
    guess = x / 2.0
    for _ in range(20):
        guess = 0.5 * (guess + x / guess)
    return guess


def enumerate_and_zip_of_python_iterables(n):
    # On Python values they are the builtins: lazy, drawing from iterators
    # only as far as the loop goes; `next` and `list` see the same objects.
    squares = (k * k for k in range(n))
    letters = iter("abcdefgh")
    rows = []
    for i, (sq, ch, k) in enumerate(zip(squares, letters, range(100)), start=10):
        if sq > 20:
            break
        rows.append((i, sq, ch, k))
    numbered = enumerate(["x", "y", "z"])
    first = next(numbered)
    for j, v in numbered:
        rows.append((j, v))
    return rows, "".join(letters), first, list(enumerate("ab", 5))


SAMPLES = [
    Sample(sum_to, [(0,), (1,), (10,), (-3,)], tensors((0,), (10,))),
    Sample(factorial, [(0,), (1,), (5,), (10,)], tensors((1,), (5,), (10,))),
    Sample(collatz_steps, [(1,), (6,), (27,)], tensors((1,), (6,), (27,))),
    Sample(fibonacci, [(0,), (1,), (20,)], tensors((0,), (1,), (20,))),
    Sample(count_digits, [(0,), (9,), (12345,)], tensors((0,), (9,), (12345,))),
    Sample(gcd, [(12, 18), (17, 5), (0, 9), (9, 0)], tensors((12, 18), (17, 5))),
    Sample(power, [(2, 10), (3, 0), (1.5, 3), (-2, 3)], tensors((2, 10), (3, 0))),
    Sample(
        sum_of_squares,
        [([],), ([1, 2, 3],), ((4, 5),), (range(5),)],
        tensors(([1, 2, 3],), ([4, -5],)),
    ),
    Sample(multiplication_table_sum, [(0,), (1,), (5,)], tensors((0,), (1,), (5,))),
    Sample(
        sum_below_limit,
        [(10, 100), (10, 7), (0, 5)],
        tensors((10, 100), (10, 7), (0, 5)),
    ),
    Sample(reverse_digits, [(0,), (1230,), (987,)], tensors((1230,), (987,))),
    Sample(loop_variable_after_loop, [(3,), (0,)]),
    Sample(countdown_range, [(7,), (8,), (0,)]),
    Sample(enumerate_and_zip_of_python_iterables, [(0,), (3,), (9,)]),
    Sample(newton_sqrt, [(2.0,), (81.0,), (0.0,)], tensors((2.0,), (81.0,))),
]
