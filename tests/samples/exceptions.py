"""Samples: try/except/else/finally with jumps, conditions kept for their
effects, `del`, and user names like the compiler's placeholders."""

from . import Sample

# --- jumps out of `try` skip its `else` -----------------------------------


def return_in_try_skips_else(x):
    try:
        return x * 2
    except ValueError:
        pass
    else:
        return x * 100


def break_in_try_skips_else(n):
    total = 0
    for i in range(n):
        try:
            if i == 2:
                break
        except ValueError:
            pass
        else:
            total += i
    return total


def continue_in_try_skips_else(n):
    total = 0
    for i in range(n):
        try:
            if i % 2:
                continue
        except ValueError:
            pass
        else:
            total += 10
        total += 1
    return total


def return_in_loop_try_skips_else(xs):
    seen = []
    for x in xs:
        try:
            if x > 2:
                return x
        except KeyError:
            pass
        else:
            seen.append(x)
    return seen


# --- jumps in `finally` ---------------------------------------------------


def return_in_finally_swallows(x):
    try:
        if x > 0:
            raise KeyError(x)
    finally:
        return "swallowed"


def return_in_finally_overrides(x):
    try:
        return x
    finally:
        if x > 1:
            return -x


def continue_in_finally_cancels_return(n):
    total = 0
    for i in range(n):
        try:
            if i < 2:
                return i
        finally:
            total += 1
            continue
    return total


def break_in_finally_cancels_return(n):
    total = 0
    for i in range(n):
        try:
            total += i
            if i > 1:
                return -1
        finally:
            if i == 3:
                break
    return total


def continue_in_finally_cancels_break(n):
    total = 0
    for i in range(n):
        try:
            if i == 1:
                break
            total += i
        finally:
            if i < 3:
                continue
        total += 100
    return total


def break_in_finally_swallows(n):
    total = 0
    for i in range(n):
        try:
            total += 1
            if i == 2:
                raise KeyError(i)
        finally:
            if i == 2:
                break
    return total


