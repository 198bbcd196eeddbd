"""`rt.data`: input pipelines (`rt.data.Dataset`).

    >>> import runtime as rt
    >>> ds = rt.data.Dataset.range(6).filter(lambda x: x % 2 == 0).map(lambda x: x * 10)
    >>> [int(x) for x in ds]
    [0, 20, 40]

A dataset is a Python pipeline over NumPy values: iterating it eagerly
yields eager tensors. Inside a `Function`, `for x in ds:` is one graph loop
(`runtime.data.graph_loop`): the graph holds an iterator op that refers to
the dataset, and each iteration draws the next element when the graph runs,
so the graph does not grow with the data.
"""

from runtime.data import graph_loop as _graph_loop
from runtime.data.dataset import Dataset, DatasetSpec

del _graph_loop

__all__ = ["Dataset", "DatasetSpec"]
