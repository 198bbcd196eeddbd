"""Control-flow statements as functions: `if_stmt`, `while_stmt`, `for_stmt`.

Converted code passes the variables a statement changes explicitly: each body
is a function of the statement's state that returns the new state, and the
operator returns the final state. One variable travels bare, several as a
tuple, none as nothing:

    (i, total) = ag__.while_stmt(loop_test, loop_body, (i, total), ('i', 'total'))

Each operator only *dispatches* (STYLE 6): if a backend registered the type of
the value that decides the control flow (the condition, or the iterable), the
backend builds a graph op; otherwise the statement runs as the plain Python
shown at the top of each docstring, which is also the code that runs.
"""

from __future__ import annotations

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import bool, callable, getattr, isinstance, iter, len, next, tuple, type
from collections.abc import Callable, Sequence
from typing import Any

from runtime.operators import verification
from runtime.operators.dispatch import TABLES
from runtime.operators.places import Place, Untracked, unset_variables
from runtime.operators.staging import born
from runtime.operators.staging import where as where_
from runtime.source_locations import user_location

_IF = TABLES["if_stmt"]
_WHILE = TABLES["while_stmt"]
_FOR = TABLES["for_stmt"]
_FOR_RANGE = TABLES["for_range"]


def if_stmt(
    cond: Any,
    body: Callable[..., Any],
    orelse: Callable[..., Any] | None = None,
    state: tuple[Any, ...] = (),
    names: tuple[str, ...] = (),
    *,
    places: Sequence[Place] | Callable[[], Sequence[Place]] = (),
) -> Any:
    """Runs `body(*state)` if `cond` is true, else `orelse(*state)`.

    Plain-Python equivalent (what runs unless a backend claims `cond`):

        if cond:
            return body(*state)
        return orelse(*state) if orelse else state

    Args:
        cond: The condition.
        body: The true branch; takes the state, returns the outputs.
        orelse: The false branch, or None when the statement has no `else`
            (the outputs are then the state, unchanged).
        state: Values of the variables the branches read and change.
        names: The user's names of the outputs, for error messages.
        places: What the branches change in place (items, attributes,
            cells: see `places`), or a function giving them (jump
            lowering's `if do_return:`, where a name they read may be
            unbound); only a backend looks at them.

    Returns:
        The outputs: one value bare, several as a tuple, none as None.
    """
    impl = _IF[type(cond)]
    if impl is not None:
        if callable(places):
            places = places()
        result = impl(cond, body, orelse, state, names, places)
        if result is not NotImplemented:  # else the backend declined `cond`
            return result
    try:
        taken = bool(cond)  # (`if cond:`; named for the message below)
    except TypeError as error:
        refusal = verification.untruthful(cond, error)
        if refusal is None:
            raise
        raise refusal from error
    if taken:
        return body(*state)
    if orelse is not None:
        return orelse(*state)
    return unpack_state(state)


def while_stmt(
    test: Callable[..., Any],
    body: Callable[..., Any],
    state: tuple[Any, ...] = (),
    names: tuple[str, ...] = (),
    *,
    places: Sequence[Place] = (),
    opts: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
) -> Any:
    """Runs `body` while `test` holds, passing the loop variables through.

    Plain-Python equivalent (what runs until a backend claims a value of
    `test`; from then on the backend builds the rest of the loop, starting
    from the current state):

        while test(*state):
            state = body(*state)
        return state

    Args:
        test: The loop condition, a function of the loop variables.
        body: The loop body: takes the loop variables, returns them updated.
        state: Initial values of the loop variables.
        names: The user's names of the loop variables, for error messages.
        places: What the loop changes in place (see `places`).
        opts: Options of a graph loop (`autograph.set_loop_options`'s
            keyword arguments, or a function that gives them); a Python
            loop ignores them.

    Returns:
        The final loop variables: one bare, several as a tuple, none as None.
    """
    count = len(state)
    # (A staged `if` in an iteration may bind a name the loop carries on
    # one path only: `born.unset_in_iteration`; a variable of a `try` it
    # carries in a place too.)
    scoped = born.iterating((*state, *unset_variables(places)))
    try:
        cond = test(*state)
        while True:
            impl = _WHILE[type(cond)]
            if impl is not None:
                # A backend's value, maybe after some Python iterations: the
                # rest of the loop is a loop, which the backend builds from
                # here (from this value of the test, which has run).
                opts = loop_options(opts)
                result = impl(test, body, state, names, cond, places=places, opts=opts)
                if result is not NotImplemented:
                    return result
            if not cond:
                return unpack_state(state)
            state = as_state(body(*state), count)
            cond = test(*state)
    finally:
        if scoped:
            born.done_iterating()


