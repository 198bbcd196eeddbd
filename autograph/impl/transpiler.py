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
import linecache
import threading
import types
import weakref

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import (
    dict,
    frozenset,
    getattr,
    hasattr,
    id,
    isinstance,
    len,
    list,
    range,
    set,
    sorted,
    tuple,
    type,
    zip,
)
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from autograph import errors
from autograph.converters import (
    asserts,
    assignment_expressions,
    break_statements,
    call_trees,
    cleanup,
    continue_statements,
    control_flow,
    lists,
    logical_expressions,
    return_statements,
    variables,
)
from autograph.core import builders as b
from autograph.core import jumps, super_calls, unsupported
from autograph.core.builders import AG
from autograph.core.converter import Context
from autograph.core.survey import Marker, survey
from autograph.impl import code_registry, codegen
from autograph.pyct import loader, naming, parser, transformer
from autograph.pyct.static_analysis import activity

_FACTORY = "create_converted_entity"
_LAMBDA = "converted_lambda__"
# Names the factory around a converted function binds: no generated name
# may take them.
RESERVED = frozenset({AG, _FACTORY, _LAMBDA})


@dataclass(frozen=True)
class Pass:
    """One rewrite of the pipeline, and when it has something to do.

    Attributes:
        module: The converter; its `transform(node, ctx)` rewrites the tree.
        triggers: Kinds (node classes, `survey.Marker`s) any of which the
            tree must hold for the pass to have something to rewrite; None:
            it always runs.
        requires: Kinds the tree must also hold, all of them.
        emits: What the pass may add to the tree: added to `ctx.kinds` after
            it ran, unless it rewrote nothing (`ctx.rewrote`), so later
            passes see what it made.
    """

    module: types.ModuleType
    triggers: frozenset | None
    emits: frozenset
    requires: frozenset = frozenset()

    @property
    def name(self) -> str:
        """The converter's module name, e.g. 'control_flow'."""
        return self.module.__name__.rsplit(".", 1)[-1]

    def triggered(self, kinds: AbstractSet) -> bool:
        """Whether a tree holding `kinds` may have something to rewrite."""
        if self.triggers is not None and kinds.isdisjoint(self.triggers):
            return False
        return self.requires <= kinds

    def run(self, node: ast.AST, ctx: Context) -> ast.AST:
        """Rewrites `node`, then adds what it may have emitted to `ctx.kinds`."""
        ctx.rewrote = True
        node = self.module.transform(node, ctx)
        if ctx.rewrote:
            ctx.kinds |= self.emits
        return node


def _kinds(*kinds: type | Marker) -> frozenset:
    return frozenset(kinds)


