"""Whether a function's source, as found now, is the code the function runs.

A module's file may change after it was imported, and `linecache` (where
`parser` reads sources) then holds the new text: converting it would run code
the user does not have. `compiles_to` compiles the definition parsed from the
text where the function was defined and compares the code objects.
"""

from __future__ import annotations
import __future__

import ast
import collections
import contextlib
import functools
import operator
import tokenize
import types
from typing import Any

__all__ = ["compiles_to"]

_UNREADABLE = (SyntaxError, tokenize.TokenError, ValueError)

_FUTURE_FLAGS = functools.reduce(
    operator.or_,
    (getattr(__future__, f).compiler_flag for f in __future__.all_feature_names),
)
"""The `from __future__` bits of `co_flags`, which `compile` takes as flags."""


def compiles_to(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    function: Any,
    lines: list[str],
) -> bool:
    """Whether the parsed definition compiles to the code `function` runs.

    The file may have changed since the function was compiled (imported),
    and `linecache` then holds the new text: converting it would run code
    the user does not have. The definition is compiled where the function
    was (inside functions and classes named as in its qualified name, the
    innermost function binding its free variables) and the code objects are
    compared: bytecode, names and constants, nested code included. About
    40-100 us for a 5-15 line function, once per code object.

    The compiler also looks at the module: `mod.f()` calls a module-level
    import `mod` differently from another name, so the module's imports are
    declared around the probe too.

    pytest rewrites the `assert`s of test modules, so a function there with
    an `assert` differs from its text by design: it is not compared.
    """
    code = function.__code__
    if "@pytest_ar" in function.__globals__ and any(
        isinstance(n, ast.Assert) for n in ast.walk(node)
    ):
        return True
    if getattr(node, "type_params", None):
        return True  # 3.12 generics compile inside a scope of their own: not rebuilt
    *outer, own = getattr(code, "co_qualname", function.__qualname__).split(".")
    if own != code.co_name or not all(
        p.isidentifier() or p == "<locals>" for p in outer
    ):
        return True  # not a name the compiler gave: nothing to rebuild
    # The nodes around the definition stand at its position.
    at = {a: getattr(node, a, None) for a in _POSITION}
    top: ast.stmt = ast.Expr(value=node, **at) if isinstance(node, ast.Lambda) else node
    if outer or code.co_freevars:
        top, path = _in_scopes(top, at, outer, code)
    else:
        path = [own]  # a module-level function: compiled as it is
    # Guess the imports from the values (modules, nearly always); only if
    # that does not match, read the module's import statements.
    used = _names(code)
    globals_ = function.__globals__
    guess = {n for n in used if isinstance(globals_.get(n), types.ModuleType)}
    if _probe(top, at, path, code, guess):
        return True
    imported = _module_imports(code.co_filename, lines) & used
    return imported != guess and _probe(top, at, path, code, imported)


def _in_scopes(
    top: ast.stmt, at: dict[str, Any], outer: list[str], code: types.CodeType
) -> tuple[ast.stmt, list[str]]:
    """`top` inside the functions and classes named `outer` (the qualified
    name's parts before the function's own), the innermost function binding
    the free variables of `code`; and the names of the nested code down to
    the function's."""
    # Each scope around it: a function if `<locals>` follows, else a class.
    following = [*outer[1:], code.co_name]
    scopes = [
        (part, after == "<locals>")
        for part, after in zip(outer, following)
        if part != "<locals>"
    ]
    in_class = bool(scopes) and not scopes[-1][1]
    free = [v for v in code.co_freevars if not (in_class and v == "__class__")]
    if free and not any(is_function for _, is_function in scopes):
        scopes.insert(0, ("__ag_probe__", True))
    cells_placed = not free
    for name, is_function in reversed(scopes):
        body: list[ast.stmt] = [top]
        if is_function and not cells_placed:
            targets = [ast.Name(id=v, ctx=ast.Store(), **at) for v in free]
            value = ast.Constant(None, **at)
            body.insert(0, ast.Assign(targets=targets, value=value, **at))
            cells_placed = True
        if is_function:
            args = ast.arguments(
                posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]
            )
            top = ast.FunctionDef(
                name=name, args=args, body=body, decorator_list=[], **_NEW, **at
            )
        else:
            top = ast.ClassDef(
                name=name,
                bases=[],
                keywords=[],
                body=body,
                decorator_list=[],
                **_NEW,
                **at,
            )
    return top, [name for name, _ in scopes] + [code.co_name]


