"""One case table run over every staging backend.

Each case is a plain Python function, the arguments it is called with, and
what every backend must do: give Python's result, or refuse while tracing
(or, under JAX where user code swallows the refusal, when run) with a
message naming what to change. As JAX's own control-flow tests run one case
list over every implementation, a new backend is one more entry in
`RUNNERS`.
"""

from __future__ import annotations

import collections
import functools
import inspect
import io
import itertools
import math
import random
import re
import types
from typing import NamedTuple

import numpy as np
import pytest

import autograph
import runtime as rt
from tests.equivalence import (
    assert_equivalent,
    assert_graph_equivalent,
    assert_jax_equivalent,
)
from tests.runtime.operators import toy_backend
from tests.samples.break_continue import matching_prefix, weighted_sum_of_evens
from tests.samples.early_return import count_found, index_of


def cell_no_try(n):
    x = 1
    for i in range(n):
        w = i
    get = lambda: w  # noqa: F841 - makes `w` a cell
    x = x + w
    return x


def loop_born_read_in_try(n):
    x = 1
    try:
        for i in range(n):
            w = i
        x = x + w
    finally:
        return x  # noqa: B012 - swallows the UnboundLocalError when n == 0


def loop_in_try_body(n):
    x = 1
    try:
        i = 0
        while i < n:
            w = i
            i += 1
        x = x + w
    except ZeroDivisionError:
        x = -5
    return x


def except_name_in_a_loop(n):
    err = 0.0
    s = 0.0
    for i in range(n):
        try:
            raise ValueError(i)
        except ValueError as err:  # noqa: F811, F841 - deleted at its end
            s += 1.0
    return s


def except_name_bound_again_in_a_loop(n):
    err = 0
    i = 0
    while i < n:
        try:
            raise ValueError(i)
        except ValueError as err:  # noqa: F811, F841 - deleted at its end
            i += 1
        err = i * 2
    return err


def except_name_deleted_in_a_branch(x):
    e = 1.0
    if x > 0:
        try:
            raise ValueError(x)
        except ValueError as e:  # noqa: F841 - deleted at its end
            pass
    return e


def deleted_in_the_if_branch(x):
    i = 1
    if x > 0:
        del i
    return i


def deleted_in_the_else_branch(x):
    i = 1
    if x > 0:
        i = 2
    else:
        del i
    return i


def helper():
    raise KeyError("boom")


def raise_from_helper(x):
    y = 0
    try:
        if x > 0:
            y = helper()
        else:
            y = 1
    except KeyError:
        y = 2
    return y


def both_assign(x):
    if x > 0:
        y = x * 2
    else:
        y = 0 - x
    return y


def returns_in_both(x):
    if x > 0:
        return x + 1
    return x - 1


def returns_in_one_branch_only(x):
    if x > 0:
        return x
    print("not positive")


def assigned_in_one_branch_only(x):
    if x > 0:
        y = 1
    return y


def raises_on_one_path(x):
    if x > 10:
        raise ValueError("too big")
    return x


def returns_or_raises_on_every_path(a):
    # The `elif`'s `if` (which returns, from the loop) raises in both
    # branches: it gives no value, not None (fuzz: "returns a value from the
    # if branch ... but None from its else branch").
    p = True
    if a > 10:
        return 0
    elif a > 7:
        raise ValueError("r1")
    else:
        if p:
            raise KeyError("r3")
        while True:
            return 1


def raises_on_every_path_but_one(a):
    # Each `elif`'s `if` ends a branch of the one before: it gives that
    # branch's value, none where both its branches raise.
    d = {}
    if a > 10:
        return 0
    elif a > 7:
        raise ValueError("r1")
    elif a > 3:
        raise KeyError("r2")
    else:
        d["r3"]  # raises KeyError, which the compiler cannot tell


def loop_then_if(n):
    i = 0
    while i < n:
        w = i
        i += 1
    if n > 0:
        r = w
    else:
        r = -1
    return r


def nested_ifs(x):
    if x > 0:
        if x > 5:
            y = 2
        else:
            y = 1
    else:
        y = 0
    return y


def list_grown_in_loop(n):
    gl = [n]
    i = 0
    while i < n:
        gl = gl + [i]  # noqa: RUF005 - the replacement is the point
        i += 1
    return gl[0]


def missing_key_in_branch(a):
    nn = {"a": {"a": 0}}
    if a > 3:
        nn["missing"]["a"] = 5
    return a


def loop_born_in_the_else_branch(a, b):
    y = a
    if a > 0:
        w = 2
    else:
        for _ in range(b):
            w = 1
            y += 1
    return y + w


def loop_born_after_a_return_in_a_branch(a, b):
    y = a
    if a > 0:
        if b > 5:
            return y * 3
        for _ in range(b):
            w = 1
            y += 1
    else:
        w = 2
    return y + w


def read_before_a_python_loop_assigns(a, b):
    y = b
    for _ in range(a):
        for _ in range(0):
            w = y
        y = y + w
        y, z = z, y  # noqa: F821, F841 - `z` too is read before the loop assigns it
    return y


def dict_read_before_any_path_assigns(a, b):
    y = b
    for _ in range(a):
        for _ in range(0):
            w = {"k": y}
        y = y + w["k"]
    return y


def list_grown_in_a_try_that_breaks(a, b):
    x = a
    for _ in [1, 2]:
        try:
            gl = [0]
            for _ in range(a):
                gl = gl + [x]  # noqa: RUF005 - the replacement is the point
            x = x + 1
        finally:
            break  # noqa: B012 - swallows the refusal while staging
    return x


def one_branch_name_in_a_try(a, b):
    x = b
    try:
        if x > 2:
            w = x + 1
        x = x + (2 if (b != 2) and w > 0 else 1)
    except ValueError:
        x = 0 - x
    return x


def try_else_after_a_body_that_returns(a, b):
    x = a
    i = 0
    while i < b:
        i += 1
        w = 3
    try:
        if b <= 1:
            return 1
        else:
            return 2
    except KeyError:
        x = 5
    else:  # never runs in Python; traced behind the return's flag
        x = x + (1 if b > 7 else w)
    return x


def attribute_set_in_dead_code_after_a_loop_else_that_returns(a, b):
    x = a
    for _ in range(a):
        if x > 100:
            return 0
        x = x + 1
    else:
        return x
    ob = types.SimpleNamespace()  # never runs in Python; traced behind the flag
    ob.born = x
    return ob.born


def raise_a_finally_replaces(a):
    y = 1
    if a > 0:
        try:
            if a > 2:
                raise ValueError("r2")
        finally:
            raise KeyError("r4")  # replaces the ValueError
    return y


def _bounded(v):
    if v > 9:
        return 9
    return v


def range_loop_unrolled_after_its_staged_form_is_refused(a):
    def bump(k):
        nonlocal z  # `z` is a cell: a place of the loop
        z = z + k

    x = a
    z = a
    sa = [0]
    sb = sa
    for _ in range(4, 1, -2):
        sa = [_bounded(0 - z)]  # staged, refused: `sa` and `sb` share a list
    return x + sa[0] + sb[0]


def shared_list_replaced_in_a_loop_in_a_try(a, b):
    z = 0
    try:
        sa = [0]
        sb = sa
        for _ in range(b):
            sa = [_bounded(1)]  # a place (a cell) of the loop, in a `try`
        sb[0] += 1
        z = z + sa[0] + sb[0]
    finally:
        z = z * 1
    return z


def index_as_a_set_member(a):
    marks = {2, 5}
    total = 0.0
    x = a
    for t in range(8):
        x = x * 0.5 + 1.0
        if t in marks:  # hashes the index: Python's loop, unrolled
            total = total + x
    return total


def index_as_a_dict_key(a):
    w = {0: 1.0, 1: 2.0, 2: 3.0}
    x = a
    for k in range(3):
        x = x * w[k]
    return x


def index_in_a_dict(a):
    w = {0: 1.0, 2: 3.0}
    x = a
    for k in range(3):
        if k in w:  # hashes the index: Python's loop, unrolled
            x = x * w[k] + 1.0
    return x


def index_as_a_dict_key_in_a_branch(a):
    w = {0: 1.0, 1: 2.0, 2: 3.0}
    x = a
    for k in range(3):
        if x > 0:
            x = x + w[k]
    return x


def series_with_a_traced_break(a, tol):
    s = 0.0
    for k in range(5):
        term = a / math.factorial(k)  # needs `k` as a Python int
        if term < tol:
            break
        s = s + term
    return s


THRESHOLDS = np.array([1.0, 3.0, 5.0, 7.0], dtype=np.float32)
WIDTHS = np.array([2.0, 2.0, 4.0], dtype=np.float32)


def sum_of_thresholds_below(t):
    s = 0.0
    for x in THRESHOLDS:
        if x > t:
            break
        s += x
    return s


def bucket_of(t):
    for i, x in enumerate(THRESHOLDS):
        if t < x:
            return i
    return len(THRESHOLDS)


def first_gap_over(t):
    for lo, width in zip(THRESHOLDS, WIDTHS):
        if width > t:
            return lo
    return -1.0


def bucket_by_table(t):
    names = [10, 20, 30, 40]
    for i, x in enumerate(THRESHOLDS):
        if t < x:
            return names[i]  # needs `i` as a Python int
    return 0


def index_of_a_traced_range_as_a_dict_key(a, n):
    w = {0: 1.0, 1: 2.0, 2: 3.0}
    x = a
    for k in range(n):
        x = x * w[k]
    return x


def index_of_a_traced_range_as_a_list_index(a, n):
    w = [1.0, 2.0, 3.0]
    x = a
    for k in range(n):
        x = x * w[k]
    return x


def index_of_a_traced_range_as_a_set_member(a, n):
    w = {0, 2}
    x = a
    for k in range(n):
        if k in w:
            x = x * 2.0
    return x


def index_of_a_traced_range_in_a_dict(a, n):
    w = {0: 1.0, 2: 3.0}
    x = a
    for k in range(n):
        if k in w:
            x = x * 2.0
    return x


def string_beside_an_array_through_an_if(a):
    c = ("run", a)
    if a > 1:
        c = (c[0], c[1] * 2)
    return c[1]


def string_beside_an_array_through_a_loop(a, n):
    c = ("run", a)
    for _ in range(n):
        c = (c[0], c[1] * 2)
    return c[1]


def string_beside_an_array_in_a_loop_reading_an_unbound_name(a, b):
    c = ("run", a)
    u = a
    while u < 0.0:
        if b > 0:
            u = u + 1.0
        else:
            c = (c[0], c[1] * 2)
        x = x + 1  # noqa: F821, F841 - read unbound: UnboundLocalError
    return c[1]


class Cfg(NamedTuple):
    label: str
    gain: float
    x: float


def named_tuple_with_a_string_through_a_loop(a, n):
    cfg = Cfg("run", 2.0, a)
    for _ in range(n):
        cfg = cfg._replace(x=cfg.x * cfg.gain)
    return cfg.x


def string_beside_an_array_changed_by_an_if(a):
    c = ("run", a)
    if a > 1:
        c = ("stop", c[1] * 2)
    return c[1]


def returns_tuples_of_different_nesting(a):
    if a > 0:
        return (a, (a, a))
    else:
        return ((a, a), a)


def function_defined_in_a_loop_and_called_after(a, n):
    for _ in range(n):

        def g(v):
            return v + a  # noqa: B023 - late binding, as Python reads it

        a = a + 1.0
    return g(0.0)


class AutoDict(dict):
    """A dict that creates a key it is asked for (as a defaultdict does)."""

    def __missing__(self, key):
        self[key] = 0.0
        return 0.0


class LazyAttrs:
    """An object whose `__getattr__` creates the attribute it is asked for."""

    def __getattr__(self, name):
        setattr(self, name, 0.0)
        return 0.0


def defaultdict_updated_in_a_branch(x):
    d = collections.defaultdict(float)
    if x > 0:
        d["a"] += x
    return len(d)


def counter_updated_in_a_branch(x):
    d = collections.Counter()
    if x > 0:
        d["a"] += 1
    return len(d)


def missing_dict_updated_in_a_branch(x):
    d = AutoDict()
    if x > 0:
        d["a"] += x
    return len(d)


def lazy_attribute_updated_in_a_branch(x):
    o = LazyAttrs()
    if x > 0:
        o.total += x
    return len(vars(o))


def defaultdict_updated_in_both_branches(x):
    d = collections.defaultdict(float)
    if x > 0:
        d["a"] += x
    else:
        d["a"] -= x
    return d["a"] + len(d)


def counter_counted_in_a_loop(n):
    d = collections.Counter()
    for _ in range(n):
        d["k"] += 1
    return d["k"]


def deque_appended_in_a_branch(x):
    q = collections.deque([1.0])
    if x > 0:
        q.append(5.0)
    return len(q)


def deque_rotated_in_a_branch(x):
    q = collections.deque([1.0, 2.0])
    if x > 0:
        q.rotate(1)
    return q[0]


def deque_appended_in_a_loop(n):
    q = collections.deque()
    for _ in range(n):
        q.append(1)
    return len(q)


def deque_window_in_a_loop(n):
    q = collections.deque([0, 0])
    for i in range(n):
        q.append(i)
        q.popleft()
    return q[0] + 10 * q[1]


def bytearray_appended_in_a_branch(x):
    b = bytearray(b"ab")
    if x > 0:
        b.append(99)
    return len(b)


def bytearray_changed_alike_in_both_branches(x):
    b = bytearray(b"ab")
    if x > 0:
        b.append(99)
    else:
        b.extend(b"c")
    return len(b) + b[2]


def bytearray_extended_in_a_loop(n):
    b = bytearray()
    i = 0
    while i < n:
        b.extend(b"x")
        i += 1
    return len(b)


def array_changed_in_place_in_a_branch(x):
    a = np.zeros(3)
    if x > 0:
        a += 1
    return float(a[0])


def array_item_set_in_a_branch(x):
    a = np.zeros(3)
    if x > 0:
        a[0] = 5.0
    return float(a[0])


def array_changed_alike_in_both_branches(x):
    a = np.zeros(3)
    if x > 0:
        a.fill(1.0)
    else:
        np.copyto(a, 1.0)
    return float(a.sum())


def array_added_to_in_a_loop(n):
    a = np.zeros(2)
    b = a
    for _ in range(n):
        a += 1  # (a staged loop carries `a` as a traced value: `b` kept zeros)
    return float(b[0])


def array_added_to_in_a_loop_s_branch(n, x):
    a = np.zeros(2)
    i = 0
    while i < n:
        if x > 0:
            a *= 2.0
        else:
            a -= 1.0
        i += 1
    return float(a[0])


def view_added_to_in_a_loop(n):
    base = np.zeros(4)
    a = base[:2]
    for _ in range(n):
        a += 1.0
    return float(base.sum())


def array_item_of_a_list_added_to_in_a_loop(n):
    lst = [np.zeros(2)]
    keep = lst[0]
    for _ in range(n):
        lst[0] += 1.0
    return float(keep[0])


def array_attribute_added_to_in_a_loop(n):
    s = types.SimpleNamespace(w=np.zeros(2))
    w0 = s.w
    for _ in range(n):
        s.w += 1.0
    return float(w0[0])


def array_rebound_in_a_loop(n):
    a = np.zeros(2)
    b = a
    for _ in range(n):
        a = a + 1.0
    return float(a[0]) + 10 * float(b[0])


def array_added_to_in_a_range_loop_with_traced_values(x):
    a = np.zeros(2)
    b = a
    for _ in range(3):
        a += 1.0
        x = x + 1.0
    return x + 10 * float(b[0])