_LOOPS = _kinds(ast.For, ast.While)
_LAZY_OPERANDS = _kinds(ast.Call, ast.Attribute, ast.Name, ast.Lambda, ast.arguments)

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
# A pass runs only when the tree may hold what triggers it: most functions
# hold no assert, break or conditional expression, and skipping a pass
# skips a walk over the whole tree (tests/autograph/test_pipeline.py checks
# that a skipped pass would have changed nothing). variables always runs:
# it may rewrite any read. return_statements runs where a `return` is not
# the last statement of its function (four functions in five have none).
PIPELINE = (
    Pass(
        variables,
        triggers=None,
        # (`ag__.Undefined('x', deleted_by='del')`: a keyword)
        emits=_kinds(ast.Assign, ast.Expr, ast.BinOp, ast.Constant, ast.keyword)
        | _LAZY_OPERANDS,
    ),
    Pass(
        asserts,
        triggers=_kinds(ast.Assert),
        emits=_kinds(ast.Expr) | _LAZY_OPERANDS,
    ),
    Pass(
        return_statements,
        triggers=_kinds(Marker.RETURN_NOT_LAST),
        # the flags' set-up, `return a if c else b`, and what lowering adds
        emits=jumps.EMITS
        | _kinds(
            ast.Tuple,
            ast.Call,
            ast.Attribute,
            ast.IfExp,
            ast.Return,
            Marker.RETURN_NOT_LAST,
        ),
    ),
    # (a loop's `else` moves after the loop, where a `break` in it belongs)
    Pass(
        break_statements,
        triggers=_kinds(ast.Break, Marker.LOOP_ELSE),
        emits=jumps.EMITS,
    ),
    Pass(continue_statements, triggers=_kinds(ast.Continue), emits=jumps.EMITS),
    Pass(
        lists,
        triggers=_LOOPS,
        requires=_kinds(Marker.LIST_METHOD_CALL),
        emits=_kinds(
            ast.Assign,
            ast.Call,
            ast.Attribute,
            ast.Name,
            ast.Tuple,
            ast.Subscript,
            ast.Constant,
        ),
    ),
    Pass(
        call_trees,
        triggers=_kinds(ast.Call),
        emits=_kinds(ast.Call, ast.Attribute, ast.Name),
    ),
    Pass(
        assignment_expressions,
        triggers=_kinds(ast.While),
        requires=_kinds(ast.NamedExpr),
        emits=_kinds(
            ast.Assign,
            ast.Name,
            ast.If,
            ast.BoolOp,
            ast.UnaryOp,
            ast.Not,
            Marker.GENERATED_CODE,
        ),
    ),
    Pass(
        control_flow,
        triggers=_kinds(ast.If) | _LOOPS,
        emits=_kinds(
            ast.FunctionDef,
            ast.arg,
            ast.Return,
            ast.Assign,
            ast.Expr,
            ast.Tuple,
            ast.Constant,
            ast.keyword,
            ast.Dict,
            ast.Pass,
            ast.Global,
            ast.Nonlocal,
            Marker.GENERATED_CODE,
            Marker.NESTED_FUNCTION,
            Marker.RETURN_NOT_LAST,
        )
        | _LAZY_OPERANDS,
    ),
    # (and conditional expressions: one walk for both)
    Pass(
        logical_expressions,
        triggers=_kinds(ast.BoolOp, ast.Not, Marker.COMPARE_CHAIN, ast.IfExp),
        emits=_kinds(ast.Compare, ast.keyword, ast.Tuple) | _LAZY_OPERANDS,
    ),
    # (dropped code may have been a local's only binding, which it restores)
    Pass(
        cleanup,
        triggers=_kinds(Marker.GENERATED_CODE, Marker.DROPPED_CODE),
        emits=_kinds(
            ast.Return,
            Marker.RETURN_NOT_LAST,
            ast.Tuple,
            ast.Assign,
            ast.AnnAssign,
            ast.Call,
            ast.Attribute,
            ast.Name,
        ),
    ),
)


