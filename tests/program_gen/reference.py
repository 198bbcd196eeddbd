"""Issue 22's features: the classes of TensorFlow's reference tests that failed.

A mixin over ``core.Writer``; each hook checks ``self.on(feature)``:

* ``directives``: ``autograph.set_loop_options(maximum_iterations=cap(20))``
  first in a ``while`` or ``for`` body, its argument a call to the helper
  ``cap`` (user code, so the option is evaluated lazily for a graph loop and
  the call stays in the body for a Python one). 20 is more than any
  generated loop runs, so the option changes no result.
* ``born_values``: a name ``w<n>`` first assigned inside a loop to a dict of
  values (``w3 = {'k': ...}``), read right after the loop as ``w3['k']``,
  where the loop may have run zero times (class 2: a loop-born value that
  is not a tensor).
* ``new_items``: an item or attribute first set inside a loop and read
  after it: ``nd = {}`` / ``for i in range(a): nd['born'] = ...`` /
  ``x = clamp(x + nd['born'])`` (``ob = types.SimpleNamespace()`` and
  ``ob.born`` alike); a zero-trip loop raises (KeyError, AttributeError;
  a graph: InvalidArgumentError when it runs). Or the program asks whether
  it exists: after the loop (``len(nd)``, ``nd.get('born', 0)``, ``'born'
  in nd``, ``hasattr(ob, 'born')``, ``getattr(ob, 'born', 0)``,
  ``len(vars(ob))``), or in the body, creating it if missing
  (``nd['born'] = nd.get('born', 0) + ...``): a staged loop refuses it (it
  carries the item's value, not whether it exists), a Python one runs it.
* ``nested_items``: ``nn = {'a': {'a': 0}}`` and ``nn[k]['a'] = ...`` with
  ``k`` ``'a'`` or ``'missing'`` (a KeyError, also in a graph branch or
  loop body, where it is raised when that path runs); reads of
  ``nn['a']['a']``.
* ``growing_lists``: ``gl = [0]`` / ``for i in range(...): gl = gl + [...]``
  / ``x = clamp(x + gl[0])``: a graph loop refuses it (a loop variable that
  changes structure), a Python one runs it.
* ``aliases``: a list or dict two names share across a loop (issue 20
  item 4): ``sa = [0]`` / ``sb = sa`` / ``for i in range(...): sa = [...]``
  (or ``sb[0] = ...``: changed in place, which every backend carries), or
  ``se = sd`` inside the loop, then a change through one name and a read
  through the other. A staged loop would copy the object: refused (it
  returned a wrong value under JAX), a Python loop runs it.
* ``shared_reads``: the same sharing with reads only afterwards (``ra =
  [0]`` / ``rb = ra`` / a loop that rebinds ``ra``, or ``rf = rd`` in the
  body, then ``ra[0] + rb[0]``, ``rf['b']``): the copy a staged statement
  makes holds Python's values, so every backend gives Python's result.
"""

from __future__ import annotations

from typing import Any

from tests.program_gen.core import NAMES, indent

_DIRECTIVE = "autograph.set_loop_options(maximum_iterations=cap(20))"


