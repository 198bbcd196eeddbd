"""The conversion pipeline, written once, in order (STYLE 3).

`convert_node` rewrites one function (or lambda) tree; `convert_function`
adds what a live Python function needs: its source, what its free names
refer to, and loading the result with the original's globals and closure.
The CLI uses `convert_node` alone, on source text it never runs.
"""

from __future__ import annotations

import ast
import builtins
import functools
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import runtime.operators as operators
from autograph.converters import (
    asserts,
    assignment_expressions,
    break_statements,
    call_trees,
    cleanup,
    conditional_expressions,
    continue_statements,
    control_flow,
    lists,
    logical_expressions,
    return_statements,
    variables,
)
from autograph.core import unsupported
from autograph.core.converter import (
    AG,
    CodeAfterReturn,
    CompareChain,
    Context,
    ListMethodCall,
    LoopElse,
    NestedFunction,
    function_def,
)
from autograph.impl import codegen
from autograph.pyct import loader, naming, parser, transformer
from autograph.pyct.static_analysis import activity

_FACTORY = "create_converted_entity"
_LAMBDA = "converted_lambda__"


def _survey(node: ast.AST) -> tuple[set[str], set[type]]:
    """The names the tree uses (generated ones must differ) and its node
    classes (`ast.Not` for a `not`, and the markers of core.converter)."""
    names = {AG, _FACTORY}
    kinds: set[type] = set()
    stack: list = [node]
    while stack:  # a walk, in no particular order
        child = stack.pop()
        if not isinstance(child, ast.AST):
            continue  # e.g. the names of a `global` statement
        kind = type(child)
        kinds.add(kind)
        fields = child.__dict__
        for name in transformer.child_fields(kind):
            value = fields.get(name)
            if type(value) is list:
                stack.extend(value)
            elif value is not None:
                stack.append(value)
        if kind is ast.Name:
            names.add(child.id)
        elif kind is ast.arg:
            names.add(child.arg)
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            names.add(child.name)
            if any(isinstance(s, ast.Return) for s in child.body[:-1]):
                kinds.add(CodeAfterReturn)
            if child is not node:
                kinds.add(NestedFunction)
        elif kind is ast.alias:
            names.add((child.asname or child.name).split(".")[0])
        elif kind is ast.ExceptHandler and child.name:
            names.add(child.name)
        elif kind in (ast.Global, ast.Nonlocal):
            names.update(child.names)
        elif kind in (ast.For, ast.While) and child.orelse:
            kinds.add(LoopElse)
        elif kind is ast.UnaryOp and type(child.op) is ast.Not:
            kinds.add(ast.Not)
        elif kind is ast.Compare and len(child.ops) > 1:
            kinds.add(CompareChain)
        elif (
            kind is ast.Call
            and type(child.func) is ast.Attribute
            and child.func.attr in ("append", "pop")
        ):
            kinds.add(ListMethodCall)
    return names, kinds


# The passes, in order. Order matters:
# - variables reads Python's own definedness, so it runs on the untouched tree;
# - returns are lowered before breaks (a return in a loop stops the loop
#   with its own flag) and breaks before continues (as in Python, a
#   `continue` guard never hides a `break`);
# - lists and call_trees see user statements before they move into
#   generated functions, and emit ag__ calls that later passes leave alone;
# - assignment_expressions moves a `while` test that assigns into the loop's
#   state: after jump lowering, whose flags guard it, before control_flow;
# - control_flow needs every jump lowered, and emits `not flag` tests and
#   lambdas that the expression converters then rewrite;
# - cleanup tidies what control_flow generated.
# A pass runs only when the tree may hold what it rewrites (`needed` on
# `ctx.kinds`: the node classes present, to which each pass adds what it
# emits, its `EMITS`): most functions hold no assert, break or conditional
# expression, and skipping a pass skips a walk over the whole tree.
PIPELINE = (
    variables,
    asserts,
    return_statements,
    break_statements,
    continue_statements,
    lists,
    call_trees,
    assignment_expressions,
    control_flow,
    conditional_expressions,
    logical_expressions,
    cleanup,
)


