"""What to write instead, when Python code uses a graph tensor as a value.

`SymbolicTensor.__bool__`/`__iter__` raise `TypeError`: a graph tensor has
no value while tracing. Inside a function autograph already converted, the
old advice ("convert the function") misleads, and the tensor's own name
(`'greater:0'`, `'loop_var_1:0'`) is not one the user wrote. `explain`
reads the user's line (the first frame outside this library) and names
what the user wrote there, with the fix:

    >>> print(hint_for_line("m = max(a, b)", "bool"))
    max(a, b) compares graph tensors as a Python bool; write rt.maximum(a, b)
    >>> print(hint_for_line("a, b = t", "iter"))  # doctest: +NORMALIZE_WHITESPACE
    unpacking the graph tensor t into a, b iterates over it in Python; index
    it instead: a, b = t[0], t[1]

The line is parsed alone (a compound statement's header gets a body), so
this costs nothing until an error is raised.
"""

from __future__ import annotations

import ast
import linecache
import types
from collections.abc import Iterator
from typing import Any

from runtime.source_locations import user_frame

__all__ = ["explain", "hint_for_line"]

# Builtins that compare their arguments: name -> the graph op to use.
_COMPARING = {"max": "rt.maximum", "min": "rt.minimum"}
# Builtins that reduce an iterable: name -> the graph op to use.
_REDUCING = {"sum": "rt.reduce_sum", "any": "rt.reduce_any", "all": "rt.reduce_all"}
_ITERATING = ("list", "tuple", "sorted", "reversed", "iter", "set", "map", "filter")


def explain(kind: str, fallback: str) -> str:
    """The message for using a graph tensor as a Python value of `kind`
    (`"bool"` or `"iter"`): the user's line, what it says and what to write
    instead, or `fallback` where the line says nothing we recognise."""
    frame = user_frame(2)
    if frame is None:
        return fallback
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    implicit = implicitly_called(frame, kind)
    if implicit is not None:
        return implicit
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    hint = hint_for_line(line, kind) if line else None
    if hint is None:
        if not _converted(frame):
            return f"{fallback} (at {where})"
        return f"{_converted_fallback(kind)} (at {where}: {line})"
    return f"{hint} (at {where})"


def hint_here(kind: str, library: str, values: str) -> str | None:
    """`hint_for_line` for the user's line (the first frame outside this
    library), for another library's values (`"jnp"`, `"JAX tracers"`),
    with `(at file:line)`; None where the line says nothing we recognise."""
    frame = user_frame(2)
    if frame is None:
        return None
    implicit = implicitly_called(frame, kind, library)
    if implicit is not None:
        return implicit
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    hint = hint_for_line(line, kind, library, values) if line else None
    if hint is None:
        return None
    return f"{hint} (at {frame.f_code.co_filename}:{frame.f_lineno})"


def used_as_number(kind: str, text: str, library: str = "rt", value: Any = None) -> str:
    """The message for a traced `value` (`text`: how to call it, "the
    symbolic tensor 'x:0'") used where Python needs a number of `kind`
    ("float": `float()`, `math.floor`, `"%.3f" % x`; "int": an index,
    `range()`, `enumerate`'s start), at the user's line, naming the user's
    variable that holds it, with the fix in `library` ("rt", or "jnp")."""
    frame = user_frame(2)
    if frame is not None:
        implicit = implicitly_called(frame, kind, library)
        if implicit is not None:
            return implicit
    at = f" at {frame.f_code.co_filename}:{frame.f_lineno}" if frame else ""
    name = _holder(frame, value) if frame is not None else None
    if name is not None:
        text = f"{name!r} ({text})"
    graph = library == "rt"
    when = "the graph runs" if graph else "the compiled function runs"
    if kind == "int":
        uses = "an index, range(), a count such as enumerate()'s start"
        arange, array = (
            ("rt.range", "a tensor") if graph else ("jnp.arange", "an array")
        )
        fix = (
            f"{library} ops on it instead ({arange}(n), xs[i] on {array}, i + n "
            "inside the loop)"
        )
    else:
        uses = "float(), a math function, '%' formatting"
        fix = (
            "rt.cast(value, rt.float32) or the rt op (rt.sqrt, ...)"
            if graph
            else f"value.astype(float) or the {library} op ({library}.floor, ...)"
        )
    show = "rt.print(value)" if graph else 'jax.debug.print("{}", value)'
    return (
        f"{text} is used as a Python {kind}{at} ({uses}): its value is only known "
        f"when {when}; for a {'tensor' if graph else 'traced value'}, write {fix}; "
        f"to show it when {when}, {show}"
    )


def _holder(frame: types.FrameType, value: Any) -> str | None:
    """The user's variable in `frame` that holds `value`, if one does."""
    if value is None:
        return None
    for name, held in frame.f_locals.items():
        if held is value and not name.startswith("ag__") and not name.endswith("_"):
            return name
    return None


def _converted(frame: types.FrameType) -> bool:
    """Whether `frame` runs code autograph converted."""
    return "ag__" in frame.f_code.co_freevars or "ag__" in frame.f_globals