class ReferenceFeatures:
    """Issue 22's statements and state (see the module docs)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.born_values: list[str] = []  # dicts first assigned in this loop

    def prologue(self) -> list[str]:
        lines = super().prologue()
        if self.on("nested_items"):
            lines.append("nn = {'a': {'a': 0}}")
        return lines

    def atoms(self, ty: str) -> list[str]:
        found = super().atoms(ty)
        if ty == "int" and self.on("nested_items"):
            found += ["nn['a']['a']"]
        return found

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.on("new_items"):
            kinds.append("new_item")
        if self.on("nested_items"):
            kinds += ["nested_item", "nested_item"]
        if self.on("growing_lists"):
            kinds.append("growing_list")
        if self.on("aliases"):
            kinds.append("shared_container")
        if self.on("shared_reads"):
            kinds.append("shared_read")
        return kinds

    # Loops: the directive first in the body, dicts born in the body.

    def while_statement(self, depth: int) -> list[str]:
        lines = super().while_statement(depth)
        if self.on("directives") and self.chance(40):
            header = next(i for i, line in enumerate(lines) if line.startswith("while"))
            lines.insert(header + 1, f"    {_DIRECTIVE}")
        return lines

    def for_loop(
        self, depth: int, names: list[str], iterable: str, first: tuple[str, ...] = ()
    ) -> list[str]:
        if self.on("directives") and not first and self.chance(40):
            first = (_DIRECTIVE,)
        return super().for_loop(depth, names, iterable, first)

    def loop_body(self, depth: int) -> list[str]:
        if not (self.on("born_values") and self.chance(30)):
            return super().loop_body(depth)
        name = f"w{self.label()}"
        value = self.bounded(self.expression(1), "int")
        body = super().loop_body(depth)
        # (Not in `maybe`: names `w<n>` read as ints there would be ints.)
        self.born_values.append(name)
        return indent([f"{name} = {{'k': {value}}}"]) + body

    def statement(self, depth: int) -> tuple[list[str], bool]:
        outer, self.born_values = self.born_values, []
        try:
            lines, terminal = super().statement(depth)
            for name in self.born_values:  # read right after the loop
                target = self.choice(NAMES["int"])
                if target in self.defined:
                    value = self.bounded(f"{target} + {name}['k']", "int")
                    lines.append(f"{target} = {value}")
            return lines, terminal
        finally:
            self.born_values = outer

    # Statements.

    def _after(self, read: str) -> list[str]:
        """``x = clamp(x + <read>)`` for a defined int name (else nothing)."""
        names = sorted(self.defined & set(NAMES["int"]))
        if not names:
            return [f"print({read})"] if not self.tensor else []
        target = self.choice(names)
        return [f"{target} = {self.bounded(f'{target} + {read}', 'int')}"]

    def _filled_loop(self, setup: str, target: str, read: str) -> list[str]:
        """``setup``, a loop whose body sets ``target``, then a read of it."""
        index, value = self._loop_value()
        loop = [f"for {index} in {self.range_call()}:", f"    {target} = {value}"]
        return [setup, *loop, *self._after(read)]

    def s_new_item(self, depth: int) -> tuple[list[str], bool]:
        if self.chance(50):
            setup, target = "nd = {}", "nd['born']"
            presence = ("len(nd)", "nd.get('born', 0)", "int('born' in nd)")
        else:
            setup, target = "ob = types.SimpleNamespace()", "ob.born"
            presence = ("getattr(ob, 'born', 0)", "int(hasattr(ob, 'born'))")
            presence += ("len(vars(ob))",)
        shape = self.choice(("read", "read", "presence", "create_if_missing"))
        if shape == "read":
            return self._filled_loop(setup, target, target), False
        if shape == "presence":
            return self._filled_loop(setup, target, self.choice(presence)), False
        index, value = self._loop_value()
        current = presence[1] if target == "nd['born']" else presence[0]
        update = self.bounded(f"{current} + {value}", "int")
        loop = [f"for {index} in {self.range_call()}:", f"    {target} = {update}"]
        return [setup, *loop, *self._after(self.choice(presence))], False

    def s_nested_item(self, depth: int) -> tuple[list[str], bool]:
        key = self.choice(("'a'", "'a'", "'missing'"))
        value = self.bounded(self.expression(1), "int")
        return [f"nn[{key}]['a'] = {value}"], False

    def _loop_value(self) -> tuple[str, str]:
        """A new loop's index name and an int expression that may read it."""
        index = f"i{self.loop_depth}"
        self.loop_depth += 1
        self.defined.add(index)
        value = self.bounded(self.expression(1), "int")
        self.defined.discard(index)
        self.loop_depth -= 1
        return index, value

    def s_growing_list(self, depth: int) -> tuple[list[str], bool]:
        index, value = self._loop_value()
        loop = [f"for {index} in {self.range_call()}:", f"    gl = gl + [{value}]"]
        return ["gl = [0]", *loop, *self._after("gl[-1]")], False

    def s_shared_container(self, depth: int) -> tuple[list[str], bool]:
        index, value = self._loop_value()
        header = f"for {index} in {self.range_call()}:"
        shape = self.choice(("replaced", "in_place", "shared_in_body"))
        if shape == "shared_in_body":
            lines = ["sd = {'b': 0}", "se = {'b': 5}", header, "    se = sd"]
            return [*lines, "sd['b'] += 2", *self._after("se['b']")], False
        body = f"    sa = [{value}]" if shape == "replaced" else f"    sb[0] = {value}"
        lines = ["sa = [0]", "sb = sa", header, body, "sb[0] += 1"]
        return [*lines, *self._after("sa[0] + sb[0]")], False

    def s_shared_read(self, depth: int) -> tuple[list[str], bool]:
        """``s_shared_container`` without the change: reads only (names of
        its own, which no other statement changes)."""
        index, value = self._loop_value()
        header = f"for {index} in {self.range_call()}:"
        if self.chance(50):
            lines = ["rd = {'b': 0}", "rf = {'b': 5}", header, "    rf = rd"]
            return [*lines, *self._after("rf['b'] + rd.get('b', 0)")], False
        lines = ["ra = [0]", "rb = ra", header, f"    ra = [{value} + rb[0]]"]
        return [*lines, *self._after("ra[0] + rb[-1] + len(rb)")], False