def array_changed_in_place_in_a_loop(n):
    a = np.zeros(2)
    for _ in range(n):
        np.add(a, 1, out=a)
    return float(a[0])


def array_resized_alike_in_both_branches(x):
    a = np.ones(2)
    if x > 0:
        a.resize(3, refcheck=False)
    else:
        a.resize(3, refcheck=False)
    return float(a.sum()) + 10 * a.size


def array_reshaped_alike_in_both_branches(x):
    a = np.arange(4.0)
    if x > 0:
        a.shape = (2, 2)
    else:
        a.shape = (2, 2)
    return float(a[1, 0]) + 10 * a.ndim


def array_resized_in_one_branch(x):
    a = np.ones(2)
    if x > 0:
        a.resize(3, refcheck=False)
    return float(a.sum())


def array_reshaped_in_one_branch(x):
    a = np.arange(4.0)
    if x > 0:
        a.shape = (2, 2)
    return float(a.ndim)


def array_resized_in_a_loop(n):
    a = np.ones(2)
    for _ in range(n):
        a.resize(3, refcheck=False)
    return float(a.sum())


def iterator_advanced_in_a_branch(x):
    it = iter([1.0, 2.0, 3.0])
    if x > 0:
        a = next(it)
    else:
        a = 0.0
    return a + next(it)


def iterator_peeked_in_a_loop_s_branch(x):
    it = iter([1.0, 2.0, 3.0])
    total = 0.0
    for v in it:
        if v > x:
            total += next(it, 100.0)
        else:
            total += v
    return total


def iterator_advanced_alike_in_both_branches(x):
    it = iter([1.0, 2.0, 3.0])
    if x > 0:
        a = next(it)
    else:
        a = -next(it)
    return a + next(it)


def iterator_advanced_in_a_loop(n):
    it = iter([10, 20, 30, 40])
    s = 0
    for _ in range(n):
        s += next(it)
    return s


def generator_advanced_in_a_branch(x):
    values = (v * 2.0 for v in [1.0, 2.0])
    if x > 0:
        next(values)
    return next(values)


def rng_drawn_in_a_branch(x):
    import random

    rng = random.Random(0)
    if x > 0:
        rng.random()
    return rng.randint(0, 1000)


def state_changed_in_a_range_loop_with_traced_values(x):
    it = iter((3.0, 1.0, 4.0))
    b = bytearray()
    a = np.zeros(2)
    z = x
    for _ in range(2):
        z = z + next(it, 0.0)
        b.append(1)
        np.add(a, 1, out=a)
    return z + 10 * len(b) + 100 * float(a[0])


def generator_drawn_in_a_range_loop(x):
    g = (float(v) for v in [1, 2, 3, 4])
    s = x
    for _ in range(3):
        s = s * 10 + next(g)
    return s


def count_advanced_in_a_loop(n):
    c = itertools.count()
    s = 0
    i = 0
    while i < n:
        s += next(c)
        i += 1
    return s


def zip_advanced_in_a_loop(n):
    pairs = zip([1, 2, 3, 4], [10, 20, 30, 40])
    s = 0
    for _ in range(n):
        a, b = next(pairs)
        s += a * b
    return s


def module_random_drawn_in_a_branch(x):
    random.seed(0)
    if x > 0:
        random.random()
    return random.random()


def numpy_generator_drawn_in_a_branch(x):
    rng = np.random.default_rng(0)
    if x > 0:
        rng.random()
    return float(rng.random())


def numpy_module_drawn_in_a_branch(x):
    np.random.seed(0)
    if x > 0:
        np.random.rand()
    return float(np.random.rand())


def array_array_appended_in_a_branch(x):
    import array

    a = array.array("i", [1])
    if x > 0:
        a.append(2)
    return len(a)


def stringio_written_in_a_branch(x):
    buf = io.StringIO()
    if x > 0:
        buf.write("positive")
    return len(buf.getvalue())


def stringio_written_alike_in_both_branches(x):
    buf = io.StringIO()
    if x > 0:
        buf.write("sign")
    else:
        buf.write("sign")
    return len(buf.getvalue())


def array_item_set_alike_in_both_branches(x):
    a = np.zeros(3)
    if x > 0:
        a[0] = 1.0
    else:
        a[0] = 1.0
    return float(a.sum())


def return_overridden_in_finally(x):
    try:
        return x
    finally:
        if x > 2:
            return -x  # noqa: B012 - overrides the try's return, as Python does


def counter_updated_by_a_call_in_a_branch(x):
    c = collections.Counter(a=1)
    if x > 0:
        c.update(["a"])
    else:
        c.update({"a": 2})
    return c["a"]


class _Counter:
    def __init__(self):
        self.count = 0

    def bump(self):
        self.count += 1


def same_count_from_both_branches(x):
    n = 0
    c = _Counter()
    if x > 0:
        n += 1
        c.bump()
    else:
        n = n + 1
        c.bump()
    return [0] * (n + c.count)  # a list of Python's length, not a product


def widened_beside_a_return_not_taken(a):
    acc = 0
    if a > 0:
        acc = 1
    else:
        acc = acc * 0.5
        if isinstance(a, str):  # a Python `if` no path takes
            return -1.0
    return acc


def an_int_or_a_float(x):
    return 1 if x > 0 else 2.5  # Python numbers: the wider type (not tf.cond's)


def first_item_if_any(xs, n):
    if n > 0:
        y = xs[0]  # out of bounds for an empty xs, on a path that never runs
    else:
        y = 0.0
    return y


def first_item_per_row(xs):
    s = 0.0
    for _ in xs:
        s += xs[0]  # (never runs for an empty xs)
    return s


def alias_kept_by_a_branch_then_changed_in_finally(a, b):
    xs = [0, 0]
    ys = xs
    try:
        if b > 1:
            xs[1] = b
        elif a < -5:
            ys = xs  # the same list again: ys is a place (the finally reads it)
    finally:
        ys[0] += 1
    return [xs[0], ys[0], xs[1]]


def total_of_floats(xs):
    total = 0  # a Python int: the loop's additions make it a float
    for v in xs:
        total += v
    return total


def scaled_in_a_while(n):
    y = 1
    i = 0
    while i < n:
        y = y * 1.5
        i += 1
    return y


def halves_summed_over_a_range(n):
    s = 0
    for i in range(n):
        s = s + i / 2
    return s


def halves_summed_in_a_try(n):
    s = 0  # carried by the loop in a place: the `try` reads it after
    try:
        for i in range(n):
            s = s + i / 2
    finally:
        n = 0
    return s


def scaled_in_a_while_in_a_try(n):
    y = 1
    i = 0
    try:
        while i < n:
            y = y * 1.5
            i += 1
    finally:
        n = 0
    return y


def halves_summed_into_an_item(n):
    d = {"s": 0}  # an item: carried in a place
    for i in range(n):
        d["s"] = d["s"] + i / 2
    return d["s"]


def halves_summed_beside_a_list_an_inner_loop_grows(n):
    s = 0
    for _ in range(n):
        s = s + 0.5
        gl = [0]
        for j in range(n):
            gl = gl + [j]  # noqa: RUF005 (a new, longer list each iteration)
    return s


def halved_beside_dicts_an_inner_loop_aliases(n):
    acc = 0
    for i in range(n):
        if i > 0:
            acc = acc * 0.5
        try:  # (a `try` keeps the mismatch as the trace's refusal)
            sd = {"b": 0}
            se = {"b": 5}
            for _ in range(n):
                se = sd  # a graph loop refuses: it would make a copy
            sd["b"] += 2
            acc = acc + se["b"]
            break
        finally:
            n = n + 0
    return acc


def halved_only_where_the_iteration_raises(n):
    acc = 0
    for i in range(n):
        if i > 5:
            acc = acc * 0.5  # widened only on a path that raises
            raise ValueError("too many")
        acc = acc + 1
    return acc


# A loop that creates a key or attribute, in a function that asks whether
# it exists: a staged loop carries the item's value (with a flag), not its
# presence, which is fixed while tracing; it refuses (the toy backend runs
# loops in Python: Python's value). (They counted the item as present from
# the first iteration, and after a loop of no iteration: silent wrong
# values; `d.get(k, v)` and `k not in d` raised "no iteration has assigned
# it (Python: KeyError)" where Python raises nothing.)


def len_of_a_dict_a_loop_adds_a_key_to(x, n):
    d = {"a": x}
    s = 0.0
    for _ in range(n):
        s += len(d)
        d["b"] = x
    return s


def key_tested_with_in_in_the_loop_that_adds_it(x, n):
    d = {"a": x}
    s = 0.0
    for _ in range(n):
        if "b" in d:
            s += 1.0
        d["b"] = x
    return s


class _Box:
    pass


def attribute_tested_with_hasattr_in_the_loop_that_sets_it(x, n):
    o = _Box()
    s = 0.0
    for _ in range(n):
        if hasattr(o, "seen"):
            s += 1.0
        o.seen = x
    return s


def get_with_a_default_of_a_key_the_loop_creates(x, n):
    d = {"z": x}
    for _ in range(n):
        d["acc"] = d.get("acc", 0.0) + x
    return d["acc"] + d["z"]


def best_so_far_tested_with_not_in(w, n):
    best = {}
    i = 0
    while i < n:
        i += 1
        w = w - 0.25 * (w - 3.0)
        loss = (w - 3.0) * (w - 3.0)
        if "loss" not in best or loss < best["loss"]:
            best["loss"] = loss
    return best["loss"]


def key_counted_after_a_loop_that_may_add_it(x, n):
    d = {"a": x}
    for _ in range(n):
        d["b"] = x
    return len(d) + ("b" in d)


def key_created_before_the_loop_then_tested(x, n):
    d = {"a": x, "b": 0.0}
    s = 0.0
    for _ in range(n):
        if "b" in d:
            s += len(d)
        d["b"] = x
    return s


_BORN = (
    r"is created by the \S+ loop at \S+:\d+ in '\w+' \(\w+ (holds no such key|has no "
    r"such attribute) before it\), and the function asks"
)


def _plain(result, leaf):
    """`result` with each tensor or array `leaf` made a Python value, its
    tuples, lists and dicts kept (to compare with Python's result)."""
    if isinstance(result, dict):
        return {k: _plain(v, leaf) for k, v in result.items()}
    if type(result) in (tuple, list):
        return type(result)(_plain(v, leaf) for v in result)
    return leaf(result)


def _graph(fn, *args):
    result = autograph.function(fn)(*(rt.constant(a) for a in args))
    return _plain(result, lambda t: np.asarray(t.numpy()).tolist())


def _jax(fn, *args):
    jax = pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
    # (A list is an array, as `rt.constant` makes it a tensor.)
    args = [jax.numpy.asarray(a) if isinstance(a, list) else a for a in args]
    result = jax.block_until_ready(jax.jit(autograph.to_graph(fn))(*args))
    return _plain(result, lambda a: np.asarray(a).tolist())


def _toy(fn, *args):
    return toy_backend.run(fn, *args)


# A backend is one entry here (see ARCHITECTURE.md, "The staging core").
RUNNERS = {"graph": _graph, "jax": _jax, "toy": _toy}

VALUE = "Python's value"
_GROWN = r"loop variable 'gl' is a list of 1 item before the \S+ loop"
_UNWIDENED = r"'acc', a Python number before the graph loop at .*only on a path that"
_ALIASED = r"'se' holds the same dict as 'sd' in the body of a \S+ loop"
_UNBOUND_W = r"(cannot access local variable 'w'|'w' is read in the \S+ loop)"


# (function, arguments, what every backend does: VALUE; ("refused", text): a
# TypeError or ValueError while staging; ("value or refused", text): either,
# for a refusal a backend that stages less need not make; ("raises", text):
# an error with that text when the staged program runs)
class Vec:
    """A user's object that `+=` changes in place (`__iadd__` returns self)."""

    def __init__(self, x):
        self.x = x

    def __iadd__(self, other):
        self.x = self.x + other
        return self

    def bump(self, c):
        if c > 0:
            self.x = self.x * 2


def object_changed_in_place_by_iadd(a, b):
    v = Vec(a)
    i = 0
    while i < b:
        v += a
        i += 1
    return v.x


def object_changed_by_its_methods_in_a_range_loop(a, b):
    v = Vec(a)
    for i in range(b):
        v += 1
        v.bump(i - 1)
    return v.x


def object_changed_by_iadd_in_a_branch_that_raises(a, b):
    v = Vec(b)
    if a > 5:
        v += a
        raise KeyError("missing")
    return v.x


def object_made_per_iteration_in_a_try_whose_finally_makes_its_own(a, b):
    z = 0
    try:
        fuel = 2
        while z < a and fuel > 0:
            fuel -= 1
            ob = types.SimpleNamespace()
            ob.born = b
            z = z + ob.born
        return z
    finally:
        if a > 0:
            ob = types.SimpleNamespace(born=1)
            z = z + ob.born


class Sched:
    """A learning-rate holder whose `lr` is a property: `rate` stores what
    is set; `shifted` stores a transformed value (the getter undoes part of
    it, so setting back what was read is not a no-op); `scaled` is
    computed from `base` and `scale`, which its setter changes."""

    def __init__(self, lr):
        self._lr = lr
        self._shifted = lr * 0.5 + 1
        self.base = 2.0
        self.scale = lr / 2.0

    @property
    def rate(self):
        return self._lr

    @rate.setter
    def rate(self, v):
        self._lr = v

    @property
    def shifted(self):
        return self._shifted

    @shifted.setter
    def shifted(self, v):
        self._shifted = v * 0.5 + 1  # (get after set is not what was set)

    @property
    def scaled(self):
        return self.base * self.scale

    @scaled.setter
    def scaled(self, v):
        self.scale = v / self.base


def property_set_in_a_branch(a, b):
    s = Sched(a)
    if b > 2:
        s.rate = s.rate * 0.5
    return s.rate


def property_set_in_a_loop(a, b):
    s = Sched(a)
    for _ in range(b):
        s.rate = s.rate * 0.5
    return s.rate


def transforming_property_set_in_a_branch(a, b):
    s = Sched(a)
    if b > 2:
        s.shifted = s.shifted * 3
    else:
        s.shifted = s.shifted - 1
    return s.shifted


def transforming_property_set_in_a_loop(a, b):
    s = Sched(a)
    i = 0
    while i < b:
        s.shifted = s.shifted + 1.0
        i += 1
    return s.shifted


def computed_property_set_in_a_branch(a, b):
    s = Sched(a)
    if b > 2:
        s.scaled *= 0.5
    return s.scaled + s.scale


def computed_property_set_in_a_loop(a, b):
    s = Sched(a)
    for _ in range(b):
        s.scaled = s.scaled + 1.0
    return s.scaled + s.scale


class SlottedSched:
    """`Sched`'s `rate` and `shifted` on an object with no __dict__ (whose
    attributes no backend follows)."""

    __slots__ = ("_lr", "_shifted")

    def __init__(self, lr):
        self._lr = lr
        self._shifted = lr * 0.5 + 1

    rate, shifted = Sched.rate, Sched.shifted


def slotted_property_set_in_a_loop(a, b):
    s = SlottedSched(a)
    for _ in range(b):
        s.rate = s.rate * 0.5
    return s.rate


def slotted_transforming_property_set_in_a_branch(a, b):
    s = SlottedSched(a)
    if b > 2:
        s.shifted = s.shifted * 3
    return s.shifted