def convert_node(
    node: ast.FunctionDef | ast.Lambda,
    *,
    filename: str,
    is_builtin: Callable[[str], bool] = lambda name: hasattr(builtins, name),
    is_library: Callable[[str], bool] = lambda name: False,
    lookup: Callable[[str], Any] = lambda name: None,
    recursive: bool = True,
    class_cell: bool = False,
    handlers: Callable[[str, Mapping[int, Any], Mapping[int, Any]], None] | None = None,
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
        class_cell: Whether the function has the class cell `__class__` (a
            method using zero-argument `super()` or `__class__`).
        handlers: Told the `try` statements around each line of a function
            that has one, and its `finally` blocks
            (`runtime.operators.register_handlers`, for code that will run);
            `None` where the result is only read (the CLI).

    Raises:
        ConversionError: The function uses syntax that is not supported.
    """
    name = getattr(node, "name", "<lambda>")
    if class_cell and is_builtin("super"):
        super_calls.transform(node)
    names, kinds = survey(node)
    if AG in names:
        unsupported.check_reserved_name(node, AG, function_name=name, filename=filename)
    names |= RESERVED
    generators: list[ast.FunctionDef | ast.ClassDef] = []
    if not kinds.isdisjoint((ast.Yield, ast.YieldFrom, ast.ClassDef)):
        generators = unsupported.nested_generators(node)
    if not kinds.isdisjoint(unsupported.KINDS):
        unsupported.check(
            node, function_name=name, filename=filename, generators=generators
        )
    if not names.isdisjoint(unsupported.NAMESPACE_NAMES):
        unsupported.check_namespace_reads(
            node,
            function_name=name,
            filename=filename,
            is_builtin=is_builtin,
            generators=generators,
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
    if handlers is not None and (
        ast.Try in kinds or getattr(ast, "TryStar", ast.Try) in kinds
    ):
        # A graph cannot catch what a branch raises when it runs: the
        # backend refuses a raise that one of these `try`s would handle.
        handlers(filename, activity.handled_lines(node), activity.finally_blocks(node))
    for step in PIPELINE:
        if step.triggered(ctx.kinds):
            node = step.run(node, ctx)
    if hidden:
        _restore_bodies(node, hidden)
    codegen.fill_locations(node)
    return node


def _hide_body(
    fn: ast.FunctionDef | ast.ClassDef,
) -> tuple[ast.FunctionDef | ast.ClassDef, list[ast.stmt]]:
    """Gives a nested generator or class a stand-in body for the passes;
    returns it and its real body, which stays plain Python
    (`_restore_bodies`).

    The stand-in reads the same free names and writes the same `nonlocal`
    and `global` names, so the analyses see the function as they would.
    For a class, the declarations of its methods count as its own: a
    method's `nonlocal x` writes the converted function's `x`.
    """
    body = fn.body
    if isinstance(fn, ast.ClassDef):
        declared = {
            name: ("global" if isinstance(n, ast.Global) else "nonlocal")
            for n in ast.walk(fn)
            if isinstance(n, (ast.Global, ast.Nonlocal))
            for name in n.names
        }
        inner = activity.collect(body)
        reads = sorted(inner.read - inner.written)
        writes = sorted((inner.written | inner.through) & set(declared))
    else:
        declared = activity.declarations(fn)
        reads = sorted(activity.reads(body) - activity.local_names(fn))
        writes = sorted(activity.writes(body) & set(declared))
    # nonlocal n; global g; (a, b); w = None
    stand_in: list[ast.stmt] = []
    for kind, build in (("nonlocal", b.nonlocal_), ("global", b.global_)):
        names = sorted(n for n, k in declared.items() if k == kind)
        if names:
            stand_in.append(build(names))
    if reads:
        stand_in.append(b.expr(b.names(reads)))
    stand_in.extend(b.assign(name, b.const(None)) for name in writes)
    fn.body = stand_in or [b.pass_()]
    return fn, body


def _restore_bodies(
    node: ast.AST,
    hidden: list[tuple[ast.FunctionDef | ast.ClassDef, list[ast.stmt]]],
) -> None:
    """Puts the real bodies of nested generators and classes back (see
    `_hide_body`)."""
    children = list(transformer.walk(node))
    present = {id(child) for child in children}
    for fn, body in hidden:
        if id(fn) in present:
            fn.body = body
        elif any(
            type(child) is type(fn) and child.name == fn.name for child in children
        ):  # a pass copied it: never run the stand-in
            raise AssertionError(f"nested {fn.name!r} lost in conversion")
        # (else it stood in code no path reaches, which lowering dropped)


class ConvertedEntity:
    """A converted function, ready to be bound to a closure.

    Attributes:
        node: The converted tree; `source` is unparsed from it on first use
            (running converted code never needs the text).
        code: The converted function's code object, compiled on first use:
            `to_code` only needs the text, and the compile is about a sixth
            of a conversion (issue 24). A compile failure (a compiler
            defect) raises `ConversionError` then, from `to_graph`.
    """

    def __init__(self, node: ast.AST, compile_: Callable[[], types.CodeType]) -> None:
        self.node = node
        self._compile: Callable[[], types.CodeType] | None = compile_
        self._code: types.CodeType | None = None

    @property
    def code(self) -> types.CodeType:
        """The converted function's code object (compiled once)."""
        code = self._code
        if code is None:
            with _lock:  # one code object per conversion, whatever the threads
                code = self._code
                if code is None:
                    assert self._compile is not None
                    code = self._code = self._compile()
                    self._compile = None  # (it holds the factory module)
        return code

    @functools.cached_property
    def source(self) -> str:
        """The converted source, as `to_code` shows it."""
        return codegen.to_source(self.node, located=True)


_lock = threading.RLock()
# Original code object -> (filename, recursive) -> its conversion. Keyed
# weakly: when the function's module (or the closure) is dropped, its code
# dies and the converted code and tree go with it.
_cache = code_registry.WeakIdentityMap()


def clear_cache() -> None:
    """Forgets every conversion (for benchmarks measuring fresh conversions)."""
    with _lock:
        _cache.clear()


def convert_entity(
    function: types.FunctionType,
    *,
    recursive: bool,
    is_library: Callable[[str], bool],
) -> ConvertedEntity:
    """Converts `function`'s code, once per code object (thread-safe)."""
    code = function.__code__
    key = (code.co_filename, recursive)
    entries = _cache.get(code)
    entity = None if entries is None else entries.get(key)
    if entity is not None:
        return entity
    with _lock:
        entries = _cache.get(code)
        if entries is None:
            entries = {}
            _cache.set(code, entries)
        entity = entries.get(key)
        if entity is None:
            entity = _convert(function, recursive=recursive, is_library=is_library)
            entries[key] = entity
    return entity


def _convert(
    function: types.FunctionType, *, recursive: bool, is_library: Callable[[str], bool]
) -> ConvertedEntity:
    parsed = parser.parse_entity(function)
    user_names = code_registry.user_names(parsed.node, function.__code__)
    # The qualified name the code was compiled with: a wrapper renamed after
    # what it wraps (networkx's `argmap`) keeps its class there (3.11+).
    owner = enclosing_class(
        getattr(function.__code__, "co_qualname", function.__qualname__)
    )
    if owner is not None:
        mangle_private_names(parsed.node, owner)
    # The analyses' closures name the globals and cells, not `function`:
    # what conversion leaves to the cyclic GC must not keep the function
    # alive (a callee would outlive its last reference, weakrefs late).
    globals_ = function.__globals__
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))

    def is_builtin(name: str) -> bool:
        return name not in globals_ and name not in cells and hasattr(builtins, name)

    def lookup(name: str) -> Any:
        if name in cells:
            try:
                return cells[name].cell_contents
            except ValueError:  # an empty cell
                return None
        return globals_.get(name)

    node = convert_node(
        parsed.node,
        filename=parsed.filename,
        is_builtin=is_builtin,
        is_library=is_library,
        lookup=lookup,
        recursive=recursive,
        class_cell="__class__" in function.__code__.co_freevars,
        handlers=_operators().register_handlers,
    )
    entity_name = getattr(node, "name", "<lambda>")
    if isinstance(node, ast.Lambda):
        target = ast.copy_location(b.name(_LAMBDA, ast.Store), node)
        definition: ast.stmt = ast.copy_location(b.assign(target, node), node)
        returned = _LAMBDA
    else:
        definition = node
        returned = node.name
    free_vars = list(function.__code__.co_freevars)
    module = _factory_module(definition, returned, free_vars)
    filename = parsed.filename
    qualname = function.__qualname__  # (the closure must not keep `function`)

    def compile_() -> types.CodeType:
        try:
            # (only the code: `instantiate` binds it to each function's cells)
            code = loader.function_code(
                module,
                located=True,
                filename=filename,
                entity_name=entity_name,
                leading=[AG],
                free_vars=free_vars,
            )
        except SyntaxError as e:
            # A compiler defect: never hand the user code that does not compile.
            raise errors.ConversionError(
                f"the converted code does not compile ({e.msg}); this is a bug "
                "in autograph: mark the function with @autograph.do_not_convert",
                function_name=qualname,
                filename=filename,
                lineno=e.lineno,
                source_line=linecache.getline(filename, e.lineno or 0).rstrip() or None,
            ) from e
        code_registry.remember(code, user_names)
        return code

    return ConvertedEntity(node, compile_)


