"""Turns converted trees into live functions, without writing any file.

The converted tree keeps the user's file positions, and the code is compiled
under the user's ``filename``, so tracebacks through converted code show the
user's file, line and source text (``linecache`` already has that file).

Why a factory. The converter wraps the converted function in

.. code-block:: python

    def factory(ops, x, y):         # leading parameters, then the free variables
        def f(a):                   # the converted function
            ...
        return f

Compiling that makes ``ops``, ``x`` and ``y`` closure variables of ``f``
rather than globals, so ``f`` can run with the user's own module globals
(reads and ``global`` writes see the same dict as the original) without adding
``ops`` or anything else to that dict. The leading parameters are the
caller's to choose (autograph passes its operators module, ``ag__``).
``load_function`` never calls the factory: it takes ``f``'s code object out
of the factory's constants and gives it closure cells itself, reusing the
original function's cells where the caller passes them, so ``nonlocal``
writes are shared with the original.

Example:
    >>> from autograph.pyct import parser
    >>> tree = parser.parse_source(
    ...     "def factory(ops, k):\\n"
    ...     "    def scale(x):\\n"
    ...     "        return k * x\\n"
    ...     "    return scale\\n"
    ... )
    >>> scale = load_function(tree, filename="<example>", entity_name="scale",
    ...                       leading=["ops"], free_vars=["k"], globals_={},
    ...                       closure_values={"ops": None, "k": 3})
    >>> scale(2)
    6
"""

from __future__ import annotations

import ast
import builtins
import types
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["compile_module", "function_code", "load_function", "load_module"]


def compile_module(
    module_node: ast.Module, filename: str, *, located: bool = False
) -> types.CodeType:
    """Compiles a module tree; nodes without positions get their parent's.

    Args:
        module_node: The module.
        filename: The file the code claims to come from.
        located: Every node already has its position (skips giving them one,
            a walk over the whole tree).

    Example:
        >>> from autograph.pyct import parser
        >>> compile_module(parser.parse_source("x = 1"), "<m>").co_filename
        '<m>'
    """
    if not located:
        ast.fix_missing_locations(module_node)
    return compile(module_node, filename, "exec", dont_inherit=True)


def load_module(module_node: ast.Module, filename: str) -> dict[str, Any]:
    """Runs a module in a fresh namespace and returns the namespace.

    Example:
        >>> from autograph.pyct import parser
        >>> load_module(parser.parse_source("x = 1 + 1"), "<m>")["x"]
        2
    """
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": "__autograph__"}
    exec(compile_module(module_node, filename), namespace)
    return namespace


def _code_consts(code: types.CodeType) -> list[types.CodeType]:
    return [const for const in code.co_consts if isinstance(const, types.CodeType)]


def _factory(module_node: ast.Module) -> ast.FunctionDef:
    factories = [node for node in module_node.body if isinstance(node, ast.FunctionDef)]
    if len(factories) != 1:
        raise ValueError(
            f"expected one factory function in the module, found {len(factories)}"
        )
    return factories[0]


def _inner_code(factory_code: types.CodeType, entity_name: str) -> types.CodeType:
    candidates = _code_consts(factory_code)
    named = [code for code in candidates if code.co_name == entity_name]
    if not named:
        # `entity_name = lambda ...` compiles to a code object named <lambda>.
        named = [code for code in candidates if code.co_name == "<lambda>"]
    if len(named) != 1:
        raise ValueError(
            f"expected one function {entity_name!r} in the factory "
            f"{factory_code.co_name!r}, found {len(named)}"
        )
    return named[0]


def _cell(value: Any) -> types.CellType:
    return value if isinstance(value, types.CellType) else types.CellType(value)


def function_code(
    module_node: ast.Module,
    *,
    filename: str,
    entity_name: str,
    free_vars: Sequence[str],
    leading: Sequence[str] = (),
    located: bool = False,
) -> types.CodeType:
    """Compiles a factory module and returns the code of the function it
    defines (what `load_function` binds; the arguments are its own).

    Raises:
        ValueError: The module does not have the factory's shape.
    """
    factory = _factory(module_node)
    params = [arg.arg for arg in factory.args.args]
    if params != [*leading, *free_vars]:
        raise ValueError(
            f"factory {factory.name!r} takes {params}, expected "
            f"{[*leading, *free_vars]}"
        )
    module_code = compile_module(module_node, filename, located=located)
    (factory_code,) = [
        code for code in _code_consts(module_code) if code.co_name == factory.name
    ]
    return _inner_code(factory_code, entity_name)


def load_function(
    module_node: ast.Module,
    *,
    filename: str,
    entity_name: str,
    free_vars: Sequence[str],
    globals_: dict[str, Any],
    closure_values: Mapping[str, Any],
    leading: Sequence[str] = (),
    located: bool = False,
) -> types.FunctionType:
    """Compiles a factory module and returns the function it defines.

    Args:
        module_node: A module holding one
            ``def <factory>(*leading, *free_vars)``
            whose body defines ``entity_name`` (a ``def``, or a name assigned a
            lambda) and returns it.
        filename: The user's file; the code object is compiled under it.
        entity_name: The function the factory defines.
        free_vars: The factory's parameters after ``leading``, in order.
        globals_: The globals of the new function: the user's module dict.
        closure_values: A value for each free variable of the function (and
            each of ``leading``): a ``types.CellType`` is used as the cell itself (pass
            the original function's cells to share ``nonlocal`` writes), any
            other value is put into a new cell. Entries the function does not
            use are ignored.
        leading: The factory's first parameters, before the free variables
            (what converted code reaches through a closure, e.g. ``ag__``).
        located: Every node of the module has its position already.

    Returns:
        The function, named after its code object, with no defaults,
        keyword defaults or annotations, and the ``__qualname__`` of a
        function nested in the factory: copy those from the original function
        (defaults must be the original objects, not re-evaluated).

    Raises:
        ValueError: The module does not have the factory's shape, or a free
            variable of the function has no entry in ``closure_values``.
    """
    code = function_code(
        module_node,
        filename=filename,
        entity_name=entity_name,
        free_vars=free_vars,
        leading=leading,
        located=located,
    )
    missing = [name for name in code.co_freevars if name not in closure_values]
    if missing:
        raise ValueError(
            f"no closure value for free variable(s) {missing} of {entity_name!r}"
        )
    cells = tuple(_cell(closure_values[name]) for name in code.co_freevars)
    return types.FunctionType(code, globals_, code.co_name, None, cells)
