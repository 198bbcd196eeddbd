"""Annotations: facts that analyses attach to AST nodes for converters to read.

Keys are members of the ``Basic`` and ``Static`` enums; each member's value is
its documentation. Annotations live in a dict stored in the node's
``__dict__`` under ``___pyct_anno``. That name is not one of the node's
``_fields`` or ``_attributes``, so ``ast.unparse`` and
``compile`` never see it, while ``copy.deepcopy`` copies it along with the node.

Example:
    >>> import ast
    >>> node = ast.parse("x").body[0]
    >>> setanno(node, Basic.SKIP_PROCESSING, True)
    >>> getanno(node, Basic.SKIP_PROCESSING)
    True
    >>> hasanno(node, Basic.ORIGIN)
    False
    >>> getanno(node, Basic.ORIGIN, default=None) is None
    True
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = [
    "Basic",
    "NoValue",
    "Static",
    "copyanno",
    "delanno",
    "getanno",
    "hasanno",
    "keys",
    "setanno",
]

ANNO_FIELD = "___pyct_anno"
"""The node attribute that holds the annotation dict."""


class NoValue(enum.Enum):
    """An enum whose values are documentation: shows members by name only."""

    # By identity, as equality is: Enum's own hash is a Python call, made
    # for every annotation read and written (~100 per function converted).
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class Basic(NoValue):
    """Annotations set by the parser, the analyses and the converters."""

    QN = "Qualified name of a Name/Attribute/Subscript node: a qual_names.QN"
    SKIP_PROCESSING = "True on nodes (generated or marked) that converters leave alone"
    INDENT_BLOCK_REMAINDER = (
        "A (statement list, new body) pair: the statements after this one that a "
        "converter moved into a new block (e.g. after a 'return' inside an 'if')"
    )
    ORIGIN = "Origin of the node: an OriginInfo"
    DIRECTIVES = (
        "User directives on a statement or loop: a dict mapping directive "
        "function to its keyword arguments"
    )
    ORIGINAL_LOCALS = (
        "On a user's FunctionDef: the local names it had before conversion "
        "(parameters excluded): a set"
    )
    CELLS = (
        "On a user's FunctionDef: its locals that converted statements write "
        "through rather than pass as state (see activity.cells): a set"
    )
    NESTED_WRITES = (
        "On a user's FunctionDef: the variables its nested functions assign "
        "that live outside them (nonlocal/global), which any call may change: "
        "a set"
    )
    PRESENCE_READS = (
        "On the function being converted, when it has a loop: the containers "
        "(as written: 'd', 'self.stats') whose keys or attributes it asks for "
        "other than by reading or writing one (`len(d)`, `'k' in d`, "
        "`hasattr(o, 'k')`; variables.presence_reads): a set"
    )
    EXTRA_LOOP_TEST = (
        "An expression AST: extra test to evaluate before each iteration (for "
        "loops with break/return)"
    )
    PENDING_JUMPS = (
        "On a try statement: the kinds of jump (jumps.Pending) that may leave "
        "its body, handlers or else block, which a jump in its finally block "
        "cancels: a tuple"
    )
    SAVED_BEFORE = (
        "On a try or with statement inside a finally block: the names of the "
        "values saved when it begins, which undo a jump pending from it that "
        "is cancelled or discarded: a dict, jump variable -> saved name"
    )
    FINALLY_RESETS = (
        "On a try statement whose finally block may raise while a jump is "
        "pending: the except handler (around the finally block) that resets "
        "the jump flags before the exception goes on"
    )
    EXIT_RESETS = (
        "On a with statement whose context manager's __exit__ may raise while "
        "a jump is pending: the except handler (around the statement) that "
        "resets the jump flags before the exception goes on"
    )
    GUARD = (
        "On an `if` that jump lowering writes after a loop: the name its true "
        "branch's function gets, which tells the runtime's messages what the "
        "`if` guards: 'loop_else' (the loop's else block, run when no `break` "
        "or `return` ended the loop) or 'loop_returned' (the loop returned)"
    )
    FINALLY_JUMPED = (
        "On a try statement whose finally block holds a lowered jump: the name "
        "of the flag telling that the finally block jumped (and so discards "
        "the exception in flight)"
    )
    TIDIED = (
        "On a function with no nested function of the user's: control_flow "
        "tidied the functions it generated as it made them (`cleanup.tidy`), "
        "so cleanup has only the function itself to see"
    )


class Static(NoValue):
    """Annotations set by the static analyses (activity, definedness, liveness)."""

    IS_PARAM = "True on a Name node that is a function parameter"
    SCOPE = "The activity Scope of a statement or expression: names read/modified"
    ARGS_SCOPE = "The Scope of a call's arguments"
    COND_SCOPE = "The Scope of an 'if'/'while' test"
    BODY_SCOPE = "The Scope of a block's body (if, while, for, def, with, try)"
    ORELSE_SCOPE = "The Scope of an 'else' block (if, while, for, try)"
    ITERATE_SCOPE = "The Scope of a 'for' target: names bound per iteration"
    ARGS_AND_BODY_SCOPE = "The Scope of a lambda's parameters and body together"
    DEFINITIONS = "The reaching definitions of a Name: a list of Definition"
    ORIG_DEFINITIONS = "DEFINITIONS as they were before any rewrite (read-only)"
    DEFINED_FNS_IN = "Names of local functions defined on entry to a statement"
    DEFINED_VARS_IN = "Symbols (QN) certainly defined on entry to a statement"
    LIVE_VARS_IN = "Symbols (QN) live on entry to a statement"
    LIVE_VARS_OUT = "Symbols (QN) live on exit from a statement"
    LIVE_VARS_IN_ELSE = "Symbols (QN) live on entry to a loop's 'else' block"


class _Fail:
    """Sentinel for ``getanno`` without a default."""

    def __repr__(self) -> str:
        return "<no default>"


_FAIL: Any = _Fail()


def _annotations(node: Any) -> dict[Any, Any]:
    return node.__dict__.get(ANNO_FIELD, {})


def keys(node: Any) -> frozenset[NoValue]:
    """The annotation keys present on ``node``.

    Example:
        >>> import ast
        >>> keys(ast.Pass())
        frozenset()
    """
    return frozenset(_annotations(node))


def getanno(node: Any, key: Any, default: Any = _FAIL) -> Any:
    """Returns annotation ``key`` of ``node``.

    Args:
        node: Any AST node.
        key: A ``Basic`` or ``Static`` member (any hashable works).
        default: Returned when the annotation is missing.

    Raises:
        KeyError: The annotation is missing and no default was given.

    Example:
        >>> import ast
        >>> getanno(ast.Pass(), Basic.QN, "none")
        'none'
    """
    annotations = node.__dict__.get(ANNO_FIELD)  # (`_annotations`, inlined)
    if annotations is not None and key in annotations:
        return annotations[key]
    if default is _FAIL:
        raise KeyError(f"{type(node).__name__} node has no annotation {key!r}")
    return default


def hasanno(node: Any, key: Any) -> bool:
    """Whether ``node`` has annotation ``key``.

    Example:
        >>> import ast
        >>> hasanno(ast.Pass(), Basic.QN)
        False
    """
    return key in _annotations(node)


def setanno(node: Any, key: Any, value: Any) -> None:
    """Sets annotation ``key`` of ``node`` to ``value`` (replacing any old value).

    Example:
        >>> import ast
        >>> node = ast.Pass()
        >>> setanno(node, Basic.QN, "x")
        >>> getanno(node, Basic.QN)
        'x'
    """
    node.__dict__.setdefault(ANNO_FIELD, {})[key] = value


def delanno(node: Any, key: Any) -> None:
    """Removes annotation ``key`` from ``node``.

    Raises:
        KeyError: ``node`` has no such annotation.

    Example:
        >>> import ast
        >>> node = ast.Pass()
        >>> setanno(node, Basic.QN, "x")
        >>> delanno(node, Basic.QN)
        >>> hasanno(node, Basic.QN)
        False
    """
    annotations = _annotations(node)
    if key not in annotations:
        raise KeyError(f"{type(node).__name__} node has no annotation {key!r}")
    del annotations[key]
    if not annotations:
        del node.__dict__[ANNO_FIELD]


def copyanno(from_node: Any, to_node: Any, key: Any) -> None:
    """Copies annotation ``key`` (the same value object) if ``from_node`` has it.

    Example:
        >>> import ast
        >>> a, b = ast.Pass(), ast.Pass()
        >>> setanno(a, Basic.QN, "x")
        >>> copyanno(a, b, Basic.QN)
        >>> getanno(b, Basic.QN)
        'x'
    """
    if hasanno(from_node, key):
        setanno(to_node, key, getanno(from_node, key))
