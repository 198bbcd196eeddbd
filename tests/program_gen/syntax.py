"""Issue 11's features: exceptions, jumps and the rest of the syntax.

A mixin over ``core.Writer``; each hook checks ``self.on(feature)``. All but
``walrus``, ``try`` and ``iteration`` are Python mode only (they have Python
side effects or raise); in tensor mode ``try`` writes ``raise`` statements
(in graph branches and loops: the graph raises when it runs them) and ``try``
blocks without logging (a graph cannot catch: one that would is refused),
and ``iteration`` writes ``for`` over ``enumerate``/``zip`` of arrays
(``vector(a, ...)``, a helper), whose bodies may ``break`` and ``return``:

* ``try``: ``try`` with ``except KeyError``/``except (KeyError, ValueError)
  as e``/``except Exception``, ``else`` and ``finally`` in every combination;
  ``raise KeyError(...)``/``raise ValueError(...)`` statements (caught or
  not); each clause may end in a ``break``/``continue``/``return``; a name
  deleted in ``finally`` is sometimes read after, and so is ``e`` after
  ``except ... as e`` (which deletes it; the read catches the error), maybe
  after the ``if`` or loop around the ``try``; in loops, ``if <test>:
  continue`` whose test may raise and calls nothing (``{'k': 1}['missing']``,
  ``x // y``, ``2.0 / y``).
* ``with``: ``with Logged(log, 'w1') as w2:`` (logs entry and exit),
  ``with ExitRaises(log, a > 1):`` (its ``__exit__`` may raise, discarding
  the jump pending from the block),
  ``with Suppress(log, KeyError, ZeroDivisionError):`` and
  ``with contextlib.suppress(ValueError):`` (swallow exceptions).
* ``walrus``: ``(x := ...) > 1`` in ``if``/``while`` tests; Python mode also
  in comprehensions (``sum([(y := k + 1) for k in range(2)])``).
* ``comprehensions``: dict, set and generator comprehensions.
* ``iteration``: ``for`` over ``{...}.items()``, ``enumerate``, ``zip``,
  strings and ``reversed(...)``.
* ``print``: ``print(..., sep=..., end=...)`` and bare ``print()``.
* ``generators``: a nested generator function ``evens(n)`` used by ``for``
  loops, ``sum`` and ``next``, and a local ``@contextlib.contextmanager``.
* ``array_rows`` (tensor mode): ``for`` over ``vector(a, ...)`` itself (a
  staged array), over the constant ``table = numpy.array([2, -1, 3])``
  (a Python loop whose ``break``/``return`` may become traced, when the rest
  of its rows is one staged loop), and over ``enumerate(table)``/
  ``zip(table, vector(...))``.
* ``traced_print`` (tensor mode, JAX only: ``BACKEND_FEATURES``): ``print``
  of int expressions anywhere, in traced branches and loops too; JAX prints
  when the compiled function runs, on the path taken, so its output must be
  Python's (check.py compares it).
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from tests.program_gen.core import NAMES, indent

_HANDLERS = (
    "except KeyError:",
    "except ValueError:",
    "except (KeyError, ValueError) as e:",
    "except Exception as e:",
)
_TRY_SHAPES = ("except", "except_else", "finally", "except_finally", "all")


class SyntaxFeatures:
    """Issue 11's statements and expressions (see the module docs)."""

    def prologue(self) -> list[str]:
        lines = super().prologue()
        if self.on("array_rows") and self.tensor:
            lines.append("table = numpy.array([2, -1, 3], dtype=numpy.int32)")
        if self.on("generators") and not self.tensor:
            step = self.draw(st.integers(1, 3))
            lines += [
                "def evens(n):",
                "    for k in range(n):",
                "        if k == 2:",
                "            continue",
                f"        yield k * {step}",
                "@contextlib.contextmanager",
                "def scope(tag):",
                "    log.append(('in', tag))",
                "    yield len(log)",
                "    log.append(('out', tag))",
            ]
        return lines

    def expression_makers(self, ty: str, depth: int) -> list[Callable[[], str]]:
        makers = super().expression_makers(ty, depth)
        if ty != "int" or self.tensor:
            return makers
        sub = depth + 1

        def ranged(make: Callable[[], str]) -> tuple[str, str]:
            stop = self.draw(st.integers(0, 3))
            return self.scoped("k", make), f"range({stop})"

        def dict_comprehension() -> str:
            value, over = ranged(lambda: self.expression(sub))
            return f"sum({{k: {value} for k in {over}}}.values())"

        def set_comprehension() -> str:
            value, over = ranged(lambda: self.expression(sub))
            return f"len({{{value} for k in {over}}})"

        def generator_expression() -> str:
            value, over = ranged(lambda: self.expression(sub))
            test = self.scoped("k", lambda: self.condition(2))
            if self.chance(50):
                return f"sum({value} for k in {over} if {test})"
            return f"max(({value} for k in {over}), default={self.constant()})"

        def walrus_comprehension() -> str:
            target = self.choice(NAMES["int"])
            value, over = ranged(lambda: self.expression(sub))
            self.maybe.add(target)
            return f"sum([({target} := {value}) for k in {over}])"

        if self.on("comprehensions"):
            makers += [dict_comprehension, set_comprehension, generator_expression]
        if self.on("walrus"):
            makers.append(walrus_comprehension)
        if self.on("generators"):
            makers.append(lambda: f"sum(evens({self.choice(('a', 'b', '3'))}))")
            makers.append(lambda: f"next(evens({self.constant()}), -1)")
        return makers

    def condition_makers(self, depth: int) -> list[Callable[[], str]]:
        makers = super().condition_makers(depth)
        if self.on("walrus"):
            makers += [lambda: self.walrus_test(depth)] * 3
        return makers

    def walrus_test(self, depth: int) -> str:
        target = self.choice(NAMES["int"])
        value = self.bounded(self.expression(depth + 1), "int")
        test = f"(({target} := {value}) {self.choice(('>', '<=', '!='))} 1)"
        self.maybe.add(target)  # a short-circuit may skip it
        return test

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.tensor:
            # A raise in a graph branch or loop raises when the graph runs
            # it; a try that would catch it is refused (API: no catching).
            if self.on("try"):
                kinds += ["raise"] + (["try"] if depth < 3 else [])
            if self.on("iteration") and depth < 3 and self.loop_depth < 3:
                kinds.append("iterate")
            if self.on("traced_print"):
                kinds += ["traced_print", "traced_print"]
            if self.on("array_rows") and depth < 3 and self.loop_depth < 3:
                kinds.append("array_rows")
            return kinds
        if self.on("try") and depth < 3:
            kinds += ["try", "try"]
        if self.on("handler_returns") and self.loop_depth < 3:
            kinds.append("handler_return")
        if getattr(self, "caught_as_e", False):
            kinds.append("read_caught")
        if self.on("try") or self.on("with"):
            kinds.append("raise")
        if self.on("try") and self.loop_depth:
            kinds.append("raising_test")
        if self.on("with") and depth < 3:
            kinds += ["with", "with"]
        if self.on("iteration") and depth < 3 and self.loop_depth < 3:
            kinds += ["iterate", "iterate"]
        if self.on("print"):
            kinds.append("print_variant")
        if self.on("generators") and depth < 3:
            kinds += ["generator_loop", "scope"]
        return kinds

    # Statements.

    def s_raise(self, depth: int) -> tuple[list[str], bool]:
        kind = self.choice(("KeyError", "ValueError"))
        raise_line = f"raise {kind}('r{self.label()}')"
        if self.chance(60):
            test = f"if {self.condition()}:"
            if self.chance(40):  # a change that must survive the exception
                target = self.choice(NAMES["int"])
                change = f"{target} = {self.bounded(self.expression(), 'int')}"
                if target in self.defined and self.chance(50):
                    change = f"{target} += {self.constant()}"
                self.maybe.add(target)
                return [test, f"    {change}", f"    {raise_line}"], False
            return [test, f"    {raise_line}"], False
        return [raise_line], True

    def clause(self, depth: int, first: tuple[str, ...] = ()) -> list[str]:
        """An indented block, maybe ending in a jump (a return anywhere, a
        break or continue inside a loop)."""
        before = set(self.defined)
        lines = [*first, *self.block(depth + 1)]
        if self.chance(25):
            jumps = ["return"] + (["break", "continue"] if self.loop_depth else [])
            jump = self.choice(jumps)
            if jump == "return":
                jump = self.return_statement()
            lines.append(jump)
        self.defined &= before  # what a clause assigns may not have run
        return indent(lines)

    def s_try(self, depth: int) -> tuple[list[str], bool]:
        shape = self.choice(_TRY_SHAPES)
        lines = ["try:", *self.clause(depth)]
        if shape != "finally":
            count = self.draw(st.integers(1, 2))
            for handler in self.draw(
                st.lists(st.sampled_from(_HANDLERS), min_size=count, max_size=count)
            ):
                logs = " as e" in handler and not self.tensor
                first = ("record(log, type(e).__name__)",) if logs else ()
                lines += [handler, *self.clause(depth, first)]
        if shape in ("except_else", "all"):
            lines += ["else:", *self.clause(depth)]
        after = []
        if shape in ("finally", "except_finally", "all"):
            first = ()
            if self.on("del") and self.chance(30):
                name = self.choice(NAMES["int"])
                first = (f"del {name}",)
                self.defined.discard(name)
                if self.chance(50):  # read what finally deleted
                    after = [f"record(log, {name})"]
            lines += ["finally:", *self.clause(depth, first)]
        if not self.tensor and any(" as e" in line for line in lines):
            self.caught_as_e = True  # (`s_read_caught` may follow)
        return lines + after, False

    def s_handler_return(self, depth: int) -> tuple[list[str], bool]:
        """networkx's ``UnionFind.union``: a ``try`` binds a name, its
        handler returns, and the rest writes items keyed by that name (jump
        lowering's ``if`` must not read the key on the returning path)."""
        n = self.label()
        items = self.choice(("[]", "[a, b]", "[b]", "list(range(clamp(a)))"))
        target = self.choice(NAMES["int"])
        lines = [
            f"ht{n} = {{}}",
            f"hi{n} = iter({items})",
            "try:",
            f"    hk{n} = next(hi{n})",
            "except StopIteration:",
            f"    {self.return_statement()}",
            f"for hv{n} in hi{n}:",
            f"    ht{n}[hk{n}] = ht{n}.get(hk{n}, 0) + hv{n}",
            f"{target} = clamp({target if target in self.defined else 0} + "
            f"len(ht{n}) + ht{n}.get(hk{n}, 0))",
        ]
        self.assigned(target)
        return lines, False

    def epilogue(self) -> list[str]:
        lines = super().epilogue()
        if getattr(self, "caught_as_e", False) and self.chance(50):
            lines += self.s_read_caught(0)[0]
        return lines

    def s_read_caught(self, depth: int) -> tuple[list[str], bool]:
        """A read of ``e``, which ``except ... as e`` deleted (or never
        bound): after the ``try``, maybe after the ``if`` or loop around it,
        which must carry it out unbound."""
        return [
            "try:",
            "    record(log, type(e).__name__)",
            "except UnboundLocalError:",
            "    record(log, 'e unbound')",
        ], False

    def s_raising_test(self, depth: int) -> tuple[list[str], bool]:
        """``if <test that may raise, with no call>: continue``, so the test
        must be evaluated although the ``if`` changes nothing."""
        kind = self.choice(("key", "divide", "true_divide"))
        if kind == "key":
            test = f"{{'k': {self.constant()}}}[{self.choice(('k', 'missing'))!r}]"
        elif kind == "divide":
            test = f"({self.expression(1)} // {self.readable_name()})"
        else:
            test = f"(2.0 / {self.readable_name()})"
        # Says "terminal" so that it usually ends its block (the case).
        return [f"if {test}:", "    continue"], True

    def s_with(self, depth: int) -> tuple[list[str], bool]:
        kind = self.choice(("logged", "suppress", "contextlib", "exit_raises"))
        label = self.label()
        if kind == "logged":
            name = f"w{label}"
            head = f"with Logged(log, 'c{label}') as {name}:"
            self.defined.add(name)
            self.maybe.add(name)
        elif kind == "exit_raises":
            head = f"with ExitRaises(log, {self.expression(1)} > 1):"
        elif kind == "suppress":
            head = "with Suppress(log, KeyError, ZeroDivisionError):"
        else:
            head = "with contextlib.suppress(ValueError):"
        return [head, *self.clause(depth)], False

    def s_scope(self, depth: int) -> tuple[list[str], bool]:
        return [f"with scope('s{self.label()}'):", *self.clause(depth)], False

    def s_iterate(self, depth: int) -> tuple[list[str], bool]:
        target = f"i{self.loop_depth}"
        if self.tensor:
            return self.iterate_arrays(depth, target), False
        kind = self.choice(("items", "enumerate", "zip", "string", "reversed"))
        small = [self.expression(1) for _ in range(self.draw(st.integers(0, 3)))]
        listed = "[" + ", ".join(small) + "]"
        if kind == "items":
            pairs = ", ".join(f"'{k}': {v}" for k, v in zip("abc", small))
            first = ("record(log, key)",)
            iterable = f"{{{pairs}}}.items()"
            return self.for_loop(depth, ["key", target], iterable, first), False
        if kind == "enumerate":
            names = [target, self.choice(NAMES["int"])]
            return self.for_loop(depth, names, f"enumerate({listed})"), False
        if kind == "zip":
            iterable = f"zip({listed}, {self.range_call()})"
            return self.for_loop(depth, self.two_variables(), iterable), False
        if kind == "string":
            word = self.choice(("", "ab", "xyz"))
            first = ("record(log, ch)",)
            return self.for_loop(depth, ["ch"], f"'{word}'", first), False
        over = listed if self.chance(50) else self.range_call()
        return self.for_loop(depth, [target], f"reversed({over})"), False

    def vector(self) -> str:
        """``vector(a, ...)``: a 1-D array of one to three bounded ints, its
        first a parameter (so that it is staged, not a constant)."""
        rest = [
            self.bounded(self.expression(1), "int")
            for _ in range(self.draw(st.integers(0, 2)))
        ]
        return f"vector({', '.join([self.choice(('a', 'b')), *rest])})"

    def iterate_arrays(self, depth: int, target: str) -> list[str]:
        """Tensor mode: ``for`` over ``enumerate``/``zip`` of arrays, one
        staged loop over their rows (zip stops at the shortest)."""
        kind = self.choice(("enumerate", "zip", "enumerate_zip"))
        if kind == "enumerate":
            start = f", start={self.constant()}" if self.chance(30) else ""
            names = [target, self.choice(NAMES["int"])]
            return self.for_loop(depth, names, f"enumerate({self.vector()}{start})")
        first, second = self.two_variables()
        zipped = f"zip({self.vector()}, {self.vector()})"
        if kind == "zip":
            return self.for_loop(depth, [first, second], zipped)
        return self.for_loop(
            depth, [target, f"({first}, {second})"], f"enumerate({zipped})"
        )

    def s_array_rows(self, depth: int) -> tuple[list[str], bool]:
        """Tensor mode: ``for`` over an array's rows: a staged one
        (``vector(a, ...)``: one loop), or the constant ``table`` (a NumPy
        array: a Python loop, whose ``break``/``return`` may become traced,
        then one loop over the rest), or ``enumerate``/``zip`` of it."""
        target = f"i{self.loop_depth}"
        kind = self.choice(("vector", "table", "enumerate", "zip"))
        if kind == "vector":
            return self.for_loop(depth, [target], self.vector()), False
        if kind == "table":
            return self.for_loop(depth, [target], "table"), False
        if kind == "enumerate":
            names = [target, self.choice(NAMES["int"])]
            return self.for_loop(depth, names, "enumerate(table)"), False
        zipped = f"zip(table, {self.vector()})"
        return self.for_loop(depth, self.two_variables(), zipped), False

    def s_generator_loop(self, depth: int) -> tuple[list[str], bool]:
        target = f"i{self.loop_depth}"
        iterable = f"evens({self.choice(('a', '3'))})"
        return self.for_loop(depth, [target], iterable), False

    def s_traced_print(self, depth: int) -> tuple[list[str], bool]:
        values = [self.expression() for _ in range(self.draw(st.integers(1, 2)))]
        return [f"print('t{self.label()}', {', '.join(values)})"], False

    def s_print_variant(self, depth: int) -> tuple[list[str], bool]:
        label = self.label()
        kind = self.choice(("sep", "end", "bare", "star"))
        if kind == "bare":
            return ["print()"], False
        if kind == "star":
            return [f"print(*[{self.expression()}, {self.expression()}])"], False
        return [f"print('q{label}', {self.expression()}, {kind}='|')"], False
