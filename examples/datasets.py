"""Datasets in a Function: one loop op, whatever the amount of data.

From "Better performance with tf.function" (Looping over Python data):
`for x in dataset` inside a Function is one graph loop that draws the
elements when the graph runs. A dataset made with `from_generator` keeps the
data in Python, so the graph stays small and constant; one made with
`from_tensors` / `from_tensor_slices` of a Python list inside the Function
bundles a copy of the data into the graph as one large constant node.

Run: python examples/datasets.py
"""

import autograph
import runtime as rt


def graph_size(f):
    graph = f.get_concrete_function().graph
    nodes = graph.as_graph_def().node
    data = sum(n.attr["value"].size for n in nodes if n.op == "Const")
    return f"{len(nodes)} nodes, {data} constant elements"


def make_train(name, make_dataset):
    @autograph.function
    def train():
        loss = rt.constant(0)
        for x, y in make_dataset():
            loss += rt.reduce_sum(rt.abs(y - x))  # Some dummy computation.
        return loss

    train.__name__ = name
    return train


small_data = [(1, 2)] * 3
big_data = [(1, 2)] * 10_000
signature = (rt.TensorSpec((), rt.int32), rt.TensorSpec((), rt.int32))

for label, data in (("small_data", small_data), ("big_data", big_data)):
    from_generator = make_train(
        "train_from_generator",
        lambda data=data: rt.data.Dataset.from_generator(
            lambda: data, output_signature=signature
        ),
    )
    from_tensors = make_train(
        "train_from_tensors",
        lambda data=data: rt.data.Dataset.from_tensors(data).map(
            lambda rows: (rows[:, 0], rows[:, 1])
        ),
    )
    from_slices = make_train(
        "train_from_tensor_slices",
        lambda data=data: rt.data.Dataset.from_tensor_slices(data).map(
            lambda row: (row[0], row[1])
        ),
    )
    print(f"from_generator({label}): {graph_size(from_generator)}")
    print(f"from_tensors({label}): {graph_size(from_tensors)}")
    print(f"from_tensor_slices({label}): {graph_size(from_slices)}")
    losses = {int(f()) for f in (from_generator, from_tensors, from_slices)}
    print(f"  the same loss each way: {losses}")


@autograph.function
def total(dataset):
    s = rt.constant(0.0)
    for x in dataset:
        if x > 1_000.0:
            break
        s += x
    return s


few = rt.data.Dataset.range(10).map(lambda i: rt.cast(i, rt.float32))
many = rt.data.Dataset.range(10_000).map(lambda i: rt.cast(i, rt.float32))
print("total(10 elements):", float(total(few)))
print("total(10,000 elements, break after 1000):", float(total(many)))
print(total.pretty_printed_concrete_signatures())
