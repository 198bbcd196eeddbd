"""Runs graphs: plan once, then run straight-line Python that calls kernels.

    >>> import numpy as np, runtime as rt
    >>> from runtime import executor
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.float32, (None,), "x")
    ...     y = rt.tanh(x) * 2.0
    >>> run = executor.compile(g, [x], [y])
    >>> run([np.zeros(2, np.float32)])
    [array([0., 0.], dtype=float32)]

`compile` plans once: it keeps only the ops the outputs need plus every
stateful op (non-strict execution: an unused failing op never runs), in
creation order (which is a topological order, and program order for
effects). It then generates one Python function for the plan, where each op
is one line `t5 = k5(t1, t3)` calling the op's kernel with its attrs already
bound; `If` becomes an `if`/`else` and `While` a `while` loop, with their
subgraphs inlined the same way (a `While` a GradientTape recorded, attr
`record`, also appends each iteration's loop variables to a list, its last
output, for its gradient). Constants and kernels are the function's
default arguments, so the hot path is local-variable loads and calls.

Buffer reuse: an elementwise op whose input is a temporary that nothing else
reads writes its result into that input's array (`t7 = u3(t6, a0, out=t6)`).
Only where it is safe: the temporary was made by an elementwise op of this
same graph (so it is a fresh array, never a view or a caller's array), this
op is its only reader, and dtype and fully known shape (not a scalar) match.

Variable updates in place: before an `AssignAdd`/`AssignSub` of the
top-level graph, the function deletes its locals that no later op reads, so
a read of the variable earlier in the graph no longer refers to its array;
the update then writes into that array when nothing else refers to it
(`runtime/ops/state.py`), as a hand-written `w -= lr * grad` does.

Nesting: Python allows 20 statically nested blocks and 100 indentation
levels in one function. An `If` or `While` nested deeper than `_MAX_BLOCKS`
loops or `_MAX_INDENT` levels is generated as a function of its own (its
inputs as arguments, its outputs returned) and called from the line where
it would have been, so graphs of any nesting depth run.

An exception from a kernel is mapped back, by the generated line it came
from, to the op that raised it: the error names the op and the user's
`file:line` that created it. Each generated function's source is in
`linecache` while the plan lives, so tracebacks show its lines.
"""

from __future__ import annotations

import builtins
import itertools
import linecache
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes, overflow
from runtime.eager import quiet_numpy, restore_numpy
from runtime.errors import InvalidArgumentError, OpError
from runtime.graph import Graph, Operation
from runtime.op_registry import KERNEL_ERRORS, bind_kernel
from runtime.tensor import SymbolicTensor

__all__ = ["ERRORS", "CompiledGraph", "compile"]

# What a kernel raises for bad values: `CompiledGraph.locate` maps these.
ERRORS = (OpError, *KERNEL_ERRORS)

_FILE_IDS = itertools.count()

# Deeper `While`s and `If`s are generated as functions of their own: Python
# refuses more than 20 nested loops (CO_MAXBLOCKS; the `try` around a body
# is one more) or 100 indentation levels in one function.
_MAX_BLOCKS = 16
_MAX_INDENT = 80

# Elementwise ops whose kernels are these ufuncs (or the Python operators that
# call them) and always return a fresh array: their results may be reused as
# `out=` buffers, and they may write into one.
_UFUNCS = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
    "Neg": np.negative,
    "Abs": np.absolute,
    "Exp": np.exp,
    "Log": np.log,
    "Sqrt": np.sqrt,
    "Tanh": np.tanh,
}
_BUFFER_DTYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _buffer_spec(t: SymbolicTensor) -> tuple[Any, tuple[int, ...]] | None:
    """(dtype, shape) when `t` could live in a reusable buffer, else None."""
    shape = t.shape
    if t.dtype not in _BUFFER_DTYPES or not shape or any(d is None for d in shape):
        return None
    return t.dtype, tuple(shape)


def _reusable(ops: Sequence[Operation], targets: Sequence[SymbolicTensor]) -> set[int]:
    """Ids of tensors of these ops that exactly one op reads and that are fresh."""
    readers: dict[int, int] = {}
    for op in ops:
        for t in op.inputs:
            readers[id(t)] = readers.get(id(t), 0) + 1
    for t in targets:
        readers[id(t)] = readers.get(id(t), 0) + 2  # an output is never reused
    return {
        id(op.outputs[0])
        for op in ops
        if op.type in _UFUNCS
        and readers.get(id(op.outputs[0])) == 1
        and _buffer_spec(op.outputs[0]) is not None
    }