def items_keyed_by_a_python_loop_in_a_branch(a, b):
    scan = [0, 0, 0]
    if a > 0:
        for j in range(3):
            scan[j] = scan[j] + a * j
    return scan[0] + scan[1] + scan[2]


def items_keyed_by_a_python_loop_in_a_loop(a, b):
    scan = [0, 0, 0]
    i = 0
    while i < a:
        for j in range(3):
            scan[j] = scan[j] + i * j
        i += 1
    return scan[0] + scan[1] + scan[2]


def dict_items_keyed_by_a_python_loop_in_a_branch(a, b):
    d = {"x": 0, "y": b}
    if a > 0:
        for k in ["x", "y"]:
            d[k] = d[k] + a
    return d["x"] - d["y"]


def dict_grown_by_a_python_loop_in_a_branch(a, b):
    d = {"x": 0}
    if a > 0:
        for k in ["x", "y"]:
            d[k] = a
    return d["x"]


def object_rebound_in_a_loop(a, b):
    v = Vec(a)
    i = 0
    while i < b:
        v = Vec(v.x + 1)
        i += 1
    return v.x


def returned_only_from_while_true(a, b):
    # No path falls off `while True:` (no `break`): nothing returns None.
    while True:
        a = a + 1
        if a > b:
            return a


def list_returned_from_a_branch_in_a_loop(a, b):
    xs = [0, 0]
    for i in range(2):
        if a > i:
            xs[1] = b
            return xs
    return xs


def found_by_a_for_else(n, t):
    for i in range(n):
        if i == t:
            found = True
            break
    else:
        found = False
    return found


def found_by_a_while_else(n, t):
    i = 0
    while i < n:
        if i == t:
            found = i * 10
            break
        i += 1
    else:
        found = -1
    return found


def found_or_returned_by_the_else(n, t):
    for i in range(n):
        if i == t:
            found = i + 1
            break
    else:
        return 0
    return found


def found_only_on_the_break_path(n, t):
    for i in range(n):
        if i == t:
            found = i * 10
            break
    return found


def found_in_some_iterations(n, t):
    for i in range(n):
        if i < t:
            last = i
    return last


# The same over a Python range (or a `while` with a Python bound): the
# first iteration runs as Python, so the staged `if` that binds the name
# runs before any staged loop carries it. All three backends refused these:
# "'found' is assigned in the if branch of the graph `if` ... but not when
# the condition is false" (the `while` form: "not in its else branch", an
# else the user never wrote).
def found_by_a_for_else_over_a_python_range(t):
    for i in range(4):
        if i * 2 == t:
            found = i
            break
    else:
        found = -1
    return found


def found_by_a_while_else_with_a_python_bound(t):
    i = 0
    while i < 4:
        if i * 2 == t:
            found = i
            break
        i += 1
    else:
        found = -1
    return found


def found_only_on_the_break_path_of_a_python_range(t):
    for i in range(4):
        if i * 2 == t:
            found = i
            break
    return found


def last_below_in_a_python_range(t):
    for i in range(4):
        if i < t:
            last = i
    return last


def last_above_one_a_handler_reads(n):
    x = 0
    try:  # the handler reads `last`: the loop and the `if` carry it in a place
        for i in range(n):
            if i > 1:
                last = i
        x = x + last
    except KeyError:
        x = last
    return x


def last_below_a_handler_reads_in_a_python_range(t):
    x = 0
    try:
        for i in range(4):
            if i < t:
                last = i
        x = x + last
    except KeyError:
        x = last
    return x


def set_only_in_the_loop_else(n, t):
    for i in range(n):
        if i == t:
            break
    else:
        found = False
    return found


def range_with_a_step(n, step):
    total = 0
    for i in range(0, n, step):
        total += i
    return total


def range_of_a_float(x):
    total = 0
    for i in range(x):
        total += i
    return total


def dict_key_deleted_and_set_again_in_one_branch(a, b):
    d = {"a": a, "b": b}
    if a > 0:
        del d["a"]
        d["a"] = a * 3
    return list(d.values())


def dict_key_popped_and_set_again_in_one_branch(a, b):
    d = {"a": a, "b": b}
    if a > 0:
        d["a"] = d.pop("a") + 1
    return list(d.values())


def dict_keys_set_in_two_orders(a, b):
    d = {}
    if a > 0:
        d["a"] = a
        d["b"] = b
    else:
        d["b"] = b
        d["a"] = 0 - a
    return list(d.values())


def dict_rebound_in_two_orders(a, b):
    if a > 0:
        d = {"b": b, "a": a}
    else:
        d = {"a": a, "b": b}
    return list(d.values())


def dict_key_popped_and_set_again_in_both_branches(a, b):
    d = {"a": a, "b": b}
    if a > 0:
        d["a"] = d.pop("a") + 1
    else:
        d["a"] = d.pop("a") - 1
    return list(d.values())


def dict_of_unsorted_keys_rebound_in_a_branch(a, b):
    d = {"b": b, "a": a}
    if a > 0:
        d = {"b": b + 1, "a": a}
    return list(d.values())


def dict_key_popped_and_set_again_in_a_loop(a, b):
    d = {"a": a, "b": b}
    for _ in range(a):
        d["a"] = d.pop("a") + 1
    return list(d.values())


def dict_of_unsorted_keys_rebound_in_a_loop(a, b):
    d = {"b": b, "a": a}
    i = 0
    while i < a:
        d = {"b": d["b"] + 1, "a": d["a"]}
        i += 1
    return list(d.values())


def dict_reordered_in_a_loop(a, b):
    d = {"b": b, "a": a}
    i = 0
    while i < a:
        d = {"a": d["a"] + 1, "b": d["b"]}
        i += 1
    return list(d.values())


def dict_chosen_in_two_orders(a, b):
    d = {"a": a, "b": b} if a > 0 else {"b": b, "a": a}
    return list(d.values())


def dict_of_unsorted_keys_chosen(a, b):
    d = {"b": b, "a": a} if a > 0 else {"b": a, "a": b}
    return list(d.values())


def none_then_set_in_one_branch(a, b):
    y = None
    if a > 0:
        y = a
    return y


def none_then_set_in_a_loop(a, b):
    best = None
    for i in range(a):
        best = i
    return best


def while_on_an_int(a, b):
    c = 0
    while a:
        a = a // 2
        c += 1
    return c


def if_on_an_int_remainder(a, b):
    s = 0
    for i in range(a):
        if i % 2:
            s += i
    return s


def or_of_ints(a, b):
    return a or b


def not_of_an_int(a, b):
    return not a


_ORDER_IF = (
    r"key order of (the dict 'd'|the value of the `if`/`else`, a dict,) "
    r"depends on the branch of the \S+ `if` at "
)
_ORDER_LOOP = r"key order of the dict 'd' is changed in the body of the \S+ loop at "


def where_three_agree(xs, ys, zs):
    for i, (x, y, z) in enumerate(zip(xs, ys, zs)):
        if x == y and y == z:
            return i
    return -1


def first_pair_summing_to(xs, target):
    for i, x in enumerate(xs):
        for j, y in enumerate(xs):
            if j > i and x + y == target:
                return i * 10 + j
    return -1


def born_by_a_counter_a_tuple_carries(n):
    k = (0, n)
    i = 0
    while i < n:
        if k[0] > 1:  # a graph test in the loop: `k` is two loop variables
            w = 2
        k = (k[0] + 1, n)
        i += 1
    return w + k[0]


def born_by_a_tag_a_tuple_carries(n):
    c = ("run", n)
    for i in range(n):
        if c[0] != "run":  # a string tensor in the loop, a str on trial
            w = i
        c = ("run", n - i)
    return w


def shared_list_only_read_after_a_loop(a, b):
    xs = [0, 0]
    ys = xs  # one list, two names; the loop's body works on a copy
    for i in range(a):
        z = ys[0] + b
        ys = [z, 0]
    return ys[0], xs[0], len(xs)


def shared_dict_only_read_after_a_loop(a):
    sd = {"b": 5}
    se = {"b": 1}
    for i in range(a):
        se = sd  # after the loop, `se` holds a copy of `sd`'s values
    return se["b"] + sum(sd.values()) + se.get("c", 0)


def shared_list_only_read_after_an_if(a):
    xs = [0, 0]
    ys = [1, 1]
    if a > 0:
        ys = xs
    zs = ys  # another name for it, read only too
    return zs[0] + xs[-1]


def shared_list_changed_after_a_loop(a, b):
    sa = [0]
    sb = sa
    for i in range(a):
        sa = [b]
    sb[0] += 1  # Python: `sa` sees it where the loop ran no iteration
    return sa[0] + sb[0]


def shared_list_told_apart_after_an_if(a):
    xs = [0, 0]
    ys = [1, 1]
    if a > 0:
        ys = xs
    return ys is xs


def shared_list_given_to_a_function_after_an_if(a):
    xs = [0, 0]
    ys = [1, 1]
    if a > 0:
        ys = xs
    _append_one(ys)  # a callee may change it
    return xs[-1]


def _append_one(items):
    items.append(1)


def shared_list_read_by_a_lambda_after_an_if(a):
    xs = [0, 0]
    ys = [1, 1]
    if a > 0:
        ys = xs
    later = lambda: ys
    later().append(2)
    return xs[-1]


def born_by_a_counter_a_list_carries(n):
    k = [0, n]
    i = 0
    while i < n:
        if k[0] > 1:  # a graph test in the loop: `k` is two loop variables
            w = 2
        k = [k[0] + 1, n]
        i += 1
    return w + k[0]


def born_by_a_counter_a_dict_carries(n):
    k = {"c": 0, "n": [0]}
    i = 0
    while i < n:
        if k["c"] > 1:  # `k["c"]` a loop variable, a Python int on trial
            w = 2
        k = {"c": k["c"] + 1, "n": [k["n"][0] + 1]}
        i += 1
    return w + k["c"] + k["n"][0]


def born_after_a_break_a_list_decides(xs):
    ms = [0, 0]
    z = 0
    for z in xs:
        if ms[-1] == 0:  # a graph test in the loop, a Python one on trial
            break
        ms = [ms[0], z]
        w = -1
    return z + w


def lagged_sum(n):
    s = 0
    prev = 0
    for i in range(n):
        s = s + prev  # widened only once `prev` is
        prev = i / 2
    return s


def lagged_sum_of_a_name_the_loop_binds_first(n):
    s = 0
    for i in range(n):
        if i > 0:
            s = s + prev  # noqa: F821 - unbound in the first iteration only
        prev = i / 2  # noqa: F841 - read in the next iteration
    return s


def lagged_sum_in_a_while(n):
    s = 0
    prev = 0
    i = 0
    while i < n:
        s = s + prev
        prev = i / 2
        i += 1
    return s


def half_sum_with_a_python_counter(n):
    acc = 0
    i = 0
    while i < n:
        acc = acc + i / 2  # `i` an int32 in the loop: a float64
        i += 1
    return acc


def best_so_far_by_max(xs):
    best = -1.0
    for v in xs:
        best = max(best, v)
    return best


def clipped_to_unit(x):
    return max(0.0, min(x, 1.0))


def relu_sum_by_max(xs):
    total = 0.0
    for v in xs:
        total += max(v, 0.0)
    return total


def max_of_three(x):
    return max(x, 0.5, -x)


def dict_bound_in_one_branch_in_a_python_range(a):
    for j in range(2):
        if a > j:
            w = {"k": a}
    return w["k"]


def dict_in_both_branches_and_one_unused_in_a_python_range(a):
    for j in range(3):
        if a > j:
            v = {"k": a + j}
        else:
            v = {"k": 0}
        if a > 5:
            u = {"k": 1}  # noqa: F841 - bound on one path, carried with a flag
    return v["k"]


def relu_by_a_partial_max(x):
    relu = functools.partial(max, 0.0)
    return relu(x)


def list_returned_from_a_for(n):
    for i in range(n):
        if i > 1:
            return [i, i * 2]
    return [0, 0]


def list_returned_from_a_while(n):
    i = 0
    while i < n:
        if i > 0:
            return [i, 1]
        i += 1
    return [0, 0]


def dict_returned_from_a_loop(n):
    for i in range(n):
        if i > 1:
            return {"i": i}
    return {"i": 0}


def tuple_holding_a_list_returned_from_a_loop(n):
    for i in range(n):
        if i > 1:
            return i, [i]
    return 0, [0]


def carried_list_returned_from_a_loop(n):
    xs = [0, 0]
    for i in range(n):
        xs[0] = i
        if i > 1:
            return xs
    return xs


def values_of_a_dict_returned_from_nested_loops(n):
    d = {"a": 0, "b": 0}
    i = 0
    while i < n:
        fuel = 1
        while True:
            fuel -= 1
            if fuel < 0:
                d["a"] = i
                return list(d.values())
        i += 1
    return list(d.values())


def unassigned_where_the_other_branch_returns(a):
    if a > 5:
        w = 1
    else:
        if a > 0:
            return 3
        for _ in range(0):
            w = -4
    return w + 1


def weighted_by_a_range_index(n):
    s = 0
    for i in range(n):
        w = i * 0.25  # a Python int times a float: a float
        s = s + w * 2
    return s


def halved_counter_in_a_while(n):
    acc = 0
    i = 0
    while i < n:
        acc = acc + i * 0.5
        i += 1
    return acc


def mean_after_a_counting_loop(xs):
    count = 0
    total = 0.0
    for v in xs:
        if v > 0:
            count += 1
            total += v
    return total / count if count > 0 else 0.0


def positions_weighted_by_enumerate(xs):
    s = 0.0
    for i, x in enumerate(xs, 1):
        s += x / i  # enumerate's index: a Python int
    return s


def ratio_of_a_chosen_count(x, k):
    n = 0
    for _ in range(k):
        n += 1
    m = n if x > 0 else 1  # a graph cond of a weak int and a Python int
    return x / m


# A list or dict a loop's `return`s give (`staging.returned`): the object
# itself where every `return` gives one object of before the loop, so a
# change through the returned value reaches it; else a new one holding the
# loop's values (which the callers below cannot tell from Python's).
def _returns_a_fresh_list_from_a_loop(xs, n):
    for i in range(n):
        if i > 1:
            return [i, i * 2]
    return xs


def changed_through_a_fresh_list_returned_from_a_loop(n):
    xs = [0, 0]
    ys = _returns_a_fresh_list_from_a_loop(xs, n)
    ys[0] += 1
    return xs, ys


def _returns_one_of_two_lists_from_a_loop(xs, zs, n):
    for i in range(n):
        if i > 2:
            return xs
        if i > 0:
            return zs
    return xs


def changed_through_one_of_two_lists_returned_from_a_loop(n):
    xs, zs = [10, 10], [20, 20]
    ys = _returns_one_of_two_lists_from_a_loop(xs, zs, n)
    ys[0] += 1
    return xs, ys


def _changes_then_returns_its_argument(xs, n):
    for i in range(n):
        xs[0] += 1
        if i > 1:
            return xs
    return xs


def changed_in_the_loop_then_through_the_returned_list(n):
    xs = [0, 0]
    ys = _changes_then_returns_its_argument(xs, n)
    ys[1] += 5
    return xs, ys


def _returns_a_list_it_rebinds_in_a_loop(xs, n):
    for i in range(n):
        xs = [i, 0]
        if i > 1:
            return xs
    return xs


def changed_through_a_rebound_list_returned_from_a_loop(n):
    xs = [7, 7]
    ys = _returns_a_list_it_rebinds_in_a_loop(xs, n)
    ys[1] += 5
    return xs, ys