# How Python comes to call a method itself, by the method's name.
_IMPLICIT_CALLS = {
    "__init__": "a class call",
    "__new__": "a class call",
    "__post_init__": "a dataclass's class call",
    "__enter__": "`with`",
    "__exit__": "`with`",
    "__bool__": "a truth test",
    "__len__": "len() or a truth test",
    "__iter__": "iteration",
    "__next__": "iteration",
    "__getitem__": "a subscript",
    "__setitem__": "a subscript",
    "__delitem__": "a subscript",
    "__contains__": "`in`",
    "__getattr__": "an attribute read",
    "__getattribute__": "an attribute read",
    "__setattr__": "an attribute assignment",
}
_USES = {
    "bool": "as a Python bool (an `if`, `while`, `and`/`or`)",
    "iter": "as a Python iterable",
    "int": "as a Python int",
    "float": "as a Python float",
}


def implicitly_called(
    frame: types.FrameType, kind: str, library: str = "rt"
) -> str | None:
    """The message for a graph value used as a Python `kind` value in a
    method Python called implicitly (an operator, a property, `with`, ...)
    from converted code: autograph converts the calls it sees, so that
    method runs unconverted; None for any other frame."""
    code = frame.f_code
    if _converted(frame) or not any(_converted(f) for f in _callers(frame)):
        return None
    how = _implicit_call(frame)
    if how is None:
        return None
    name = getattr(code, "co_qualname", code.co_name)
    fix = "rt.cond / rt.where" if library == "rt" else f"{library}.where / jax.lax.cond"
    return (
        f"{name} ({code.co_filename}:{frame.f_lineno}) uses a traced value "
        f"{_USES.get(kind, 'as a Python value')}, but runs unconverted: Python "
        f"calls it implicitly ({how}), not through autograph, which converts "
        "the calls it sees; move that code into a method called explicitly "
        f"(obj.method(...)) or a function, which are converted, or write {fix}"
    )


def _callers(frame: types.FrameType) -> Iterator[types.FrameType]:
    caller = frame.f_back
    while caller is not None:
        yield caller
        caller = caller.f_back


def _implicit_call(frame: types.FrameType) -> str | None:
    """How Python called the method running in `frame` itself, or None
    where it is not such a method (a plain call)."""
    code = frame.f_code
    name = code.co_name
    if name.startswith("__") and name.endswith("__") and name != "__call__":
        return _IMPLICIT_CALLS.get(name, "an operator")
    if not code.co_argcount:
        return None
    owner = frame.f_locals.get(code.co_varnames[0])
    for klass in type(owner).__mro__:
        for attribute, value in vars(klass).items():
            getter = getattr(value, "fget", None) or getattr(value, "func", None)
            if getattr(getter, "__code__", None) is code:
                return f"reading the property .{attribute}"
    return None


def _converted_fallback(kind: str) -> str:
    if kind == "bool":
        return (
            "a graph tensor is used as a Python bool, whose value is only known "
            "when the graph runs; use it as the condition of an `if`/`while` "
            "statement, or rt.cond / rt.where"
        )
    return (
        "a graph tensor is iterated over in Python, which needs its values; "
        "iterate over it with a `for` statement (one graph loop), or index it"
    )


def hint_for_line(
    line: str, kind: str, library: str = "rt", values: str = "graph tensors"
) -> str | None:
    """What `line` does with a graph tensor and what to write instead, or
    None. (Only `max`/`min` of two values has a hint for another
    `library`'s `values`.)"""
    tree = _parse(line)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            hint = _call_hint(node, kind, library, values)
            if hint is not None:
                return hint
        if kind == "bool" and _sorts(node):
            return _sort_hint(node, library, values)  # type: ignore[arg-type]
    if kind == "bool":
        for node in ast.walk(tree):
            if isinstance(node, _COMPREHENSIONS) and node.generators[-1].ifs:
                return _filter_hint(node, library, values)
    if library != "rt":
        return None
    if kind == "iter":
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _is_tuple(node.targets[0]):
                return _unpack_hint(node.targets[0], node.value)
            if isinstance(node, ast.For) and _is_tuple(node.target):
                return _unpack_each_hint(node.target, node.iter)
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _filter_hint(node: Any, library: str, values: str) -> str:
    """A comprehension's `if` on traced values: how many items it keeps
    would depend on them."""
    test = ast.unparse(node.generators[-1].ifs[0])
    item = ast.unparse(node.value if isinstance(node, ast.DictComp) else node.elt)
    return (
        f"the comprehension's condition `if {test}` tests {values} as a Python "
        "bool, whose values are not known while tracing (how many items it keeps "
        f"would depend on them); keep every item and choose each value with "
        f"{library}.where({test}, {item}, <default>), or mask the array"
    )


def _is_tuple(node: ast.AST) -> bool:
    return isinstance(node, (ast.Tuple, ast.List))


def _parse(line: str) -> ast.AST | None:
    for text in (line, line + "\n    pass", line.rstrip(":") + ": pass"):
        try:
            return ast.parse(text)
        except SyntaxError:
            continue
    return None


