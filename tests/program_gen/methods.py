"""Issue 20's features: changes through methods, and lazy operands.

A mixin over ``core.Writer``; each hook checks ``self.on(feature)``:

* ``methods``: ``ms = [0, 0]`` and ``tally = Tally()``; ``ms.pop(0)`` then
  ``ms.append(...)``, ``ms.insert(0, ...)`` then ``ms.pop()`` (a list
  changed through methods, keeping its length), ``tally.bump(...)`` (a
  method that sets an attribute of ``self``) and ``tally += ...`` (its
  ``__iadd__`` does and returns ``self``: the graph once refused ``tally``
  as a loop variable where JAX ran it), anywhere: in both branches of
  an ``if``, in one only, in loop bodies. Python mode also changes the
  length (``ms.append``, ``ms.extend``, ``ms.clear()``). A graph carries
  such changes (API.md, "Mutation through methods").
* ``lazy``: after a loop whose names may be unbound (``loop_names``), a
  read of such a name in an operand Python may skip: ``w if c else 1``,
  ``c or w > 0``, ``c and w > 0``; Python raises UnboundLocalError only
  where it evaluates the operand, and so must a graph.
* ``branch_born``: a name that one branch of an ``if`` assigns and a loop in
  the other may assign (maybe after a ``return`` under a condition in that
  branch), read after the ``if``: each branch carries whether it is bound
  (fuzz: the graph's "UnboundAfterReturn ... cannot be the result of a graph
  cond").
* ``class_calls``: calls through the helper classes ``Ops`` (a static and
  a class method, each with an ``if`` on its argument) and ``SubOps``
  (whose method calls the base method through the class,
  ``Ops.shifted(self, v)``), as library code writes them: converted like
  functions, so their ``if`` works on graph tensors (they once stayed
  unconverted: a class counted as library code); and ``Clipped(v).v``, a
  class call whose ``__init__`` has an ``if`` on ``v`` (once unconverted).
* ``index_items``: ``scan = [0, 0, 0]``, then ``for j in range(3): scan[j]
  = ...`` (a scan written into a list by the range index) with a variable
  updated from ``scan[j]`` in the same body: the index is a Python int, so
  the range loop unrolls (JAX once refused it while deciding whether to
  stage it). At the top level the index is ``jt<n>`` and no refusal of
  ``scan[jt<n>]`` is legitimate (check.py). The update may be under ``if
  j in {0, 2}:`` (the index hashed as a set member: JAX once staged the
  loop and raised "unhashable type" when it ran; a graph tensor hashed by
  identity, so the test was always False).
* ``index_keys``: ``wk = {0: 1, ...}``, then ``for jk in range(3):`` whose
  body tests ``jk in {1, 3}`` and reads ``wk[jk]`` while updating a variable
  that reads ``a`` (traced): the index must stay a Python int, so JAX
  unrolls the loop (UnrolledLoopWarning) and gives Python's value. Over
  ``range(a)`` (a traced trip count) no Python index exists: a clean
  refusal (``StagedIndexError``) on every backend (graph tensors are
  unhashable, as in TensorFlow).
* ``py_state``: Python state that calls change and no place carries,
  ``pit = iter((3, 1, ...))`` and ``parr = numpy.zeros(2)``: ``v = v +
  next(pit, 0)`` (an iterator advanced), ``numpy.add(parr, 1, out=parr)``
  or ``parr += 1`` (an array changed in place; a staged loop carrying
  ``parr`` once only rebound the name) and reads of ``int(parr[0])``, anywhere. A
  graph `if` traces both branches and a loop its body once: each once did
  its change all the same (silent wrong values); a backend refuses it now,
  naming the iterator or array (check.py), and at the top level it is
  Python's.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.program_gen.core import NAMES, PARAMETERS, indent

_KEYS = "{0: 1, 1: -2, 2: 3, 3: 0, 4: -1, 5: 2}"
"""``wk`` of ``index_keys``: a value for every index of ``range(a)``."""


class MethodFeatures:
    """Issue 20's statements and reads (see the module docs)."""

    def on(self, feature: str) -> bool:
        # `lazy` reads the names `loop_names` makes maybe unbound.
        if feature == "loop_names" and super().on("lazy"):
            return True
        return super().on(feature)

    def prologue(self) -> list[str]:
        lines = super().prologue()
        if self.on("methods"):
            lines += ["ms = [0, 0]", "tally = Tally()"]
        if self.on("index_items"):
            lines += ["scan = [0, 0, 0]"]
        if self.on("index_keys"):
            lines += [f"wk = {_KEYS}"]
        if self.on("py_state"):
            lines += ["pit = iter((3, 1, 4, 1, 5, 9, 2, 6))", "parr = numpy.zeros(2)"]
        return lines

    def state_values(self) -> list[str]:
        values = super().state_values()
        if self.on("methods"):
            values += ["ms[0]", "ms[1]", "tally.n"]
        if self.on("index_items"):
            values += ["scan[0]", "scan[1]", "scan[2]"]
        if self.on("py_state"):
            values += ["int(parr[0])"]
        return values

    def python_results(self) -> list[str]:
        values = super().python_results()
        if self.on("methods"):
            values += ["ms", "tally.n"]
        if self.on("index_items"):
            values += ["scan"]
        if self.on("py_state"):
            values += ["int(parr[0])", "next(pit, -1)"]
        return values

    def atoms(self, ty: str) -> list[str]:
        found = super().atoms(ty)
        if ty == "int" and self.on("methods"):
            found += ["ms[0]", "ms[-1]", "tally.n"]
        if ty == "int" and self.on("index_items"):
            found += ["scan[2]"]
        if ty == "int" and self.on("py_state"):
            found += ["int(parr[0])"]
        return found

    def expression_makers(self, ty: str, depth: int) -> list[Callable[[], str]]:
        makers = super().expression_makers(ty, depth)
        if self.on("class_calls") and ty == "int":
            sub = depth + 1
            makers.append(lambda: f"Ops.square({self.expression(sub)})")
            makers.append(lambda: f"Ops.scaled({self.expression(sub)})")
            makers.append(lambda: f"SubOps().shifted({self.expression(sub)})")
            makers.append(lambda: f"Clipped({self.expression(sub)}).v")
        return makers

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.on("methods"):
            kinds += ["method", "method"]
        if self.on("branch_born") and self.loop_depth < 2:
            kinds += ["branch_born"]
        if self.on("index_items") and self.loop_depth < 2:
            kinds += ["index_items"]
        if self.on("index_keys") and self.loop_depth < 2:
            kinds += ["index_keys"]
        if self.on("py_state"):
            kinds += ["py_state"]
        return kinds

    def s_py_state(self, depth: int) -> tuple[list[str], bool]:
        targets = self.names_of("int", self.defined & set(NAMES["int"]))
        if not targets or self.chance(40):
            # (`parr += 1` too: a staged loop would carry `parr` as a traced
            # value, on which `+=` only rebinds the name.)
            change = self.choice(("numpy.add(parr, 1, out=parr)", "parr += 1"))
            return [change], False
        target = self.choice(targets)
        return [f"{target} = {self.bounded(f'{target} + next(pit, 0)', 'int')}"], False

    def return_statement(self) -> str:
        self.wrote_return = True
        return super().return_statement()

    def s_index_items(self, depth: int) -> tuple[list[str], bool]:
        targets = self.names_of("int", self.defined & set(NAMES["int"]))
        if not targets:
            return ["pass"], False
        # (At the top level, `jt`: no graph statement encloses the loop, so
        # nothing may refuse `scan[jt..]`, check.py; deeper, a graph `if` or
        # loop around it cannot carry the item and refuses it, API.md.)
        # A `return` written before (even in a nested block) puts the rest
        # of the body under the `if` that return lowering makes: not `jt`.
        top = depth == 0 and not getattr(self, "wrote_return", False)
        index = f"{'jt' if top else 'j'}{self.label()}"
        target = self.choice(targets)
        value = self.bounded(f"{self.expression(1)} + scan[{index}]", "int")
        # (`target` reads `a` first: traced state, so a backend may stage it.)
        lines = [f"{target} = {self.bounded(f'{target} + a', 'int')}"]
        lines += [f"for {index} in range(3):", f"    scan[{index}] = {value}"]
        update = f"{target} = {self.bounded(f'{target} + scan[{index}]', 'int')}"
        if self.chance(40):
            lines += [f"    if {index} in {{0, 2}}:", f"        {update}"]
        else:
            lines.append(f"    {update}")
        return lines, False

    def s_index_keys(self, depth: int) -> tuple[list[str], bool]:
        targets = self.names_of("int", self.defined & set(NAMES["int"]))
        if not targets:
            return ["pass"], False
        index, target = f"jk{self.label()}", self.choice(targets)
        over = "range(3)"
        if self.chance(30):
            over = f"range({self.choice(PARAMETERS)})"  # traced in tensor mode
        members = self.choice(("{1, 3}", "{0}", "{2, 4, 5}"))
        use = self.choice(("member", "key", "both"))
        # (`target` reads `a` first: traced state, so a backend may stage it.)
        lines = [f"{target} = {self.bounded(f'{target} + a', 'int')}"]
        lines.append(f"for {index} in {over}:")
        if use != "key":
            value = self.bounded(f"{target} + {self.expression(1)}", "int")
            lines += [f"    if {index} in {members}:", f"        {target} = {value}"]
        if use != "member":
            lines.append(
                f"    {target} = {self.bounded(f'{target} + wk[{index}]', 'int')}"
            )
        return lines, False

    def s_branch_born(self, depth: int) -> tuple[list[str], bool]:
        targets = self.names_of("int", self.defined & set(NAMES["int"]))
        if not targets:
            return ["pass"], False
        name, target = f"w{self.label()}", self.choice(targets)
        assign = [f"{name} = {self.bounded(self.expression(1), 'int')}"]
        loop = [
            f"for i{self.label()} in {self.range_call()}:",
            *("    " + a for a in assign),
        ]
        loop.append(f"    {target} = {self.bounded(f'{target} + 1', 'int')}")
        if self.chance(50):
            loop = [
                f"if {self.condition(1)}:",
                *indent([self.return_statement()]),
                *loop,
            ]
        branches = [assign, loop] if self.chance(50) else [loop, assign]
        lines = [f"if {self.condition(1)}:"]
        lines += ["    " + line for line in branches[0]]
        lines += ["else:", *("    " + line for line in branches[1])]
        # Read after the `if`: unbound where the loop ran no iteration.
        lines.append(f"{target} = {self.bounded(f'{target} + {name}', 'int')}")
        self.maybe.add(name)
        return lines, False

    def s_method(self, depth: int) -> tuple[list[str], bool]:
        value = self.bounded(self.expression(1), "int")
        if not self.tensor and self.chance(30):
            # Python mode: the length changes too (it stays at least 2).
            changes = [
                f"ms.append({value})",
                f"ms.extend([{value}, 1])",
                "ms.clear()\nms.extend([0, 0])",
            ]
            return self.choice(changes).split("\n"), False
        options = [
            ["ms.pop(0)", f"ms.append({value})"],
            [f"ms.insert(0, {value})", "ms.pop()"],
            [f"tally.bump({value})"],
            # `__iadd__` returns the object: the name is rebound to itself,
            # so a graph loop keeps it out of its variables, as JAX does.
            [f"tally += {value}"],
        ]
        lines: list[str] = []
        for line in self.pick(options):
            lines += line.split("\n")
        return lines, False

    def statement(self, depth: int) -> tuple[list[str], bool]:
        lines, terminal = super().statement(depth)
        unbound = self.names_of("int", self.maybe - self.defined)
        if self.tensor:  # (tensor mode reads only names born in loops unbound)
            unbound = [n for n in unbound if n.startswith("w")]
        if self.on("lazy") and unbound and not terminal and self.chance(40):
            name = self.choice(unbound)
            targets = self.names_of("int", self.defined & set(NAMES["int"]))
            if targets:
                target = self.choice(targets)
                cond = self.condition(1)
                read = self.choice(
                    [
                        f"({name} if {cond} else 1)",
                        f"(1 if {cond} else {name})",
                        f"(2 if {cond} or {name} > 0 else 1)",
                        f"(2 if {cond} and {name} > 0 else 1)",
                    ]
                )
                lines.append(f"{target} = {self.bounded(f'{target} + {read}', 'int')}")
        return lines, terminal