def _factory_module(
    definition: ast.stmt, returned: str, free_vars: list[str]
) -> ast.Module:
    """The module compiled for a converted function (see `loader`):

        def create_converted_entity(ag__, *free_vars):
            global f                  (unless f is a free variable)
            def f(...): ...           (or: converted_lambda__ = lambda ...: ...)
            return f

    The definition has its positions (`convert_node`); the factory's own
    nodes are given the definition's line here, as they are built (a walk
    giving them positions cost as much as building them).
    """
    line = definition.lineno
    position = {
        "lineno": line,
        "col_offset": 0,
        "end_lineno": line,
        "end_col_offset": 0,
    }
    returned_name = b.name(returned)
    own: list[ast.stmt] = [b.ret(returned_name)]
    if returned not in free_vars:
        # `def f` binds `f` in the factory; a recursive call in `f` must still
        # reach the module's `f`, as in the original.
        own.insert(0, b.global_([returned]))
    factory = b.def_(_FACTORY, [AG, *free_vars], own)
    for built in (factory, *factory.args.args, *own, returned_name):
        built.__dict__.update(position)
    factory.body.insert(len(own) - 1, definition)
    return b.module([factory])


@functools.cache  # (an import statement costs a look-up in sys.modules and more)
def _operators() -> types.ModuleType:
    """`runtime.operators`: what converted code calls as `ag__`."""
    # Imported here, not at the top: converting source text (the CLI,
    # `SourceFile.convert`) needs no runtime, and `import autograph` and the
    # CLI load neither the runtime nor NumPy (issue 24); only loading
    # converted code for a live function does.
    import runtime.operators

    return runtime.operators


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
    cells[AG] = _operators()
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
    # Weakly: the function keeps its converted version (`api._TARGET`), and
    # a strong reference back would make a cycle, so a callee would outlive
    # its last reference until the cyclic GC runs (weakref callbacks late).
    new.__ag_original__ = weakref.ref(function)
    return new


__all__ = [
    "ConvertedEntity",
    "clear_cache",
    "convert_entity",
    "convert_node",
    "instantiate",
]


is_converted_code = code_registry.is_converted_code