def continue_in_finally_only(xs):
    out = []
    for x in xs:
        try:
            out.append(10 // x)
        finally:
            continue
    return out


def finally_without_jump_raises(x):
    total = 0
    for i in range(3):
        try:
            total += 10 // (x - i)
        finally:
            if i == 5:
                continue
    return total


def else_runs_before_a_finally_that_returns(xs):
    out = []
    try:
        for x in xs:
            if x < 0:
                return "negative"
    except KeyError:
        pass
    else:
        out.append("else")
    finally:
        out.append("finally")
        return out


def finally_after_return_sees_the_loop_state(n, log):
    i = 0
    try:
        for k in range(n):
            i = k + 5
        return 1
    finally:
        log.append(i)


def finally_after_break_sees_the_loop_state(n, log):
    i = 0
    for k in range(n):
        try:
            for j in range(k + 2):
                i = j
            break
        finally:
            log.append(i)
    return len(log)


def exception_from_finally_discards_return(n):
    total = 0
    for i in range(n):
        try:
            try:
                return i
            finally:
                total += 10 // i
        except ZeroDivisionError:
            total += 100
    return total


def exception_after_jump_in_finally(x):
    try:
        pass
    finally:
        try:
            return x
        finally:
            if x > 1:
                raise KeyError(x)


def pending_return_does_not_skip_finally_code(x):
    try:
        return x
    finally:
        try:
            x += 1
        except KeyError:
            return -1
        if x > 2:
            raise ValueError(x)


class Suppress:
    """Suppresses any exception, logging it."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(kind.__name__ if kind else None)
        return True


def code_after_a_suppressed_raise_runs(n, log):
    with Suppress(log):
        raise KeyError(n)
    for i in range(n):
        return i
    return -1


# --- conditions are evaluated even when the `if` does nothing -------------


def condition_with_key_error(n, d):
    for i in range(n):
        if d["missing"]:
            continue
    return n


def condition_with_zero_division(n, a):
    for i in range(n):
        if 2.0 / a:
            continue
    return n


class Truthy:
    """Counts how often its truth value is asked."""

    def __init__(self, log):
        self.log = log

    def __bool__(self):
        self.log.append("bool")
        return False


def condition_truth_is_asked(n, log):
    t = Truthy(log)
    for i in range(n):
        if t:
            continue
    return len(log)


# --- `del` unbinds ---------------------------------------------------------


def del_in_finally_then_read(x):
    y = x
    try:
        y += 1
    finally:
        del y
    return y  # noqa: F821


def augmented_after_del(x):
    y = 1
    del x
    x -= y  # noqa: F821
    return x


def del_in_try_then_read_in_handler(x):
    y = x
    try:
        del y
        raise KeyError(x)
    except KeyError:
        return y  # noqa: F821


def closure_reads_after_del(x):
    y = x

    def get():
        return y  # noqa: F821

    f = lambda: y  # noqa: E731, F821
    del y
    return get() if x > 0 else f()


def del_in_else_then_read_in_finally(x):
    y = x
    try:
        pass
    except KeyError:
        pass
    else:
        del y
        raise ValueError(x)
    finally:
        x += y  # noqa: F821
    return x


def del_in_a_suppressing_with(x, log):
    with Suppress(log):
        del x
        x = len(log) // 0
    return x


# --- user names like the compiler's placeholders ---------------------------


def names_like_jump_flags(xs):
    do_return_flag__ = 0
    retval_value__ = 10
    for x in xs:
        if x > 2:
            return do_return_flag__ + retval_value__
        do_return_flag__ += x
    return -do_return_flag__


def break_flag_after_a_suppressed_raise(n):
    # The suppressed KeyError skips the `else: break`, so the loop goes on:
    # the break flag assigned in the `with` body must keep its value.
    import contextlib

    rounds = 0
    while rounds < 3:
        rounds += 1
        with contextlib.suppress(KeyError):
            for _ in [n]:
                raise KeyError("stop")
            else:
                break
    return rounds


def continue_through_a_finally_that_deletes(n):
    # The second iteration's `del x` finds x deleted by the first: the
    # continue ran the finally on its way out.
    x = n

    def peek():
        return x

    for _ in range(2):
        try:
            continue
        finally:
            del x
    return peek


def assigned_after_a_return_before_a_raise(a):
    # Return lowering puts the code after `if ...: return` under a guard (a
    # converted `if`); the handler must still see what it assigned.
    u = 0.5
    try:
        if a > 5:
            return -1.0
        u = 0.0
        if a < 3:
            raise KeyError("small")
        return u
    except KeyError:
        u += 0.5
        return u


def maybe_unbound_read_in_a_conditional_arm(a):
    # `x` is bound only if the comprehension iterates; the arm becomes a
    # lambda, where the read must still raise UnboundLocalError.
    z = sum([(x := a) for _ in range(a)])
    return x if z > 1 else -x


# --- a try inside a finally block, while a jump is pending across it -------


def cancelled_return_restores_the_pending_one(x):
    # The inner `break` cancels `return x`; the outer `return x + 1` stays
    # pending, with its value.
    try:
        return x + 1
    finally:
        for _ in range(1):
            try:
                if x > 0:
                    return x
            finally:
                break


def discarded_return_restores_the_pending_one(x):
    # The inner finally's exception discards `return 2`, and the handler
    # catches it: the outer `return 1` is still pending.
    try:
        return 1
    finally:
        try:
            try:
                return 2
            finally:
                if x > 0:
                    raise ValueError(x)
        except ValueError:
            pass


def cancelled_return_keeps_the_exception_in_flight(x):
    # The inner `break` cancels `return 2`, so the outer finally block ends
    # as it would without it: the KeyError goes on.
    try:
        if x > 0:
            raise KeyError(x)
    finally:
        for _ in range(1):
            try:
                return 2
            finally:
                break
    return x


# --- an exception from `__exit__` discards the jump pending from the block -


class ExitRaises:
    def __init__(self, when):
        self.when = when

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if self.when:
            raise ValueError("exit")
        return False


def exit_exception_discards_return(x):
    try:
        with ExitRaises(x > 1):
            return 1
    except ValueError:
        pass
    return 2


def exit_exception_discards_break(x):
    n = 0
    for i in range(3):
        try:
            with ExitRaises(i < x):
                break
        except ValueError:
            n += 1
    return n


# --- a finally block sees what a handler or else block assigned ------------


def finally_sees_a_loop_in_a_handler(x, log):
    try:
        raise KeyError(x)
    except KeyError:
        for z in [1, 2]:
            log.append(10 // x)
    finally:
        log.append(z)  # bound by the first iteration, before 10 // 0 raised
    return log


def finally_sees_an_if_in_a_handler(x, log):
    try:
        raise KeyError(x)
    except KeyError:
        z = 0
        if x < 5:
            z = 1
            log.append(10 // x)
    finally:
        log.append(z)
    return log


def finally_sees_what_else_assigned_after_a_continue(x, log):
    z = 0
    for i in range(3):
        try:
            pass
        except KeyError:
            pass
        else:
            if i == x:
                continue
            z = 5
            log.append(10 // x)
        finally:
            log.append(z)
    return log


SAMPLES = [
    Sample(return_in_try_skips_else, [(3,), (0,)]),
    Sample(return_in_finally_swallows, [(1,), (0,)]),
    Sample(condition_with_key_error, [(2, {}), (0, {}), (2, {"missing": 1})]),
    Sample(condition_with_zero_division, [(2, 0.0), (2, 1.0)]),
    Sample(condition_truth_is_asked, [(3, []), (0, [])]),
    Sample(del_in_finally_then_read, [(1,)]),
    Sample(augmented_after_del, [(5,)]),
    Sample(del_in_try_then_read_in_handler, [(1,)]),
    Sample(del_in_else_then_read_in_finally, [(1,)]),
    Sample(del_in_a_suppressing_with, [(1, [])]),
    Sample(closure_reads_after_del, [(1,), (0,)]),
    Sample(names_like_jump_flags, [([1, 2, 3],), ([1],)]),
    Sample(finally_after_return_sees_the_loop_state, [(2, []), (0, [])]),
]

MORE_SAMPLES = [
    Sample(continue_in_finally_cancels_return, [(4,), (0,)]),
    Sample(break_in_try_skips_else, [(5,), (1,)]),
    Sample(continue_in_try_skips_else, [(5,), (0,)]),
    Sample(return_in_loop_try_skips_else, [([1, 2, 3, 4],), ([1],)]),
    Sample(return_in_finally_overrides, [(1,), (3,)]),
    Sample(break_in_finally_cancels_return, [(5,), (2,)]),
    Sample(continue_in_finally_cancels_break, [(5,), (2,)]),
    Sample(break_in_finally_swallows, [(5,), (2,)]),
    Sample(continue_in_finally_only, [([1, 0, 2],)]),
    Sample(finally_without_jump_raises, [(1,), (9,)]),
    Sample(else_runs_before_a_finally_that_returns, [([1],), ([-1],)]),
    Sample(finally_after_break_sees_the_loop_state, [(2, []), (0, [])]),
    Sample(exception_from_finally_discards_return, [(1,), (3,)]),
    Sample(exception_after_jump_in_finally, [(1,), (2,)]),
    Sample(pending_return_does_not_skip_finally_code, [(1,), (2,)]),
    Sample(code_after_a_suppressed_raise_runs, [(2, []), (0, [])]),
    Sample(break_flag_after_a_suppressed_raise, [(1,), (0,)]),
    Sample(maybe_unbound_read_in_a_conditional_arm, [(0,), (1,), (3,)]),
    Sample(continue_through_a_finally_that_deletes, [(1,)]),
    Sample(assigned_after_a_return_before_a_raise, [(0,), (4,), (9,)]),
    Sample(cancelled_return_restores_the_pending_one, [(3,), (0,)]),
    Sample(discarded_return_restores_the_pending_one, [(3,), (0,)]),
    Sample(cancelled_return_keeps_the_exception_in_flight, [(3,), (0,)]),
    Sample(exit_exception_discards_return, [(3,), (0,)]),
    Sample(exit_exception_discards_break, [(3,), (0,)]),
    Sample(finally_sees_a_loop_in_a_handler, [(0, []), (2, [])]),
    Sample(finally_sees_an_if_in_a_handler, [(0, []), (2, [])]),
    Sample(finally_sees_what_else_assigned_after_a_continue, [(0, []), (2, [])]),
]
"""Samples kept out of the corpus (`SAMPLES`): their converted code is long
by nature (a try in a loop, jumps in finally), and the corpus has a budget of
lines; tests/autograph/converters/test_exceptions.py checks them."""
