"""Samples: state that is not a plain local name.

Items (``d['a']``), attributes (``box.total``), names captured by closures or
written through ``nonlocal``/``global``, and names assigned before an
exception leaves a converted statement. Each was a silent wrong value once.
"""

import contextlib
import types

from . import Sample, tensors

RESULTS = []
LAST_SEEN = -1
shadowed = 100


def count_keys(n):
    d = {"a": 0, "b": 0}
    for i in range(n):
        d["a"] += 1
        if i % 2 == 0:
            d["b"] += 2
    return d["a"], d["b"]


def pick(a):
    d = {"k": 0}
    if a > 0:
        d["k"] = 5
    return d["k"]


def attribute_total(n):
    box = types.SimpleNamespace(total=0)
    for i in range(n):
        box.total += i
    return box.total


def nested_items(n):
    x = {"a": {"b": 0}, "c": [1, 2]}
    for i in range(n):
        x["a"]["b"] += i
        x["c"][0] = x["c"][0] * 2
    return x["a"]["b"], x["c"][0], x["c"][1]


def list_item_in_both_branches(a):
    xs = [0, 10]
    if a > 2:
        xs[1] = a
    else:
        xs[1] = -a
    return xs[1]


def last_seen(n):
    x = 0

    def get():
        return x

    for i in range(n):
        x = i
    return get()


def closure_called_in_loop(n):
    x = 0
    get = lambda: x
    total = 0
    for i in range(n):
        x = i * 2
        total += get()
    return total


def nonlocal_bump_in_branch(a):
    count = 0

    def bump():
        nonlocal count
        count += 1

    if a > 0:
        bump()
        count += 10
    return count


def nonlocal_two_levels_in_branch(a):
    count = 0

    def outer():
        def inner():
            nonlocal count  # count of nonlocal_two_levels_in_branch, not outer's
            if a > 0:
                count = 5

        inner()

    outer()
    return count


def nonlocal_two_levels_from_loop(n):
    count = 0

    def outer():
        for i in range(n):

            def bump():
                nonlocal count
                count += i

            bump()

    outer()
    return count


def global_set_by_nested_in_loop(n):
    for i in range(-1, n):

        def remember():
            global LAST_SEEN
            LAST_SEEN = i

        remember()
    return LAST_SEEN


def elif_condition_effect(a):
    calls = 0

    def inc(k):
        nonlocal calls
        calls += k
        return calls > 100

    if a > 0:
        r = 1
    elif inc(2):
        r = 2
    else:
        r = 3
    return r, calls


def append_to_module_list(n):
    RESULTS.clear()
    for i in range(n):
        RESULTS.append(i * i)
    return list(RESULTS)


def lambdas_made_in_loop(n):
    fs = []
    for i in range(n):
        fs.append(lambda: i)
    return [f() for f in fs]


def closure_after_del():
    x = 1

    def get():
        return x

    del x
    return get()


def read_before_conditional_assignment(a):
    y = shadowed
    if a > 0:
        shadowed = 1
    return y + shadowed


def assigned_before_raise(x):
    z = x
    try:
        if x > 0:
            z += 1
            raise KeyError("k")
    except KeyError:
        pass
    return z


def assigned_in_loop_before_raise(n):
    z = 0
    try:
        for i in range(n):
            z += 1
            if i == 1:
                raise KeyError("k")
    except KeyError:
        pass
    return z


def suppressed_by_with(n):
    z = 0
    with contextlib.suppress(ValueError):
        while z < n:
            z += 1
            if z == 2:
                raise ValueError("stop")
    return z


def item_changed_before_a_returning_branch(a):
    d = {"a": 0, "b": 0}
    x = a
    if a > 0:
        d["b"] -= 5
        x = x + 1
    else:
        return -1, x, d["b"]
    return 2, x, d["b"]


SAMPLES = [
    Sample(count_keys, [(0,), (5,)], tensors((0,), (5,))),
    Sample(pick, [(-1,), (1,)], tensors((-1,), (1,))),
    Sample(attribute_total, [(0,), (5,)], tensors((0,), (5,))),
    Sample(nested_items, [(0,), (4,)], tensors((0,), (4,))),
    Sample(list_item_in_both_branches, [(1,), (3,)], tensors((1,), (3,))),
    Sample(last_seen, [(0,), (3,)], tensors((1,), (3,))),
    Sample(closure_called_in_loop, [(0,), (4,)], tensors((0,), (4,))),
    Sample(nonlocal_bump_in_branch, [(-1,), (1,)], tensors((-1,), (1,))),
    Sample(nonlocal_two_levels_in_branch, [(-1,), (1,)], tensors((-1,), (1,))),
    Sample(nonlocal_two_levels_from_loop, [(0,), (4,)], tensors((0,), (4,))),
    Sample(global_set_by_nested_in_loop, [(0,), (3,)]),
    Sample(elif_condition_effect, [(-1,), (1,)]),
    Sample(append_to_module_list, [(0,), (3,)]),
    Sample(lambdas_made_in_loop, [(0,), (3,)]),
    Sample(closure_after_del, [()]),
    Sample(read_before_conditional_assignment, [(-1,), (1,)]),
    Sample(assigned_before_raise, [(-1,), (1,)]),
    Sample(assigned_in_loop_before_raise, [(0,), (1,), (3,)]),
    Sample(suppressed_by_with, [(1,), (5,)]),
    Sample(item_changed_before_a_returning_branch, [(3,), (-3,)], tensors((3,), (-3,))),
]
