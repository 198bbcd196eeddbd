"""`converted_call`: calls from converted code into other functions.

The compiler (`autograph`) decides which functions are converted; `runtime`
must not import it, so the compiler installs its decision here at import
time with `set_converter`. Without one, every call runs as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_converter: Callable[[Any], Any] | None = None


def set_converter(converter: Callable[[Any], Any] | None) -> None:
    """Installs `converter(f) -> callable to run instead of f`."""
    global _converter
    _converter = converter


def converted_call(f: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Calls the converted version of `f` (or `f` itself) with the arguments."""
    if _converter is None:
        return f(*args, **kwargs)
    return _converter(f)(*args, **kwargs)
