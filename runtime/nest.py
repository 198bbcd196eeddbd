"""Nested structures of tuples, lists, dicts and namedtuples (like `tf.nest`).

    >>> flatten({"b": [1, 2], "a": (3,)})
    [3, 1, 2]
    >>> pack_sequence_as(({"x": 0}, [0, 0]), [1, 2, 3])
    ({'x': 1}, [2, 3])
    >>> map_structure(lambda a, b: a + b, (1, [2]), (10, [20]))
    (11, [22])

Dicts are visited in sorted key order; None is a leaf. With
`expand_composites=True`, composite values (a `TensorArray`) are flattened
into their component tensors and rebuilt from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "assert_same_structure",
    "children",
    "flatten",
    "flatten_with_paths",
    "is_nested",
    "keep_shared",
    "map_structure",
    "map_structure_with_paths",
    "pack_sequence_as",
    "rebuild",
    "sorted_keys",
]


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value: Any) -> bool:
    """True for tuples, lists and dicts (the containers nest walks into)."""
    return isinstance(value, (tuple, list, Mapping))


def _is_composite(value: Any) -> bool:
    return hasattr(value, "_rt_components")


def sorted_keys(mapping: Mapping[Any, Any]) -> list[Any]:
    """The order nest visits a dict in: sorted keys (by `repr` if the keys
    do not compare)."""
    try:
        return sorted(mapping)
    except TypeError:
        return sorted(mapping, key=repr)


def children(value: Any) -> list[Any]:
    """The items of a nested `value` in nest's order (a dict's values in
    `sorted_keys` order)."""
    if isinstance(value, Mapping):
        return [value[k] for k in sorted_keys(value)]
    return list(value)


def flatten(structure: Any, expand_composites: bool = False) -> list[Any]:
    """The leaves of `structure`, depth first."""
    out: list[Any] = []
    _flatten(structure, expand_composites, out)
    return out


def _flatten(value: Any, expand: bool, out: list[Any]) -> None:
    if is_nested(value):
        for child in children(value):
            _flatten(child, expand, out)
    elif expand and _is_composite(value):
        out.extend(value._rt_components())
    else:
        out.append(value)


def flatten_with_paths(
    structure: Any, expand_composites: bool = False
) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, leaf) pairs; a path is the keys/indices leading to the leaf."""
    out: list[tuple[tuple[Any, ...], Any]] = []

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        if isinstance(value, Mapping):
            for k in sorted_keys(value):
                walk(value[k], (*path, k))
        elif is_nested(value):
            for i, child in enumerate(value):
                walk(child, (*path, i))
        elif expand_composites and _is_composite(value):
            out.extend((path, c) for c in value._rt_components())
        else:
            out.append((path, value))

    walk(structure, ())
    return out


def rebuild(template: Any, children: list[Any]) -> Any:
    """A new container of `template`'s type holding `children` (for a
    dict: its values in `sorted_keys` order).

        >>> rebuild({"b": 0, "a": 0}, [1, 2])
        {'b': 2, 'a': 1}
    """
    return _rebuild(template, children)


def _rebuild(template: Any, children: list[Any]) -> Any:
    if isinstance(template, Mapping):
        keys = sorted_keys(template)
        by_key = dict(zip(keys, children))
        result = {k: by_key[k] for k in template}
        return result if type(template) is dict else type(template)(result)
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children) if type(template) is tuple else type(template)(children)
    return children if type(template) is list else type(template)(children)


def pack_sequence_as(
    structure: Any, flat_sequence: Sequence[Any], expand_composites: bool = False
) -> Any:
    """`flat_sequence` arranged like `structure`.

    Raises:
        ValueError: When the number of leaves differs.
    """
    flat = list(flat_sequence)
    position = [0]

    def build(template: Any) -> Any:
        if is_nested(template):
            return _rebuild(template, [build(c) for c in children(template)])
        if expand_composites and _is_composite(template):
            n = len(template._rt_components())
            parts = flat[position[0] : position[0] + n]
            position[0] += n
            return template._rt_from_components(parts)
        item = flat[position[0]] if position[0] < len(flat) else None
        position[0] += 1
        return item

    expected = len(flatten(structure, expand_composites))
    if expected != len(flat):
        raise ValueError(
            f"the structure has {expected} leaves but {len(flat)} values were given"
        )
    return build(structure)


def map_structure(
    fn: Callable[..., Any], *structures: Any, expand_composites: bool = False
) -> Any:
    """`fn` applied to the corresponding leaves of `structures`.

    Leaves are visited in `flatten`'s order; containers are rebuilt as their
    own types (a dict keeps its insertion order, a namedtuple its class).
    """
    if not structures:
        raise ValueError("map_structure needs at least one structure")
    if len(structures) == 1:
        return _map_one(fn, structures[0], expand_composites, None)
    for other in structures[1:]:
        assert_same_structure(structures[0], other, expand_composites=expand_composites)
    flats = [flatten(s, expand_composites) for s in structures]
    results = [fn(*leaves) for leaves in zip(*flats)]
    return pack_sequence_as(structures[0], results, expand_composites)


