"""The core of the program writer: expressions, control flow, definedness.

``Writer`` draws one function body. This module holds what every program
may contain (the constructs of ``CORE``); the feature mixins in ``state.py``
(issue 10) and ``syntax.py`` (issue 11) add statements, expressions, a
prologue and return values through the hooks named below.

Typing: variables have a fixed type by name (``x y z`` int, ``u v`` float,
``p q`` bool). In Python mode the types are nominal (an int variable may hold
a bool, ``and``/``or`` return operands, conditions test ints for truth); in
tensor mode (``tensor=True``) every expression has exactly its type, so a
graph sees no dtype changes, and values stay bounded (see ``__init__``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

PARAMETERS = ("a", "b")
NAMES = {"int": ("x", "y", "z"), "float": ("u", "v"), "bool": ("p", "q")}
TYPE_OF = {name: ty for ty, names in NAMES.items() for name in names}
_MAX_DEPTH = 3
_MAX_LOOP_DEPTH = 3
_MAX_FUEL = 4
_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
# Dyadic constants: exact in float32 and float64, so graph and Python agree.
_FLOATS = ("0.5", "1.5", "-0.25", "2.0", "0.0", "-1.5")


class Writer:
    """Draws one function body, tracking what the generated code may do.

    Attributes:
        draw: The hypothesis ``draw`` of the enclosing composite strategy.
        features: The enabled feature names (see ``FEATURE_ISSUES``).
        tensor: Whether the program must be tensor-friendly.
        backend: Tensor mode: the backend that stages it (``graph``, ``jax``:
            a few constructs are written for one only); ``python`` otherwise.
        budget: Statements left to generate (keeps programs small).
        defined: Names assigned on every path to the current point.
        maybe: Names assigned on some path (reading one may raise).
        loop_depth: How many loops enclose the current point.
    """

    def __init__(
        self,
        draw: Callable[[st.SearchStrategy[Any]], Any],
        budget: int,
        features: frozenset[str] = frozenset(),
        tensor: bool = False,
        backend: str = "graph",
    ):
        self.draw = draw
        self.budget = budget
        self.features = features
        self.tensor = tensor
        self.backend = backend if tensor else "python"
        self.defined: set[str] = set(PARAMETERS)
        self.maybe: set[str] = set()
        self.loop_depth = 0
        self.born: list[str] = []  # names first assigned in the current loop
        self.force_assign: set[str] = set()  # variables the start must assign
        self._ids = itertools.count()

    def on(self, feature: str) -> bool:
        return feature in self.features

    # Small draws.

    def choice(self, options: tuple[str, ...] | list[str]) -> str:
        return self.draw(st.sampled_from(options))

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) < percent

    def pick(self, options: list[Any]) -> Any:
        return options[self.draw(st.integers(0, len(options) - 1))]

    def label(self) -> int:
        return next(self._ids)

    def constant(self, ty: str = "int") -> str:
        if ty == "float":
            return self.choice(_FLOATS)
        if ty == "bool":
            return self.choice(("True", "False"))
        return str(self.draw(st.integers(-3, 5)))

    def names_of(self, ty: str, among: set[str] | None = None) -> list[str]:
        """The names of type ``ty`` in ``among`` (default: the defined ones);
        loop targets ``i0`` and names born in loops ``w0`` are ints."""
        among = self.defined if among is None else among
        return sorted(n for n in among if type_of(n) == ty)

    def readable_name(self, ty: str = "int") -> str:
        """A name to read: usually defined here, sometimes maybe unbound."""
        risky = self.names_of(ty, self.maybe - self.defined)
        if risky and not self.tensor and self.chance(5):
            return self.choice(risky)
        names = self.names_of(ty)
        return self.choice(names) if names else self.constant(ty)

    # Hooks for the feature mixins.

    def atoms(self, ty: str) -> list[str]:
        """Extra readable values of type ``ty`` (items, attributes, calls)."""
        return []

    def expression_makers(self, ty: str, depth: int) -> list[Callable[[], str]]:
        """Ways to write an expression of type ``ty`` that only features have."""
        return []

    def condition_makers(self, depth: int) -> list[Callable[[], str]]:
        """Ways to write a condition that only features have."""
        return []

    def feature_statements(self, depth: int) -> list[str]:
        """Statement kinds the features offer here (``s_<kind>`` methods)."""
        return []

    def prologue(self) -> list[str]:
        """Lines that start the function (features define their state)."""
        return []

    def epilogue(self) -> list[str]:
        """Python mode: lines after the function's statements, before its
        final ``return`` (features read what the statements left)."""
        return []

    def state_values(self) -> list[str]:
        """Tensor mode: what every ``return`` returns after its first value:
        all variables (the start assigns them all)."""
        types = ("int", "float", "bool") if self.on("floats") else ("int",)
        return [name for ty in types for name in NAMES[ty]]

    def python_results(self) -> list[str]:
        """Python mode: values a final ``return`` may add (feature state)."""
        return []

    # Expressions.

    def expression(self, depth: int = 0, ty: str = "int") -> str:
        """An expression of type ``ty`` (nominal in Python mode)."""
        if ty == "bool":
            return self.condition(depth)
        if depth < 2 and self.chance(12):
            makers = self.expression_makers(ty, depth)
            if makers:
                return self.pick(makers)()
        atoms = self.atoms(ty)
        if atoms and self.chance(15):
            return self.choice(atoms)
        if ty == "float":
            return self.float_expression(depth)
        return self.int_expression(depth)

    def int_expression(self, depth: int) -> str:
        kinds: tuple[str, ...] = ("name", "constant")
        if depth < 2:
            kinds += ("arith", "call", "ternary", "negate", "floor_constant")
            kinds += ("extreme",)
            if self.tensor:
                kinds += ("clamp_call",)
            else:
                kinds += ("scale", "divide", "record", "logical", "compare")
                kinds += ("log_length", "comprehension", "lambda")
            if self.on("floats"):
                kinds += ("int_of_float",)
        kind = self.choice(kinds)
        sub = depth + 1
        if kind == "name":
            return self.readable_name("int")
        if kind == "constant":
            return self.constant()
        if kind == "arith":
            op = self.choice(("+", "-"))
            return f"({self.expression(sub)} {op} {self.expression(sub)})"
        if kind == "scale":
            return f"({self.expression(sub)} * {self.draw(st.integers(2, 3))})"
        if kind == "divide":
            op = self.choice(("//", "%"))
            return f"({self.expression(sub)} {op} {self.expression(sub)})"
        if kind == "floor_constant":
            op = self.choice(("//", "%"))
            return f"({self.expression(sub)} {op} {self.draw(st.integers(2, 3))})"
        if kind == "call":
            return f"{self.choice(('double', 'clamp'))}({self.expression(sub)})"
        if kind == "extreme":  # (staged: Python's `b if b > a else a`)
            function = self.choice(("max", "min"))
            return f"{function}({self.expression(sub)}, {self.expression(sub)})"
        if kind == "clamp_call":
            return f"clamp({self.expression(sub)} * {self.draw(st.integers(2, 3))})"
        if kind == "record":
            return f"record(log, {self.expression(sub)})"
        if kind == "ternary":
            return (
                f"({self.expression(sub)} if {self.condition(sub)}"
                f" else {self.expression(sub)})"
            )
        if kind == "logical":
            op = self.choice(("and", "or"))
            return f"({self.expression(sub)} {op} {self.expression(sub)})"
        if kind == "negate":
            return f"(-{self.expression(sub)})"
        if kind == "compare":
            return self.comparison(sub)
        if kind == "int_of_float":
            return f"int({self.expression(sub, 'float')})"
        if kind == "comprehension":
            stop = self.draw(st.integers(0, 3))
            element = self.scoped("k", lambda: self.expression(sub))
            test = self.scoped("k", lambda: self.condition(2))
            return f"sum([{element} for k in range({stop}) if {test}])"
        if kind == "lambda":
            body = self.scoped("k", lambda: self.expression(sub))
            return f"(lambda k: {body})({self.expression(sub)})"
        return "len(log)"

    def float_expression(self, depth: int) -> str:
        kinds: tuple[str, ...] = ("name", "constant")
        if depth < 2:
            kinds += ("arith", "halve", "of_int", "ternary", "clamp")
            if not self.tensor:
                kinds += ("divide",)
        kind = self.choice(kinds)
        sub = depth + 1
        if kind == "name":
            return self.readable_name("float")
        if kind == "constant":
            return self.constant("float")
        if kind == "arith":
            op = self.choice(("+", "-"))
            left = self.expression(sub, "float")
            return f"({left} {op} {self.expression(sub, 'float')})"
        if kind == "halve":
            return f"({self.expression(sub, 'float')} * 0.5)"
        if kind == "of_int":
            return f"float({self.expression(sub)})"
        if kind == "ternary":
            return (
                f"({self.expression(sub, 'float')} if {self.condition(sub)}"
                f" else {self.expression(sub, 'float')})"
            )
        if kind == "clamp":
            return f"fclamp({self.expression(sub, 'float')} * 2.0)"
        left = self.expression(sub, "float")
        return f"({left} / {self.expression(sub, 'float')})"

    def scoped(self, name: str, make: Callable[[], str]) -> str:
        """``make()``, drawn while ``name`` is bound (in a nested scope)."""
        outer = set(self.defined)
        self.defined.add(name)
        try:
            return make()
        finally:
            self.defined = outer

    def comparison(self, depth: int) -> str:
        ty = "float" if self.on("floats") and self.chance(30) else "int"
        left, right = self.expression(depth, ty), self.expression(depth, ty)
        if self.chance(15) and (not self.tensor or self.on("chained")):
            last = self.expression(depth, ty)
            # A walrus in a later operand keeps the chain as written (it
            # would bind inside a lambda): a TypeError on graph tensors.
            if not (self.tensor and ":=" in right + last):
                return f"({left} < {right} <= {last})"
        return f"({left} {self.choice(_COMPARISONS)} {right})"

    def condition(self, depth: int = 0) -> str:
        """A test for ``if``/``while``/``assert``/ternaries (a bool in
        tensor mode)."""
        if depth >= 2:
            return self.comparison(depth)
        if self.chance(12):
            makers = self.condition_makers(depth)
            if makers:
                return self.pick(makers)()
        kinds = ["compare", "and", "or", "not"]
        if not self.tensor:
            kinds.append("truthy")
        if self.names_of("bool"):
            kinds.append("flag")
        kind = self.choice(kinds)
        sub = depth + 1
        if kind == "compare":
            return self.comparison(depth)
        if kind == "truthy":
            return self.expression(sub)
        if kind == "flag":
            return self.readable_name("bool")
        if kind == "not":
            return f"(not {self.condition(sub)})"
        return f"({self.condition(sub)} {kind} {self.condition(sub)})"

    # Statements.

    def block(self, depth: int, *, min_size: int = 1) -> list[str]:
        """A non-empty list of source lines at one indentation level."""
        size = self.draw(st.integers(min_size, 4))
        lines: list[str] = []
        for _ in range(size):
            if self.budget <= 0 and lines:
                break
            self.budget -= 1
            new, terminal = self.statement(depth)
            lines += new
            if terminal and not self.chance(10):
                break  # usually no dead code after return/break/continue
        return lines or ["pass"]

    def statement(self, depth: int) -> tuple[list[str], bool]:
        """One statement; also says whether it always leaves the block."""
        kinds = ["assign", "augassign"]
        if not self.tensor:
            kinds += ["print", "record", "assert"]
        if depth < _MAX_DEPTH:
            kinds += ["if", "if", "if"]
            if self.loop_depth < _MAX_LOOP_DEPTH:
                kinds += ["while", "for_range", "for_list"]
        kinds += ["return"]
        if self.loop_depth:
            kinds += ["break", "continue"]
        if self.defined & set(NAMES["int"]):
            kinds += ["swap"]
            if not self.tensor:
                kinds += ["del"]
        kinds += self.feature_statements(depth)
        kind = self.choice(kinds)
        if kind in ("break", "continue"):
            return [kind], True
        if kind == "return":
            return [self.return_statement()], True
        if kind == "if":
            return self.if_statement(depth), False
        if kind == "while":
            return self.while_statement(depth), False
        if kind in ("for_range", "for_list"):
            return self.for_statement(depth, kind), False
        method = getattr(self, f"s_{kind}", None)
        if method is not None:
            return method(depth)
        return [self.simple_statement(kind)], False

    def simple_statement(self, kind: str) -> str:
        label = self.label()
        if kind == "print":
            values = [self.expression() for _ in range(self.draw(st.integers(0, 2)))]
            return "print(" + ", ".join([f"'p{label}'", *values]) + ")"
        if kind == "record":
            return f"record(log, {self.expression()})"
        if kind == "assert":
            test = self.condition()
            return f"assert {test}, 'a{label}'" if self.chance(70) else f"assert {test}"
        if kind == "swap":
            first, second = self.two_variables()
            line = f"{first}, {second} = {second}, {first}"
            self.assigned(first, second)
            return line
        if kind == "del":
            name = self.choice(sorted(self.defined & set(NAMES["int"])))
            self.defined.discard(name)
            return f"del {name}"
        ty = "int"
        if self.on("floats") and self.chance(40):
            ty = self.choice(("float", "bool"))
        if kind == "augassign" and ty != "bool":
            target = self.readable_name_among(NAMES[ty])
            if target is not None:
                return self.augmented(target, ty)
        target = self.choice(NAMES[ty])
        line = f"{target} = {self.bounded(self.expression(ty=ty), ty)}"
        self.assigned(target)
        return line

    def augmented(self, target: str, ty: str) -> str:
        """``target op= value``; in tensor mode by a small constant only, so
        values stay bounded in any loop."""
        if self.tensor:
            return f"{target} {self.choice(('+=', '-='))} {self.constant(ty)}"
        ops = ("+=", "-=", "*=") if ty == "float" else ("+=", "-=", "*=", "//=", "%=")
        op = self.choice(ops)
        value = str(self.draw(st.integers(2, 3))) if op == "*=" else None
        return f"{target} {op} {value or self.expression(ty=ty)}"

    def bounded(self, value: str, ty: str) -> str:
        """Tensor mode: an assigned value clamped to [-9, 9] (no overflow in
        int32, exact in float32); Python mode: the value itself."""
        if not self.tensor or ty == "bool":
            return value
        return f"{'fclamp' if ty == 'float' else 'clamp'}({value})"

    def two_variables(self) -> list[str]:
        return self.draw(
            st.lists(st.sampled_from(NAMES["int"]), min_size=2, max_size=2, unique=True)
        )

    def readable_name_among(self, names: tuple[str, ...]) -> str | None:
        candidates = sorted(self.defined & set(names))
        return self.choice(candidates) if candidates else None

    def assigned(self, *names: str) -> None:
        self.defined.update(names)
        self.maybe.update(names)

    def return_statement(self) -> str:
        if self.tensor:
            return "return " + ", ".join([self.expression(), *self.state_values()])
        kind = self.choice(("value", "bare", "tuple"))
        if kind == "bare":
            return "return"
        if kind == "tuple":
            return f"return {self.expression()}, {self.readable_name()}"
        return f"return {self.expression()}"

    def nested(self, depth: int) -> tuple[list[str], set[str]]:
        """An indented block, and the names it defines on every path."""
        before = set(self.defined)
        lines = self.block(depth + 1)
        after = self.defined
        self.defined = before
        return indent(lines), after

    def if_statement(self, depth: int) -> list[str]:
        lines = [f"if {self.condition()}:"]
        body, defined_on_all = self.nested(depth)
        lines += body
        shape = self.choice(("if", "else", "elif", "elif_else"))
        if shape.startswith("elif"):
            lines.append(f"elif {self.condition()}:")
            body, defined = self.nested(depth)
            lines += body
            defined_on_all &= defined
        if shape.endswith("else"):
            lines.append("else:")
            body, defined = self.nested(depth)
            lines += body
            defined_on_all &= defined
        else:
            defined_on_all &= self.defined  # no else: the test may be false
        self.defined = defined_on_all
        return lines

    def loop_body(self, depth: int) -> list[str]:
        """The body of a loop; afterwards, only names defined before and not
        deleted by the body count as defined (the body may run zero times)."""
        self.loop_depth += 1
        body, defined = self.nested(depth)
        self.loop_depth -= 1
        self.defined &= defined
        return body

    def loop_else(self, depth: int) -> list[str]:
        if not self.chance(20):
            return []
        body, _ = self.nested(depth)
        return ["else:", *body]

    def while_statement(self, depth: int) -> list[str]:
        fuel = f"fuel{self.label()}"
        lines = [f"{fuel} = {self.draw(st.integers(0, _MAX_FUEL))}"]
        # "returns": `while True:` left by a `return` (unless the body breaks)
        style = self.choice(("guard", "break", "while_true", "returns"))
        if style == "guard":
            lines.append(f"while {self.condition()} and {fuel} > 0:")
            lines.append(f"    {fuel} -= 1")
        else:
            test = self.condition() if style == "break" else "True"
            leave = self.return_statement() if style == "returns" else "break"
            lines += [
                f"while {test}:",
                f"    {fuel} -= 1",
                f"    if {fuel} < 0:",
                *indent(indent([leave])),
            ]
        lines += self.loop_body(depth)
        if style == "break" or style == "guard":
            lines += self.loop_else(depth)
        return lines

    def range_call(self) -> str:
        """A ``range(...)`` of at most a few items (its bounds stay small)."""
        shape = self.choice(("const", "param", "start_stop", "step"))
        if shape == "const":
            return f"range({self.draw(st.integers(0, 4))})"
        if shape == "param":
            return f"range({self.choice(PARAMETERS)})"
        if shape == "start_stop":
            return f"range({self.choice(PARAMETERS)}, {self.constant()})"
        step = self.choice(("2", "-1", "-2"))
        return f"range({self.constant()}, {self.constant()}, {step})"

    def for_statement(self, depth: int, kind: str, iterable: str = "") -> list[str]:
        names = (
            [self.choice(NAMES["int"])] if self.chance(25) else [f"i{self.loop_depth}"]
        )
        if iterable:
            pass
        elif kind == "for_range":
            iterable = self.range_call()
        elif self.chance(25):  # unpacking: for x, y in [(.., ..), ...]
            names = self.two_variables()
            pairs = [
                f"({self.expression(1)}, {self.expression(1)})"
                for _ in range(self.draw(st.integers(0, 2)))
            ]
            iterable = "[" + ", ".join(pairs) + "]"
        else:
            items = [self.expression(1) for _ in range(self.draw(st.integers(0, 3)))]
            iterable = "[" + ", ".join(items) + "]"
        return self.for_loop(depth, names, iterable)

    def for_loop(
        self, depth: int, names: list[str], iterable: str, first: tuple[str, ...] = ()
    ) -> list[str]:
        """``for names in iterable:`` with a drawn body after ``first``."""
        lines = [f"for {', '.join(names)} in {iterable}:", *indent(list(first))]
        outer = set(self.defined)
        self.defined.update(n for n in names if type_of(n))
        body = self.loop_body(depth)
        self.defined &= outer
        self.maybe.update(names)
        return lines + body + self.loop_else(depth)

    def initial_value(self, ty: str) -> str:
        """Tensor mode: a first value from constants and parameters only (no
        closure may run before every variable is assigned)."""
        value = self.choice((self.constant(ty), *PARAMETERS))
        if ty == "float":
            return value if "." in value else f"float({value})"
        if ty == "bool":
            return value if value[0].isupper() else f"({value} > 0)"
        return value

    def function(self, signature: str) -> str:
        """The whole generated function."""
        lines = self.prologue()
        for ty in ("int", "float", "bool"):
            if ty != "int" and not self.on("floats"):
                continue
            for name in NAMES[ty]:
                if self.tensor:
                    lines.append(f"{name} = {self.initial_value(ty)}")
                    self.assigned(name)
                elif name in self.force_assign or self.chance(60):
                    lines.append(f"{name} = {self.expression(1, ty)}")
                    self.assigned(name)
        lines += self.block(0)
        if self.tensor:
            lines.append(self.return_statement())
            return f"def {signature}:\n" + "\n".join(indent(lines)) + "\n"
        lines += self.epilogue()
        if self.chance(50):
            extra = self.python_results()
            lines.append("return " + ", ".join([self.expression(), *extra]))
        return f"def {signature}:\n" + "\n".join(indent(lines)) + "\n"


def type_of(name: str) -> str | None:
    """The type of a variable of generated code, by its name."""
    if name in TYPE_OF:
        return TYPE_OF[name]
    if name in PARAMETERS or (name[:1] in "iw" and name[1:].isdigit()):
        return "int"
    return None


def indent(lines: list[str]) -> list[str]:
    """The lines one level deeper; an item may hold several lines (a
    ``return`` that ``container_returns`` builds a list for first)."""
    return ["    " + part for line in lines for part in line.split("\n")]
