"""A graph loop is traced on trial at most twice (issue 20).

Trial traces (into a scratch graph that is thrown away) learn whether a
`while` test has effects and the types of names the loop is the first to
assign; the steps that build the loop pass on what an earlier one learnt
instead of tracing again. Counted here: the scratch traces the graph
backend makes for the loop itself (not those of an `if` in its body).
"""

from __future__ import annotations

import pytest

import autograph
import runtime as rt
from runtime.operators.backends import graph_loops


def while_born(n):
    i = 0
    while i < n:
        w = i
        i += 1
    return w


def while_born_and_item(n):
    i = 0
    out = [0]
    while i < n:
        w = i
        out[0] = w
        i += 1
    return w + out[0]


def while_return_and_born(n):
    i = 0
    while i < n:
        w = i
        if i > 100:
            return w
        i += 1
    return i


def while_reads_before_assigning(n):
    i = 0
    total = 0
    while i < n:
        if i > 0:
            total += prev  # noqa: F821 - an earlier iteration assigns it
        prev = i  # noqa: F841 - read by the next iteration
        i += 1
    return total


def for_born(n):
    for i in range(n):
        w = i * 2
    return w


def for_return(n):
    for i in range(n):
        if i > 100:
            return i
    return -1


@pytest.mark.parametrize(
    "fn",
    [
        while_born,
        while_born_and_item,
        while_return_and_born,
        while_reads_before_assigning,
        for_born,
        for_return,
    ],
)
def test_a_graph_loop_takes_at_most_two_trial_traces(fn, monkeypatch):
    trials = []
    dry_run = graph_loops.dry_run

    def counted(body, args):
        trials.append(body)
        return dry_run(body, args)

    # (The loops' own scratch traces; an `if`'s go through the backend.)
    monkeypatch.setattr(graph_loops, "dry_run", counted)
    result = autograph.function(fn)(rt.constant(3))
    assert len(trials) <= 2
    assert result.numpy() == fn(3)


def test_a_name_the_trial_never_saw_set_but_the_loop_sets_is_named():
    # Where the trial takes a path the loop does not (a test the loop stages
    # on a value the trial had as a Python one), the build sets a name the
    # trial found never set: the refusal names it, not "the return value".
    from runtime.operators.backends import graph_trial
    from runtime.operators.variables import Undefined

    unset = Undefined("w")
    _, body, _, _, _ = graph_trial.without(
        0, None, lambda w, i: (rt.constant(2), i), (unset, 0), ("w", "i"), 0, None, "w"
    )
    with pytest.raises(ValueError, match=r"^'w' is first assigned inside the graph"):
        body(0)
