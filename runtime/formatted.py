"""The values a message shows: a `raise` or `assert` staged to fire when
the program runs shows the values that run had, as Python would
(`x too big: 5`), not the text a traced value gave while tracing
(`JitTracer(int32[])`, `<rt.Tensor 'x:0' ...>`).

While a converted function is traced (`context.STATE.formatted` is a
list), a backend's traced value notes each text it turns into
(`note`: `str()`, `repr()`, `format()`, an f-string). Where a message is
staged, `shown_in` finds those texts in it, the most recent first (a
message is built just before its `raise`), and splits it into text and
the values to format when the program runs (`Shown.fill`). Nothing a
user's code computes changes: the texts are the ones the values always
gave; only the staged message reads them back.

    >>> from runtime.context import STATE
    >>> STATE.formatted = []
    >>> class T:
    ...     def __repr__(self):
    ...         note("T()", self, "repr")
    ...         return "T()"
    >>> a, b = T(), T()
    >>> shown = shown_in(f"{a} and {b}!")
    >>> shown.texts, shown.values == (a, b)
    (('', ' and ', '!'), True)
    >>> shown.fill(["1", "2"])
    '1 and 2!'
    >>> shown.fill([])  # the values could not be staged
    'T() and T()!'
    >>> STATE.formatted = None
"""

from __future__ import annotations

import dataclasses

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import len, range, reversed
from collections.abc import Callable, Sequence
from typing import Any

from runtime.context import STATE
from runtime.source_locations import user_location

_KEPT = 256  # the most recent texts kept (a message is built just before use)


def note(text: str, value: Any, conversion: str, spec: str = "") -> None:
    """Records that `value` (a traced value) gave `text`, by `conversion`
    (`"str"`, `"repr"` or `"format"` with `spec`), if a converted function
    is being traced."""
    seen = STATE.formatted
    if seen is None:
        return
    seen.append((text, value, conversion, spec))
    if len(seen) > 2 * _KEPT:
        del seen[:-_KEPT]


@dataclasses.dataclass(frozen=True)
class Shown:
    """A message split at the traced values it shows: `texts` has one more
    item than `values`; `conversions` says how each value became text."""

    texts: tuple[str, ...]
    values: tuple[Any, ...]
    conversions: tuple[tuple[str, str], ...]
    traced: tuple[str, ...]  # the texts the values gave while tracing

    def fill(self, shown: Sequence[str]) -> str:
        """The message with `shown[i]` (the text of `values[i]` when the
        program ran) in place of each value; as traced if `shown` does not
        hold one text per value (the values could not be staged)."""
        if len(shown) != len(self.values):
            shown = self.traced
        parts = [self.texts[0]]
        for text, rest in zip(shown, self.texts[1:]):
            parts += [text, rest]
        return "".join(parts)


def shown_in(message: str, usable: Callable[[Any], bool] = lambda v: True) -> Shown:
    """`message` split at the texts traced values gave while tracing
    (`note`), matched from its end with the most recent first; a value
    `usable` rejects (one of a finished trace) stays text."""
    seen = STATE.formatted or []
    found: list[tuple[int, int, Any, tuple[str, str]]] = []
    end = len(message)
    for index in reversed(range(max(0, len(seen) - _KEPT), len(seen))):
        text, value, conversion, spec = seen[index]
        if not text:
            continue
        start = message.rfind(text, 0, end)
        if start < 0 or not usable(value):
            continue
        found.append((start, start + len(text), value, (conversion, spec)))
        end = start
    found.reverse()
    texts, values, conversions, traced, at = [], [], [], [], 0
    for start, stop, value, conversion in found:
        texts.append(message[at:start])
        values.append(value)
        conversions.append(conversion)
        traced.append(message[start:stop])
        at = stop
    texts.append(message[at:])
    return Shown(tuple(texts), tuple(values), tuple(conversions), tuple(traced))


def unsupported_spec(spec: str, backend: str, value: str, fix: str) -> TypeError:
    """The refusal of `format(value, spec)` with a non-empty `spec` on a
    traced value while tracing (`f"{x:.3}"`), naming the user's line and
    `fix`, what prints the value formatted when the program runs."""
    at = user_location(1)
    return TypeError(
        f"format spec {spec!r} used on a traced {backend} value "
        f"({value}){f' at {at}' if at else ''}: it has no value to format "
        f"while tracing; to print it when the program runs, write {fix}"
    )
