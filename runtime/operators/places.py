"""Places: state of a converted statement that is not a plain local name.

A converted statement passes the local names it changes explicitly (its
bodies take and return them). Everything else it changes is a *place* that
the bodies write in place: an item (`d['a']`, `x[0]`), an attribute
(`self.total`), or a variable that lives in a cell or a module (a name a
nested function captures, a `nonlocal`/`global` name, a name written inside a
`try` or `with`, whose new value must survive an exception). Converted code
lists them so a backend can carry them through a graph op:

    ag__.for_stmt(rt.range(n), loop_body, places=(ag__.item("d['a']", d, 'a'),))

On plain Python values the list is never looked at: the bodies' writes are
the writes Python makes. A graph backend reads each place before the op,
writes the op's value back into it before tracing each body (so both
branches of an `if` start from the same value), reads what the body left,
and finally writes the op's result:

    >>> d = {'a': 1}
    >>> p = item("d['a']", d, 'a')
    >>> p.get(), p.name
    (1, "d['a']")
    >>> p.set(5); d
    {'a': 5}
    >>> p.set(p.undefined); d
    {}
    >>> p.get() is p.undefined
    True

A place that holds no value (a missing key or attribute, an unbound cell)
reads as its `undefined` value, and writing that value removes it again.
"""

from __future__ import annotations

import collections
import contextlib
import types

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import delattr, getattr, hasattr, isinstance, setattr, tuple, type, zip
from collections.abc import Callable, Sequence
from typing import Any

from runtime import nest
from runtime.context import STATE
from runtime.operators.staging import where as where_
from runtime.operators.variables import UnboundUntilRun, Undefined

__all__ = [
    "Place",
    "Untracked",
    "attr",
    "attr_slot",
    "checked_results",
    "contents",
    "create_defaults",
    "exact_setters",
    "item",
    "item_slot",
    "observed_births",
    "read",
    "unset_variables",
    "untracked",
    "var",
    "whole",
    "write",
    "write_results",
]


class Place:
    """A location a converted statement writes in place.

    Attributes:
        name: The place as the user wrote it (`d['a']`, `self.total`, `x`),
            for messages.
        undefined: What `get` returns while the place holds nothing.
    """

    __slots__ = ("name", "undefined")

    def __init__(self, name: str) -> None:
        self.name = name
        self.undefined = Undefined(name)

    def get(self) -> Any:
        """The place's value, or `self.undefined` when it holds none."""
        raise NotImplementedError

    def set(self, value: Any) -> None:
        """Stores `value`; an `Undefined` value empties the place."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<place {self.name}>"


def _resolve(container: Any) -> Any:
    # A container may itself be a place (`x['a']` of `x['a']['b']`): it is
    # read when the item is, not when the statement starts.
    return container.get() if isinstance(container, Place) else container


class _Item(Place):
    __slots__ = ("container", "key", "observed")

    def __init__(
        self, name: str, container: Any, key: Any, observed: bool = False
    ) -> None:
        super().__init__(name)
        self.container = container
        self.key = key
        self.observed = observed  # (see `item`)

    def get(self) -> Any:
        container = _resolve(self.container)
        if isinstance(container, Undefined):
            return self.undefined  # `x['b']['a']` with no `x['b']`
        if _creates_item(container, self.key):
            return self.undefined  # (reading it would create it)
        try:
            return container[self.key]
        except (KeyError, IndexError):
            return self.undefined

    def set(self, value: Any) -> None:
        container = _resolve(self.container)
        if isinstance(value, Undefined) and type(value) is not UnboundUntilRun:
            if isinstance(container, Undefined):
                return  # the container is missing too: nothing to remove
            with contextlib.suppress(KeyError, IndexError):
                del container[self.key]
        else:
            try:
                container[self.key] = value
            except (TypeError, ValueError) as error:
                if type(container).__module__ != "numpy":
                    raise
                where = where_.statement_here()
                raise TypeError(_not_an_array_value(self.name, value, where)) from error


def _not_an_array_value(name: str, value: Any, where: str) -> str:
    """The refusal of a traced value a statement carried into an item of a
    NumPy array (`a[0] = 1.0` in both branches of a traced `if`, or in a
    traced loop): the array holds numbers, not the statement's output."""
    return (
        f"{name} is an item of a NumPy array, which the traced `if` or loop{where} "
        f"carries as a traced value ({type(value).__name__}) and cannot write back: a "
        "NumPy array holds numbers only; keep the values in a tensor "
        "(`a = jnp.zeros(3)` then `a = a.at[0].set(v)` under JAX, or a list "
        "of tensors stacked after the statement), or set the item outside it"
    )


