"""Fresh names for generated code that never clash with the user's.

Example:
    >>> namer = Namer(reserved={"x", "loop_body"})
    >>> namer.new_symbol("if_body")
    'if_body'
    >>> namer.new_symbol("if_body")
    'if_body_1'
    >>> namer.new_symbol("loop_body")
    'loop_body_1'
"""

from __future__ import annotations

import builtins
import keyword
from collections.abc import Iterable

__all__ = ["Namer"]

_BUILTINS = frozenset(dir(builtins))


class Namer:
    """Hands out identifiers for one function being converted.

    A name is refused if it is reserved (pass every name the function reads,
    writes or calls, builtins included), already handed out by this namer, a
    Python keyword, or the name of a builtin: generated helpers must not shadow
    a builtin even where the user's code does not call it yet.

    Args:
        reserved: Names the generated code must not use.

    Example:
        >>> Namer(reserved=["len"]).new_symbol("len")
        'len_1'
    """

    def __init__(self, reserved: Iterable[str]) -> None:
        self._taken: set[str] = set(reserved)
        self._generated: list[str] = []
        self._generated_set: set[str] = set()
        # Per base, the counter to try first: those below it are all taken,
        # so a function with 1,000 ifs does not try if_body_1..999 again.
        self._next: dict[str, int] = {}

    @property
    def generated(self) -> tuple[str, ...]:
        """The names handed out so far, in order."""
        return tuple(self._generated)

    def is_generated(self, name: str) -> bool:
        """Whether this namer handed out `name`."""
        return name in self._generated_set

    def new_symbol(self, base: str, extra_reserved: Iterable[str] = ()) -> str:
        """Returns ``base`` if free, else the first free ``base_1``, ``base_2``, ...

        Args:
            base: The preferred name, a valid identifier.
            extra_reserved: Further names to avoid for this call only.

        Returns:
            The new name, which this namer will not hand out again.

        Raises:
            ValueError: ``base`` is not an identifier.

        Example:
            >>> Namer(()).new_symbol("retval", extra_reserved=["retval"])
            'retval_1'
        """
        if not base.isidentifier():
            raise ValueError(f"cannot make a name from {base!r}: not an identifier")
        avoid = set(extra_reserved)
        counter = self._next.get(base, 0)
        name = f"{base}_{counter}" if counter else base
        while self._is_taken(name, avoid):
            counter += 1
            name = f"{base}_{counter}"
        self._next[base] = counter + 1
        self._taken.add(name)
        self._generated.append(name)
        self._generated_set.add(name)
        return name

    def scratch(self) -> Namer:
        """A copy that hands out the names this namer would hand out next,
        reserving nothing here (for a trial run whose output is dropped).

        Example:
            >>> namer = Namer(())
            >>> namer.scratch().new_symbol("flag"), namer.new_symbol("flag")
            ('flag', 'flag')
        """
        copy = Namer(self._taken)
        copy._next = dict(self._next)
        return copy

    def _is_taken(self, name: str, avoid: set[str]) -> bool:
        return (
            name in self._taken
            or name in avoid
            or keyword.iskeyword(name)
            or name in _BUILTINS
        )
