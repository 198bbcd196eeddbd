"""A real training loop: a small model trained with GradientTape and SGD.

From "Better performance with tf.function" (the training-loop pattern of
its datasets and gradients sections): one `autograph.function` runs a whole
epoch, `for x, y in dataset` over a shuffled, batched `rt.data.Dataset` is
one graph loop, and inside it a `GradientTape` records the forward pass,
`tape.gradient` adds the backward pass to the same graph, and
`SGD.apply_gradients` updates the variables, on every batch.

The model: dense(2 -> 16) + tanh + dense(16 -> 1), fitting
y = sin(x0) * cos(x1) on 1,024 synthetic points; the mean squared error
must fall below 0.01.

Run: python examples/train_regression.py
"""

import numpy as np

import autograph
import runtime as rt

THRESHOLD = 0.01
rng = np.random.default_rng(0)
features = rng.uniform(-2.0, 2.0, (1024, 2)).astype(np.float32)
targets = (np.sin(features[:, :1]) * np.cos(features[:, 1:])).astype(np.float32)

dataset = (
    rt.data.Dataset.from_tensor_slices((features, targets))
    .shuffle(1024, seed=0)
    .batch(32)
)

w1 = rt.Variable(rng.normal(0.0, 0.7, (2, 16)).astype(np.float32), name="w1")
b1 = rt.Variable(np.zeros(16, np.float32), name="b1")
w2 = rt.Variable(rng.normal(0.0, 0.3, (16, 1)).astype(np.float32), name="w2")
b2 = rt.Variable(np.zeros(1, np.float32), name="b2")
variables = [w1, b1, w2, b2]
optimizer = rt.optimizers.SGD(learning_rate=0.1)


def model(x):
    hidden = rt.tanh(rt.matmul(x, w1) + b1)
    return rt.matmul(hidden, w2) + b2


@autograph.function
def train_epoch(batches):
    total = rt.constant(0.0)
    count = rt.constant(0.0)
    for x, y in batches:
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(model(x) - y))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        total += loss
        count += 1.0
    return total / count


for epoch in range(1, 41):
    loss = float(train_epoch(dataset))
    if epoch % 5 == 0 or epoch == 1:
        print(f"epoch {epoch:2d}: loss {loss:.4f}")

final = float(rt.reduce_mean(rt.square(model(features) - targets)))
print(f"final mean squared error: {final:.4f}")
print(f"below {THRESHOLD}: {final < THRESHOLD}")
graph = train_epoch.get_concrete_function(dataset).graph
print("traces:", len(train_epoch.pretty_printed_concrete_signatures().split("\n\n")))
print("graph loops:", [op.type for op in graph.get_operations()].count("While"))