# Variable updates that may write into the variable's array: only when
# nothing else refers to it (`runtime/ops/state.py`), so the top-level code
# deletes its dead locals first (a read of the variable among them).
_IN_PLACE_UPDATES = frozenset({"AssignAddVariableOp", "AssignSubVariableOp"})


def _last_uses(
    ops: Sequence[Operation], targets: Sequence[SymbolicTensor]
) -> dict[int, int]:
    """Tensor id -> index of the last op of `ops` that reads it (through
    `Identity`s, which share their input's local); outputs never die."""
    last: dict[int, int] = {}
    for index, op in enumerate(ops):
        for t in op.inputs:
            last[id(t)] = index
    for t in targets:
        last[id(t)] = len(ops)
    for op in reversed(ops):
        if op.type == "Identity":
            source, alias = id(op.inputs[0]), id(op.outputs[0])
            last[source] = max(last.get(source, -1), last.get(alias, -1))
    return last


def compile(
    graph: Graph, inputs: Sequence[SymbolicTensor], outputs: Sequence[SymbolicTensor]
) -> CompiledGraph:
    """Plans `graph` for feeding `inputs` and fetching `outputs`.

    Returns:
        A callable taking a list of NumPy values (one per input) and returning
        a list of NumPy values (arrays or NumPy scalars, one per output).

    Raises:
        ValueError: If an output or needed placeholder is not part of the plan.
    """
    return CompiledGraph(graph, inputs, outputs)


class CompiledGraph:
    """A graph planned for fixed inputs and outputs; call it with values.

    Attributes:
        graph: The graph it runs.
        inputs: The placeholders it feeds, in argument order.
        outputs: The tensors it returns.
        source: The generated Python (for reading and debugging).
        ops: The planned operations of the top-level graph, in run order.
        fn: The generated function itself: one positional argument per
            input, no checks; an error it raises goes through `locate`. For
            callers that checked the inputs already (a traced call).
    """

    def __init__(
        self,
        graph: Graph,
        inputs: Sequence[SymbolicTensor],
        outputs: Sequence[SymbolicTensor],
    ) -> None:
        self.graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        for t in self.outputs:
            if not isinstance(t, SymbolicTensor) or t.graph is not graph:
                raise ValueError(
                    f"output {t!r} is not a tensor of graph {graph.name!r}"
                )
        for t in self.inputs:
            if t.graph is not graph or t.op.type != "Placeholder":
                raise ValueError(f"input {t!r} is not a placeholder of {graph.name!r}")
        gen = _Codegen({})
        self.fn = self._fn = gen.build(graph, self.inputs, self.outputs)
        self.source = gen.source
        # Generated filename -> line -> op, for this plan and the functions
        # it calls for deeply nested ops.
        self._line_ops = gen.files
        # The generated sources are in `linecache` (tracebacks show their
        # lines) for as long as this plan lives.
        weakref.finalize(self, _forget_sources, list(gen.files))
        self.ops = gen.top_level_ops
        self._arity = len(self.inputs)

    def __call__(self, args: Sequence[Any]) -> list[Any]:
        """Runs the plan on `args` (NumPy values, one per input)."""
        if len(args) != self._arity:
            raise TypeError(f"expected {self._arity} inputs, got {len(args)}")
        try:
            return self._fn(*args)
        except ERRORS as e:
            raise self.locate(e) from e

    def locate(self, error: Exception) -> Exception:
        """The error to raise for `error` from `fn`: an `InvalidArgumentError`
        naming the op (and the user's line) whose generated line raised it."""
        op = None
        tb = error.__traceback__
        while tb is not None:  # the innermost generated line wins
            line_ops = self._line_ops.get(tb.tb_frame.f_code.co_filename)
            if line_ops is not None:
                op = line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        if op is None:
            return error
        if isinstance(error, OpError):  # its own class (OutOfRangeError, ...)
            return type(error)(error.message, op.type, op.name, op.traceback_line)
        return InvalidArgumentError(str(error), op.type, op.name, op.traceback_line)

    def __repr__(self) -> str:
        return f"<CompiledGraph of {self.graph.name!r}: {len(self.ops)} ops>"