def _returns_a_dict_from_nested_ifs_in_a_while(d, n):
    i = 0
    while i < n:
        if i > 0:  # noqa: SIM102 - an `if` in an `if`, as a user writes
            if i > 1:
                return d
        i += 1
    return d


def changed_through_a_dict_returned_from_nested_ifs_in_a_loop(n):
    d = {"a": 0}
    e = _returns_a_dict_from_nested_ifs_in_a_while(d, n)
    e["a"] += 3
    return d


def _returns_its_argument_from_nested_loops(xs, n):
    for i in range(n):
        for j in range(n):
            xs[1] += 1
            if j > 1:
                return xs
    return xs


def changed_through_a_list_returned_from_nested_loops(n):
    xs = [0, 0]
    ys = _returns_its_argument_from_nested_loops(xs, n)
    ys[0] += 1
    return xs


def _returns_one_of_two_lists_from_nested_loops(xs, zs, n):
    for i in range(n):
        if i == 1:
            return zs
        for j in range(n):
            if j > 2:
                return xs
    return xs


def changed_through_one_of_two_lists_returned_from_nested_loops(n):
    xs, zs = [10, 10], [20, 20]
    ys = _returns_one_of_two_lists_from_nested_loops(xs, zs, n)
    ys[0] += 1
    return ys


class _ListHolder:
    """An object holding a list as an attribute."""

    def __init__(self, xs):
        self.xs = xs


def _returns_an_attributes_list_from_a_loop(o, n):
    for i in range(n):
        o.xs[1] += 1
        if i > 1:
            return o.xs
    return o.xs


def changed_through_an_attributes_list_returned_from_a_loop(n):
    o = _ListHolder([0, 0])
    ys = _returns_an_attributes_list_from_a_loop(o, n)
    ys[0] += 1
    return o.xs


def _returns_its_argument_through_a_finally_in_a_loop(xs, n):
    for i in range(n):
        try:
            if i > 1:
                return xs
        finally:
            xs[1] += 1
    return xs


def changed_by_a_finally_in_the_loop_and_by_the_caller(n):
    xs = [0, 0]
    ys = _returns_its_argument_through_a_finally_in_a_loop(xs, n)
    ys[0] += 1
    return xs, ys


def returned_from_the_second_of_two_loops(n):
    xs = [0, 0]
    for i in range(n):
        if i > 5:
            return xs
    for i in range(n):
        xs[0] += 1
        if i > 1:
            return xs
    return [9, 9]


def changed_by_a_second_loop_then_returned(n):
    xs = [0, 0]
    for i in range(n):
        if i > 5:
            return [i, i]
    for i in range(n):
        xs[0] += 1
        if i > 1:
            return xs
    return xs


def _changes_its_argument(xs):
    xs[0] += 1
    return xs


def _returns_its_argument_from_a_loop_or_a_call_after(xs, n):
    for i in range(n):
        if i > 1:
            return xs
    return _changes_its_argument(xs)


def changed_by_a_call_returned_after_a_loop_and_by_the_caller(n):
    xs = [0, 0]
    ys = _returns_its_argument_from_a_loop_or_a_call_after(xs, n)
    ys[1] += 1
    return xs, ys


def _float_clamped(v):
    if v > 9.0:
        return 9.0
    return v


def clamped_by_a_float_bound(n):
    acc = 0
    for _ in range(n):
        acc = _float_clamped(acc + 4)  # an int, or the float 9.0
    return acc