def _probe(
    top: ast.stmt,
    at: dict[str, Any],
    path: list[str],
    code: types.CodeType,
    imports: set[str],
) -> bool:
    """Compiles `top` after `import`s of `imports` (at position `at`) and
    compares the code at `path` (names of nested code) with `code`."""
    body: list[ast.stmt] = [
        ast.Import(names=[ast.alias(name=n, asname=None, **at)], **at)
        for n in sorted(imports)
    ]
    module = ast.Module(body=[*body, top], type_ignores=[])
    try:
        compiled = compile(
            module,
            code.co_filename,
            "exec",
            flags=code.co_flags & _FUTURE_FLAGS,
            dont_inherit=True,
        )
    except (SyntaxError, ValueError, TypeError):
        return False
    for name in path:
        inner = [
            c
            for c in compiled.co_consts
            if type(c) is types.CodeType and c.co_name == name
        ]
        if len(inner) != 1:
            return False
        compiled = inner[0]
    return _same_code(compiled, code)


# Filename -> (its lines, the names its imports bind), for the most recently
# used files only: a long session goes through many files (notebook cells,
# dropped modules), and each entry holds a file's text.
_imports: collections.OrderedDict[str, tuple[list[str], frozenset[str]]] = (
    collections.OrderedDict()
)
_IMPORTS_KEPT = 64


def _module_imports(filename: str, lines: list[str]) -> frozenset[str]:
    """The names bound by import statements at module level (cached per text)."""
    cached = _imports.get(filename)
    if cached is not None and cached[0] is lines:
        with contextlib.suppress(KeyError):  # another thread may evict it
            _imports.move_to_end(filename)
        return cached[1]
    names: set[str] = set()
    with contextlib.suppress(*_UNREADABLE):
        stack: list[ast.AST] = list(ast.parse("".join(lines)).body)
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, ast.Import):
                names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
            elif isinstance(stmt, ast.ImportFrom):
                names.update(a.asname or a.name for a in stmt.names if a.name != "*")
            elif not isinstance(
                stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    stack.extend(getattr(stmt, field, ()))
    found = frozenset(names)
    _imports[filename] = (lines, found)
    while len(_imports) > _IMPORTS_KEPT:
        with contextlib.suppress(KeyError):
            _imports.popitem(last=False)
    return found


def _names(code: types.CodeType) -> set[str]:
    """Every name `code` and the code nested in it use: globals, attributes,
    locals and cells. A module-level import changes how the compiler calls a
    method on a name whatever that name is inside the function (CPython's
    `is_import_originated`: sympy's parameter `S`, beside its `from sympy
    import S`, gets an attribute load where another name gets a method
    call), so the probe declares the imports of all of them."""
    names: set[str] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        names.update(current.co_varnames)
        names.update(current.co_cellvars)
        names.update(current.co_freevars)
        stack.extend(c for c in current.co_consts if type(c) is types.CodeType)
    return names


_POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")

# Python 3.12+ definitions also list their type parameters (PEP 695).
_NEW: dict[str, list] = (
    {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
)


def _same_code(a: types.CodeType, b: types.CodeType) -> bool:
    if (
        a.co_code != b.co_code
        or a.co_names != b.co_names
        or a.co_varnames != b.co_varnames
        or a.co_freevars != b.co_freevars
        or a.co_cellvars != b.co_cellvars
        or len(a.co_consts) != len(b.co_consts)
    ):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType):
            if not (isinstance(y, types.CodeType) and _same_code(x, y)):
                return False
        elif type(x) is not type(y) or (x != y and repr(x) != repr(y)):
            return False
    return True
