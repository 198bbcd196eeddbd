"""`staging.unobserved.observation`: whether a function's source only reads
a list or dict two of its names share (then a staged statement's copy of it
cannot be told from it), else the first use that could tell."""

import re

import pytest

from runtime.operators.staging import unobserved


def only_read(a):
    xs = [0, 0]
    ys = xs
    zs = ys
    total = ys[0] + len(xs) + sum(zs) + xs.count(0)
    for v in ys:
        total += v
    if ys and 0 in xs and ys == zs:
        total += max(xs)
    print(f"{ys}", ys[1:])
    return total, ys, xs


def item_stored(a):
    xs = [0, 0]
    ys = xs
    total = ys[0]
    xs[0] += 1
    return total


def appended_through_an_alias_of_an_alias(a):
    xs = [0, 0]
    ys = xs
    zs = ys
    zs.append(a)
    return xs[0]


def identity_tested(a):
    xs = [0, 0]
    ys = xs
    return ys is xs


def given_to_a_callee(a):
    xs = [0, 0]
    ys = xs
    record(ys)
    return xs[0]


def read_by_a_lambda(a):
    xs = [0, 0]
    ys = xs
    later = lambda: ys[0]
    return later()


def a_parameter(xs):
    ys = xs
    return ys[0]


def rebound_by_a_for(a):
    xs = [0, 0]
    ys = xs
    for ys in [[1], [2]]:
        pass
    return xs[0]


def read_through_locals(a):
    xs = [0, 0]
    ys = xs
    return locals()["ys"][0]


def len_shadowed(a):
    xs = [0, 0]
    ys = xs
    len = record
    return len(ys)


def record(items):
    return items


CASES = [
    (only_read, None),
    (item_stored, r"^`xs\[0\] \+= 1` at \S+test_unobserved\.py:\d+$"),
    (appended_through_an_alias_of_an_alias, r"^`zs\.append\(a\)` at "),
    (identity_tested, r"^`return ys is xs` at "),
    (given_to_a_callee, r"^`record\(ys\)` at "),
    (read_by_a_lambda, r"^`later = lambda: ys\[0\]` at "),
    (a_parameter, r"^a caller or another object may hold it$"),
    (rebound_by_a_for, r"^`for ys in \[\[1\], \[2\]\]:` at "),
    (read_through_locals, r"^`return locals\(\)\['ys'\]\[0\]` at "),
    (len_shadowed, r"^`return len\(ys\)` at "),
]


@pytest.mark.parametrize(("fn", "expected"), CASES, ids=[c[0].__name__ for c in CASES])
def test_observation_names_the_first_use_that_is_more_than_a_read(fn, expected):
    seen = unobserved.observation(fn.__code__, globals(), {"xs", "ys"}, [0, 0])
    if expected is None:
        assert seen is None
    else:
        assert seen is not None and re.search(expected, seen), seen


def test_a_list_whose_items_may_change_is_observed():
    seen = unobserved.observation(only_read.__code__, globals(), {"xs"}, [[0], 1])
    assert seen == "its items may change"


def test_a_function_without_source_is_observed():
    code = compile("def f():\n    xs = [0]\n    return xs[0]\n", "<nowhere>", "exec")
    function = next(c for c in code.co_consts if hasattr(c, "co_name"))
    assert unobserved.observation(function, {}, {"xs"}, [0]) == ""
