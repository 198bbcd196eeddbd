"""The ``variables`` feature: ``runtime.Variable`` state in graph programs.

A mixin over ``core.Writer``; each hook checks ``self.variables()`` (the
feature on, in tensor mode: the graph backend only, ``BACKEND_FEATURES``;
JAX has no Variables). TensorFlow's AutoGraph tests and its guides use
``tf.Variable`` state inside ``tf.function`` throughout; these programs do
the same with the runtime's ``rt.Variable``:

* state (``HELPERS``): ``VI`` (int32), ``VF`` (float32) and ``VB`` (bool),
  module-level Variables captured by the program, and ``METER.v``, a model
  object's, which its method ``add`` updates in a branch; each is reset at
  the program's start (``VI.assign(a)``, as ``COUNTER`` is) or not (then it
  keeps counting from call to call); ``MODEL.w`` (int32), ``MODEL.f``
  (float32) and the list ``MODEL.ws`` made on the first call in the guide's
  pattern (``if MODEL.w is None: MODEL.w = runtime.Variable(a)``, maybe
  reset by ``assign`` on later calls): check.py runs every call of an input
  pair from the same state, so that the staged function's first trace makes
  them (from its tensor inputs: a lifted initial value) and its check trace
  does not;
* statements: ``V.assign(clamp(...))``, ``V.assign_add(k)`` and
  ``V.assign_sub(k)`` (a small constant, or an int variable) anywhere, so
  in branches and in graph and Python loops; ``for iN in
  range(clamp(V.read_value())):`` (a trip count read from a Variable);
* reads: ``V.read_value()``, ``runtime.identity(V)``, ``(V + 1)``,
  ``(V - k)``, ``(VF * 0.5)`` in expressions, and ``(V > e)`` and the like
  in conditions (``if``, ``while``, ternaries);
* every ``return`` returns the Variables themselves (their values, as a
  ``Function`` returns them) after the other state.

check.py compares, besides the results, every Variable's value after each
call (Python's vs converted code's, and Python's vs the traced graph's),
and calls the traced function twice on each input pair, so that the second
call of the same trace, from the state the first left, must leave Python's
values too. Values stay bounded:
assignments are clamped, updates add at most a small constant or a clamped
variable per iteration of loops of a few iterations each; float updates
add dyadic constants (exact in float32, which both sides compute in).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.program_gen.core import PARAMETERS

_INT_VARIABLES = ("VI", "METER.v")
_FLOAT_VARIABLES = ("VF",)
_MADE_INT = ("MODEL.w", "MODEL.ws[1]")
_MADE_FLOAT = ("MODEL.f",)


class VariableFeatures:
    """The ``variables`` feature's state, updates and reads (module docs)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.returned_variables: list[str] = []
        self.next_test: str | None = None  # the next `if`'s test, as written
        self.made = False  # whether the program makes MODEL's on its first call

    def variables(self) -> bool:
        return self.on("variables") and self.tensor

    def _of(self, ty: str) -> tuple[str, ...]:
        if ty == "float" and self.on("floats"):
            return _FLOAT_VARIABLES + (_MADE_FLOAT if self.made else ())
        if ty == "int":
            return _INT_VARIABLES + (_MADE_INT if self.made else ())
        return ()

    def prologue(self) -> list[str]:
        lines = super().prologue()
        if not self.variables():
            return lines
        # Each is reset at the start (as COUNTER is), or not: then it keeps
        # counting from call to call, as the guides' counters do.
        for name, ty in (("VI", "int"), ("VF", "float"), ("METER.v", "int")):
            if self.chance(60):
                lines.append(f"{name}.assign({self._start(ty)})")
        if self.chance(70):
            lines.append(f"VB.assign({self.choice(('True', 'False', '(a > b)'))})")
        # (Not in every program: a first call that makes Variables traces
        # twice, TensorFlow's rule.)
        self.made = self.chance(30)
        if self.made:
            lines += self._made_on_the_first_call()
        # What every return gives for each Variable: itself or a read.
        for name in (*self._of("int"), *self._of("float"), "VB"):
            self.returned_variables.append(
                self.choice((name, name, f"{name}.read_value()"))
            )
        return lines

    def _made_on_the_first_call(self) -> list[str]:
        # A list of Variables made in a Python loop, and two more.
        start = self._start("int")
        lines = [
            "if MODEL.ws is None:",
            "    MODEL.ws = []",
            "    for k in range(2):",
            f"        MODEL.ws.append(runtime.Variable({start} + k))",
        ]
        if self.chance(50):
            lines += ["else:", "    for k in range(2):"]
            lines.append(f"        MODEL.ws[k].assign({start} + k)")
        for slot, ty in (("w", "int"), ("f", "float")):
            start = self._start(ty)
            lines += [
                f"if MODEL.{slot} is None:",
                f"    MODEL.{slot} = runtime.Variable({start})",
            ]
            if self.chance(60):
                lines += ["else:", f"    MODEL.{slot}.assign({start})"]
        return lines

    def _start(self, ty: str) -> str:
        """A first value from constants and parameters (traced: a tensor)."""
        if ty == "float":
            return self.choice(
                (self.constant("float"), *[f"float({p})" for p in PARAMETERS])
            )
        return self.choice((self.constant(), *PARAMETERS))

    def state_values(self) -> list[str]:
        values = super().state_values()
        if self.variables():
            values += self.returned_variables
        return values

    # Reads.

    def atoms(self, ty: str) -> list[str]:
        found = super().atoms(ty)
        if self.variables():
            for name in self._of(ty):
                found += [f"{name}.read_value()", f"runtime.identity({name})"]
        return found

    def expression_makers(self, ty: str, depth: int) -> list[Callable[[], str]]:
        makers = super().expression_makers(ty, depth)
        if not self.variables() or not self._of(ty):
            return makers
        names = self._of(ty)
        if ty == "int":
            makers.append(lambda: f"({self.choice(names)} + 1)")
            makers.append(lambda: f"({self.choice(names)} - {self.constant()})")
            # An update's value (the new value), on the path that evaluates it.
            makers.append(
                lambda: (
                    f"clamp({self.choice(names)}."
                    f"{self.choice(('assign_add', 'assign_sub'))}({self.constant()}))"
                )
            )
            makers.append(
                lambda: f"clamp(METER.add(clamp({self.expression(depth + 1)})))"
            )
        else:
            makers.append(lambda: f"({self.choice(names)} * 0.5)")
            makers.append(lambda: f"({self.choice(names)} + {self.constant('float')})")
        return makers

    def condition_makers(self, depth: int) -> list[Callable[[], str]]:
        makers = super().condition_makers(depth)
        if self.variables():
            makers += [lambda: self._variable_test(depth)] * 2
            makers += [lambda: "(not VB)", lambda: "VB.read_value()"]
        return makers

    def condition(self, depth: int = 0) -> str:
        test, self.next_test = self.next_test, None
        return test if test is not None else super().condition(depth)

    def _variable_test(self, depth: int) -> str:
        ty = "float" if self._of("float") and self.chance(30) else "int"
        name = self.choice(self._of(ty))
        op = self.choice(("<", "<=", ">", ">=", "==", "!="))
        return f"({name} {op} {self.expression(depth + 1, ty)})"

    # Statements.

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.variables():
            kinds += ["var_update", "var_update", "var_update", "var_flag"]
            if depth < 3 and self.loop_depth < 3:
                kinds.append("var_loop")
        return kinds

    def s_var_update(self, depth: int) -> tuple[list[str], bool]:
        ty = "float" if self._of("float") and self.chance(35) else "int"
        name = self.choice(self._of(ty))
        kind = self.choice(("assign", "assign_add", "assign_sub"))
        if kind == "assign":
            value = self.bounded(self.expression(ty=ty), ty)
        elif ty == "int" and self.names_of("int") and self.chance(30):
            value = f"clamp({self.choice(self.names_of('int'))})"
        else:
            value = self.constant(ty)
        return [f"{name}.{kind}({value})"], False

    def s_var_flag(self, depth: int) -> tuple[list[str], bool]:
        """``VB.assign(test)``, maybe then ``if VB:`` (a Variable used
        directly as a condition, as TensorFlow's AutoGraph allows)."""
        lines = [f"VB.assign({self.condition(1)})"]
        if depth < 3 and self.chance(60):
            self.next_test = self.choice(("VB", "not VB"))
            lines += self.if_statement(depth)
        return lines, False

    def s_var_loop(self, depth: int) -> tuple[list[str], bool]:
        name = self.choice(self._of("int"))
        count = f"range(clamp({name}.read_value()))"
        target = f"i{self.loop_depth}"
        return self.for_loop(depth, [target], count), False