CASES = [
    # A Python loop over a constant array's rows (a module's NumPy table; a
    # JAX argument vmap does not batch) whose `break` or `return` becomes
    # traced continues as one loop over the rest of the rows, as over a
    # range (it was refused: "iterates over a Python value").
    (sum_of_thresholds_below, (4.0,), VALUE),
    (sum_of_thresholds_below, (9.0,), VALUE),
    (bucket_of, (0.5,), VALUE),
    (bucket_of, (6.0,), VALUE),
    (bucket_of, (8.0,), VALUE),
    (first_gap_over, (1.0,), VALUE),
    (first_gap_over, (3.0,), VALUE),
    # enumerate() and zip() over arrays are one loop, with a traced `break`
    # or `return` too (it was refused as a Python loop; zip stops at the
    # shortest, as Python's).
    (index_of, ([1, 2, 3], 2), VALUE),
    (index_of, ([1, 2, 3], 9), VALUE),
    (index_of, ([], 9.0), VALUE),  # (JAX: IndexError, over no rows)
    (matching_prefix, ([1, 2, 3], [1, 2, 5, 7]), VALUE),
    (matching_prefix, ([1, 2, 3, 4], [1, 2, 3]), VALUE),
    (weighted_sum_of_evens, ([2, 3, 4],), VALUE),
    (weighted_sum_of_evens, ([2, 3, 60, 4],), VALUE),
    (where_three_agree, ([1, 2, 3], [0, 2, 3], [1, 0, 3, 4]), VALUE),
    (where_three_agree, ([1, 2], [0, 2], [1, 0]), VALUE),
    (count_found, ([1, 2, 3], [3, 5, 1]), VALUE),
    (first_pair_summing_to, ([1, 4, 6, 3], 9), VALUE),
    (first_pair_summing_to, ([1, 4], 9), VALUE),
    # range() checks its arguments as Python does (JAX ran no iteration
    # for a step of 0, and fori_loop's words refused a float).
    (range_with_a_step, (5, 2), VALUE),
    (range_with_a_step, (-5, -2), VALUE),
    (range_with_a_step, (5, 0), ("raises", r"range\(\) arg 3 must not be zero")),
    (
        range_of_a_float,
        (2.5,),
        ("refused", r"'float' object cannot be interpreted as an integer"),
    ),
    (cell_no_try, (3,), VALUE),
    (loop_in_try_body, (3,), VALUE),
    (except_name_in_a_loop, (3,), VALUE),
    (except_name_bound_again_in_a_loop, (3,), VALUE),
    (
        except_name_deleted_in_a_branch,
        (3.0,),
        ("refused", r"'e' is unbound \(the end of an `except \.\.\. as e` block"),
    ),
    (deleted_in_the_if_branch, (-3,), ("refused", r"^'i' is deleted \(`del i`\)")),
    (deleted_in_the_else_branch, (3,), ("refused", r"^'i' is deleted \(`del i`\)")),
    (loop_born_read_in_try, (3,), ("value or refused", r"'w' may be unbound where")),
    (raise_from_helper, (1,), ("refused", r"KeyError\('boom'\) is raised in the if")),
    (both_assign, (3,), VALUE),
    (both_assign, (-2,), VALUE),
    (returns_in_both, (3,), VALUE),
    (returns_in_both, (-3,), VALUE),
    (returns_in_one_branch_only, (3,), ("refused", "returns a value from the if")),
    (
        assigned_in_one_branch_only,
        (3,),
        ("refused", "'y' is assigned in the if branch of the"),
    ),
    (raises_on_one_path, (3,), VALUE),
    (raises_on_one_path, (30,), ("raises", "too big")),
    (returns_or_raises_on_every_path, (12,), VALUE),
    (returns_or_raises_on_every_path, (8,), ("raises", "r1")),
    (returns_or_raises_on_every_path, (3,), ("raises", r"(KeyError: |^)'r3' \(in")),
    (raises_on_every_path_but_one, (12,), VALUE),
    (raises_on_every_path_but_one, (8,), ("raises", "r1")),
    (raises_on_every_path_but_one, (5,), ("raises", r"(KeyError: |^)'r2' \(in")),
    (raises_on_every_path_but_one, (1,), ("raises", r"(KeyError: |^)'r3' \(in")),
    (loop_then_if, (3,), VALUE),
    (loop_then_if, (0,), VALUE),
    (nested_ifs, (7,), VALUE),
    (nested_ifs, (2,), VALUE),
    (nested_ifs, (-1,), VALUE),
    (missing_key_in_branch, (1,), VALUE),
    # The user's error as Python shows it (JAX showed the message's repr).
    (missing_key_in_branch, (6,), ("raises", r"(KeyError: |^)'missing' \(in the if")),
    # A loop inside the branch traced second (or after a `return` in the
    # branch traced first) may bind `w`: both branches carry its flag
    # (fuzz: "UnboundAfterReturn ... cannot be the result of a graph cond").
    (loop_born_in_the_else_branch, (6, 2), VALUE),
    (loop_born_in_the_else_branch, (-1, 3), VALUE),
    (loop_born_after_a_return_in_a_branch, (6, 2), VALUE),
    (loop_born_after_a_return_in_a_branch, (3, 7), VALUE),
    (loop_born_after_a_return_in_a_branch, (-1, 3), VALUE),
    # A name the body reads before any traced path assigns it, of no type
    # a trial can tell: the read raises when run, where Python raises
    # (fuzz: "its type cannot be told" refusals; JAX refused both).
    (read_before_a_python_loop_assigns, (0, 1), VALUE),
    (read_before_a_python_loop_assigns, (3, 2), ("raises", _UNBOUND_W)),
    (dict_read_before_any_path_assigns, (0, 1), VALUE),
    (dict_read_before_any_path_assigns, (3, 2), ("raises", _UNBOUND_W)),
    # A refusal the user's `try` would swallow while staging stays refused
    # (fuzz: JAX returned wrong values, or no UnboundLocalError).
    (list_grown_in_a_try_that_breaks, (3, 0), ("value or refused", _GROWN)),
    (
        one_branch_name_in_a_try,
        (0, 5),
        ("refused", r"'w' is assigned in the \w+ branch of the"),
    ),
    # (fuzz: "the value of the `if`/`else` is a UnboundUntilRun": the
    # else block's read of `w` was not checked, `ag__.ld`.)
    (try_else_after_a_body_that_returns, (1, 0), VALUE),
    (try_else_after_a_body_that_returns, (1, 5), VALUE),
    # (fuzz: "ag__.ld(ob).born is assigned ... with a key that changes":
    # `ob`, bound just before in the dead code, was read as maybe unbound.)
    (attribute_set_in_dead_code_after_a_loop_else_that_returns, (2, 0), VALUE),
    # Python raises the finally's KeyError; a staged program raised the
    # body's ValueError first (fuzz): a finally that raises handles it.
    (raise_a_finally_replaces, (3,), ("refused", "cannot catch an exception")),
    # (JAX: UnexpectedTracerError: the refused staged range had left its
    # tracer in the cell `z` for the unrolled loop to read.)
    (range_loop_unrolled_after_its_staged_form_is_refused, (-2,), VALUE),
    # (JAX returned a wrong value: the aliases of a loop's places were not
    # checked, only those of its variables.)
    (
        shared_list_replaced_in_a_loop_in_a_try,
        (4, -1),
        ("value or refused", r"'sa' holds the same list as 'sb' before a \S+ loop"),
    ),
    # An object a loop changes in place (`v += a` through `__iadd__`, which
    # returns it) stays out of the loop variables on every backend; its
    # attributes are carried as its methods' mutations (the graph refused
    # `v` as a loop variable while JAX ran it).
    (object_changed_in_place_by_iadd, (3, 4), VALUE),
    (object_changed_in_place_by_iadd, (3, 0), VALUE),
    (object_changed_by_its_methods_in_a_range_loop, (3, 4), VALUE),
    # An attribute set through a property setter: the setter's own
    # attributes are carried too (tracing never ended: each build put the
    # property back before the changed attributes were looked at, so it
    # was built again, forever). A setter that transforms what it is given,
    # and a getter computed from other attributes, give Python's values.
    (property_set_in_a_branch, (1.0, 7), VALUE),
    (property_set_in_a_branch, (1.0, 0), VALUE),
    (property_set_in_a_loop, (1.0, 7), VALUE),
    (transforming_property_set_in_a_branch, (3.0, 7), VALUE),
    (transforming_property_set_in_a_branch, (3.0, 0), VALUE),
    (transforming_property_set_in_a_loop, (3.0, 4), VALUE),
    (transforming_property_set_in_a_loop, (3.0, 0), VALUE),
    (computed_property_set_in_a_branch, (3.0, 7), VALUE),
    (computed_property_set_in_a_branch, (3.0, 0), VALUE),
    (computed_property_set_in_a_loop, (3.0, 4), VALUE),
    # (Where the setter's state cannot be carried, the place alone is: set
    # again after the op, a transforming setter gave a wrong value.)
    (slotted_property_set_in_a_loop, (1.0, 7), VALUE),
    (
        slotted_transforming_property_set_in_a_branch,
        (3.0, 7),
        (
            "value or refused",
            r"^s.shifted is set in the traced `if` or loop at \S+:\d+ in "
            r"'slotted_transforming_property_set_in_a_branch' through the setter of "
            r"SlottedSched.shifted, which does not give back what it is set to",
        ),
    ),
    # (fuzz: "cannot convert Tally to a tensor": the branch that raises gave
    # zeros of the other branch's values, the object too.)
    (object_changed_by_iadd_in_a_branch_that_raises, (3, 4), VALUE),
    (object_changed_by_iadd_in_a_branch_that_raises, (6, 4), ("raises", "missing")),
    (
        object_rebound_in_a_loop,
        (3, 4),
        ("value or refused", r"'v' (is a Vec|changes from a Vec)"),
    ),
    # (fuzz: "loop variable 'ob' is a SimpleNamespace": the finally block
    # reads `ob` only after making its own, so the loop's need not survive
    # an exception and is no loop variable.)
    (object_made_per_iteration_in_a_try_whose_finally_makes_its_own, (5, 2), VALUE),
    (object_made_per_iteration_in_a_try_whose_finally_makes_its_own, (0, 2), VALUE),
    # An item whose key a Python loop inside the statement changes
    # (`scan[j] = v` for j in range(3)) is a change of its container,
    # carried as the changes of calls are (both backends refused it).
    (items_keyed_by_a_python_loop_in_a_branch, (2, 0), VALUE),
    (items_keyed_by_a_python_loop_in_a_branch, (-2, 0), VALUE),
    (items_keyed_by_a_python_loop_in_a_loop, (3, 0), VALUE),
    (items_keyed_by_a_python_loop_in_a_loop, (0, 0), VALUE),
    (dict_items_keyed_by_a_python_loop_in_a_branch, (2, 5), VALUE),
    (dict_items_keyed_by_a_python_loop_in_a_branch, (-2, 5), VALUE),
    (
        dict_grown_by_a_python_loop_in_a_branch,
        (2, 0),
        ("value or refused", r"the dict 'd' is changed in a branch of the \S+ `if`"),
    ),
    # (fuzz, JAX: UnexpectedTracerError: `retval_` holds the list `xs`, a
    # place of the loop, and the trial trace of the staged rest of the
    # `range` wrote its tracer into it.)
    (returned_only_from_while_true, (1, 3), VALUE),
    (list_returned_from_a_branch_in_a_loop, (1, 3), VALUE),
    (list_returned_from_a_branch_in_a_loop, (0, 3), VALUE),
    # A dict's key order cannot depend on the path (a traced value cannot
    # choose it): refused, naming the dict, the function and the line (both
    # backends gave one branch's order whichever ran: values came back
    # swapped). Where the paths agree, the order is Python's (JAX's pytrees
    # sorted the keys of a dict a statement carried).
    (dict_key_deleted_and_set_again_in_one_branch, (-2, 1), ("refused", _ORDER_IF)),
    (dict_key_popped_and_set_again_in_one_branch, (-2, 1), ("refused", _ORDER_IF)),
    (dict_keys_set_in_two_orders, (2, 1), ("refused", _ORDER_IF)),
    (dict_rebound_in_two_orders, (-2, 1), ("refused", _ORDER_IF)),
    (dict_key_popped_and_set_again_in_both_branches, (2, 1), VALUE),
    (dict_key_popped_and_set_again_in_both_branches, (-2, 1), VALUE),
    (dict_of_unsorted_keys_rebound_in_a_branch, (2, 1), VALUE),
    (dict_of_unsorted_keys_rebound_in_a_branch, (-2, 1), VALUE),
    (dict_key_popped_and_set_again_in_a_loop, (2, 1), ("refused", _ORDER_LOOP)),
    # (The toy backend runs loops in Python: no iteration, nothing traced.)
    (
        dict_key_popped_and_set_again_in_a_loop,
        (0, 1),
        ("value or refused", _ORDER_LOOP),
    ),
    (dict_reordered_in_a_loop, (2, 1), ("refused", _ORDER_LOOP)),
    # (The toy backend's conditional expression evaluates one arm only.)
    (dict_chosen_in_two_orders, (-2, 1), ("value or refused", _ORDER_IF)),
    (dict_of_unsorted_keys_chosen, (2, 1), VALUE),
    (dict_of_unsorted_keys_chosen, (-2, 1), VALUE),
    (dict_of_unsorted_keys_rebound_in_a_loop, (2, 1), VALUE),
    (dict_of_unsorted_keys_rebound_in_a_loop, (0, 1), VALUE),
    # None is named None (JAX called it "arrays": an empty pytree). (The
    # toy backend selects Python values, of any type.)
    (
        none_then_set_in_one_branch,
        (2, 1),
        (
            "value or refused",
            r"'y' is (None on one path and (a tensor|an array) on the other"
            r"|(a tensor|an array) on one path and None on the other), in the "
            r"\S+ `if` at \S+:\d+",
        ),
    ),
    (
        none_then_set_in_a_loop,
        (2, 1),
        (
            "value or refused",
            r"'best' (is|changes from) None (before the loop|to an array)",
        ),
    ),
    # A numeric scalar as a condition is true where it is not 0, as in
    # Python (and TensorFlow's If and While ops): the graph refused it ("the
    # condition of rt.cond must be a bool scalar") with no line.
    (while_on_an_int, (37, 0), VALUE),
    (while_on_an_int, (0, 0), VALUE),
    (if_on_an_int_remainder, (6, 0), VALUE),
    (or_of_ints, (0, 5), VALUE),
    (or_of_ints, (-3, 5), VALUE),
    (not_of_an_int, (0, 0), VALUE),
    (not_of_an_int, (-2, 0), VALUE),
    # The loop's index used as a set member or dict key: Python's range
    # loop, unrolled (JAX staged it and raised "unhashable type" when run).
    (index_as_a_set_member, (1.0,), VALUE),
    (index_as_a_dict_key, (2.0,), VALUE),
    (index_in_a_dict, (2.0,), VALUE),
    (index_as_a_dict_key_in_a_branch, (2.0,), VALUE),
    # A str beside arrays in a tuple comes out unchanged: only the arrays
    # are carried (JAX refused "a tuple ... and a tuple").
    (string_beside_an_array_through_an_if, (2.0,), VALUE),
    (string_beside_an_array_through_an_if, (0.5,), VALUE),
    (string_beside_an_array_through_a_loop, (2.0, 3), VALUE),
    (named_tuple_with_a_string_through_a_loop, (2.0, 3), VALUE),
    # A name read before the body assigns it has its type guessed from the
    # carry's leaves: the str was taken as a dtype (JAX: "data type 'run'
    # not understood" from a program that never enters the loop).
    (string_beside_an_array_in_a_loop_reading_an_unbound_name, (1.0, 2), VALUE),
    (
        string_beside_an_array_in_a_loop_reading_an_unbound_name,
        (-1.0, 2),
        ("raises", r"(cannot access local variable 'x'|'x' is read in the \S+ loop)"),
    ),
    (
        string_beside_an_array_changed_by_an_if,
        (2.0,),
        ("value or refused", r"'c' is a tuple .*item \[0\] is 'stop' in .* but 'run'"),
    ),
    # One rule, one message (issue 20: JAX had its own wording).
    (
        list_grown_in_loop,
        (3,),
        (
            "value or refused",
            r"loop variable 'gl' is a list of 1 item before the \S+ loop",
        ),
    ),
    # Reading the place `d['a']` of a defaultdict, a Counter or a dict with
    # `__missing__` (an object's `__getattr__`) outside the branch created
    # it, in the branch that does not run too (len 1, Python 0): it reads
    # as unset, and a key one branch only creates is refused as a dict's.
    *(
        (fn, (-1.0,), ("refused", r"is assigned in the if branch of the \S+ `if`"))
        for fn in (
            defaultdict_updated_in_a_branch,
            counter_updated_in_a_branch,
            missing_dict_updated_in_a_branch,
            lazy_attribute_updated_in_a_branch,
        )
    ),
    (defaultdict_updated_in_both_branches, (-2.0,), VALUE),
    (defaultdict_updated_in_both_branches, (3.0,), VALUE),
    # (A loop's body reads the key it counts: its default, as Python's first
    # iteration does.)
    (counter_counted_in_a_loop, (0,), VALUE),
    (counter_counted_in_a_loop, (3,), VALUE),
    # A deque and a bytearray changed in a branch that does not run, or in
    # a loop, changed anyway (len 2, Python 1; a loop's count 2 or 1,
    # Python 3): noted and compared as a list (a deque's items carried), a
    # bytearray's bytes as a set's elements.
    (deque_appended_in_a_branch, (-1.0,), ("refused", r"the deque 'q' is changed")),
    (deque_rotated_in_a_branch, (-1.0,), VALUE),
    (deque_rotated_in_a_branch, (1.0,), VALUE),
    (deque_appended_in_a_loop, (3,), ("refused", r"'q'")),
    # A sliding window: the deque keeps its length, its items are carried.
    # JAX gave the loop variable `q` and the place of its items one key, and
    # refused `q` as a list that grows ("a list of 3 items").
    (deque_window_in_a_loop, (3,), VALUE),
    (
        bytearray_appended_in_a_branch,
        (-1.0,),
        ("refused", r"the bytearray 'b' is changed .* its bytes depend on the branch"),
    ),
    (bytearray_changed_alike_in_both_branches, (-1.0,), VALUE),
    (bytearray_changed_alike_in_both_branches, (1.0,), VALUE),
    (
        bytearray_extended_in_a_loop,
        (3,),
        ("refused", r"the bytearray 'b' is changed .* in the body of the \S+ loop"),
    ),
    # Python state that calls change and no place carries, changed by a
    # branch that does not run or by a loop body traced once (NumPy array
    # `a += 1` 1.0, Python 0.0; `next(it)` 2.0, Python 1.0; a peek-ahead
    # 101.0, Python 4.0; `random.Random` 776, Python 864; `next(it)` in a
    # loop of 3: 30, Python 60): refused, naming it; changed alike in both
    # branches, it is set after the statement.
    (array_changed_in_place_in_a_branch, (-1.0,), ("refused", r"NumPy array 'a'")),
    (array_item_set_in_a_branch, (-1.0,), ("refused", r"NumPy array 'a'")),
    (array_changed_alike_in_both_branches, (-1.0,), VALUE),
    (array_changed_alike_in_both_branches, (1.0,), VALUE),
    (array_changed_in_place_in_a_loop, (3,), ("refused", r"NumPy array 'a' .* loop")),
    # `a += c` on a NumPy array a staged loop carries: Python changes the
    # array in place (its other names see it), the staged loop only rebound
    # the name (0.0 where Python gives 3.0): refused, naming the target
    # (the toy backend runs its loop in Python on the array, which changes).
    (
        array_added_to_in_a_loop,
        (3,),
        ("value or refused", r"NumPy array 'a' is changed (in place by `a \+=|in)"),
    ),
    (
        array_added_to_in_a_loop_s_branch,
        (2, 1.0),
        ("value or refused", r"NumPy array 'a' is changed (in place by `a \*=|in)"),
    ),
    (view_added_to_in_a_loop, (3,), ("value or refused", r"NumPy array '(a|base)' is")),
    (
        array_item_of_a_list_added_to_in_a_loop,
        (3,),
        ("value or refused", r"NumPy array '(lst\[0\]|keep)' is changed"),
    ),
    (
        array_attribute_added_to_in_a_loop,
        (3,),
        ("value or refused", r"NumPy array (s\.w|'w0') is changed"),
    ),
    (array_rebound_in_a_loop, (3,), VALUE),
    # (JAX runs a Python range loop refused staged unrolled; the graph
    # unrolls it.)
    (array_added_to_in_a_range_loop_with_traced_values, (1.0,), VALUE),
    # An array resized or reshaped in place (`a.resize(3)`, `a.shape = (2,
    # 2)`): putting it back between branches crashed with NumPy's "could not
    # broadcast"; `a.shape` was carried as the `if`'s output, a tensor.
    (array_resized_alike_in_both_branches, (1.0,), VALUE),
    (array_resized_alike_in_both_branches, (-1.0,), VALUE),
    (array_reshaped_alike_in_both_branches, (1.0,), VALUE),
    (array_reshaped_alike_in_both_branches, (-1.0,), VALUE),
    (array_resized_in_one_branch, (-1.0,), ("refused", r"NumPy array 'a' is changed")),
    (array_reshaped_in_one_branch, (-1.0,), ("refused", r"NumPy array 'a' is changed")),
    (array_resized_in_a_loop, (3,), ("refused", r"NumPy array 'a' .* loop")),
    (iterator_advanced_in_a_branch, (-1.0,), ("refused", r"the iterator 'it' is")),
    (iterator_peeked_in_a_loop_s_branch, (1.5,), ("refused", r"iterator 'it'")),
    (iterator_advanced_alike_in_both_branches, (-1.0,), VALUE),
    (iterator_advanced_alike_in_both_branches, (1.0,), VALUE),
    (iterator_advanced_in_a_loop, (3,), ("refused", r"iterator 'it' .* loop")),
    (
        generator_advanced_in_a_branch,
        (-1.0,),
        ("refused", r"the generator 'values' is advanced .* cannot be wound back"),
    ),
    (rng_drawn_in_a_branch, (-1.0,), ("refused", r"the random.Random 'rng'")),
    # JAX tries a Python range loop staged first, then runs it unrolled:
    # what the refused attempt changed stayed changed (336.0, Python 225.0).
    (state_changed_in_a_range_loop_with_traced_values, (1.0,), VALUE),
    # A generator JAX's staged attempt drew from before the loop ran
    # unrolled (234.0, Python 123.0; the graph unrolls a Python range).
    (
        generator_drawn_in_a_range_loop,
        (0.0,),
        ("value or refused", r"the generator 'g' is advanced while the JAX loop"),
    ),
    # Iterators of other kinds, the module's and NumPy's generators, a
    # StringIO: each iteration read the first item (JAX 0, Python 3; 30 for
    # 140); a branch that does not run drew or wrote all the same.
    (count_advanced_in_a_loop, (3,), ("refused", r"the iterator 'c' is advanced")),
    (zip_advanced_in_a_loop, (3,), ("refused", r"the iterator 'pairs' is advanced")),
    (
        module_random_drawn_in_a_branch,
        (-1.0,),
        ("refused", r"the random.Random 'random' is changed"),
    ),
    (
        numpy_generator_drawn_in_a_branch,
        (-1.0,),
        ("refused", r"the NumPy Generator 'rng' is changed"),
    ),
    (stringio_written_in_a_branch, (-1.0,), ("refused", r"the StringIO 'buf'")),
    (
        numpy_module_drawn_in_a_branch,
        (-1.0,),
        ("refused", r"the NumPy RandomState 'np' is changed"),
    ),
    (
        array_array_appended_in_a_branch,
        (-1.0,),
        ("refused", r"the array.array 'a' is changed"),
    ),
    # Both branches of the finally's `if` leave the return flag True: JAX
    # carried it as a traced bool, and the `return` after the statement
    # became a JAX `if` refused for lacking an else.
    (return_overridden_in_finally, (1.0,), VALUE),
    (return_overridden_in_finally, (3.0,), VALUE),
    # An array's item the statement carries as a traced value, written back
    # into the array: NumPy's "setting an array element with a sequence",
    # naming nothing (the toy backend's values are Python's: it runs).
    (
        array_item_set_alike_in_both_branches,
        (1.0,),
        ("value or refused", r"a\[0\] is an item of a NumPy array, which the traced"),
    ),
    (stringio_written_alike_in_both_branches, (-1.0,), VALUE),
    (stringio_written_alike_in_both_branches, (1.0,), VALUE),
    # A Counter carried whole was put back through its `update`, which
    # counts the (key, value) pairs it is given as keys (a refusal naming a
    # key (('a', 1), 1); before that, "Tensor is unhashable").
    (counter_updated_by_a_call_in_a_branch, (-1.0,), VALUE),
    (counter_updated_by_a_call_in_a_branch, (1.0,), VALUE),
    # A Python number both branches give alike stays that number after a
    # staged `if` (the graph gave a tensor: `[0] * n` multiplied it).
    (same_count_from_both_branches, (1.0,), VALUE),
    (same_count_from_both_branches, (-1.0,), VALUE),
    # Two Python numbers from a staged `if` give the wider (JAX: the
    # promotion of 1 and 0.0 read the dtype of the return value no path set).
    # A list a place holds that both branches leave as it came stays that
    # object (JAX gave back a copy, so `ys[0] += 1` missed `xs`).
    (alias_kept_by_a_branch_then_changed_in_finally, (4, 6), VALUE),
    (alias_kept_by_a_branch_then_changed_in_finally, (-9, 0), VALUE),
    (an_int_or_a_float, (1,), VALUE),
    (an_int_or_a_float, (-1,), VALUE),
    (widened_beside_a_return_not_taken, (2,), VALUE),
    (widened_beside_a_return_not_taken, (-2,), VALUE),
    # A Python number a loop's arithmetic widens (`total = 0`, then floats
    # added) is carried as the wider type (the graph refused it: int32 + float32).
    (total_of_floats, ([1.5, 2.0, 0.25],), VALUE),
    (total_of_floats, ([],), VALUE),
    (scaled_in_a_while, (3,), VALUE),
    (halves_summed_over_a_range, (3,), VALUE),
    # ... also where the loop carries it in a place (a `try` around the
    # loop: the graph raised the mismatch there); where the body refuses for
    # another reason, that refusal, not the mismatch.
    (halves_summed_in_a_try, (3,), VALUE),
    (halves_summed_in_a_try, (0,), VALUE),
    (scaled_in_a_while_in_a_try, (3,), VALUE),
    (halves_summed_into_an_item, (3,), VALUE),
    (
        halves_summed_beside_a_list_an_inner_loop_grows,
        (2,),
        ("value or refused", _GROWN),
    ),
    # ... and that refusal, not the mismatch, where a `try` in the body kept
    # the mismatch as the trace's refusal (the graph raised "Mul: cannot use
    # 0.5 with a int32 operand").
    (
        halved_beside_dicts_an_inner_loop_aliases,
        (3,),
        ("value or refused", _ALIASED),
    ),
    # Where the body widens the number only on a path that raises, the
    # trial (which takes types from the paths that end an iteration) cannot
    # see it: the graph refuses naming it and the loop (it raised the op's
    # "Add: cannot use 0.5 with a int32 operand"); JAX's weak types widen it.
    (
        halved_only_where_the_iteration_raises,
        (3,),
        ("value or refused", _UNWIDENED),
    ),
    (len_of_a_dict_a_loop_adds_a_key_to, (1.0, 3), ("value or refused", _BORN)),
    (
        key_tested_with_in_in_the_loop_that_adds_it,
        (1.0, 3),
        ("value or refused", _BORN),
    ),
    (
        attribute_tested_with_hasattr_in_the_loop_that_sets_it,
        (1.0, 3),
        ("value or refused", _BORN),
    ),
    (
        get_with_a_default_of_a_key_the_loop_creates,
        (1.0, 3),
        ("value or refused", _BORN),
    ),
    (best_so_far_tested_with_not_in, (0.0, 4), ("value or refused", _BORN)),
    (key_counted_after_a_loop_that_may_add_it, (1.0, 0), ("value or refused", _BORN)),
    (key_counted_after_a_loop_that_may_add_it, (1.0, 2), ("value or refused", _BORN)),
    (key_created_before_the_loop_then_tested, (1.0, 3), VALUE),
    (found_by_a_for_else_over_a_python_range, (2,), VALUE),
    (found_by_a_for_else_over_a_python_range, (0,), VALUE),
    (found_by_a_for_else_over_a_python_range, (3,), VALUE),
    (found_by_a_while_else_with_a_python_bound, (2,), VALUE),
    (found_by_a_while_else_with_a_python_bound, (3,), VALUE),
    (found_only_on_the_break_path_of_a_python_range, (4,), VALUE),
    (last_below_in_a_python_range, (2,), VALUE),
    (last_below_in_a_python_range, (9,), VALUE),
    # ... and in a loop that carries the name in a place (a `try` around
    # it reads it): the graph refused "'last' is assigned in the if branch
    # ... but not when the condition is false".
    (last_above_one_a_handler_reads, (4,), VALUE),
    (last_below_a_handler_reads_in_a_python_range, (2,), VALUE),
    (last_below_a_handler_reads_in_a_python_range, (9,), VALUE),
    (
        last_above_one_a_handler_reads,
        (1,),
        ("raises", r"(cannot access local variable 'last'|'last' is read after)"),
    ),
    # A name a loop binds first, under a test of a value a tuple carries:
    # the trial traced the body on the tuple's Python number or string,
    # took one branch of a test the loop stages, and the build then raised
    # "cannot tell the type of the return value" (fuzz, datasets).
    (born_by_a_counter_a_tuple_carries, (4,), VALUE),
    # A Python number widened through another one: the graph widened only
    # `prev` (then raised `Add: int32 and float64`), and refused where
    # `prev` is read before the loop binds it; JAX's `lax` promotes each
    # weak number once, and refused the carry's types.
    (lagged_sum, (4,), VALUE),
    (lagged_sum, (0,), VALUE),
    (lagged_sum_of_a_name_the_loop_binds_first, (4,), VALUE),
    (lagged_sum_in_a_while, (4,), VALUE),
    # ... widened to the type the loop gives it (the trial on Python
    # numbers gave float32, and `acc + i / 2` then raised float32 and
    # float64).
    (half_sum_with_a_python_counter, (4,), VALUE),
    # A Python int a graph loop carries, or `range()`'s index, is a weak
    # int: with a float (a tensor's, or a Python float) it is a float, as in
    # Python (the graph refused `Mul: cannot use 0.25 with a int32 operand`
    # and `Div: float32 and int32`, as TensorFlow does).
    (weighted_by_a_range_index, (4,), VALUE),
    (positions_weighted_by_enumerate, ([1.0, 2.0, 4.5],), VALUE),
    (ratio_of_a_chosen_count, (3.0, 4), VALUE),
    # Widened only through a staged `if` that the trial's Python 0 folded
    # away (`if v > 9.0: return 9.0`): refused, now traced as a weak int.
    (clamped_by_a_float_bound, (4,), VALUE),
    (clamped_by_a_float_bound, (1,), VALUE),
    (ratio_of_a_chosen_count, (-3.0, 4), VALUE),
    (halved_counter_in_a_while, (4,), VALUE),
    (mean_after_a_counting_loop, ([1.0, -2.0, 4.0],), VALUE),
    (mean_after_a_counting_loop, ([-1.0],), VALUE),
    # min/max of scalars, one staged: Python's `b if b > a else a` (TF's
    # AutoGraph converts them too; ours refused "compares graph tensors as
    # a Python bool").
    # A dict a staged `if` binds on one path, in a Python range: JAX
    # crashed (KeyError: 0) keeping the branches' dicts as objects, on the
    # name's (value, flag) pair (JAX fuzz).
    (dict_bound_in_one_branch_in_a_python_range, (3,), VALUE),
    (
        dict_bound_in_one_branch_in_a_python_range,
        (-1,),
        ("raises", r"(cannot access local variable 'w'|'w' is read after)"),
    ),
    (dict_in_both_branches_and_one_unused_in_a_python_range, (3,), VALUE),
    (dict_in_both_branches_and_one_unused_in_a_python_range, (-1,), VALUE),
    (best_so_far_by_max, ([1.0, 3.0, 2.0],), VALUE),
    (best_so_far_by_max, ([],), VALUE),
    (clipped_to_unit, (1.5,), VALUE),
    (clipped_to_unit, (-0.5,), VALUE),
    (clipped_to_unit, (0.25,), VALUE),
    (relu_sum_by_max, ([1.0, -2.0, 3.0],), VALUE),
    (max_of_three, (0.25,), VALUE),
    (max_of_three, (-2.0,), VALUE),
    (relu_by_a_partial_max, (-2.0,), VALUE),
    (relu_by_a_partial_max, (1.5,), VALUE),
    (
        born_by_a_counter_a_tuple_carries,
        (1,),
        ("raises", r"(cannot access local variable 'w'|'w' is read after)"),
    ),
    (
        born_by_a_tag_a_tuple_carries,
        (3,),
        ("raises", r"(cannot access local variable 'w'|'w' is read after)"),
    ),
    # A list or dict two names share, one of which a staged statement
    # makes a copy, is refused only where the function can tell (a change
    # through either name, `is`, a callee or a function it escapes to):
    # reads alone see the same values (TF gives Python's value here too).
    (shared_list_only_read_after_a_loop, (2, 7), VALUE),
    (shared_list_only_read_after_a_loop, (0, 7), VALUE),
    (shared_dict_only_read_after_a_loop, (2,), VALUE),
    (shared_dict_only_read_after_a_loop, (0,), VALUE),
    (shared_list_only_read_after_an_if, (3,), VALUE),
    (shared_list_only_read_after_an_if, (-3,), VALUE),
    (
        shared_list_changed_after_a_loop,
        (0, 7),
        (
            "value or refused",
            r"'sa' holds the same list as 'sb' before a \S+ loop.*"
            r"\(which the function can see: `sb\[0\] \+= 1` at \S+:\d+\)",
        ),
    ),
    (
        shared_list_told_apart_after_an_if,
        (3,),
        ("value or refused", r"holds the same list .*`return ys is xs` at"),
    ),
    (
        shared_list_given_to_a_function_after_an_if,
        (3,),
        ("value or refused", r"holds the same list .*`_append_one\(ys\)` at"),
    ),
    (
        shared_list_read_by_a_lambda_after_an_if,
        (3,),
        ("value or refused", r"holds the same list .*`later = lambda: ys` at"),
    ),
    # The same with a list the loop carries: the trial traced the body on
    # the list's Python numbers, took the Python branch (a `break`), and the
    # build refused a program Python runs, or one where Python raises
    # UnboundLocalError, with "cannot tell the type of the return value"
    # (tensor fuzz, 3 of 2,000).
    (born_by_a_counter_a_list_carries, (4,), VALUE),
    (
        born_by_a_counter_a_list_carries,
        (1,),
        ("raises", r"(cannot access local variable 'w'|'w' is read after)"),
    ),
    (born_by_a_counter_a_dict_carries, (4,), VALUE),
    (
        born_by_a_counter_a_dict_carries,
        (1,),
        ("raises", r"(cannot access local variable 'w'|'w' is read after)"),
    ),
    (
        born_after_a_break_a_list_decides,
        ([3, 1, 1],),
        ("raises", r"(cannot access local variable 'w'|'w' is read after)"),
    ),
    # A list or dict returned from inside a loop: the graph kept the list
    # the body made, holding the body's tensors ("the graph tensor 'cond:1'
    # ... escaped from the body of the graph loop"); tuples worked.
    (list_returned_from_a_for, (4,), VALUE),
    (list_returned_from_a_for, (1,), VALUE),
    (list_returned_from_a_while, (3,), VALUE),
    (list_returned_from_a_while, (0,), VALUE),
    (dict_returned_from_a_loop, (4,), VALUE),
    (dict_returned_from_a_loop, (0,), VALUE),
    (tuple_holding_a_list_returned_from_a_loop, (4,), VALUE),
    (tuple_holding_a_list_returned_from_a_loop, (2,), VALUE),
    (carried_list_returned_from_a_loop, (4,), VALUE),
    (carried_list_returned_from_a_loop, (2,), VALUE),
    (values_of_a_dict_returned_from_nested_loops, (3,), VALUE),
    (values_of_a_dict_returned_from_nested_loops, (0,), VALUE),
    # ... and where a change through it tells whether it is the object the
    # function had (the rule must not make a fresh list, one of two, or a
    # list the body made the caller's; a list the loop changes holds the
    # loop's values).
    (changed_through_a_fresh_list_returned_from_a_loop, (4,), VALUE),
    (changed_through_one_of_two_lists_returned_from_a_loop, (4,), VALUE),
    (changed_through_one_of_two_lists_returned_from_a_loop, (5,), VALUE),
    (changed_in_the_loop_then_through_the_returned_list, (4,), VALUE),
    (changed_in_the_loop_then_through_the_returned_list, (2,), VALUE),
    (changed_through_a_rebound_list_returned_from_a_loop, (4,), VALUE),
    (changed_through_a_dict_returned_from_nested_ifs_in_a_loop, (4,), VALUE),
    (changed_through_a_dict_returned_from_nested_ifs_in_a_loop, (1,), VALUE),
    (changed_through_a_list_returned_from_nested_loops, (4,), VALUE),
    (changed_through_a_list_returned_from_nested_loops, (1,), VALUE),
    (changed_through_one_of_two_lists_returned_from_nested_loops, (3,), VALUE),
    (changed_through_an_attributes_list_returned_from_a_loop, (4,), VALUE),
    (changed_by_a_finally_in_the_loop_and_by_the_caller, (4,), VALUE),
    (changed_by_a_finally_in_the_loop_and_by_the_caller, (1,), VALUE),
    # (The second loop's `return` in a staged `if not do_return:`, whose
    # `return retval_ if do_return else ...` restored the items as they were
    # before that `if`: the loop's change to `xs[0]` was lost.)
    (returned_from_the_second_of_two_loops, (4,), VALUE),
    (returned_from_the_second_of_two_loops, (1,), VALUE),
    (changed_by_a_second_loop_then_returned, (4,), VALUE),
    (changed_by_a_second_loop_then_returned, (1,), VALUE),
    # (`return retval_ if do_return else f(xs)`, `f` changing `xs`: Python's
    # value, both paths giving `xs`; the change was made while tracing.)
    (changed_by_a_call_returned_after_a_loop_and_by_the_caller, (4,), VALUE),
    (changed_by_a_call_returned_after_a_loop_and_by_the_caller, (1,), VALUE),
    # A branch that only returns assigns nothing (it read "'w' is assigned in
    # the if branch ... but not in its else branch").
    (
        unassigned_where_the_other_branch_returns,
        (2,),
        (
            "refused",
            r"^'w' is not assigned on the path that continues after the \S+ `if` "
            r"at \S+:\d+ in 'unassigned_where_the_other_branch_returns' \(its if "
            r"branch returns, and its else branch does not assign it\), and it is "
            r"used after the `if`; assign it before the `if`, or in its else branch",
        ),
    ),
]


