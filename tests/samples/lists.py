"""Samples: lists built, mutated and emptied in loops; del."""

from . import Sample


def squares_list(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return out


def drain_sum(xs):
    total = 0
    while xs:
        total += xs.pop()
    return total


def remove_negatives(xs):
    i = len(xs) - 1
    while i >= 0:
        if xs[i] < 0:
            del xs[i]
        i -= 1
    return xs


def double_in_place(xs):
    for i in range(len(xs)):
        xs[i] *= 2


def balanced_brackets(text):
    stack = []
    pairs = {")": "(", "]": "["}
    for ch in text:
        if ch in "([":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False
    return not stack


def drop_first_two(xs):
    del xs[:2]
    return len(xs)


def delete_then_read(x):
    # Reading a deleted name raises UnboundLocalError.
    y = x + 1
    if x > 0:
        del y
    return y


def running_max(xs):
    result = []
    best = None
    for x in xs:
        if best is None or x > best:
            best = x
        result.append(best)
    return result


def pairs_below(n):
    pairs = []
    for i in range(n):
        for j in range(i):
            pairs.append((j, i))
    return pairs


def pop_from_empty(xs):
    # An empty list raises IndexError.
    first = xs.pop(0)
    xs.append(first)
    return xs


def chunk(xs, size):
    chunks = []
    current = []
    for x in xs:
        current.append(x)
        if len(current) == size:
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return chunks


SAMPLES = [
    Sample(squares_list, [(0,), (5,)]),
    Sample(drain_sum, [([],), ([1, 2, 3],)]),
    Sample(remove_negatives, [([1, -2, 3, -4, -5],), ([],)]),
    Sample(double_in_place, [([1, 2, 3],), ([],)]),
    Sample(balanced_brackets, [("([])",), ("(]",), ("((",), ("",), ("())",)]),
    Sample(drop_first_two, [([1, 2, 3],), ([1],)]),
    Sample(delete_then_read, [(-1,), (1,)]),
    Sample(running_max, [([3, 1, 4, 1, 5],), ([],)]),
    Sample(pairs_below, [(0,), (4,)]),
    Sample(pop_from_empty, [([1, 2],), ([],)]),
    Sample(chunk, [([1, 2, 3, 4, 5], 2), ([], 3)]),
]
