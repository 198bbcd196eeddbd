"""Samples: what real Python code (the standard library) showed conversion
got wrong (issue 21): unpacking folded into a return, zero-argument
`super()` in converted bodies, comprehensions sharing names with loops in a
`try`, callees that cannot be converted, classes defined in functions."""

from . import Sample


def unpack_one_then_return(x, flag):
    if flag:
        (a,) = x
        return a
    return None


def unpack_two_then_return(x, flag):
    if flag:
        a, b = x
        return a, b
    return None


def unpack_in_one_branch(x, flag):
    if flag:
        (a,) = x
    else:
        a = 0
    return a


def metavar_like_argparse(action, flag):
    # argparse's help formatter: `metavar, = ...; return metavar`.
    result = action if isinstance(action, tuple) else (action,)
    if flag:
        (metavar,) = result
        return metavar
    return "%s" % ",".join(result)


def comprehension_reuses_loop_name_in_else(a, fs):
    try:
        while a > 0:
            a -= 1
            t = 1
    except Exception:
        pass
    else:
        x = [t for t in fs]
        return a, x
    return a


def comprehension_reuses_loop_name_in_handler(xs, fs):
    try:
        for t in xs:
            if t > 1:
                raise ValueError(t)
    except ValueError:
        y = [t * 2 for t in fs]
        return y
    finally:
        z = {t: 1 for t in fs}
    return len(z)


def comprehension_reuses_loop_name_in_finally(a, fs):
    try:
        pass
    finally:
        while a > 0:
            a -= 1
            t = 1
        x = [t for t in fs if (u := t)]
    return a, x, u


SAMPLES = [
    Sample(unpack_one_then_return, [(("s",), True), (("s", "t"), True), ("ab", False)]),
    Sample(unpack_two_then_return, [("ab", True), ([1, 2, 3], True), ([1], True)]),
    Sample(unpack_in_one_branch, [((5,), True), ((5,), False), ((), True)]),
    Sample(metavar_like_argparse, [("spam", True), (("a", "b"), False)]),
    Sample(comprehension_reuses_loop_name_in_else, [(3, [1, 2]), (0, [])]),
    Sample(comprehension_reuses_loop_name_in_handler, [([1, 2], [3]), ([0], [4, 5])]),
    Sample(comprehension_reuses_loop_name_in_finally, [(3, [1]), (0, [2])]),
]