def _const_int(t: SymbolicTensor) -> int | None:
    """The value of a scalar integer constant, else None."""
    if t.op.type != "Const" or t.shape != ():
        return None
    return int(t.op.attrs["value"])


def _forget_sources(filenames: list[str]) -> None:
    for filename in filenames:
        linecache.cache.pop(filename, None)


class _Codegen:
    """Writes the Python function for a planned graph (or for one op).

    Args:
        files: Shared by a plan's functions: generated filename -> the op of
            each line (filled in when a function is built).
    """

    def __init__(self, files: dict[str, dict[int, Operation]]) -> None:
        self.files = files
        self.blocks = 0  # loops open at the current line
        self.lines: list[str] = []
        self.line_ops: dict[int, Operation] = {}
        self.bound: dict[str, Any] = {}
        self.counter = itertools.count()
        self.may_warn = False
        self.top_level_ops: list[Operation] = []
        self.filename = f"<rt-executor-{next(_FILE_IDS)}>"
        self.source = ""
        self.reusable: set[int] = set()  # see `_reusable`

    def fresh(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self.counter)}"

    def bind(self, value: Any, prefix: str) -> str:
        name = self.fresh(prefix)
        self.bound[name] = value
        return name

    def emit(self, indent: int, text: str, op: Operation | None = None) -> None:
        self.lines.append("    " * indent + text)
        if op is not None:
            self.line_ops[len(self.lines)] = op

    def build(
        self, graph: Graph, inputs: list[SymbolicTensor], outputs: list[SymbolicTensor]
    ) -> Any:
        args = [self.fresh("a") for _ in inputs]
        env = {id(t): name for t, name in zip(inputs, args)}
        results = self.emit_graph(graph, env, outputs, 2, top_level=True)
        self.emit(2, "return [" + ", ".join(results) + "]")
        return self._finish(args)

    def build_op(self, op: Operation) -> Any:
        """A function running one `If` or `While` op: its inputs in, its
        outputs out (a tuple), for ops nested too deep to inline."""
        args = [self.fresh("a") for _ in op.inputs]
        env = {id(t): name for t, name in zip(op.inputs, args)}
        (self.emit_if if op.type == "If" else self.emit_while)(op, env, 2)
        results = [env[id(t)] for t in op.outputs]
        self.emit(2, "return (" + "".join(f"{r}, " for r in results) + ")")
        return self._finish(args)

    def _finish(self, args: list[str]) -> Any:
        """Wraps the emitted body in a function, compiles and returns it."""
        body = self.lines
        params = args + [f"{name}={name}" for name in self.bound]
        header = [f"def run({', '.join(params)}):"]
        footer = []
        if self.may_warn:
            # NumPy warnings off while it runs (TensorFlow gives inf/nan quietly).
            header += ["    _token = _quiet()", "    try:"]
            footer = ["    finally:", "        _restore(_token)"]
        else:
            header.append("    if True:")
        self.lines = [*header, *body, *footer]
        shift = len(header)
        self.line_ops = {k + shift: v for k, v in self.line_ops.items()}
        self.source = "\n".join(self.lines) + "\n"
        namespace: dict[str, Any] = {
            "_quiet": quiet_numpy,
            "_restore": restore_numpy,
            **self.bound,
        }
        code = builtins.compile(self.source, self.filename, "exec")
        exec(code, namespace)
        linecache.cache[self.filename] = (
            len(self.source),
            None,
            self.source.splitlines(True),
            self.filename,
        )
        self.files[self.filename] = self.line_ops
        return namespace["run"]

    def emit_graph(
        self,
        graph: Graph,
        env: dict[int, str],
        targets: Sequence[SymbolicTensor],
        indent: int,
        top_level: bool = False,
    ) -> list[str]:
        """Emits `graph`'s planned ops; returns the expressions of `targets`."""
        ops = graph.ops_needed(targets)
        if top_level:
            self.top_level_ops = ops
        outer_reusable, self.reusable = self.reusable, _reusable(ops, targets)
        last_use = _last_uses(ops, targets) if top_level else None
        made: list[tuple[int, int]] = []  # (tensor id, index of its op)
        for index, op in enumerate(ops):
            kind = op.type
            if last_use is not None and kind in _IN_PLACE_UPDATES:
                made = self._delete_dead(made, last_use, index, env, indent)
            if kind == "Placeholder":
                if id(op.outputs[0]) not in env:
                    raise ValueError(
                        f"the placeholder {op.name!r} is needed for the outputs but "
                        "is not one of the inputs"
                    )
            elif kind == "Const":
                env[id(op.outputs[0])] = self.bind(op.attrs["value"], "c")
            elif kind == "Identity":
                env[id(op.outputs[0])] = env[id(op.inputs[0])]
            elif kind in ("If", "While") and (
                self.blocks >= _MAX_BLOCKS or indent >= _MAX_INDENT
            ):
                self.emit_call_of_own_function(op, env, indent)
            elif kind == "If":
                self.emit_if(op, env, indent)
            elif kind == "While":
                self.emit_while(op, env, indent)
            else:
                self.emit_kernel(op, env, indent)
            if last_use is not None and kind not in (
                "Placeholder",
                "Const",
                "Identity",
            ):
                made.extend((id(t), index) for t in op.outputs)
        self.reusable = outer_reusable
        return [env[id(t)] for t in targets]

    def _delete_dead(
        self,
        made: list[tuple[int, int]],
        last_use: dict[int, int],
        index: int,
        env: dict[int, str],
        indent: int,
    ) -> list[tuple[int, int]]:
        """Emits `del` of the locals no op from `index` on reads; returns the
        rest. Before a variable update, so that a graph's own reads of the
        variable do not keep its old array alive (see `_IN_PLACE_UPDATES`)."""
        dead = [env[key] for key, _ in made if last_use.get(key, -1) < index]
        if dead:
            self.emit(indent, "del " + ", ".join(dict.fromkeys(dead)))
        return [(key, i) for key, i in made if last_use.get(key, -1) >= index]

    def _buffer(self, op: Operation, env: dict[int, str]) -> str | None:
        """The name of an input array `op` may write its result into, if any."""
        if op.type not in _UFUNCS or op.opdef.num_outputs != 1:
            return None
        spec = _buffer_spec(op.outputs[0])
        if spec is None:
            return None
        for t in op.inputs:
            if id(t) in self.reusable and _buffer_spec(t) == spec:
                return env[id(t)]
        return None

    def emit_kernel(self, op: Operation, env: dict[int, str], indent: int) -> None:
        if op.opdef.kernel is None and op.opdef.bind is None:
            raise ValueError(f"the executor cannot run op type {op.type!r}")
        self.may_warn = self.may_warn or op.opdef.may_warn
        args = [env[id(t)] for t in op.inputs]
        symbol = op.opdef.py_operator
        if symbol is not None and op.outputs[0].dtype is dtypes.string:
            symbol = None  # the kernel keeps `str + str` an array (`Add`)
        wrapped = self._overflow_check(op, args)
        buffer = None if wrapped else self._buffer(op, env)
        if buffer is not None:
            ufunc = self.bind(_UFUNCS[op.type], "u")
            call = f"{ufunc}({', '.join(args)}, out={buffer})"
        elif symbol is not None and len(args) == 2:
            call = f"{args[0]} {symbol} {args[1]}"
        elif symbol is not None and len(args) == 1:
            call = f"{symbol}{args[0]}"
        else:
            kernel = self.bind(bind_kernel(op.opdef, op.attrs), "k")
            call = f"{kernel}({', '.join(args)})"
        names = [self.fresh() for _ in op.outputs]
        for t, name in zip(op.outputs, names):
            env[id(t)] = name
        if op.opdef.num_outputs == 0 or not names:
            self.emit(indent, call, op)
        elif op.opdef.num_outputs == 1:
            self.emit(indent, f"{names[0]} = {call}", op)
        else:
            self.emit(indent, f"{', '.join(names)}, = {call}", op)
        if wrapped:
            condition, warn = wrapped
            self.emit(indent, f"if {condition.format(o=names[0])}:", op)
            self.emit(indent + 1, f"{warn}()", op)

    def _overflow_check(self, op: Operation, args: list[str]) -> Any:
        """(condition with `{o}` for the output, warn function's name) for a
        scalar integer op inside a graph loop that may wrap around, else None
        (`runtime/overflow.py`)."""
        if not self.blocks or op.type not in overflow.CHECKED or not op.outputs:
            return None
        if len(args) != 2 or not overflow.ENABLED[0]:
            return None
        out = op.outputs[0]
        if out.shape != () or out.dtype not in (dtypes.int32, dtypes.int64):
            return None
        consts = [_const_int(t) for t in op.inputs]
        condition = overflow.condition(op.type, out.dtype.name, *args, *consts)
        if condition is None:
            return None
        warn = overflow.warner(op.type, out.dtype.name, op.location)
        return condition, self.bind(warn, "w")

    def emit_call_of_own_function(
        self, op: Operation, env: dict[int, str], indent: int
    ) -> None:
        """Emits `op` (an If or While) as a call of a function of its own."""
        function = self.bind(_Codegen(self.files).build_op(op), "f")
        args = ", ".join(env[id(t)] for t in op.inputs)
        results = [self.fresh() for _ in op.outputs]
        for t, name in zip(op.outputs, results):
            env[id(t)] = name
        if results:
            self.emit(indent, f"{', '.join(results)}, = {function}({args})", op)
        else:
            self.emit(indent, f"{function}({args})", op)

    def _branch(
        self, graph: Graph, outer: list[str], results: list[str], indent: int
    ) -> None:
        env = {id(p): name for p, name in zip(graph.inputs, outer)}
        start = len(self.lines)
        values = self.emit_graph(graph, env, graph.outputs, indent)
        if results:
            self.emit(indent, f"{', '.join(results)} = {', '.join(values)}")
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def emit_if(self, op: Operation, env: dict[int, str], indent: int) -> None:
        pred, *captured = (env[id(t)] for t in op.inputs)
        results = [self.fresh() for _ in op.outputs]
        for t, name in zip(op.outputs, results):
            env[id(t)] = name
        self.emit(indent, f"if {pred}:", op)
        self._branch(op.attrs["then_branch"], captured, results, indent + 1)
        self.emit(indent, "else:", op)
        self._branch(op.attrs["else_branch"], captured, results, indent + 1)

    def emit_while(self, op: Operation, env: dict[int, str], indent: int) -> None:
        n = op.attrs["num_loop_vars"]
        inputs = [env[id(t)] for t in op.inputs]
        limit = inputs.pop() if op.attrs["has_maximum_iterations"] else None
        loop_vars = [self.fresh("v") for _ in range(n)]
        if loop_vars:
            self.emit(indent, f"{', '.join(loop_vars)}, = {', '.join(inputs[:n])},", op)
        captured = inputs[n:]
        counter = None
        if limit is not None:
            counter = self.fresh("i")
            self.emit(indent, f"{counter} = 0", op)
        record = None
        if op.attrs.get("record"):
            # A loop a GradientTape recorded keeps each iteration's loop
            # variables (its extra output) for its gradient.
            record = self.fresh("r")
            self.emit(indent, f"{record} = []", op)
            env[id(op.outputs[n])] = record
        self.emit(indent, "while True:", op)
        self.blocks += 1
        if counter is not None:
            self.emit(indent + 1, f"if {counter} >= {limit}:", op)
            self.emit(indent + 2, "break", op)
        cond, body = op.attrs["cond"], op.attrs["body"]
        cond_env = {id(p): name for p, name in zip(cond.inputs, loop_vars + captured)}
        (test,) = self.emit_graph(cond, cond_env, cond.outputs, indent + 1)
        self.emit(indent + 1, f"if not {test}:", op)
        self.emit(indent + 2, "break", op)
        if record is not None:
            self.emit(
                indent + 1, f"{record}.append(({''.join(v + ', ' for v in loop_vars)}))"
            )
        body_env = {id(p): name for p, name in zip(body.inputs, loop_vars + captured)}
        values = self.emit_graph(body, body_env, body.outputs, indent + 1)
        if loop_vars:
            self.emit(indent + 1, f"{', '.join(loop_vars)}, = {', '.join(values)},", op)
        if counter is not None:
            self.emit(indent + 1, f"{counter} += 1", op)
        self.blocks -= 1
        for t, name in zip(op.outputs, loop_vars):
            env[id(t)] = name