def convert_node(
    node: ast.FunctionDef | ast.Lambda,
    *,
    filename: str,
    is_builtin: Callable[[str], bool] = lambda name: hasattr(builtins, name),
    is_library: Callable[[str], bool] = lambda name: False,
    lookup: Callable[[str], Any] = lambda name: None,
    recursive: bool = True,
) -> ast.FunctionDef | ast.Lambda:
    """Converts a function or lambda tree in place and returns it.

    Args:
        node: The tree, with the user's file positions.
        filename: The user's file, for error messages.
        is_builtin: Whether a free name of the function is a Python builtin.
        is_library: Whether a free name refers to library code (calls through
            it are left as they are).
        lookup: The value of a free name of the function, or None (to
            recognize directives such as `autograph.set_loop_options`).
        recursive: Whether calls to other functions are converted too.

    Raises:
        ConversionError: The function uses syntax that is not supported.
    """
    name = getattr(node, "name", "<lambda>")
    names, kinds = _survey(node)
    generators: list[ast.FunctionDef] = []
    if ast.Yield in kinds or ast.YieldFrom in kinds:
        generators = unsupported.nested_generators(node)
    if not kinds.isdisjoint(unsupported.KINDS):
        unsupported.check(
            node, function_name=name, filename=filename, generators=generators
        )
    hidden = [_hide_body(fn) for fn in generators]
    ctx = Context(
        function_name=name,
        filename=filename,
        namer=naming.Namer(names),
        is_builtin=is_builtin,
        is_library=is_library,
        lookup=lookup,
        recursive=recursive,
        kinds=kinds,
    )
    if ast.Try in kinds or getattr(ast, "TryStar", ast.Try) in kinds:
        # A graph cannot catch what a branch raises when it runs: the
        # backend refuses a raise that one of these `try`s would handle.
        operators.register_handlers(filename, activity.handled_lines(node))
    for converter in PIPELINE:
        if converter.needed(ctx.kinds):
            node = converter.transform(node, ctx)
    if hidden:
        _restore_bodies(node, hidden)
    codegen.fill_locations(node)
    return node


def _hide_body(fn: ast.FunctionDef) -> tuple[ast.FunctionDef, list[ast.stmt]]:
    """Gives a nested generator a stand-in body for the passes; returns the
    function and its real body, which stays plain Python (`_restore_bodies`).

    The stand-in reads the same free names and writes the same `nonlocal`
    and `global` names, so the analyses see the function as they would.
    """
    body = fn.body
    declared = activity.declarations(fn)
    reads = sorted(activity.reads(body) - activity.local_names(fn))
    writes = sorted(activity.writes(body) & set(declared))
    stand_in: list[ast.stmt] = []
    for kind, cls in (("nonlocal", ast.Nonlocal), ("global", ast.Global)):
        names = sorted(n for n, k in declared.items() if k == kind)
        if names:
            stand_in.append(cls(names=names))
    if reads:
        loads = [ast.Name(id=n, ctx=ast.Load()) for n in reads]
        stand_in.append(ast.Expr(value=ast.Tuple(elts=loads, ctx=ast.Load())))
    for name in writes:
        value = ast.Constant(value=None, kind=None)
        target = ast.Name(id=name, ctx=ast.Store())
        stand_in.append(ast.Assign(targets=[target], value=value, type_comment=None))
    fn.body = stand_in or [ast.Pass()]
    return fn, body


def _restore_bodies(
    node: ast.AST, hidden: list[tuple[ast.FunctionDef, list[ast.stmt]]]
) -> None:
    """Puts the real bodies of nested generators back (see `_hide_body`)."""
    present = {id(child) for child in transformer.walk(node)}
    for fn, body in hidden:
        if id(fn) not in present:  # a pass copied it: never run the stand-in
            raise AssertionError(f"nested generator {fn.name!r} lost in conversion")
        fn.body = body


@dataclass
class ConvertedEntity:
    """A converted function, ready to be bound to a closure.

    Attributes:
        code: The converted function's code object.
        node: The converted tree; `source` is unparsed from it on first use
            (running converted code never needs the text).
    """

    code: types.CodeType
    node: ast.AST = field(compare=False, repr=False)

    @functools.cached_property
    def source(self) -> str:
        """The converted source, as `to_code` shows it."""
        return codegen.to_source(self.node)


_lock = threading.RLock()
_cache: dict[tuple[types.CodeType, str, bool], ConvertedEntity] = {}


def clear_cache() -> None:
    """Forgets every conversion (for benchmarks measuring fresh conversions)."""
    with _lock:
        _cache.clear()


# Code objects made by conversion, nested ones included: functions and
# lambdas defined inside converted code are converted already.
_converted_codes: set[types.CodeType] = set()


def is_converted_code(code: types.CodeType) -> bool:
    """Whether `code` was produced by conversion."""
    return code in _converted_codes


def _remember(code: types.CodeType) -> None:
    stack = [code]
    while stack:
        current = stack.pop()
        _converted_codes.add(current)
        for const in current.co_consts:
            if type(const) is types.CodeType:
                stack.append(const)


def convert_entity(
    function: types.FunctionType,
    *,
    recursive: bool,
    is_library: Callable[[str], bool],
) -> ConvertedEntity:
    """Converts `function`'s code, once per code object (thread-safe)."""
    code = function.__code__
    key = (code, code.co_filename, recursive)
    entity = _cache.get(key)
    if entity is not None:
        return entity
    with _lock:
        entity = _cache.get(key)
        if entity is None:
            entity = _convert(function, recursive=recursive, is_library=is_library)
            _cache[key] = entity
    return entity


