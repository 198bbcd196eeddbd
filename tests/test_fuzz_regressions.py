# ruff: noqa: E501 - generated programs, kept as generated
"""Programs the fuzzing campaigns found, kept whole where the minimizer could
not shrink them without changing the failure. Each runs the three ways
`make fuzz` does, and must match Python."""

from __future__ import annotations

import pytest

from tests.program_gen import HELPERS
from tests.program_gen.check import check_program

# A returning `if` whose branches give nothing but whose places are carried,
# with an input that is not an output (`w2`): the sample of the branch that
# raises took that input for the return value (`Undefined('w2')` returned).
RAISING_BRANCH_WITH_PLACES = """\
def program(a, b):
    d = {'a': 0, 'b': 0}
    xs = [0, 0]
    ys = xs
    key = 'b'
    box = Box()
    ns = types.SimpleNamespace(total=0)
    def peek():
        return x + 1
    later = lambda: y
    def bump(k):
        nonlocal z
        z = clamp(z + k)
        return z > 2
    fn = range
    length = len
    absolute = abs
    to_int = int
    to_float = float
    x = -3
    y = -2
    z = a
    u = float(b)
    v = float(b)
    p = True
    q = True
    if bump(2):
        box.count = clamp((-box.count))
        if p:
            if (not ((0.5 < -1.5) and (x < -1))):
                if p:
                    x = clamp((d[key] + (4 % 3)))
                    raise KeyError('r0')
            return -2, x, y, z, u, v, p, q, d, xs, box.total, box.count, box.inner.n, ns.total
        else:
            return xs[0], x, y, z, u, v, p, q, d, xs, box.total, box.count, box.inner.n, ns.total
    elif ((not (x != d['b'])) and (z != (5 % 3))):
        box.count -= 1
    else:
        fuel1 = 4
        while (p or bump(2)):
            fuel1 -= 1
            if fuel1 < 0:
                break
            w2 = clamp((-0))
            if p:
                y += 3
                raise KeyError('r3')
        x = clamp(x + w2)
    return xs[0], x, y, z, u, v, p, q, d, xs, box.total, box.count, box.inner.n, ns.total
"""


@pytest.mark.parametrize(
    ("program", "inputs"),
    [pytest.param(RAISING_BRANCH_WITH_PLACES, [(6, 1), (0, 0), (3, 3)], id="raising")],
)
def test_a_program_the_campaigns_found_matches_python(program, inputs):
    verdict = check_program(HELPERS + "\n\n" + program, inputs, tensor=True)
    assert verdict.kind == "ok", verdict