def _creates_item(container: Any, key: Any) -> bool:
    """Whether reading `container[key]` would create the key: a dict with
    a `__missing__` (a defaultdict, a Counter) that does not hold it. A
    place is read outside the branch that writes it, so `d['a'] += x` in
    a branch that does not run would add 'a'; the place reads as unset."""
    return (
        isinstance(container, dict)
        and hasattr(type(container), "__missing__")
        and not dict.__contains__(container, key)
    )


class _Attr(Place):
    __slots__ = ("attr", "exact", "obj", "observed")

    def __init__(self, name: str, obj: Any, attr: str, observed: bool = False) -> None:
        super().__init__(name)
        self.obj = obj
        self.attr = attr
        self.observed = observed  # (see `item`)
        # Where a value set must read back as itself: the statement, as
        # `' at file:line in 'f''` (`exact_setters`); None elsewhere.
        self.exact: str | None = None

    def get(self) -> Any:
        obj = _resolve(self.obj)
        if isinstance(obj, Undefined):
            return self.undefined
        try:
            if getattr(type(obj), "__getattr__", None) is not None:
                # Not through `__getattr__`, which may create it (a lazy
                # object's `o.total += x` in a branch that does not run).
                return type(obj).__getattribute__(obj, self.attr)
            return getattr(obj, self.attr)
        except AttributeError:
            return self.undefined

    def set(self, value: Any) -> None:
        obj = _resolve(self.obj)
        if isinstance(value, Undefined) and type(value) is not UnboundUntilRun:
            if not isinstance(obj, Undefined) and hasattr(obj, self.attr):
                delattr(obj, self.attr)
        else:
            setattr(obj, self.attr, value)
            if self.exact is not None and getattr(obj, self.attr) is not value:
                owner = type(obj).__name__
                raise TypeError(
                    f"{self.name} is set in the traced `if` or loop{self.exact} "
                    f"through the setter of {owner}.{self.attr}, which does not give "
                    "back what it is set to, and the state it stores is not one the "
                    "`if` or loop can carry (only attributes of an object of a class "
                    "of the user's code with a __dict__ are); set it after the `if` "
                    "or loop, or keep the value in a variable and set it from that"
                )


def exact_setters(
    places: Sequence[Place], followed: Callable[[Any], bool], where: str
) -> None:
    """Marks the attribute places of `places` set through a setter (a
    property, a data descriptor) of an object whose own attributes are not
    `followed`: a backend carries such a place by setting what it read, so
    the setter must give back what it is set to (a setter that transforms
    the value would transform it again); `set` refuses it otherwise. The
    attributes of a followed object are carried themselves, after the place,
    whatever its setter does. `where`: the statement, for the refusal."""
    for place in places:
        if isinstance(place, _Attr):
            obj = _resolve(place.obj)
            setter = getattr(type(obj), place.attr, None)
            exact = (
                hasattr(type(setter), "__set__")
                and not isinstance(setter, _SLOT_TYPES)
                and not followed(obj)
            )
            place.exact = where if exact else None


_SLOT_TYPES = (types.MemberDescriptorType, types.GetSetDescriptorType)


class _Cell(Place):
    __slots__ = ("cell",)

    def __init__(self, name: str, cell: types.CellType) -> None:
        super().__init__(name)
        self.cell = cell
        self.undefined = Undefined(name, origin=cell)

    def get(self) -> Any:
        try:
            return self.cell.cell_contents
        except ValueError:  # an empty cell: the variable is unbound
            return self.undefined

    def set(self, value: Any) -> None:
        # A name a graph loop may have bound keeps its placeholder: reads of
        # a cell go through `ag__.ld_cell`, which checks it where it is read.
        if isinstance(value, Undefined) and type(value) is not UnboundUntilRun:
            with contextlib.suppress(ValueError):  # already empty
                del self.cell.cell_contents
        else:
            self.cell.cell_contents = value


