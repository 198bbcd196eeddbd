"""The one checker that rejects what the compiler does not convert (STYLE 12).

It runs before any rewrite, so unsupported code is refused with the user's
`file:line` and a caret, never half-converted or silently run as is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence

from autograph import errors
from autograph.pyct import transformer
from autograph.pyct.static_analysis import activity

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_REASONS: dict[type, str] = {
    ast.Yield: "'yield' is not supported: generators cannot be converted; "
    "mark the generator with @autograph.do_not_convert",
    ast.YieldFrom: "'yield from' is not supported: generators cannot be converted; "
    "mark the generator with @autograph.do_not_convert",
    ast.Await: "'await' is not supported: async functions cannot be converted",
    ast.AsyncFor: "'async for' is not supported: async functions cannot be converted",
    ast.AsyncWith: "'async with' is not supported: async functions cannot be converted",
    ast.AsyncFunctionDef: "async functions cannot be converted",
}
_REASONS[ast.Match] = (
    "'match' statements are not supported; use if/elif (or move the match "
    "into a helper marked @autograph.do_not_convert)"
)


_LAZY_WALRUS = (
    "an assignment expression (:=) in an assert message, or to a global "
    "variable in an operand that Python evaluates only sometimes (the right "
    "side of 'and'/'or', a branch of 'a if c else b'), is not supported: it "
    "would bind inside the lambda that conversion makes of it; assign it in a "
    "statement before"
)

KINDS = frozenset({*_REASONS, ast.NamedExpr})
"""The node classes `check` looks at: a tree holding none of them passes."""

# The builtins that read the calling frame's namespace, and how many
# positional arguments a call has when it reads it: `locals()`, `vars()`,
# `dir()`, and `eval(text)` / `exec(text)` without namespaces.
_NAMESPACE_READS = {"locals": 0, "vars": 0, "dir": 0, "eval": 1, "exec": 1}
NAMESPACE_NAMES = frozenset(_NAMESPACE_READS)
"""The names `check_namespace_reads` looks for: a tree using none passes."""

_NAMESPACE_REASON = (
    "{call} is not supported: it reads the local variables of the frame "
    "that runs it, and converted code keeps them in generated functions "
    "(an `if` or loop body), so it would see other names or values; pass the "
    "variables explicitly (e.g. a dict), or mark the function with "
    "@autograph.do_not_convert"
)


def _lazy_operands(node: ast.AST) -> list[ast.AST]:
    """The children of `node` that conversion turns into `lambda: operand`."""
    if isinstance(node, ast.Assert) and node.msg is not None:
        return [node.msg]
    return activity.lazy_operands(node)


def _walrus_in_lazy_operand(
    node: ast.AST, generators: Sequence[ast.FunctionDef | ast.ClassDef]
) -> ast.NamedExpr | None:
    """The first walrus that conversion cannot keep binding where Python does.

    A walrus in a lazy operand of `and`/`or`/`a if c else b` binds a cell of
    the function (`ag__.set_cell`, see `activity.lazy_walrus_targets`), which
    a global is not; an assert message has no such rewrite. A walrus inside
    the user's own lambda (or nested function) binds there in Python too,
    and is left alone.
    """
    # (node, laziness: None, "operand" or "assert", the scope's globals)
    stack: list[tuple[ast.AST, str | None, frozenset[str]]] = [
        (node, None, frozenset())
    ]
    skipped = {id(stmt) for fn in generators for stmt in fn.body}
    while stack:
        child, lazy, globals_ = stack.pop()
        if id(child) in skipped:
            continue  # stays Python
        if isinstance(child, ast.NamedExpr) and (
            lazy == "assert" or (lazy and child.target.id in globals_)
        ):
            return child
        if isinstance(child, (ast.Lambda, *_SCOPES)):
            if child is not node:
                lazy = None  # a new scope: its walruses bind in it
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                declared = activity.declarations(child)
                globals_ = frozenset(n for n, k in declared.items() if k == "global")
        operands = {id(c) for c in _lazy_operands(child)}
        kind = "assert" if isinstance(child, ast.Assert) else "operand"
        for grandchild in reversed(transformer.child_nodes(child)):
            inner = lazy or (kind if id(grandchild) in operands else None)
            stack.append((grandchild, inner, globals_))
    return None


def nested_generators(node: ast.AST) -> list[ast.FunctionDef | ast.ClassDef]:
    """The generator functions and classes defined inside `node` (outermost
    ones only).

    They are left as they are, plain Python inside the converted function:
    a generator's `yield`s cannot become functional control flow, and they
    need not; a class body runs as Python (its methods are converted when
    they are called). A `yield` of `node` itself (or of a lambda) is refused
    by `check`.
    """
    found: list[ast.FunctionDef | ast.ClassDef] = []
    stack = transformer.child_nodes(node)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.ClassDef) or (
            isinstance(child, ast.FunctionDef) and _yields(child)
        ):
            found.append(child)
            continue
        stack.extend(transformer.child_nodes(child))
    return found


def _yields(fn: ast.FunctionDef) -> bool:
    """Whether `fn` itself (not a function nested in it) holds a `yield`."""
    stack = list(fn.body)
    while stack:
        child = stack.pop()
        if isinstance(child, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(child, (ast.Lambda, *_SCOPES)):
            continue
        stack.extend(transformer.child_nodes(child))
    return False


def _walk(
    node: ast.AST, skip: Sequence[ast.FunctionDef | ast.ClassDef]
) -> Iterator[ast.AST]:
    """`transformer.walk`, not entering the bodies of the functions `skip`."""
    skipped = {id(fn) for fn in skip}
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children = transformer.child_nodes(current)
        if id(current) in skipped:
            body = {id(stmt) for stmt in current.body}
            children = [c for c in children if id(c) not in body]
        children.reverse()
        stack.extend(children)


def check(
    node: ast.AST,
    *,
    function_name: str,
    filename: str,
    generators: Sequence[ast.FunctionDef | ast.ClassDef] = (),
) -> None:
    """Raises `UnsupportedSyntaxError` at the first construct not supported.

    Args:
        node: The function (or lambda) about to be converted.
        function_name: The user's name for it, for the message.
        filename: Its file, for the message.
        generators: Nested generator functions and classes
            (`nested_generators`): their bodies stay Python and are not checked.
    """
    walrus_checked = False
    for child in _walk(node, generators):
        if type(child) is ast.NamedExpr:
            if walrus_checked:
                continue
            walrus_checked = True  # one walk finds them all
            walrus = _walrus_in_lazy_operand(node, generators)
            if walrus is None:
                continue
            child, reason = walrus, _LAZY_WALRUS
        else:
            reason = _REASONS.get(type(child))
        if reason is None:
            continue
        if child is node and isinstance(child, ast.AsyncFunctionDef):
            reason = "async functions cannot be converted"
        raise errors.error_at(
            child,
            reason,
            function_name=function_name,
            filename=filename,
            cls=errors.UnsupportedSyntaxError,
        )


def check_namespace_reads(
    node: ast.AST,
    *,
    function_name: str,
    filename: str,
    is_builtin: Callable[[str], bool],
    generators: Sequence[ast.FunctionDef | ast.ClassDef] = (),
) -> None:
    """Raises `UnsupportedSyntaxError` at a call that reads its frame's
    namespace (`_NAMESPACE_READS`): converted code cannot honour it.

    Only a call of the builtin counts: a name a function around the call
    binds, or one the module or a closure defines (`is_builtin` false), is
    the user's own function. Bodies that stay Python (`generators`) are not
    looked at.

        >>> tree = ast.parse("def f(vars):\\n  return vars(), locals()").body[0]
        >>> check_namespace_reads(
        ...     tree, function_name="f", filename="<none>", is_builtin=lambda n: True
        ... )
        Traceback (most recent call last):
        ...
        autograph.errors.UnsupportedSyntaxError: ...'locals()' is not supported...
    """
    skipped = {id(stmt) for fn in generators for stmt in fn.body}
    stack: list[tuple[ast.AST, frozenset[str]]] = [(node, frozenset())]
    while stack:
        child, bound = stack.pop()
        if id(child) in skipped:
            continue
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            bound = bound | activity.local_names(child)
        elif (
            type(child) is ast.Call
            and type(child.func) is ast.Name
            and child.func.id in _NAMESPACE_READS
            and len(child.args) == _NAMESPACE_READS[child.func.id]
            and not child.keywords
            and not any(type(a) is ast.Starred for a in child.args)
            and child.func.id not in bound
            and is_builtin(child.func.id)
        ):
            name = child.func.id
            call = (
                f"'{name}()'"
                if name in ("locals", "vars", "dir")
                else (f"'{name}()' without explicit globals and locals")
            )
            raise errors.error_at(
                child,
                _NAMESPACE_REASON.format(call=call),
                function_name=function_name,
                filename=filename,
                cls=errors.UnsupportedSyntaxError,
            )
        # (reversed: the first call in the source is found first)
        stack.extend((c, bound) for c in reversed(transformer.child_nodes(child)))


def check_reserved_name(
    node: ast.AST, reserved: str, *, function_name: str, filename: str
) -> None:
    """Raises `UnsupportedSyntaxError` at the first use of `reserved` (the
    name converted code calls the operators by, `ag__`) as a name of the
    user's: converted code would reach the user's value instead.

        >>> tree = ast.parse("def f(n):\\n  ag__ = n\\n  return ag__").body[0]
        >>> check_reserved_name(tree, "ag__", function_name="f", filename="<none>")
        Traceback (most recent call last):
        ...
        autograph.errors.UnsupportedSyntaxError: ...'ag__' is reserved...
    """
    for child in transformer.walk(node):
        names = [getattr(child, field, None) for field in ("id", "arg", "name")]
        names += getattr(child, "names", ())  # `global`/`nonlocal`
        if isinstance(child, ast.alias):
            names = [(child.asname or child.name).split(".")[0]]
        if reserved in names:
            raise errors.error_at(
                child if hasattr(child, "lineno") else node,
                f"the name {reserved!r} is reserved: converted code calls its "
                "operators by it; rename this variable",
                function_name=function_name,
                filename=filename,
                cls=errors.UnsupportedSyntaxError,
            )
