"""The ``container_returns`` feature: what real code returns, in tensor mode.

A mixin over ``core.Writer``; its hook checks ``self.on("container_returns")``.

Tensor mode's returns give a value, then the state (``state_values``). With
this feature each program draws, once, the structure every one of its
returns gives (as TensorFlow requires of a staged `if` or loop, all paths
give the same):

* the container: the values as they are (``return v, x, y``), a list
  (``return [v, x, y]``), a tuple holding a list (``return v, [x, y]``), a
  dict of results (``return {'value': v, 'state': [x, y]}``), or a dict
  holding a tuple (``return {'value': v, 'steps': (x, y)}``);
* the first value: an expression, or a list built right before the
  ``return`` by appending in a loop (``rs = []`` / ``for kr in range(2):``
  / ``rs.append(clamp(x + kr))``), returned as one array
  (``stacked(rs)``, a helper: ``rt.stack``, ``jnp.stack``, or a NumPy int
  array in Python) or, over a ``range`` of a constant, as the list itself.
  The loop runs over the same ``range`` at every ``return`` of a program, so
  every path gives an array of one length: a constant's, or, with the graph
  backend, ``range(a)``'s (a graph loop, which carries the list as an
  ``rt.TensorArray``; JAX refuses a list a traced loop grows, README).

And ``x = clamp(x + summary(a)['total'])`` (or ``['parts'][1]``): a local
function whose loop over ``range(k)`` returns a dict holding a list from
inside the loop, or after it, called anywhere (inside staged statements
too).

Returns sit anywhere (early, in branches, inside graph loops and ``while
True``), so a returned list, dict or array crosses every staged statement.

Python mode: some returns give a list (``return [v, x]``), the argument
``log`` itself (``return log``, ``return v, log``, ``{'value': v, 'log':
log}``: the caller's list, which the function changed), or a list built by
appending in a loop (``return rs``, ``return v, rs``).
"""

from __future__ import annotations

from typing import Any

from tests.program_gen.core import NAMES, PARAMETERS

_SUMMARY = [
    "def summary(k):",
    "    parts = [k, 0]",
    "    for j in range(k):",
    "        parts[1] = clamp(parts[1] + j)",
    "        if parts[1] > 4:",
    "            return {'total': clamp(parts[0] + parts[1]), 'parts': parts}",
    "    return {'total': parts[0], 'parts': parts}",
]
"""A local function returning a dict holding a list, from inside its loop
(a graph loop where ``k`` is a tensor) or after it."""

_CONTAINERS = ("flat", "list", "tuple_list", "dict", "dict_tuple")
_FIRSTS = ("value", "value", "stacked", "stacked", "listed")


class ReturnFeatures:
    """The ``container_returns`` feature's returns (see the module docs)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.returns_shape: tuple[str, str, str] | None = None

    def prologue(self) -> list[str]:
        lines = super().prologue()
        if self.on("container_returns"):
            lines += _SUMMARY
        return lines

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.on("container_returns") and self.defined & set(NAMES["int"]):
            kinds.append("summary")
        return kinds

    def s_summary(self, depth: int) -> tuple[list[str], bool]:
        """An int variable updated from what ``summary`` returns (each call
        traces its loop again: a statement, not an expression, keeps them
        few)."""
        target = self.choice(sorted(self.defined & set(NAMES["int"])))
        read = self.choice(("['total']", "['parts'][1]"))
        value = self.bounded(
            f"{target} + summary({self.choice(PARAMETERS)}){read}", "int"
        )
        return [f"{target} = {value}"], False

    def _returns_shape(self) -> tuple[str, str, str]:
        """(container, first value, the list-building loop's range), drawn
        at the first ``return``, the same for every other."""
        if self.returns_shape is None:
            container, first = self.choice(_CONTAINERS), self.choice(_FIRSTS)
            ranges = ["range(1)", "range(2)", "range(3)"]
            if self.backend == "graph":
                ranges += ["range(a)", "range(b)"]  # graph loops (TensorArray)
            over = self.choice(ranges)
            if first == "listed" and not over[len("range(")].isdigit():
                first = "stacked"  # (a graph loop's list is a TensorArray)
            self.returns_shape = (container, first, over)
        return self.returns_shape

    def return_statement(self) -> str:
        if not self.on("container_returns"):
            return super().return_statement()
        if not self.tensor:
            return self._python_return()
        container, first, over = self._returns_shape()
        lines: list[str] = []
        value = self.expression()
        if first != "value":
            label = self.label()
            built, index = f"rs{label}", f"kr{label}"
            item = self.bounded(f"{self.expression(1)} + {index}", "int")
            lines += [f"{built} = []", f"for {index} in {over}:"]
            lines.append(f"    {built}.append({item})")
            value = f"stacked({built})" if first == "stacked" else built
        state = ", ".join(self.state_values())
        if container == "list":
            result = f"[{value}, {state}]"
        elif container == "tuple_list":
            result = f"{value}, [{state}]"
        elif container == "dict":
            result = f"{{'value': {value}, 'state': [{state}]}}"
        elif container == "dict_tuple":
            result = f"{{'value': {value}, 'steps': ({state},)}}"
        else:
            result = f"{value}, {state}"
        return "\n".join([*lines, f"return {result}"])

    def _python_return(self) -> str:
        """Python mode: sometimes a container, the argument ``log`` (the
        caller's list, mutated before), or a list built by appending."""
        kind = self.choice(("other", "other", "list", "log", "dict", "built"))
        if kind == "other":
            return super().return_statement()
        value = self.expression()
        if kind == "list":
            return f"return [{value}, {self.readable_name()}]"
        if kind == "log":
            return "return log" if self.chance(50) else f"return {value}, log"
        if kind == "dict":
            return f"return {{'value': {value}, 'log': log}}"
        label = self.label()
        built, index = f"rs{label}", f"kr{label}"
        item = f"({self.expression(1)} + {index})"
        lines = [f"{built} = []", f"for {index} in {self.range_call()}:"]
        lines.append(f"    {built}.append({item})")
        last = f"return {built}" if self.chance(50) else f"return {value}, {built}"
        return "\n".join([*lines, last])