def map_structure_with_paths(
    fn: Callable[[tuple[Any, ...], Any], Any],
    structure: Any,
    expand_composites: bool = False,
) -> Any:
    """`fn(path, leaf)` for each leaf of `structure`, rebuilt like it.

        >>> map_structure_with_paths(lambda p, v: (p, v), {"a": [1]})
        {'a': [(('a', 0), 1)]}

    Paths are `flatten_with_paths`'s (keys and indices); leaves are visited
    in `flatten`'s order.
    """
    return _map_one(fn, structure, expand_composites, ())


def _map_one(
    fn: Callable[..., Any], value: Any, expand: bool, path: tuple[Any, ...] | None
) -> Any:
    """One walk of `value`; `fn(leaf)`, or `fn(path, leaf)` when `path` is
    given (not None)."""
    if isinstance(value, Mapping):
        keys = sorted_keys(value)
        children = [
            _map_one(fn, value[k], expand, None if path is None else (*path, k))
            for k in keys
        ]
        return _rebuild(value, children)
    if is_nested(value):
        children = [
            _map_one(fn, c, expand, None if path is None else (*path, i))
            for i, c in enumerate(value)
        ]
        return _rebuild(value, children)
    if expand and _is_composite(value):
        parts = value._rt_components()
        mapped = [fn(c) if path is None else fn(path, c) for c in parts]
        return value._rt_from_components(mapped)
    return fn(value) if path is None else fn(path, value)


def describe(structure: Any) -> str:
    """A short text of a structure's shape: `(., [., .], {'a': .})`."""
    if isinstance(structure, Mapping):
        inner = ", ".join(
            f"{k!r}: {describe(structure[k])}" for k in sorted_keys(structure)
        )
        return "{" + inner + "}"
    if _is_namedtuple(structure):
        inner = ", ".join(describe(c) for c in structure)
        return f"{type(structure).__name__}({inner})"
    if isinstance(structure, tuple):
        inner = ", ".join(describe(c) for c in structure)
        return f"({inner},)" if len(structure) == 1 else f"({inner})"
    if isinstance(structure, list):
        return "[" + ", ".join(describe(c) for c in structure) + "]"
    if _is_composite(structure):
        return type(structure).__name__
    return "."


def same_structure(a: Any, b: Any) -> bool:
    """Whether `a` and `b` nest the same way (their container types aside)."""
    return _difference(a, b, False) is None


def assert_same_structure(
    a: Any, b: Any, check_types: bool = True, expand_composites: bool = False
) -> None:
    """Raises unless `a` and `b` nest the same way.

    Raises:
        ValueError: Different nesting or number of elements (or dict keys).
        TypeError: Same nesting but different container types (tuple vs list),
            when `check_types`.
    """
    problem = _difference(a, b, check_types)
    if problem is not None:
        kind, detail = problem
        message = (
            f"the two structures don't match: {describe(a)} vs. {describe(b)} "
            f"({detail})"
        )
        raise (TypeError if kind == "type" else ValueError)(message)


def _difference(a: Any, b: Any, check_types: bool) -> tuple[str, str] | None:
    nested_a, nested_b = is_nested(a), is_nested(b)
    if nested_a != nested_b:
        return "value", "a container vs. a single value"
    if _is_composite(a) or _is_composite(b):
        if type(a) is not type(b):
            return "value", f"{type(a).__name__} vs. {type(b).__name__}"
        return None
    if not nested_a:
        return None
    if isinstance(a, Mapping) != isinstance(b, Mapping):
        return "value", f"{type(a).__name__} vs. {type(b).__name__}"
    if isinstance(a, Mapping):
        if set(a) != set(b):
            return "value", f"keys {sorted(map(repr, a))} vs. {sorted(map(repr, b))}"
    elif len(a) != len(b):
        return "value", f"{len(a)} vs. {len(b)} elements"
    if check_types and type(a) is not type(b):
        return "type", f"{type(a).__name__} vs. {type(b).__name__}"
    for ca, cb in zip(children(a), children(b)):
        problem = _difference(ca, cb, check_types)
        if problem is not None:
            return problem
    return None


def keep_shared(packed: Any, a: Any, b: Any, sa: Any, sb: Any) -> Any:
    """`packed` (a cond's outputs, as new containers), except that a list or
    dict both branches give as the same object (`a`, `b`: what they gave;
    `sa`, `sb`: copies of it as each branch left it) stays that object, now
    holding the packed values (an item both branches left alone stays as it
    is).

    In Python the variable after the `if` is that very object, which other
    variables may share: a copy would miss their later changes (e.g. a
    returned dict that a `finally` block then updates).
    """
    if not (is_nested(packed) and is_nested(a) and is_nested(b)):
        return packed
    keys = sorted_keys(packed) if isinstance(packed, dict) else range(len(a))
    children = [keep_shared(packed[k], a[k], b[k], sa[k], sb[k]) for k in keys]
    if a is b and type(a) in (list, dict):
        for k, child, x, y in zip(
            keys, children, (sa[k] for k in keys), (sb[k] for k in keys)
        ):
            if x is not y or is_nested(x):
                a[k] = child
        return a
    if isinstance(packed, list):
        packed[:] = children
    elif isinstance(packed, dict):
        packed.update(zip(keys, children))
    elif any(c is not packed[k] for c, k in zip(children, keys)):
        return rebuild(packed, children)
    return packed
