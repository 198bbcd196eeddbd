"""The ``datasets`` feature: loops over ``runtime.data.Dataset`` pipelines.

A mixin over ``core.Writer``; each hook checks ``self.on("datasets")``.
Python mode and tensor mode with the graph backend (JAX has no datasets:
``BACKEND_FEATURES``):

* prologue: ``ds = runtime.data.Dataset.from_tensor_slices([...])`` of one
  to four ints from constants and the parameters (in tensor mode graph
  tensors: a pipeline made from graph values), sometimes followed by
  ``.map(lambda v: v * 2)`` (or ``.map(double)``, a helper), ``.filter(...)``,
  ``.batch(2)`` (items are vectors, read as ``runtime.reduce_sum(dv)``) and
  ``.take(k)``; ``ds2``, a second, plain one; ``stats = {'n': 0}``, a
  metric a loop body updates in place (``stats['n'] = stats['n'] + dv``);
* statements: ``for dv in ds:``, ``for i, dv in enumerate(ds):`` and
  ``for dv, ev in zip(ds, ds2):`` (or ``zip(ds2, ds)``), whose bodies draw
  as every loop's (``break``/``continue``/early ``return``, a loop
  ``else``) and read the items (``atoms``), maybe first of all
  (``x = clamp(x + dv)``, or into ``stats['n']``);
* reads: ``ds.cardinality()`` as an int (the size, or -2 after a
  ``filter``).

A dataset is not a value the program returns: its items and size are read
as ints. Python mode reads them as Python ints (``int(dv)``), so values stay
Python's and errors Python's (``x // 0`` is a ZeroDivisionError); tensor
mode reads int32 tensors (the item itself, ``runtime.cast`` of the int64
size and of ``enumerate``'s index, which a graph loop gives as an int64
tensor, as TensorFlow's ``Dataset.enumerate`` does). Items are at most
twice a parameter or a constant, summed over two in a batch: bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from tests.program_gen.core import NAMES, PARAMETERS

_FILTERS = ("v > 0", "v % 2 == 0", "v != 1")


class DataFeatures:
    """The ``datasets`` feature's pipelines, loops and reads (module docs)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.batched = False  # whether `ds` is batched (its items vectors)
        self.item_reads: list[str] = []  # int reads of the enclosing loops' items
        self.body_reads: list[str] | None = None  # the next loop body's own

    def prologue(self) -> list[str]:
        lines = super().prologue()
        if not self.on("datasets"):
            return lines
        lines.append(f"ds = {self._pipeline()}")
        lines.append(f"ds2 = {self._slices(3)}")
        lines.append("stats = {'n': 0}")
        return lines

    def state_values(self) -> list[str]:
        values = super().state_values()
        if self.on("datasets"):
            values.append("stats['n']")
        return values

    def _slices(self, most: int) -> str:
        count = self.draw(st.integers(1, most))
        values = [
            self.choice(PARAMETERS) if self.chance(40) else self.constant()
            for _ in range(count)
        ]
        return f"runtime.data.Dataset.from_tensor_slices([{', '.join(values)}])"

    def _pipeline(self) -> str:
        pipeline = self._slices(4)
        if self.chance(30):
            pipeline += self.choice((".map(lambda v: v * 2)", ".map(double)"))
        if self.chance(30):
            pipeline += f".filter(lambda v: {self.choice(_FILTERS)})"
        if self.chance(25):
            pipeline += ".batch(2)"
            self.batched = True
        if self.chance(25):
            pipeline += f".take({self.draw(st.integers(0, 3))})"
        return pipeline

    # Reads.

    def _item(self, name: str, batched: bool) -> str:
        """An int read of the item ``name`` of a loop over a dataset."""
        value = f"runtime.reduce_sum({name})" if batched else name
        return value if self.tensor else f"int({value})"

    def _index(self, name: str) -> str:
        """An int read of ``enumerate``'s index ``name`` (an int64 tensor
        in a graph loop: cast, as its items are int32)."""
        return f"runtime.cast({name}, runtime.int32)" if self.tensor else name

    def atoms(self, ty: str) -> list[str]:
        found = super().atoms(ty)
        if ty == "int" and self.on("datasets"):
            found += self.item_reads
        return found

    def expression_makers(self, ty: str, depth: int) -> list[Callable[[], str]]:
        makers = super().expression_makers(ty, depth)
        if ty == "int" and self.on("datasets"):
            makers.append(self._cardinality)
        return makers

    def _cardinality(self) -> str:
        size = f"{self.choice(('ds', 'ds', 'ds2'))}.cardinality()"
        return f"runtime.cast({size}, runtime.int32)" if self.tensor else f"int({size})"

    def python_results(self) -> list[str]:
        values = super().python_results()
        if self.on("datasets"):
            values.append(f"[{self._item('dv', self.batched)} for dv in ds]")
            values.append("stats")
        return values

    # Statements.

    def feature_statements(self, depth: int) -> list[str]:
        kinds = super().feature_statements(depth)
        if self.on("datasets") and depth < 3 and self.loop_depth < 3:
            kinds += ["data_loop", "data_loop", "data_enumerate", "data_zip"]
        return kinds

    def _data_loop(
        self, depth: int, names: list[str], iterable: str, reads: list[str]
    ) -> tuple[list[str], bool]:
        """``for names in iterable:``, whose body may read ``reads``."""
        first: tuple[str, ...] = ()
        targets = sorted(self.defined & set(NAMES["int"]))
        if self.chance(25):
            targets = ["stats['n']"]  # a metric kept in a dict, in place
        if targets and self.chance(60):
            target = self.choice(targets)
            update = self.bounded(f"{target} + {self.choice(reads)}", "int")
            first = (f"{target} = {update}",)
        self.body_reads = reads
        return self.for_loop(depth, names, iterable, first), False

    def loop_body(self, depth: int) -> list[str]:
        # The items are read in the body only: not in the loop's `else`,
        # where they are unbound if the loop ran no iteration.
        reads, self.body_reads = self.body_reads, None
        if reads is None:
            return super().loop_body(depth)
        outer = self.item_reads
        self.item_reads = [*outer, *reads]
        try:
            return super().loop_body(depth)
        finally:
            self.item_reads = outer

    def s_data_loop(self, depth: int) -> tuple[list[str], bool]:
        item = f"dv{self.label()}"
        over, batched = ("ds", self.batched) if self.chance(75) else ("ds2", False)
        return self._data_loop(depth, [item], over, [self._item(item, batched)])

    def s_data_enumerate(self, depth: int) -> tuple[list[str], bool]:
        label = self.label()
        item = f"dv{label}"
        # (Python mode: the index is a Python int, a typed name the body reads
        # as any; tensor mode: an int64 tensor in a graph loop, read cast.)
        index = f"kd{label}" if self.tensor else f"i{self.loop_depth}"
        start = f", start={self.constant()}" if self.chance(30) else ""
        reads = [self._item(item, self.batched)]
        if self.tensor:
            reads.append(self._index(index))
        iterable = f"enumerate(ds{start})"
        return self._data_loop(depth, [index, item], iterable, reads)

    def s_data_zip(self, depth: int) -> tuple[list[str], bool]:
        label = self.label()
        item, other = f"dv{label}", f"ev{label}"
        reads = [self._item(item, self.batched), self._item(other, False)]
        if self.chance(50):
            return self._data_loop(depth, [item, other], "zip(ds, ds2)", reads)
        return self._data_loop(depth, [other, item], "zip(ds2, ds)", reads)
