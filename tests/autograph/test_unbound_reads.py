"""Reads of a maybe-unbound local from a function conversion made.

Converted statements move code into generated functions (bodies, lazy
operands), where the user's local is a free variable: reading it unbound
there raises NameError in Python, but the user's function raised
UnboundLocalError. Each case once raised the wrong type.
"""

import pytest

from tests.equivalence import assert_equivalent


class Suppress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def assigned_before_a_suppressed_error(a):
    x = a
    with Suppress():
        for _ in range(4):
            x += 1
            x = x // (a - 1)
    return x


def read_in_finally_bound_in_a_handler(b):
    try:
        pass
    except ValueError:
        for i in range(3):  # noqa: B007 - read in the finally block
            pass
    finally:
        if b > 1:
            x = 1
            x = x * 2 - i
    return 0


def read_before_a_loop_else_binds_it(log, n, y):
    if n > 5:
        log.append(f())  # noqa: F821 - unbound until the loop's else
    for k in range(n):
        if k > 3:
            break
    else:
        f = lambda: y
    return f()


def read_in_a_lazy_operand(c):
    if c:
        x = 1
    return c or x


@pytest.mark.parametrize(
    "f, args",
    [
        (assigned_before_a_suppressed_error, (1,)),
        (assigned_before_a_suppressed_error, (3,)),
        (read_in_finally_bound_in_a_handler, (2,)),
        (read_before_a_loop_else_binds_it, ([], 2, 7)),
        (read_before_a_loop_else_binds_it, ([], 7, 7)),
        (read_in_a_lazy_operand, (0,)),
        (read_in_a_lazy_operand, (2,)),
    ],
)
def test_converted_code_raises_what_the_original_raises(f, args):
    assert_equivalent(f, *args)


def deletes_a_captured_name_in_a_loop(n):
    z = 1
    get = lambda: z  # noqa: F841 - makes z a cell
    i = 0
    while i < n:
        i += 1
        del z
    return i


@pytest.mark.parametrize("n", [1, 2])
def test_del_of_an_unbound_captured_name_raises_unbound_local_error(n):
    assert_equivalent(deletes_a_captured_name_in_a_loop, n)


# `except E as e:` deletes e when the handler ends: an `if` or loop that
# carries e out must carry it unbound (the user's `try` catches the error).
def except_name_read_after_an_if(x):
    e = "before"
    if x > 0:
        try:
            raise ValueError("v")
        except ValueError as e:  # noqa: F841 - deleted at its end
            pass
    try:
        return e
    except UnboundLocalError:
        return "unbound"


def except_name_reuses_the_loop_target(n):
    out = []
    for e in range(n):
        try:
            raise ValueError(e)
        except ValueError as e:
            out.append(str(e))
    try:
        return out, e
    except UnboundLocalError:
        return out, "unbound"


def retry_keeps_the_last_error(n):
    i = 0
    err = last = None
    while i < n:
        try:
            i += 1
            if i % 2:
                raise ValueError(i)
        except ValueError as err:
            last = str(err)
            if i > 2:
                break
    try:
        return last, err
    except UnboundLocalError:
        return last, "unbound"


def except_name_read_without_a_try(x):
    e = 0
    for _ in range(x):
        try:
            raise KeyError
        except KeyError as e:
            del e  # (Python's own deletion then finds nothing to delete)
    return e


@pytest.mark.parametrize(
    "f, args",
    [
        (except_name_read_after_an_if, (1,)),
        (except_name_read_after_an_if, (0,)),
        (except_name_reuses_the_loop_target, (0,)),
        (except_name_reuses_the_loop_target, (2,)),
        (retry_keeps_the_last_error, (0,)),
        (retry_keeps_the_last_error, (2,)),
        (retry_keeps_the_last_error, (4,)),
        (except_name_read_without_a_try, (0,)),
        (except_name_read_without_a_try, (2,)),
    ],
)
def test_an_except_handlers_name_is_unbound_after_it(f, args):
    assert_equivalent(f, *args)