@pytest.mark.parametrize("backend", sorted(RUNNERS))
@pytest.mark.parametrize(
    ("fn", "args", "expected"),
    CASES,
    ids=[f"{c[0].__name__}{c[1]}" for c in CASES],
)
def test_every_backend_agrees_with_python(backend, fn, args, expected):
    run = RUNNERS[backend]
    if expected == VALUE:
        assert run(fn, *args) == fn(*args)
        return
    what, text = expected
    if what == "value or refused":
        try:
            assert run(fn, *args) == fn(*args)
            return
        except AssertionError:
            raise
        except Exception as error:
            caught = error
        assert re.search(text, str(caught)), caught
    else:
        with pytest.raises(Exception, match=text) as info:
            run(fn, *args)
        caught = info.value
    if what != "raises":
        # A refusal says what to change: never an internal error. (Under
        # JAX, one user code swallowed while tracing comes when run.)
        shown = f"{type(caught).__name__}: {caught}"
        assert isinstance(caught, (TypeError, ValueError)) or (
            "TypeError" in shown or "ValueError" in shown
        ), shown


def raise_in_loop_swallowed_by_finally(a, b):
    z = b
    try:
        for _ in range(b, 1):
            if (z := a + 2) > 1:
                raise KeyError("r5")
    finally:
        return z  # noqa: B012 - swallows the KeyError


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_a_raise_a_finally_swallows_is_refused(backend):
    # Python returns 2; a staged program cannot catch: refused, never 0.
    with pytest.raises(Exception, match="cannot catch an exception"):
        RUNNERS[backend](raise_in_loop_swallowed_by_finally, 0, 0)


def raises_in_branch_then_after(a, b):
    x = 0
    for x in range(b):
        if a < b:
            raise KeyError("first")
        raise KeyError("second")
    return x


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_the_first_raise_on_the_path_is_the_one(backend):
    # (JAX raised "second": its run-time checks were unordered callbacks.)
    with pytest.raises(Exception, match=r"(KeyError: |^)'first'"):
        RUNNERS[backend](raises_in_branch_then_after, 0, 1)


@pytest.mark.parametrize("backend", ["graph", "jax"])
@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (loop_born_in_the_else_branch, (-3, 0)),
        (loop_born_after_a_return_in_a_branch, (1, 0)),
    ],
)
def test_a_name_a_branch_may_bind_in_no_iteration_raises_when_read(backend, fn, args):
    # Python: UnboundLocalError. (The toy backend runs loops in Python: its
    # zero-trip loop leaves the name unbound in one branch, a refusal.)
    with pytest.raises(Exception, match=r"'w' is read after the \S+ loop"):
        RUNNERS[backend](fn, *args)


def returns_none_when_the_loop_ends(a, b):
    while a < b:  # the line the refusal names
        a = a + 1
        if a > 2:
            return a


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_a_loop_that_may_end_without_a_return_is_refused_at_its_line(backend):
    # (It named the `def` line: the check after the loop had no position.)
    # (It said "the if branch of the graph `if`": the check after the loop.)
    line = returns_none_when_the_loop_ends.__code__.co_firstlineno + 1
    message = (
        r"^'returns_none_when_the_loop_ends' returns a value from inside the \S+ "
        rf"loop at \S+:{line} but None when the loop ends without returning \(no "
        r"`return` follows the loop\)"
    )
    with pytest.raises(ValueError, match=message):
        RUNNERS[backend](returns_none_when_the_loop_ends, 0, 5)


def returns_none_after_the_loop(a, b):
    while a < b:
        a = a + 1
        if a > 2:
            return a
    return None