def for_stmt(
    iterable: Any,
    body: Callable[..., Any],
    state: tuple[Any, ...] = (),
    names: tuple[str, ...] = (),
    extra_test: Callable[..., Any] | None = None,
    *,
    places: Sequence[Place] = (),
    opts: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
) -> Any:
    """Runs `body` once per item of `iterable`, passing the state through.

    Plain-Python equivalent (what runs unless a backend claims `iterable`):

        for item in iterable:
            if extra_test is not None and not extra_test(*state):
                break
            state = body(item, *state)
        return state

    `extra_test` comes from `break` and `return` inside the loop: it is checked
    before the next item is drawn, so an iterator is not advanced past the
    item that broke the loop. When it gives a backend's value over a Python
    `range` or an array's rows (`rest_of`), the backend loops over the rest
    from the current state; over any other Python iterable that is a
    TypeError.

    Args:
        iterable: What to iterate over.
        body: Takes the item and the state, returns the new state.
        state: Initial values of the loop variables.
        names: The user's names of the loop variables, for error messages.
        extra_test: A function of the state; the loop stops when it is false.
        places: What the loop changes in place (see `places`).
        opts: Options of a graph loop (`autograph.set_loop_options`'s
            keyword arguments, or a function that gives them); a Python
            loop ignores them.

    Returns:
        The final loop variables: one bare, several as a tuple, none as None.
    """
    # (A staged `if` in an iteration may bind a name the loop carries on
    # one path only: `born.unset_in_iteration`; a variable of a `try` it
    # carries in a place too.)
    scoped = born.iterating((*state, *unset_variables(places)))

    def staged(impl: Callable[..., Any], items: Any) -> Any:
        """The backend's loop over `items` from the current state, or
        NotImplemented where it declines (the options are evaluated once)."""
        nonlocal opts
        opts = loop_options(opts)
        return impl(items, body, state, names, extra_test, places=places, opts=opts)

    try:
        impl = _FOR[type(iterable)]
        if impl is not None:
            result = staged(impl, iterable)
            if result is not NotImplemented:
                return result
        count = len(state)
        stage = type(iterable) is range and bool(_FOR_RANGE.registered)
        if extra_test is None and not stage:
            for item in iterable:
                state = as_state(body(item, *state), count)
            return unpack_state(state)
        iterator = iter(iterable)
        drawn = 0
        while True:
            if stage:
                # The state became a backend's value (a JAX tracer): the backend
                # may stage the rest of the range as one loop, or decline.
                impl = _staging(state, places)
                if impl is not None:
                    result = staged(impl, iterable[drawn:])
                    if result is not NotImplemented:
                        return result
                    stage = False
            cond = True if extra_test is None else extra_test(*state)
            impl = _FOR[type(cond)]
            if impl is not None:
                # `break`/`return` became a backend's value: the rest of a range
                # is a range, of an array's rows an array (`rest_of`), which the
                # backend loops over from here.
                rest = rest_of(iterable, drawn)
                if rest is not None:
                    result = staged(impl, rest)
                    if result is not NotImplemented:
                        return result
                if not isinstance(iterable, range):
                    names = names or state_names(body, 1)
                    # (This loop's own line: the innermost *staged*
                    # statement is a graph loop around it, if any.)
                    where = where_.at(user_location(1))
                    backend = getattr(impl, "backend", None)
                    verification.raise_python_loop_tensor_condition(
                        names, backend, where
                    )
            if not cond:
                break
            try:
                item = next(iterator)
            except StopIteration:
                break
            drawn += 1
            state = as_state(body(item, *state), count)
        return unpack_state(state)
    finally:
        if scoped:
            born.done_iterating()


def rest_of(iterable: Any, drawn: int) -> Any:
    """What is left of a Python loop's `iterable` after `drawn` items, for a
    backend to loop over once the loop's `break` or `return` has become its
    value: the rest of a range, of an array's rows (a NumPy array, a
    backend's concrete array: a known number of them; `Rows.rest` for
    `enumerate`/`zip` of them); None for another iterable (a list, an
    iterator), which the backend cannot loop over."""
    if isinstance(iterable, range):
        return iterable[drawn:]
    rest = getattr(type(iterable), "rest", None)  # (`py_builtins.Rows`, which
    if callable(rest):  # imports this module)
        return rest(iterable, drawn)
    if has_rows(iterable):
        return iterable[drawn:]
    return None


def has_rows(value: Any) -> bool:
    """Whether `value` is an array of one or more dimensions (a NumPy array,
    a backend's array: it has a `shape` tuple and slices), whose rows a
    Python `for` iterates."""
    shape = getattr(value, "shape", None)
    return (
        not isinstance(value, type)
        and isinstance(shape, tuple)
        and len(shape) > 0
        and callable(getattr(value, "__getitem__", None))
    )


def _staging(state: tuple[Any, ...], places: Sequence[Place]) -> Any:
    """The `for_range` implementation for the first backend value in `state`
    or `places` (also one level into a list, tuple or dict), or None."""
    tracked = (p.get() for p in places if not isinstance(p, Untracked))
    for value in (*state, *tracked):
        impl = _FOR_RANGE[type(value)]
        if impl is not None:
            return impl
        if type(value) in (list, tuple, dict):
            for item in value.values() if type(value) is dict else value:
                impl = _FOR_RANGE[type(item)]
                if impl is not None:
                    return impl
    return None


def loop_options(opts: Any) -> dict[str, Any] | None:
    """A loop's options as a dict: converted code passes `opts` as a dict, or
    as a function giving one when its arguments call user code (evaluated
    only when a backend builds the loop, once)."""
    return opts() if callable(opts) else opts


# The calling convention of converted code, shared with the backends: a body
# returns one variable bare, several as a tuple, none as None, and the
# variables' names are the parameters of the functions converted code defines.


def state_names(fn: Callable[..., Any], skip: int = 0) -> tuple[str, ...]:
    """The parameter names of `fn` after the first `skip`: the state's names."""
    code = getattr(fn, "__code__", None)
    return tuple(code.co_varnames[skip : code.co_argcount]) if code else ()


def as_state(result: Any, count: int) -> tuple[Any, ...]:
    """What a body returned, as a tuple of `count` values."""
    if count == 0:
        return ()
    if count == 1:
        return (result,)
    return tuple(result)


def unpack_state(state: Sequence[Any]) -> Any:
    """The inverse of `as_state`: one value bare, several as a tuple, none as None."""
    if not state:
        return None
    if len(state) == 1:
        return state[0]
    return tuple(state)