class Untracked(Place):
    """An item a statement assigns that cannot be carried through a graph op
    (its key changes or is computed, or it is a slice). Plain Python assigns
    it as written; a graph backend refuses the statement rather than assign
    it once, while tracing."""

    __slots__ = ()

    def get(self) -> Any:
        raise TypeError(self.message())

    def set(self, value: Any) -> None:
        raise TypeError(self.message())

    def message(self, kind: str = "graph") -> str:
        """Why a `kind` ("graph", "JAX") op cannot carry this item, and what
        to do instead."""
        keep = (
            "an array (ys = jnp.zeros(n) before it, ys = ys.at[i].set(v) in it)"
            if kind == "JAX"
            else "a tensor (e.g. rt.TensorArray in a loop)"
        )
        return (
            f"{self.name} is assigned inside a {kind} `if` or loop with a key that "
            f"changes there (or is computed, or is a slice), so {kind} ops cannot "
            f"carry it; assign it outside, or keep the values in {keep} or in a "
            "variable"
        )


def untracked(name: str) -> Place:
    """The item `name`, which a graph op cannot carry (see `Untracked`)."""
    return Untracked(name)


def item(name: str, container: Any, key: Any, observed: bool = False) -> Place:
    """The place `container[key]`, written `name` in the user's code.

    `observed`: the function asks which keys `container` holds other than by
    reading or writing one (`len(d)`, `'k' in d`, `d.get(k, v)`, iterating
    it), so a staged loop cannot create the item (`observed_births`)."""
    return _Item(name, container, key, observed)


def item_slot(place: Place) -> tuple[Any, Any] | None:
    """The container and key of an item place (None for another place)."""
    if isinstance(place, _Item):
        return _resolve(place.container), place.key
    return None


def attr_slot(place: Place) -> tuple[Any, str] | None:
    """The object and attribute name of an attribute place (None for another
    place)."""
    if isinstance(place, _Attr):
        return _resolve(place.obj), place.attr
    return None


def attr(name: str, obj: Any, attribute: str, observed: bool = False) -> Place:
    """The place `obj.attribute`, written `name` in the user's code;
    `observed`: the function asks which attributes `obj` has (`hasattr`,
    `getattr` with a default, `vars`), as for `item`."""
    return _Attr(name, obj, attribute, observed)


def observed_births(places: Sequence[Place]) -> list[Place]:
    """The items and attributes of `places`, marked `observed`, that hold no
    value before a staged loop (it may create them). Such a loop carries an
    item's value and a flag that says whether an iteration set it, but not
    whether the key exists: that is Python structure, fixed while tracing.
    The placeholder it puts there while tracing (and leaves after the loop)
    makes `len(d)`, `'k' in d`, `d.get(k, v)` and `hasattr` see the item in
    the first iteration, and after a loop that ran none; the loop refuses
    them (`verification.refuse_observed_births`)."""
    marked = [p for p in places if isinstance(p, (_Item, _Attr)) and p.observed]
    return [p for p in marked if isinstance(p.get(), Undefined)]


class _Contents(Place):
    """A list's or dict's items as one place: `get` gives a new list (dict)
    of them, `set` puts the given items back into the same object, in the
    order of keys it last read where the keys are the same."""

    __slots__ = ("container", "order")

    def __init__(self, name: str, container: list | dict) -> None:
        super().__init__(name)
        self.container = container
        self.order: tuple[Any, ...] = ()

    def get(self) -> Any:
        if isinstance(self.container, dict):
            self.order = tuple(self.container)
            return dict(self.container)
        return list(self.container)

    def set(self, value: Any) -> None:
        if isinstance(self.container, dict):
            keys = self.order if set(self.order) == set(value) else tuple(value)
            # (A mapping: a Counter's `update` counts the pairs it is given.)
            self.container.clear()
            self.container.update({k: value[k] for k in keys})
        elif isinstance(self.container, collections.deque):
            self.container.clear()
            self.container.extend(value)
        else:
            self.container[:] = list(value)