def _sorts(node: ast.AST) -> bool:
    """Whether `node` is `sorted(...)` or `<list>.sort(...)`."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id == "sorted" and bool(node.args)
    return isinstance(func, ast.Attribute) and func.attr == "sort" and not node.args


def _sort_hint(node: ast.Call, library: str, values: str) -> str:
    call = ast.unparse(node)
    if library == "rt":
        fix = "sort Python values, or keep the values in one tensor"
    else:
        items = ast.unparse(
            node.args[0] if node.args else node.func.value  # type: ignore[attr-defined]
        )
        fix = (
            f"keep them in one array and write {library}.sort({library}.stack({items}))"
        )
    return (
        f"{call} compares {values} as Python bools to order them, whose values "
        f"are not known while tracing; {fix}"
    )


def _call_hint(node: ast.Call, kind: str, library: str, values: str) -> str | None:
    name = node.func.id  # type: ignore[attr-defined]
    args = [ast.unparse(a) for a in node.args]
    call = ast.unparse(node)
    if kind == "bool" and name in _COMPARING and len(args) >= 2:
        op = _COMPARING[name].replace("rt.", f"{library}.")
        return (
            f"{call} compares {values} as a Python bool; write "
            f"{op}({', '.join(args[:2])})"
        )
    if kind == "bool" and name in ("any", "all") and len(args) == 1:
        # (A graph tensor refuses the iteration first: kind "iter" below.)
        op = _REDUCING[name] if library == "rt" else f"{library}.{name}"
        items = node.args[0]
        if isinstance(items, (ast.GeneratorExp, ast.ListComp)):
            listed = ast.unparse(ast.ListComp(items.elt, items.generators))
            fix = f"{op}({library}.stack({listed}))"
        else:
            fix = f"{op}({args[0]})"
        return (
            f"{call} tests traced values as Python bools, whose values are not "
            f"known while tracing; write {fix}"
        )
    if kind != "iter" or not args or library != "rt":
        return None
    # (A converted `for` statement over enumerate()/zip() of tensors is one
    # graph loop: these are the other uses, a comprehension or list(...).)
    if name == "enumerate":
        t = args[0]
        return (
            f"{call} iterates over the graph tensor {t} in Python; write a `for` "
            f"statement over {call} (one graph loop), or loop over an index: "
            f"`for i in rt.range(rt.shape({t})[0])` and read {t}[i]"
        )
    if name == "zip" and len(node.args) == 1 and isinstance(node.args[0], ast.Starred):
        t = ast.unparse(node.args[0].value)
        return (
            f"{call} unpacks the graph tensor {t} into its rows in Python to give "
            f"its columns; write a `for` statement over rt.transpose({t}) (one "
            f"graph loop over the columns), or read a column as {t}[:, j]"
        )
    if name == "zip":
        first = args[0]
        reads = ", ".join(f"{a}[i]" for a in args)
        return (
            f"{call} iterates over graph tensors in Python; write a `for` "
            f"statement over zip() of tensors only (one graph loop), or loop over "
            f"an index: `for i in rt.range(rt.shape({first})[0])` and read {reads}"
        )
    if name in _COMPARING:
        return (
            f"{call} iterates over the graph tensor {args[0]} in Python; write "
            f"rt.reduce_{name}({args[0]})"
        )
    if name in _REDUCING:
        return (
            f"{call} iterates over the graph tensor {args[0]} in Python; write "
            f"{_REDUCING[name]}({args[0]})"
        )
    if name in _ITERATING:
        position = 1 if name in ("map", "filter") else 0  # (after the function)
        if len(node.args) <= position:
            return None
        iterable = node.args[position]
        inner = iterable.func if isinstance(iterable, ast.Call) else None
        if isinstance(inner, ast.Name) and inner.id in (
            *_ITERATING,
            "enumerate",
            "zip",
        ):
            return None  # `list(map(f, t))`: the inner call's hint names `t`
        t = ast.unparse(iterable)
        if position:
            return (
                f"{call} iterates over the graph tensor {t} in Python, which "
                f"needs its values; loop over {t} itself with a `for` statement "
                f"(one graph loop) and apply {args[0]} in its body"
            )
        return (
            f"{call} iterates over the graph tensor {t} in Python, which "
            f"needs its values; index it ({t}[0], {t}[1], ...) or "
            f"loop over it with a `for` statement"
        )
    return None


def _unpack_hint(target: Any, value: ast.AST) -> str:
    names = [ast.unparse(e) for e in target.elts]
    source = ast.unparse(value)
    reads = ", ".join(f"{source}[{i}]" for i in range(len(names)))
    return (
        f"unpacking the graph tensor {source} into {', '.join(names)} iterates "
        f"over it in Python; index it instead: {', '.join(names)} = {reads}"
    )


def _unpack_each_hint(target: Any, iterable: ast.AST) -> str:
    names = [ast.unparse(e) for e in target.elts]
    source = ast.unparse(iterable)
    reads = ", ".join(f"row[{i}]" for i in range(len(names)))
    return (
        f"unpacking each element of {source} into {', '.join(names)} iterates "
        f"over a graph tensor in Python; index it instead: `for row in {source}:` "
        f"then {', '.join(names)} = {reads}"
    )
