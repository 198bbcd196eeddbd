"""Issue 10's features: every kind of state a converted statement changes.

A mixin over ``core.Writer``; each hook checks ``self.on(feature)``:

* ``floats``: float and bool variables (typed expressions live in core).
* ``items``: ``d = {'a': 0, 'b': 0}``, ``xs = [0, 0]``; ``d['a'] += ...``,
  ``xs[1] = ...``, ``d[key]`` with ``key`` unchanged; reads of the items;
  ``ys = xs`` (two names for one list; ``ys[0]`` updates change ``xs``),
  and ``ys`` made to share ``xs`` again or given its own list; a key set
  again at the end of ``d``'s order (``d['a'] = ... + d.pop('a')``, or
  ``del d['a']`` first), read back in order (``list(d.values())``): a
  staged ``if`` or loop cannot make the order depend on the path.
* ``attributes``: ``box = Box()``, ``ns = types.SimpleNamespace(total=0)``;
  ``box.total += ...``, ``box.inner.n = ...``, ``ns.total -= ...``, and
  ``box.add(a)`` (a method whose loop updates ``self.total``; Python mode
  only: a change made by a call is a trace-time side effect).
* ``closures``: ``def peek(): return x + 1`` and ``later = lambda: y``
  called anywhere (inside loops and after them); Python mode also makes
  lambdas and defs in loops (``fs.append(lambda: i0)``) and calls them after;
  ``convert_apply(lambda k: ..., x)`` hands a lambda written in the program
  to a helper that converts it (``autograph.to_graph``, as datasets do).
* ``nonlocal``: ``def bump(k): nonlocal z; ...; return z > 2`` called as a
  statement and in ``if``/``elif``/``while`` tests; and ``relay(k)``, whose
  loop defines and calls a helper with ``nonlocal z`` two function levels
  below ``z`` (assigned in an ``if``): ``relay`` binds no ``z`` of its own.
* ``globals`` (Python mode): ``global COUNTER`` writes and
  ``RESULTS.append(...)`` on a module-level list.
* ``loop_names``: a name ``w<n>`` first assigned inside a loop (in every
  iteration or under an ``if``) and read right after the loop, where the
  loop may have run zero times; or the search idiom, assigned before a
  ``break`` under an ``if`` and in the loop's ``else``.
* ``builtins``: ``fn = range`` (loops over ``fn(...)``), ``length = len``,
  ``absolute = abs``, ``to_int = int``, ``to_float = float``,
  ``apply(abs, x)``; Python mode also ``en = enumerate``, ``pairs = zip``,
  ``inst = isinstance``, ``out = print``.
* ``del`` (Python mode): ``del`` of items, attributes, several names, and a
  loop target right after its loop.
* ``static_tuples``: ``c = ('run', a)``, a string beside a number in a
  tuple; ``c = (c[0], ...)`` carries the string unchanged through branches
  and loops, ``c = ('stop', c[1])`` changes it on one path (a staged ``if``
  or loop: the graph carries it as a string tensor, as TensorFlow does;
  JAX, for which it is part of the tuple's structure, refuses); reads
  ``c[1]`` and ``c[0] == 'run'`` (and ``len(c[0])`` in Python mode).
* ``widening`` (with ``floats``): ``acc = 0``, a Python int that float
  updates (``acc = fclamp(acc + u)``, ``acc = fclamp(acc * 0.5)``), or
  another such number only (``acc = fclamp(acc + lag)``), make a
  float, on some paths only: a staged loop carries it as the wider type
  (the graph refused ``total = 0`` then ``total += x[i]``); and ``cnt = 0``,
  a counter (``cnt += 1``) that float expressions read (``cnt * 0.5``,
  ``u + cnt``): a staged loop carries it as a weak int.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from tests.program_gen.core import NAMES, PARAMETERS, indent

_ITEMS = ("d['a']", "d['b']", "xs[0]", "xs[1]", "d[key]", "ys[0]")
_ATTRIBUTES = ("box.total", "box.count", "box.inner.n", "ns.total")


class StateFeatures:
    """Issue 10's statements, expressions and state (see the module docs)."""

    # The prologue defines each feature's state before the body.

    def prologue(self) -> list[str]:
        lines = super().prologue()
        if self.on("globals") and not self.tensor:
            lines += ["global COUNTER", "COUNTER = 0", "RESULTS.clear()"]
        if self.on("items"):
            lines += ["d = {'a': 0, 'b': 0}", "xs = [0, 0]", "ys = xs", "key = 'b'"]
        if self.on("attributes"):
            lines += ["box = Box()", "ns = types.SimpleNamespace(total=0)"]
        if self.on("closures"):
            # Defined before x and y are assigned: they read the values the
            # names have when called, or raise NameError.
            lines += ["def peek():", "    return x + 1", "later = lambda: y"]
            if not self.tensor:
                lines.append("fs = []")
        if self.on("nonlocal"):
            update = "clamp(z + k)" if self.tensor else "z + k"
            lines += ["def bump(k):", "    nonlocal z", f"    z = {update}"]
            lines.append("    return z > 2")
            lines += ["def relay(k):", "    for j in range(k):", "        def step():"]
            lines += ["            nonlocal z", "            if j > 0:"]
            lines += [f"                z = {update}", "        step()"]
            lines.append("    return z > 3")
        if self.on("static_tuples"):
            lines += ["c = ('run', a)"]
        if self.widening():
            lines += ["acc = 0", "lag = 0", "cnt = 0"]
        if self.on("builtins"):
            lines += ["fn = range", "length = len", "absolute = abs"]
            lines += ["to_int = int", "to_float = float"]
            if not self.tensor:
                lines += ["en = enumerate", "pairs = zip", "inst = isinstance"]
                lines += ["out = print"]
        return lines

    def function(self, signature: str) -> str:
        if self.on("nonlocal") and not self.tensor:
            # `nonlocal z` needs z bound somewhere in the function.
            self.force_assign = {"z"}
        return super().function(signature)

    def state_values(self) -> list[str]:
        values = super().state_values()
        if self.on("items"):  # whole: a carried dict or list keeps its structure
            values += ["d", "xs", "list(d.values())"]  # (and its key order)
        if self.on("attributes"):
            values += list(_ATTRIBUTES)
        if self.on("static_tuples"):
            values += ["c[1]", "(c[0] == 'run')"]
        if self.widening():
            # (Python gives the int 0 on a path no float update took, where
            # a staged statement gives the float 0.0 of the other paths.)
            values += ["float(acc)", "float(lag)", "cnt"]
        return values

    def widening(self) -> bool:
        return self.on("widening") and self.on("floats")

    def python_results(self) -> list[str]:
        values = super().python_results()
        if self.on("items"):
            values += ["d", "xs", "list(d)"]
        if self.on("attributes"):
            values += ["box", "ns"]
        if self.on("globals"):
            values += ["COUNTER", "list(RESULTS)"]
        if self.on("closures"):
            values.append("[f() for f in fs]")
        if self.on("static_tuples"):
            values.append("c")
        if self.widening():
            values += ["acc", "lag", "cnt"]
        return values

    # Reads.

    def atoms(self, ty: str) -> list[str]:
        found = super().atoms(ty)
        if ty == "int":
            if self.on("items"):
                found += _ITEMS
            if self.on("attributes"):
                found += _ATTRIBUTES
            if self.on("closures"):
                found += ["peek()", "later()"]
            if self.on("globals") and not self.tensor:
                found += ["COUNTER", "len(RESULTS)"]
            if self.on("static_tuples"):
                # (Tensor mode reads the string by `==` only: a graph `if`
                # carries it as a string tensor, as TensorFlow does.)
                found += ["c[1]"] + ([] if self.tensor else ["len(c[0])"])
        return found

    def expression_makers(self, ty: str, depth: int) -> list[Callable[[], str]]:
        makers = super().expression_makers(ty, depth)
        sub = depth + 1
        if self.on("builtins") and ty == "int":
            makers.append(lambda: f"absolute({self.expression(sub)})")
            makers.append(lambda: f"apply(abs, {self.expression(sub)})")
            makers.append(lambda: f"length([{self.expression(sub)}, 1])")
            if self.on("floats"):
                makers.append(lambda: f"to_int({self.expression(sub, 'float')})")
        if self.on("builtins") and ty == "float":
            makers.append(lambda: f"to_float({self.expression(sub)})")
            makers.append(lambda: f"apply(float, {self.expression(sub)})")
        if self.on("closures") and ty == "int":
            makers.append(lambda: self.converted_lambda(sub))
        if self.on("closures") and not self.tensor and ty == "int":
            makers.append(lambda: "sum([f() for f in fs])")
            makers.append(lambda: "len(fs)")
        if self.on("items") and not self.tensor and ty == "int":
            makers.append(lambda: f"d.get('c', {self.constant()})")
            makers.append(lambda: "xs[-1]")
        if self.widening() and ty == "float":
            # A Python int counter with floats: a loop carries it as a weak
            # int, which an op with a float casts (the graph refused
            # `float32 * int32` and `cnt * 0.5`).
            makers += [lambda: "(cnt * 0.5)"] * 3
            makers += [lambda: f"({self.expression(sub, 'float')} + cnt)"] * 3
        return makers

    def converted_lambda(self, depth: int) -> str:
        body = self.scoped("k", lambda: self.expression(depth))
        return f"convert_apply(lambda k: {body}, {self.expression(depth)})"

    def condition_makers(self, depth: int) -> list[Callable[[], str]]:
        makers = super().condition_makers(depth)
        if self.on("nonlocal"):
            makers += [lambda: f"bump({self.draw(st.integers(1, 2))})"] * 3
            makers.append(lambda: f"relay({self.draw(st.integers(1, 3))})")
        if self.on("builtins") and not self.tensor:
            makers.append(lambda: f"inst({self.expression(depth + 1)}, int)")
        if self.on("static_tuples"):
            makers.append(lambda: f"(c[0] {self.choice(('==', '!='))} 'run')")
        return makers

    # Statements.

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.on("items"):
            kinds += ["item", "item", "alias"]
        if self.on("attributes"):
            kinds += ["attribute", "attribute"]
        if self.on("nonlocal"):
            kinds.append("bump")
        if self.on("static_tuples"):
            kinds += ["tagged", "tagged"]
        if self.widening():
            kinds.append("widen")
        if not self.tensor:
            if self.on("globals"):
                kinds += ["global_write", "global_append"]
            if self.on("closures") and self.loop_depth:
                kinds += ["late_binding", "late_binding"]
            if self.on("builtins"):
                kinds += ["builtin_loop", "builtin_print"]
            if self.on("del"):
                kinds.append("del_more")
        return kinds

    def update(self, target: str) -> list[str]:
        """``target = ...`` or ``target op= ...`` (ints)."""
        if self.chance(50):
            return [self.augmented(target, "int")]
        return [f"{target} = {self.bounded(self.expression(), 'int')}"]

    def s_item(self, depth: int) -> tuple[list[str], bool]:
        target = self.choice(_ITEMS)
        if not self.tensor and self.chance(10):
            return [f"d['c'] = {self.expression()}"], False
        if not self.tensor and self.chance(10):
            return [f"xs.append({self.expression()})"], False
        if self.chance(12):
            return self.reinserted(), False
        return self.update(target), False

    def reinserted(self) -> list[str]:
        """A key of ``d`` set again at the end of its order: in a branch or
        a loop's body, the order would depend on the path (refused by a
        staged ``if`` or loop unless every path leaves one order)."""
        key = self.choice(("'a'", "'b'", "key"))
        if self.chance(50):
            # (The value first: it may read `d`'s items, which `pop` removes.)
            value = self.bounded(f"{self.expression(1)} + d.pop({key})", "int")
            return [f"d[{key}] = {value}"]
        name = self.choice(NAMES["int"])
        value = self.bounded(self.expression(1), "int")
        self.defined.add(name)
        return [f"{name} = {value}", f"del d[{key}]", f"d[{key}] = {name}"]

    def s_alias(self, depth: int) -> tuple[list[str], bool]:
        """``ys`` starts as the list ``xs`` is; it may share it again or
        get its own (a graph statement after which the names would share
        it on one path only is refused)."""
        if self.chance(50):
            return ["ys = xs"], False
        return [f"ys = [{self.expression()}, 0]"], False

    def s_attribute(self, depth: int) -> tuple[list[str], bool]:
        # A method's loop over `self.total` (small bound). Not in tensor mode:
        # a state change through a call is a Python side effect, which happens
        # while tracing (API.md), in both branches of a graph `if`.
        if not self.tensor and self.chance(20):
            return [f"box.add({self.choice((*PARAMETERS, '3'))})"], False
        return self.update(self.choice(_ATTRIBUTES)), False

    def s_tagged(self, depth: int) -> tuple[list[str], bool]:
        """A new tuple ``c``: the string kept, or set (``'stop'`` changes it;
        ``'run'`` again gives the same on every path)."""
        kind = self.choice(("double", "set", "retag"))
        if kind == "double":
            return [f"c = (c[0], {self.bounded('c[1] * 2', 'int')})"], False
        value = self.bounded(self.expression(1), "int")
        if kind == "set":
            return [f"c = (c[0], {value})"], False
        return [f"c = ({self.choice(('run', 'stop'))!r}, {value})"], False

    def s_widen(self, depth: int) -> tuple[list[str], bool]:
        """``acc`` (a Python 0 at first) made a float: never an int update,
        which a graph loop would carry as int32 (strict dtypes, as TF)."""
        if self.chance(25):
            return [f"acc = {self.bounded('acc * 0.5', 'float')}"], False
        if self.chance(25):
            return ["cnt += 1"], False  # (bounded: loops are short)
        if self.chance(30):
            # Widened through another number only (`lag`, a Python 0 that
            # float updates widen): the graph widened `lag`, then raised.
            if self.chance(50):
                return [f"acc = {self.bounded('acc + lag', 'float')}"], False
            added = self.expression(1, "float")
            return [f"lag = {self.bounded(f'lag * 0.5 + {added}', 'float')}"], False
        added = self.expression(1, "float")
        return [f"acc = {self.bounded(f'acc + {added}', 'float')}"], False

    def s_bump(self, depth: int) -> tuple[list[str], bool]:
        helper = self.choice(("bump", "bump", "relay"))
        return [f"{helper}({self.constant()})"], False

    def s_global_write(self, depth: int) -> tuple[list[str], bool]:
        return [self.augmented("COUNTER", "int")], False

    def s_global_append(self, depth: int) -> tuple[list[str], bool]:
        return [f"RESULTS.append({self.expression()})"], False

    def s_late_binding(self, depth: int) -> tuple[list[str], bool]:
        name = self.readable_name()
        if self.chance(50):
            return [f"fs.append(lambda: {name})"], False
        label = self.label()
        return [f"def f{label}():", f"    return {name}", f"fs.append(f{label})"], False

    def s_builtin_loop(self, depth: int) -> tuple[list[str], bool]:
        items = [self.expression(1) for _ in range(self.draw(st.integers(0, 3)))]
        listed = "[" + ", ".join(items) + "]"
        if self.chance(50):
            names = [f"i{self.loop_depth}", self.choice(NAMES["int"])]
            return self.for_loop(depth, names, f"en({listed})"), False
        names = self.two_variables()
        return self.for_loop(depth, names, f"pairs({listed}, fn(3))"), False

    def s_builtin_print(self, depth: int) -> tuple[list[str], bool]:
        return [f"out('o{self.label()}', {self.expression()})"], False

    def s_del_more(self, depth: int) -> tuple[list[str], bool]:
        options = []
        if self.on("items"):
            options += ["del d['a']", "del xs[0]"]
        if self.on("attributes"):
            options += ["del box.count", "del ns.total"]
        names = sorted(self.defined & set(NAMES["int"]))
        if len(names) >= 2:
            options.append(f"del {names[0]}, {names[-1]}")
        if not options:
            return [f"print('nothing to delete {self.label()}')"], False
        line = self.choice(options)
        if line.startswith("del ") and "," in line:
            self.defined -= {names[0], names[-1]}
        return [line], False

    # Loops: names born inside them; `fn(...)` for `range(...)`; del of the
    # target after a loop.

    def range_call(self) -> str:
        call = super().range_call()
        if self.on("builtins") and self.chance(40):
            return "fn" + call[len("range") :]
        return call

    def loop_body(self, depth: int) -> list[str]:
        if not (self.on("loop_names") and self.chance(50)):
            return super().loop_body(depth)
        name = f"w{self.label()}"
        value = self.bounded(self.expression(1), "int")
        search = False
        style = self.draw(st.integers(0, 99))
        if style < 30:
            first = [f"if {self.condition(1)}:", f"    {name} = {value}"]
        elif self.tensor and style < 50:
            # The search idiom: set on the path that breaks, and in the
            # loop's `else` (`loop_else`), so bound after the loop; in
            # tensor mode, where the loop may be a graph loop (Python mode
            # draws as before).
            first = [f"if {self.condition(1)}:", f"    {name} = {value}", "    break"]
            search = True
        else:
            first = [f"{name} = {value}"]
            self.defined.add(name)
        body = super().loop_body(depth)
        self.defined.discard(name)
        self.maybe.add(name)
        self.born.append(name)
        # (for this loop's `else`, drawn next: a `while True` has none)
        self.searched = name if search else None
        return indent(first) + body

    def loop_else(self, depth: int) -> list[str]:
        name, self.searched = getattr(self, "searched", None), None
        if name is None:
            return super().loop_else(depth)
        value = self.bounded(self.expression(1), "int")
        return ["else:", f"    {name} = {value}"]

    def for_loop(
        self, depth: int, names: list[str], iterable: str, first: tuple[str, ...] = ()
    ) -> list[str]:
        lines = super().for_loop(depth, names, iterable, first)
        if self.on("del") and not self.tensor and self.chance(20):
            lines.append(f"del {names[0]}")
            self.defined.discard(names[0])
        return lines

    def statement(self, depth: int) -> tuple[list[str], bool]:
        outer, self.born = self.born, []
        try:
            lines, terminal = super().statement(depth)
            for name in self.born:  # read right after the loop
                target = self.choice(NAMES["int"])
                value = self.bounded(f"{target} + {name}", "int")
                if target in self.defined:
                    lines.append(f"{target} = {value}")
            return lines, terminal
        finally:
            self.born = outer