def returns_two_structures(a, b):
    while a < b:
        a = a + 1
        if a > 2:
            return a, b
    return -1


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_a_return_of_none_after_a_loop_that_returns_is_refused_at_its_line(backend):
    # (It read "the function's return value is a tensor on one path and None
    # on the other, in the graph `if` at <the loop's line>": a `while` with
    # no true or false branch.)
    line = returns_none_after_the_loop.__code__.co_firstlineno + 1
    message = (
        r"^'returns_none_after_the_loop' returns a value from inside the \S+ loop "
        rf"at \S+:{line} but None when the loop ends without returning \(the code "
        r"after the loop has no `return` on that path, or returns None\)"
    )
    with pytest.raises(ValueError, match=message):
        RUNNERS[backend](returns_none_after_the_loop, 0, 5)


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_returns_of_two_structures_inside_and_after_a_loop_name_the_loop(backend):
    # (It read "a tuple of 2 items in the true branch but an int in the false
    # branch", at the loop's line, or with no line.)
    line = returns_two_structures.__code__.co_firstlineno + 1
    message = (
        r"^'returns_two_structures' returns a tuple of 2 items from inside the "
        rf"\S+ loop at \S+:{line} but (an int|a tensor|an array) after the loop; "
    )
    with pytest.raises(ValueError, match=message):
        RUNNERS[backend](returns_two_structures, 0, 5)


def returns_lists_of_two_lengths(n):
    for i in range(n):
        if i > 1:
            return [i]
    return []


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_returned_lists_of_two_lengths_are_refused_saying_what_to_write(backend):
    # A list a graph carries has one length on every path.
    line = returns_lists_of_two_lengths.__code__.co_firstlineno + 1
    message = (
        r"^'returns_lists_of_two_lengths' returns a list of 1 item from inside "
        rf"the \S+ loop at \S+:{line} but a list of 0 items after the loop; .* a "
        r"list has one length on every path: return a list of 1 item after the "
        r"loop too"
    )
    with pytest.raises(ValueError, match=message):
        RUNNERS[backend](returns_lists_of_two_lengths, 4)


def chooses_a_function(a, b):
    f = (lambda v: v * 2) if a < b else (lambda v: v * 3)  # the line named
    return f(a)


class _Made:
    def __init__(self, v):
        self.v = v

    @classmethod
    def make(cls, v):
        if v > 2:  # the line named (2 below the decorator's)
            return cls(v)
        return cls(0)


def returns_objects_from_a_branch(a, b):
    return _Made.make(a + b).v


@pytest.mark.parametrize("backend", ["graph", "jax"])
@pytest.mark.parametrize(
    ("fn", "line", "what"),
    [
        (chooses_a_function, 1, r"the value of the `if`/`else` is a function"),
        (returns_objects_from_a_branch, 2, r"the return value of 'make' is a _Made"),
    ],
)
def test_a_value_no_tensor_holds_chosen_by_a_traced_if_names_its_line(
    backend, fn, line, what
):
    # (The graph's message for a conditional expression or an `if` ending
    # in returns gave no line; JAX's did.)
    code = (fn if fn is chooses_a_function else _Made.make.__func__).__code__
    at = f"{re.escape(code.co_filename)}:{code.co_firstlineno + line}"
    message = rf"^{what}.* the \w+ `if` at {at}: "
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, 1, 2)


def item_keyed_by_the_loop(n):
    d = {0: 0, 1: 0, 2: 0}
    for i in range(n):
        d[i] = i
    return d[0]


@pytest.mark.parametrize(("backend", "kind"), [("graph", "graph"), ("jax", "JAX")])
def test_an_item_no_backend_can_carry_is_refused_naming_the_backend(backend, kind):
    # (JAX's refusal said "a graph `if` or loop".)
    message = rf"d\[i\] is assigned inside a {kind} `if` or loop .* so {kind} ops "
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](item_keyed_by_the_loop, 3)


def prints_in_a_branch_and_after(a):
    if a > 0:
        print("positive")
    else:
        print("not positive")
    print("after")
    return a


# Where a Python `print` in a staged `if` runs, per backend (API.md): the
# graph backend, as TensorFlow, while tracing (each branch once, then never:
# `rt.print` prints on every run); the JAX backend when the compiled function
# runs, as Python does (it printed while tracing, both branches' text).
PRINTED = {
    "graph": ["positive\nnot positive\nafter\n", ""],
    "jax": ["not positive\nafter\n", "not positive\nafter\n"],
}


@pytest.mark.parametrize("backend", sorted(PRINTED))
def test_where_a_print_in_a_staged_if_runs(backend, capsys):
    if backend == "jax":
        jax = pytest.importorskip("jax", reason="JAX is not installed")
        staged = jax.jit(autograph.to_graph(prints_in_a_branch_and_after))

        def run():
            result = int(staged(-1))
            jax.effects_barrier()
            return result
    else:
        traced = autograph.function(prints_in_a_branch_and_after)

        def run():
            return int(traced(rt.constant(-1)).numpy())

    printed = []
    for _ in range(2):  # the call that traces, and one that only runs
        assert run() == -1
        printed.append(capsys.readouterr().out)
    assert printed == PRINTED[backend]


def find_with_enumerate(xs, t):
    for i, x in enumerate(list(xs)):
        if x == t:
            return i
    return -1


def python_loop_in_a_staged_loop(n, t):
    for _ in range(n):
        for x in [1.0, 2.0]:
            if x == t:
                return x
    return -1.0


@pytest.mark.parametrize(("backend", "kind"), [("graph", "graph"), ("jax", "JAX")])
@pytest.mark.parametrize("fn", [find_with_enumerate, python_loop_in_a_staged_loop])
def test_a_python_loop_a_traced_break_would_end_is_refused_naming_the_backend(
    backend, kind, fn
):
    # (JAX's refusal said "graph tensor" and suggested rt.range; neither
    # named the line. Inside a staged loop, both named that loop's line,
    # which iterates over a traced value, not the Python loop's.)
    line = fn.__code__.co_firstlineno + (2 if fn is python_loop_in_a_staged_loop else 1)
    message = (
        rf"`for` loop at \S+test_backend_table.py:{line} iterates over a Python "
        rf"value, .* depends on a (traced )?{kind} "
    )
    staged_loop = fn is python_loop_in_a_staged_loop
    with pytest.raises(TypeError, match=message):
        if backend == "jax":
            jax = pytest.importorskip("jax", reason="JAX is not installed")
            first = jax.numpy.asarray(2) if staged_loop else jax.numpy.arange(3.0)
            jax.jit(autograph.to_graph(fn))(first, 1.0)
        else:
            first = (
                rt.constant(2) if staged_loop else [rt.constant(1.0), rt.constant(2.0)]
            )
            autograph.function(fn)(first, rt.constant(1.0))


def item_first_set_in_a_loop(n):
    d = {}
    for i in range(n):
        d["k"] = i
    return d["k"]


def attribute_first_set_in_a_loop(n):
    ob = types.SimpleNamespace()
    for i in range(n):
        ob.last = i
    return ob.last


@pytest.mark.parametrize("backend", ["graph", "jax"])
@pytest.mark.parametrize(
    ("fn", "python"),
    [
        (item_first_set_in_a_loop, KeyError),
        (attribute_first_set_in_a_loop, AttributeError),
    ],
)
def test_an_item_no_iteration_set_raises_python_s_type_when_read(backend, fn, python):
    # (Both raised an UnboundLocalError, or an error of no builtin type,
    # where Python raises KeyError / AttributeError.)
    with pytest.raises(python):
        fn(0)
    with pytest.raises(python, match="no iteration has assigned it"):
        if backend == "jax":
            pytest.importorskip("jax", reason="JAX is not installed")
            autograph.jit(fn)(0)
        else:
            autograph.function(fn)(rt.constant(0))
    assert RUNNERS[backend](fn, 3) == 2


def counted_defaultdict_key_tested_with_in(x, n):
    d = collections.defaultdict(float)
    s = 0.0
    for _ in range(n):
        s += len(d)
        d["k"] += x
    return s


@pytest.mark.parametrize("backend", ["graph", "jax"])
@pytest.mark.parametrize(
    ("fn", "item", "text"),
    [
        (len_of_a_dict_a_loop_adds_a_key_to, "d['b']", 'd["b"] = x'),
        (best_so_far_tested_with_not_in, "best['loss']", 'best["loss"] = loss'),
        (
            attribute_tested_with_hasattr_in_the_loop_that_sets_it,
            "o.seen",
            "o.seen = x",
        ),
        (counted_defaultdict_key_tested_with_in, "d['k']", 'd["k"] += x'),
    ],
)
def test_an_item_a_loop_creates_where_its_presence_is_read_is_refused(
    backend, fn, item, text
):
    # The refusal names the item, the loop's line, the function and the fix;
    # Python values (a plain Python loop) keep Python's behaviour.
    lines, first = inspect.getsourcelines(fn)
    line = first + next(
        i for i, s in enumerate(lines) if s.lstrip().startswith(("for ", "while "))
    )
    kind = {"graph": "graph", "jax": "JAX"}[backend]
    where = rf"{re.escape(item)} is created by the {kind} loop at \S+:{line} in "
    where += f"'{fn.__name__}'"
    with pytest.raises(TypeError, match=where) as info:
        RUNNERS[backend](fn, 1.0, 3)
    assert f"create it before the loop (`{item} = ...`" in str(info.value)
    assert text in inspect.getsource(fn)
    forced = autograph.to_graph(fn)
    assert forced(1.0, 3) == fn(1.0, 3)
    assert forced(1.0, 1) == fn(1.0, 1)


def dict_with_an_item_first_set_in_a_loop(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_a_returned_dict_whose_item_no_iteration_set_says_what_python_returns(
    backend,
):
    # It said "(Python: KeyError)", where Python returns {'b': 11}, and the
    # graph's node was "created at <autograph dispatcher>:6".
    fn = dict_with_an_item_first_set_in_a_loop
    assert fn(11) == {"b": 11}
    line = fn.__code__.co_firstlineno
    message = (
        rf"y\['a'\] is part of what '{fn.__name__}' \(at \S+:{line}\) returns, and "
        rf"no iteration of the \S+ loop at \S+:{line + 2} has set it: Python would "
        r"return that without y\['a'\], but a traced function returns the "
        r"structure it was traced with; give y\['a'\] a value before the loop"
    )
    if backend == "jax":
        jax = pytest.importorskip("jax", reason="JAX is not installed")
        with pytest.raises(Exception, match=message):
            jax.jit(autograph.to_graph(fn))(11)
        return
    with pytest.raises(ValueError, match=message) as e:
        autograph.function(fn)(rt.constant(11))
    assert "dispatcher" not in str(e.value)
    here = inspect.currentframe().f_lineno - 2  # the call above
    assert str(e.value).endswith(f"created at {__file__}:{here})"), str(e.value)
    out = autograph.function(fn)(rt.constant(3))
    assert {k: int(v.numpy()) for k, v in out.items()} == fn(3) == {"a": 7, "b": 12}


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_a_key_order_refusal_names_the_dict_the_function_and_the_line(backend):
    fn = dict_key_deleted_and_set_again_in_one_branch
    line = fn.__code__.co_firstlineno + 2  # the `if`
    message = (
        rf"the dict 'd' depends on the branch of the \S+ `if` at \S+"
        rf"test_backend_table.py:{line} in '{fn.__name__}' \(\['b', 'a'\] after the "
        r"if branch, \['a', 'b'\] after the else branch \(there is none\)\)"
    )
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, -2, 1)


# A name set on the path that breaks and in the loop's `else` (the search
# idiom), or in some iterations only: a staged `if` in the body may bind a
# name the loop binds first; the loop carries it with its flag and a read
# raises where Python raises (UnboundLocalError). Both backends refused
# these: "'found' must also be defined in the else branch". (The toy
# backend's loops run their iterations in Python, as a Python range does:
# `test_the_toy_backend_binds_a_name_a_branch_in_the_loop_binds`.)
EQUIVALENT = {
    "python": assert_equivalent,
    "graph": lambda fn, *args: assert_graph_equivalent(fn, *map(rt.constant, args)),
    "jax": assert_jax_equivalent,
}
SEARCH_LOOPS = [
    (found_by_a_for_else, (5, 3)),
    (found_by_a_for_else, (5, 7)),
    (found_by_a_for_else, (0, 0)),
    (found_by_a_while_else, (5, 3)),
    (found_by_a_while_else, (5, 7)),
    (found_or_returned_by_the_else, (5, 3)),
    (found_or_returned_by_the_else, (5, 7)),
    (found_only_on_the_break_path, (5, 3)),
    (found_only_on_the_break_path, (5, 7)),  # Python: UnboundLocalError
    (found_in_some_iterations, (5, 3)),
    (found_in_some_iterations, (5, 0)),  # Python: UnboundLocalError
    (found_by_a_for_else_over_a_python_range, (2,)),
    (found_by_a_for_else_over_a_python_range, (3,)),
    (found_by_a_while_else_with_a_python_bound, (2,)),
    (found_by_a_while_else_with_a_python_bound, (3,)),
    (found_only_on_the_break_path_of_a_python_range, (3,)),  # Python: raises
    (last_below_in_a_python_range, (0,)),  # Python: UnboundLocalError
]


@pytest.mark.parametrize("backend", sorted(EQUIVALENT))
@pytest.mark.parametrize(
    ("fn", "args"), SEARCH_LOOPS, ids=[f"{f.__name__}{a}" for f, a in SEARCH_LOOPS]
)
def test_a_name_a_branch_in_the_loop_binds_is_bound_where_python_binds_it(
    backend, fn, args
):
    EQUIVALENT[backend](fn, *args)


@pytest.mark.parametrize(
    ("fn", "args", "text"),
    [
        (found_only_on_the_break_path, (5, 7), r"'found' is read after the \S+ loop"),
        (found_in_some_iterations, (5, 0), r"'last' is read after the \S+ loop"),
    ],
)
@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_a_name_no_iteration_bound_raises_when_read_after_the_loop(
    backend, fn, args, text
):
    with pytest.raises(Exception, match=text):
        RUNNERS[backend](fn, *args)