def contents(name: str, container: list | dict) -> Place:
    """The items of the list or dict `container` (written `name`) as one
    place, for a statement that changes its length or keys (a method call,
    see `runtime.operators.mutations`).

        >>> out = [1]
        >>> p = contents("out", out)
        >>> p.get()
        [1]
        >>> p.set([2, 3]); out
        [2, 3]
    """
    return _Contents(name, container)


def create_defaults(places: Sequence[Place]) -> None:
    """Sets each item of `places` that a defaultdict or Counter (a dict
    with a `__missing__`) does not hold to its default value. For a loop,
    whose body reads the item it updates (`d[k] += 1`) from the value it
    carries: Python's first iteration reads the default so (an `if` reads
    it as unset instead, `_creates_item`). Only a loop of no iterations
    differs: the key exists after it, as a plain dict's loop-born item. An
    item whose presence the function observes stays unset: a staged loop
    refuses it (`observed_births`), Python's loop creates it as it runs."""
    for place in places:
        if isinstance(place, _Item) and not place.observed:
            container = _resolve(place.container)
            if _creates_item(container, place.key):
                container[place.key] = container[place.key]


def whole(place: Place) -> Any:
    """The list or dict a `contents` place carries whole, or None."""
    return place.container if isinstance(place, _Contents) else None


def var(reader: Callable[[], Any]) -> Place:
    """The variable that `reader` (`lambda: x`) reads: a cell or a global.

    A name that a nested function captures, or that is declared `nonlocal`,
    lives in a cell, which the lambda closes over too; a `global` name lives
    in the module's namespace.
    """
    code = reader.__code__
    if code.co_freevars:
        return _Cell(code.co_freevars[0], reader.__closure__[0])
    return _Item(code.co_names[0], reader.__globals__, code.co_names[0])


def unset_variables(places: Sequence[Place]) -> tuple[Any, ...]:
    """What the variables (cells, not items) among `places` that hold no
    value read as: a loop iterating as Python carries them as it carries
    its unbound names (`born.iterating`)."""
    return tuple(p.get() for p in places if isinstance(p, _Cell))


def read(places: Sequence[Place]) -> tuple[Any, ...]:
    """The current values of `places`."""
    return tuple(p.get() for p in places)


def write(places: Sequence[Place], values: Sequence[Any]) -> None:
    """Stores `values` into `places`, in order."""
    for place, value in zip(places, values):
        place.set(value)


def write_results(places: Sequence[Place], values: Sequence[Any]) -> None:
    """Stores what a backend's loop left in `places` once it is built. An
    item or attribute the loop may be the first to set holds its
    `UnboundUntilRun`, as a name does: the function's reads of it are
    `ag__.ld` reads (the compiler wraps reads of an item a loop of the
    function stores), which check it where they are; any other use checks
    it where it uses it (`UnboundUntilRun`'s operators, `checked_results`).
    Inside another backend statement, whose state may hold the container
    (a dict a graph loop carries), it holds its value checked where the loop
    stores it back instead: an outer statement carries values, not flags of
    items."""
    nested = where_.depth() > 1
    for place, value in zip(places, values):
        if type(value) is UnboundUntilRun and not isinstance(place, _Cell):
            if nested:
                value = value.read()
            else:
                STATE.unbound_items += 1
        place.set(value)


def checked_results(value: Any, function: Callable[..., Any]) -> Any:
    """`value` (what the user's `function`, converted, returns to the
    program's caller) with each `UnboundUntilRun` it holds in a list, tuple
    or dict read checked: the program returns it, so the program raises
    where no iteration of its loop set it (a returned structure cannot
    depend on a run-time flag; see ARCHITECTURE "Loop-born names")."""

    def leaf(v: Any) -> Any:
        return v.read(function) if type(v) is UnboundUntilRun else v

    return nest.map_structure(leaf, value)
