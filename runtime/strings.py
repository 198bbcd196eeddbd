"""`rt.strings`: ops on string tensors (see `runtime.ops.strings`)."""

from runtime.ops.strings import length

__all__ = ["length"]
