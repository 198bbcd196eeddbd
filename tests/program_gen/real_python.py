"""Issue 21's features: what real Python (the standard library) showed.

A mixin over ``core.Writer``; each hook checks ``self.on(feature)``. All are
Python mode only:

* ``unpacking``: ``(x,) = [...]`` and ``x, y = [...]`` (sometimes of the
  wrong length: ValueError), often right before a ``return`` of the names
  (the clean-up that folds ``x = v; return x`` must not fold an unpacking).
* ``super``: a ``class`` statement inside the program (its body runs as
  Python, its methods convert when called) whose methods call zero-argument
  ``super()`` in branches and loops, ``super().__init__`` in a branch.
* ``try_comprehension``: a ``try`` whose body loops with target ``t`` (or
  assigns ``t`` in a loop), and whose handler, ``else`` or ``finally`` has
  a comprehension over ``t`` (its own ``t``).
* ``spies``: calls of a ``Spy`` (called, its method, a bound method kept in
  a name, passed to ``apply``), which logs every ``__hash__``, ``__eq__``
  and missing-attribute lookup: converted code may ask a user's object
  nothing Python does not (a MagicMock recorded ``call.__hash__()``).
* ``logging``: records of a logger (its method, one kept in a name, one
  with ``stacklevel=2`` in a helper) print their line: converted code's
  records name the program's lines.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tests.program_gen.core import indent


class RealPythonFeatures:
    """Issue 21's statements (see the module docs)."""

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.tensor:
            return kinds
        if self.on("unpacking"):
            kinds += ["unpack", "unpack"]
        if self.on("super") and depth < 3:
            kinds.append("super_class")
        if self.on("try_comprehension") and depth < 3 and self.loop_depth < 3:
            kinds.append("try_comprehension")
        if self.on("spies"):
            kinds += ["spy", "spy"]
        if self.on("logging"):
            kinds.append("log_record")
        return kinds

    def s_log_record(self, depth: int) -> tuple[list[str], bool]:
        value = self.expression(1)
        kind = self.choice(("method", "kept", "for_caller"))
        if kind == "method":
            return [f"LOGGER.info('at %s', {value})"], False
        if kind == "kept":
            label = self.label()
            return [f"lg{label} = LOGGER.warning", f"lg{label}('w %s', {value})"], False
        return [f"record(log, log_for_caller({value}))"], False

    def s_spy(self, depth: int) -> tuple[list[str], bool]:
        value = self.bounded(self.expression(1), "int")
        target = self.choice(("x", "y", "z"))
        kind = self.choice(("call", "method", "bound", "passed"))
        lines = []
        if kind == "call":
            call = f"Spy(log)({value})"
        elif kind == "method":
            call = f"Spy(log).method({value})"
        elif kind == "bound":
            label = self.label()
            lines.append(f"fn{label} = Spy(log).method")
            call = f"fn{label}({value})"
        else:
            call = f"apply(Spy(log), {value})"
        self.assigned(target)
        return [*lines, f"{target} = clamp({call})"], False

    def s_unpack(self, depth: int) -> tuple[list[str], bool]:
        first, second = self.two_variables()
        kind = self.choice(("one", "two", "two", "wrong"))
        if kind == "one":
            lines = [f"({first},) = [{self.expression(1)}]"]
            names = [first]
        else:
            values = [self.expression(1) for _ in range(3 if kind == "wrong" else 2)]
            lines = [f"{first}, {second} = [{', '.join(values)}]"]
            names = [first, second]
        self.assigned(*names)
        if self.chance(60):
            lines.append(f"return {', '.join(names)}")
            return lines, True
        return lines, False

    def s_super_class(self, depth: int) -> tuple[list[str], bool]:
        label = self.label()
        limit, extra = self.constant(), self.constant()
        method = self.choice(("branch", "loop", "both"))
        body = []
        if method in ("branch", "both"):
            body += [f"if n > {limit}:", f"    return super().m(n) + {extra}"]
        body += ["total = 0"]
        if method in ("loop", "both"):
            body += ["for i in range(n):", "    total += super().m(i)"]
        body += ["return total"]
        cls = [
            f"class K{label}(Base):",
            "    def __init__(self, log, flag):",
            "        if flag:",
            "            super().__init__(log)",
            "        else:",
            "            super().__init__([])",
            "    def m(self, n):",
            *indent(indent(body)),
        ]
        target = self.choice(("x", "y", "z"))
        flag = self.condition(1)
        call = f"K{label}(log, {flag}).m({self.bounded(self.expression(1), 'int')})"
        self.assigned(target)
        return [*cls, f"{target} = clamp({call})"], False

    def s_try_comprehension(self, depth: int) -> tuple[list[str], bool]:
        over = self.range_call()
        limit = self.constant()
        kind = self.choice(("target", "assigned"))
        if kind == "target":
            loop = [f"for t in {over}:"]
        else:
            loop = [
                f"for i{self.loop_depth} in {over}:",
                f"    t = {self.expression(1)}",
            ]
        loop += [f"    if t > {limit}:", "        raise KeyError('t')"]
        target = self.choice(("x", "y", "z"))
        size = self.draw(st.integers(0, 3))
        comprehensions = (
            f"{target} = sum([t * 2 for t in range({size})])",
            f"{target} = len({{t for t in range({size})}})",
            f"record(log, [t for t in range({size})])",
        )
        lines = ["try:", *indent(loop)]
        shape = self.choice(("except", "else", "finally"))
        handler = ["except KeyError:", f"    {self.choice(comprehensions)}"]
        if shape == "except":
            lines += handler
        elif shape == "else":
            lines += [*handler, "else:", f"    {self.choice(comprehensions)}"]
        else:
            lines += ["finally:", f"    {self.choice(comprehensions)}"]
        self.maybe.add(target)
        return lines, False