def _convert(
    function: types.FunctionType, *, recursive: bool, is_library: Callable[[str], bool]
) -> ConvertedEntity:
    parsed = parser.parse_entity(function)
    owner = enclosing_class(function.__qualname__)
    if owner is not None:
        mangle_private_names(parsed.node, owner)
    scope = {**function.__globals__, **dict.fromkeys(function.__code__.co_freevars)}

    def is_builtin(name: str) -> bool:
        return name not in scope and hasattr(builtins, name)

    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))

    def lookup(name: str) -> Any:
        if name in cells:
            try:
                return cells[name].cell_contents
            except ValueError:  # an empty cell
                return None
        return function.__globals__.get(name)

    node = convert_node(
        parsed.node,
        filename=parsed.filename,
        is_builtin=is_builtin,
        is_library=is_library,
        lookup=lookup,
        recursive=recursive,
    )
    entity_name = getattr(node, "name", "<lambda>")
    if isinstance(node, ast.Lambda):
        target = ast.copy_location(ast.Name(id=_LAMBDA, ctx=ast.Store()), node)
        definition: ast.stmt = ast.copy_location(
            ast.Assign(targets=[target], value=node, type_comment=None), node
        )
        returned = _LAMBDA
    else:
        definition = node
        returned = node.name
    free_vars = list(function.__code__.co_freevars)
    body: list[ast.stmt] = [ast.Return(value=_load(returned))]
    if returned not in free_vars:
        # `def f` binds `f` in the factory; a recursive call in `f` must still
        # reach the module's `f`, as in the original.
        body.insert(0, ast.Global(names=[returned]))
    factory = function_def(_FACTORY, [AG, *free_vars], body)
    module = ast.Module(body=[factory], type_ignores=[])
    # The definition has its positions (convert_node): only the factory's
    # own nodes need some, so it is added after they get them.
    codegen.fill_locations(factory, definition.lineno)
    factory.body.insert(len(body) - 1, definition)
    probe = loader.load_function(
        module,
        located=True,
        filename=parsed.filename,
        entity_name=entity_name,
        free_vars=free_vars,
        globals_=function.__globals__,
        closure_values=dict.fromkeys([AG, *free_vars]),
    )
    _remember(probe.__code__)
    return ConvertedEntity(code=probe.__code__, node=node)


def enclosing_class(qualname: str) -> str | None:
    """The name of the class whose body a function is written in, if any.

    In a qualified name a function is followed by `<locals>`; a class is
    followed by what it defines:

        >>> enclosing_class("A.m"), enclosing_class("A.m.<locals>.inner")
        ('A', 'A')
        >>> enclosing_class("f.<locals>.g") is None
        True
    """
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return None


def mangle_private_names(node: ast.AST, class_name: str) -> None:
    """Renames `__x` to `_Class__x` as Python does in code written in a
    class body, in place: converted code is compiled outside the class, so
    `self.__secret` would otherwise look up the unmangled name."""
    prefix = "_" + class_name.lstrip("_")
    if prefix == "_":
        return  # a class named only with underscores mangles nothing

    def mangled(name: str | None) -> str | None:
        if name and name.startswith("__") and not name.endswith("__"):
            return prefix + name
        return name

    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            child.id = mangled(child.id)
        elif isinstance(child, ast.Attribute):
            child.attr = mangled(child.attr)
        elif isinstance(child, (ast.arg, ast.keyword)):
            child.arg = mangled(child.arg)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if child is not node:
                child.name = mangled(child.name)
        elif isinstance(child, (ast.Global, ast.Nonlocal)):
            child.names = [mangled(n) for n in child.names]
        elif isinstance(child, ast.alias) and child.asname:
            child.asname = mangled(child.asname)


def instantiate(
    function: types.FunctionType, entity: ConvertedEntity
) -> types.FunctionType:
    """Binds converted code to `function`'s globals, closure cells and defaults."""
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    cells[AG] = operators
    closure = tuple(
        c if isinstance(c, types.CellType) else types.CellType(c)
        for c in (cells[name] for name in entity.code.co_freevars)
    )
    new = types.FunctionType(
        entity.code,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        closure,
    )
    new.__kwdefaults__ = function.__kwdefaults__
    new.__qualname__ = function.__qualname__
    new.__doc__ = function.__doc__
    new.__module__ = function.__module__
    new.__annotations__ = function.__annotations__
    new.__dict__.update(function.__dict__)
    new.__ag_original__ = function
    return new


def _load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


__all__ = [
    "ConvertedEntity",
    "clear_cache",
    "convert_entity",
    "convert_node",
    "instantiate",
]