@pytest.mark.parametrize(
    ("fn", "args"),
    [(f, a) for f, a in SEARCH_LOOPS if f is not found_only_on_the_break_path],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_the_toy_backend_binds_a_name_a_branch_in_the_loop_binds(fn, args):
    # Its loops run their iterations in Python, as the graph and JAX run
    # a Python range's: the `if` carries the name with its flag.
    try:
        expected = fn(*args)
    except UnboundLocalError as error:
        name = re.search(r"'(\w+)'", str(error)).group(1)
        with pytest.raises(UnboundLocalError, match=f"'{name}' is read after"):
            RUNNERS["toy"](fn, *args)
        return
    assert RUNNERS["toy"](fn, *args) == expected


@pytest.mark.parametrize("backend", sorted(RUNNERS))
@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (found_only_on_the_break_path_of_a_python_range, (3,)),
        (found_only_on_the_break_path_of_a_python_range, (-2,)),
        (last_below_in_a_python_range, (0,)),
    ],
)
def test_a_name_a_staged_if_in_a_python_loop_leaves_unbound_raises_when_read(
    backend, fn, args
):
    # Python: UnboundLocalError; the program raises where it reads it,
    # naming the loop that carried it (a staged rest of the range) or the
    # `if` that binds it on one path.
    with pytest.raises(UnboundLocalError):
        fn(*args)
    name = "found" if "found" in fn.__name__ else "last"
    line = fn.__code__.co_firstlineno
    loop = rf"loop at \S+test_backend_table.py:{line + 1}"
    branch = rf"`if` at \S+test_backend_table.py:{line + 2} in '{fn.__name__}'"
    message = rf"'{name}' is read after the \S+ ({loop}|{branch})"
    with pytest.raises(Exception, match=message):
        RUNNERS[backend](fn, *args)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            deleted_in_the_if_branch,
            r"^'i' is deleted \(`del i`\) in the if branch of the {kind} `if` at "
            r"\S+:{line} in 'deleted_in_the_if_branch' but bound when the condition "
            r"is false \(the `if` has no else\), and it is used after the `if`; "
            r"whether it exists after the `if` would depend on a {kind} value: "
            r"delete it on both paths or on neither",
        ),
        (
            deleted_in_the_else_branch,
            r"^'i' is deleted \(`del i`\) in the else branch of the {kind} `if` at "
            r"\S+:{line} in 'deleted_in_the_else_branch' but bound in its if branch",
        ),
        (
            except_name_deleted_in_a_branch,
            r"^'e' is unbound \(the end of an `except \.\.\. as e` block unbinds "
            r"it\) in the if branch of the {kind} `if` at \S+:{line} in "
            r"'except_name_deleted_in_a_branch' but bound when the condition is "
            r"false .*: bind the exception to a name used only in that block",
        ),
    ],
)
@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_a_name_unbound_in_one_branch_is_refused_naming_what_unbinds_it(
    backend, fn, message
):
    # The refusal said "'i' is assigned in the else branch ... but not in
    # its if branch" of an `if` with no else, where the if branch `del`s
    # the `i` bound before it.
    line = fn.__code__.co_firstlineno + 2  # the `if`
    kind = {"graph": "graph", "jax": "JAX"}[backend]
    with pytest.raises(ValueError, match=message.format(kind=kind, line=line)):
        RUNNERS[backend](fn, 3)


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_a_name_set_only_in_the_loop_else_is_refused_naming_the_loop(backend):
    # Unbound after a `break`, where no flag is carried. The refusal named
    # the else branch of an `if` the user never wrote, and no line.
    line = set_only_in_the_loop_else.__code__.co_firstlineno + 1
    message = (
        rf"^'found' is assigned in the `else` block of the \S+ loop at \S+:{line} "
        "in 'set_only_in_the_loop_else' but not on the path where the loop ends by "
        "`break`, and it is used after the loop; assign it before the loop"
    )
    with pytest.raises(ValueError, match=message):
        RUNNERS[backend](set_only_in_the_loop_else, 5, 7)


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_a_traced_break_in_an_unrolled_range_loop(backend):
    # JAX: the loop is unrolled (its body needs `k` as a Python int); the
    # iterations after the traced `break` run under a `cond` each (it raised
    # TracerIntegerConversionError naming a line of jax_loops.py). The
    # graph continues as one graph loop, as documented: refused, naming
    # `k`, the function and the line (it named 'strided_slice:0').
    fn = series_with_a_traced_break
    if backend != "graph":
        assert RUNNERS[backend](fn, 3.0, 0.2) == fn(3.0, 0.2) == 8.0
        assert RUNNERS[backend](fn, 3.0, 0.0) == fn(3.0, 0.0) == 8.125
        return
    line = fn.__code__.co_firstlineno + 3
    message = (
        rf"the index 'k' of the graph loop at \S+test_backend_table.py:{line - 1} "
        rf"in '{fn.__name__}' is a traced graph value, .* as a Python int at "
        rf"\S+test_backend_table.py:{line}"
    )
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, 3.0, 0.2)


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_a_traced_return_in_a_loop_over_a_constant_array_s_rows(backend):
    # The rest of the rows after the traced `return`: JAX unrolls it, each
    # iteration under a `cond` (the body needs `i` as a Python int); the
    # graph continues as one graph loop, which refuses `i` as a Python int,
    # naming it and the line (both refused the Python loop, naming neither).
    fn = bucket_by_table
    if backend != "graph":
        for t in (0.5, 4.0, 9.0):
            assert RUNNERS[backend](fn, t) == fn(t)
        return
    line = fn.__code__.co_firstlineno + 4
    message = rf"'i' .* is used as a Python int at \S+test_backend_table.py:{line}"
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, 4.0)


_HASHED = r"a hashable Python value \(a set member or a dict key\)"


@pytest.mark.parametrize(("backend", "kind"), [("graph", "graph"), ("jax", "JAX")])
@pytest.mark.parametrize(
    ("fn", "what", "source"),
    [
        (index_of_a_traced_range_as_a_dict_key, _HASHED, r"x = x \* w\[k\]"),
        (index_of_a_traced_range_as_a_list_index, "a Python int", r"x = x \* w\[k\]"),
        # (The graph's `k in w` was always False: a graph tensor hashed by
        # identity, so the loop gave `a` for every n.)
        (index_of_a_traced_range_as_a_set_member, _HASHED, "if k in w:"),
        (index_of_a_traced_range_in_a_dict, _HASHED, "if k in w:"),
    ],
)
def test_a_staged_loop_s_index_as_a_python_value_is_refused(
    backend, kind, fn, what, source
):
    # A staged loop's index has no Python value: refused, naming the index,
    # the function and the line (the graph gave a KeyError when run or named
    # 'strided_slice:0'; JAX raised "unhashable type" when run, or its own
    # error naming a line of jax_loops.py).
    line = fn.__code__.co_firstlineno + 3
    message = (
        rf"the index 'k' of the {kind} loop at \S+test_backend_table.py:{line} in "
        rf"'{fn.__name__}' is a traced {kind} value, but its body needs it as "
        rf"{what} at \S+test_backend_table.py:{line + 1} \(`{source}`\)"
    )
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, 2.0, 3)


@pytest.mark.parametrize(("backend", "kind"), [("graph", "graph"), ("jax", "JAX")])
def test_returns_of_different_nesting_are_refused_saying_where(backend, kind):
    # (The graph said "a tuple of 2 items ... but a tuple of 2 items" with no
    # line, JAX "'the value of the `if`/`else`' is arrays and arrays".)
    fn = returns_tuples_of_different_nesting
    line = fn.__code__.co_firstlineno + 1
    message = (
        rf"the return value of '{fn.__name__}' is a tuple of 2 items .*\(item \[0\] "
        r"is an? (tensor|array) in (the true branch|one branch) but a tuple of 2 "
        rf"items in the (false branch|other)\),? in the {kind} `if` at "
        rf"\S+test_backend_table.py:{line}"
    )
    with pytest.raises((TypeError, ValueError), match=message):
        RUNNERS[backend](fn, 1.0)


@pytest.mark.parametrize(("backend", "kind"), [("graph", "graph"), ("jax", "JAX")])
def test_a_function_defined_in_a_staged_loop_cannot_leave_it(backend, kind):
    # (JAX said 'g' is "not on every path through its body", which is false;
    # the graph "cannot convert function <...loop_body.<locals>.g>".)
    fn = function_defined_in_a_loop_and_called_after
    line = fn.__code__.co_firstlineno + 1
    message = (
        rf"'g' is first assigned inside the {kind} loop at \S+test_backend_table.py:"
        rf"{line} in '{fn.__name__}', to a function, and is used after the loop"
    )
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, 1.0, 3)


@pytest.mark.parametrize("backend", ["graph", "jax"])  # (the toy stages no indexing)
@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (first_item_if_any, ([], 0)),
        (first_item_if_any, ([2.0], 1)),
        (first_item_per_row, ([],)),
        (first_item_per_row, ([1.5, 2.0],)),
    ],
)
def test_an_index_a_static_shape_shows_out_of_bounds_fails_where_its_path_runs(
    backend, fn, args
):
    # Both raised while tracing a branch or a loop body that never runs.
    assert RUNNERS[backend](fn, *args) == fn(*args)


@pytest.mark.parametrize(("backend", "kind"), [("graph", "graph"), ("jax", "JAX")])
@pytest.mark.parametrize(
    ("fn", "target", "op"),
    [
        (array_added_to_in_a_loop, "'a'", "+"),
        (array_item_of_a_list_added_to_in_a_loop, "'lst[0]'", "+"),
        (array_attribute_added_to_in_a_loop, "s.w", "+"),
        (view_added_to_in_a_loop, "'a'", "+"),
    ],
)
def test_an_array_a_staged_loop_changes_with_an_augmented_assignment_is_refused(
    backend, kind, fn, target, op
):
    # (It used to pass: `a += 1` added to the loop variable, a traced value,
    # and the array, which another name also holds, kept its values.)
    name = target.strip("'")
    source = inspect.getsource(fn).splitlines()
    line = fn.__code__.co_firstlineno + next(
        i for i, text in enumerate(source) if text.lstrip().startswith("for ")
    )
    tensor = "rt.constant" if kind == "graph" else "jnp.asarray"
    n, t = re.escape(name), re.escape(tensor)
    message = (
        rf"the NumPy array {re.escape(target)} is changed in place by `{n} "
        rf"{re.escape(op)}= \.\.\.` at \S+test_backend_table.py:{line + 1} in the "
        rf"body of the {kind} loop at \S+test_backend_table.py:{line} in "
        rf"'{fn.__name__}': .* write `{n} = {n} {re.escape(op)} \.\.\.` to carry "
        rf"a new value .* \(`{n} = {t}\({n}\)`\)"
    )
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, 3)


_WEIGHTS = np.array([1.0, -2.0, 3.0, -4.0], np.float32)


def numpy_constant_indexed_in_a_loop_condition(x):
    k = 0
    while _WEIGHTS[k] < x:
        k += 1
    return k


def numpy_constant_indexed_in_a_loop_body(n):
    k = 0
    s = 0.0
    while k < n:
        s = s + _WEIGHTS[k]
        k += 1
    return s


@pytest.mark.parametrize(("backend", "kind"), [("graph", "graph"), ("jax", "JAX")])
@pytest.mark.parametrize(
    ("fn", "arg", "part", "offset"),
    [
        (numpy_constant_indexed_in_a_loop_condition, 2.0, "condition", 2),
        (numpy_constant_indexed_in_a_loop_body, 3, "body", 3),
    ],
)
def test_a_numpy_array_indexed_with_a_staged_loop_variable_names_it(
    backend, kind, fn, arg, part, offset
):
    # (It said "the symbolic tensor 'placeholder:0' has no NumPy value while
    # tracing", or JAX's TracerArrayConversionError, naming no variable.)
    loop = fn.__code__.co_firstlineno + offset
    line = loop if part == "condition" else loop + 1
    make = "rt.constant" if kind == "graph" else "jnp.asarray"
    message = (
        rf"the loop variable 'k' of the {kind} loop at \S+test_backend_table.py:"
        rf"{loop} in '{fn.__name__}' is a traced {kind} value, but its {part} needs "
        rf"it as a NumPy value .* at \S+test_backend_table.py:{line} \(`.*_WEIGHTS"
        rf"\[k\].*`\): .* \(`_WEIGHTS = {re.escape(make)}\(_WEIGHTS\)`\)"
    )
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, arg)


def traced_value_stored_into_an_array(x):
    buf = np.zeros(3, np.float32)
    buf[0] = x
    return buf


@pytest.mark.parametrize(
    ("backend", "kind", "instead"),
    [
        ("graph", "graph", r"tensor instead: collect the values in a Python list"),
        (
            "jax",
            "JAX",
            r"JAX array instead: `buf = jnp.asarray\(buf\).at\[0\].set\(x\)`",
        ),
    ],
)
def test_a_traced_value_stored_into_a_numpy_array_is_refused_naming_it(
    backend, kind, instead
):
    # (NumPy said "setting an array element with a sequence.", naming nothing.)
    fn = traced_value_stored_into_an_array
    line = fn.__code__.co_firstlineno + 2
    message = (
        rf"`buf\[0\] = x` at \S+test_backend_table.py:{line} stores a traced {kind} "
        rf"value into the NumPy array 'buf': .* {instead}"
    )
    with pytest.raises(TypeError, match=message):
        RUNNERS[backend](fn, 1.0)


def widened_in_a_try_that_catches_everything(n):
    acc = 0
    caught = 0
    for i in range(n):
        try:
            acc = acc + i / 2
        except Exception:  # (the form that swallowed the mismatch)
            caught += 1
    return acc, caught


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_a_dtype_mismatch_the_users_code_catches_while_tracing_is_not_swallowed(
    backend,
):
    # The graph loop carried `acc` as int32 and `acc + i / 2` raised while
    # tracing; the user's `except Exception` caught it, so the graph took the
    # handler on every iteration: (0, 3) for Python's (1.5, 0). A mismatch
    # the user's code catches is kept and ends the trace (the handler's
    # effects cannot be undone to widen and build again); here there is
    # none: `acc`, made of a Python int, is a weak int the float addition
    # casts (`SymbolicTensor.weak`), as JAX's weak types and Python do.
    result = RUNNERS[backend](widened_in_a_try_that_catches_everything, 3)
    assert list(result) == [1.5, 0]


def extremes_with_a_nan(x):
    return [max(x, 1.0), max(1.0, x), min(x, 1.0), min(1.0, x)]


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_min_and_max_of_a_staged_nan_keep_pythons_rule(backend):
    # Python keeps the first argument unless a later one compares greater
    # (less): a NaN first stays, a NaN later is skipped, where a maximum op
    # would give NaN for both.
    result = RUNNERS[backend](extremes_with_a_nan, math.nan)
    assert [math.isnan(v) for v in result] == [True, False, True, False]
    assert result[1] == result[3] == 1.0


def running_mean_over_a_counter(xs):
    n = 0
    mean = 0.0
    for x in xs:
        n += 1
        mean += (x - mean) / n  # float32 / int32
    return mean


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_an_int_counter_divides_a_float_as_in_python(backend):
    # `(x - mean) / n` with `n = 0` counting: the graph carried `n` as an
    # int32 and its ops keep TensorFlow's strict dtypes, so `/` refused a
    # float32 by an int32 (and the message said `n` was widened only on a
    # path that raises). A loop's Python int is a weak int now, which an op
    # with a float casts, as JAX's weak types and Python's arithmetic do.
    assert RUNNERS[backend](running_mean_over_a_counter, [1.0, 2.0, 4.5]) == 2.5


def returned_from_an_if_in_a_loop_then_updated(n):
    xs = [0, 0]
    try:
        for i in range(n):
            if i > 1:
                return xs
    finally:
        xs[1] += 4  # Python's caller sees this: `xs` is the list returned
    return xs


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_a_list_returned_from_an_if_in_a_loop_is_the_same_object(backend):
    # The `if` in the loop body merged `xs` with the return value the loop
    # carries (zeros of its type: another list), so the loop returned a new
    # list and the `finally` changed `xs`, not what the function returned
    # (`staging.returned`).
    fn = returned_from_an_if_in_a_loop_then_updated
    assert RUNNERS[backend](fn, 4) == fn(4)


def _returns_its_argument_from_a_loop(xs, n):
    for i in range(n):
        if i > 1:
            return xs
    return xs


def changed_through_a_list_returned_from_a_loop(n):
    xs = [0, 0]
    ys = _returns_its_argument_from_a_loop(xs, n)
    ys[0] += 1  # Python: `ys` is `xs`
    return xs


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_a_list_returned_from_a_loop_is_the_callers_list(backend):
    # The loop's return value was a new list holding its values, so the
    # caller's `ys[0] += 1` missed `xs` (graph and JAX gave [0, 0]).
    fn = changed_through_a_list_returned_from_a_loop
    assert RUNNERS[backend](fn, 4) == fn(4)
