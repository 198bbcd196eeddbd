"""Raising on a traced path: Python raises only where the path runs, so
does the staged program; where a `try` around the statement would catch
the error, no staged program can, and the statement is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.context import STATE
from runtime.operators import exceptions, verification
from runtime.operators.staging import where as where_
from runtime.operators.staging.backend import Backend
from runtime.operators.staging.where import deepest_user_line
from runtime.source_locations import is_refusal


def replaced_in_finally(error: BaseException, program: str) -> TypeError | None:
    """The refusal for `error`, which a `finally` block raised while
    tracing and which left the converted function, if its `try` staged a
    raise (an unset loop-born read, a branch's raise) before it: Python
    raises `error` in that one's place, `program` the first it meets."""
    where = deepest_user_line(error)
    first = exceptions.replaced_by_finally(where, STATE.last_staged_raises)
    if first is None:
        return None
    return verification.raises_in_finally(f"{error!r}", where, first, program)


def raise_when_run(backend: Backend, error: Exception, what: str, ran: str) -> None:
    """Stages `error` to be raised when the program runs this point (in
    `what`, which the run `ran`), where Python raises it.

    Refused (a TypeError) if a `try` around the line that raised it, or
    around the statement, handles `error`.
    """
    statement = where_.current(3)
    raised = deepest_user_line(error)
    handler = exceptions.handling_try(raised, error) or exceptions.handling_try(
        statement, error
    )
    at = where_.at(statement or raised)
    if handler is not None:
        refusal = verification.raised_inside_try(
            error, f"{what}{at}", handler, backend.program
        )
        backend.keep_refusal(refusal)
        raise refusal from error
    first = exceptions.replaced_by_finally(raised or statement)
    if first is not None:
        refusal = verification.raises_in_finally(
            f"{error!r}", raised or statement, first, backend.program
        )
        backend.keep_refusal(refusal)
        raise refusal from error
    exceptions.staged_a_raise(raised)
    exceptions.staged_a_raise(statement)
    backend.raise_at_run(error, f"{error} (in {what}{at}, which {ran})")


def keeping_refusals(backend: Backend) -> Callable[[Callable[..., Any]], Any]:
    """Wraps an operator so that what the backend refuses stays refused
    (`backend.keep_refusal`): user code around the statement may catch the
    error while tracing (`except Exception`, `finally: break`), which must
    not leave a program that runs as if it had not been raised."""

    def wrap(impl: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return impl(*args, **kwargs)
            except Exception as error:
                if is_refusal(error):
                    backend.keep_refusal(error)
                raise

        return run

    return wrap


def as_written(kind: type[Exception], message: str) -> Exception:
    """`kind(message)`, for a backend that raises the user's error itself
    when the program runs: shown as `<kind>: <message>`, as the graph
    backend's error reads. A `KeyError` shows its argument's repr, so it is
    made as a subclass of the same name that shows the message as written."""
    try:
        raised = kind(message)
    except Exception:  # an exception class with other arguments
        return RuntimeError(f"{kind.__name__}: {message}")
    if isinstance(raised, KeyError) and type(raised).__str__ is KeyError.__str__:
        shown = type(
            kind.__name__,
            (kind,),
            {"__str__": lambda self: message, "__module__": kind.__module__},
        )
        shown.__qualname__ = kind.__qualname__
        raised = shown(message)
    return raised
