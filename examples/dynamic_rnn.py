"""Accumulating values in a loop: `rt.TensorArray` in a `dynamic_rnn`.

From "Better performance with tf.function" (Accumulating values in a loop):
appending to a Python list is a Python side effect; a TensorArray collects
one value per iteration of a graph loop.

Run: python examples/dynamic_rnn.py
"""

import autograph
import runtime as rt

batch_size = 2
seq_len = 3
feature_size = 4


def rnn_step(inp, state):
    return inp + state


@autograph.function
def dynamic_rnn(rnn_step, input_data, initial_state):
    # [batch, time, features] -> [time, batch, features]
    input_data = rt.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]

    states = rt.TensorArray(rt.float32, size=max_seq_len)
    state = initial_state
    for i in rt.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return rt.transpose(states.stack(), [1, 0, 2])


inputs = rt.ones([batch_size, seq_len, feature_size])
result = dynamic_rnn(rnn_step, inputs, rt.zeros([batch_size, feature_size]))
print(result)
print("shape:", result.shape)
print("last step of each sequence:", result.numpy()[:, -1, 0])
graph = dynamic_rnn.get_concrete_function(
    rnn_step, inputs, rt.zeros([batch_size, feature_size])
).graph
print(
    "one while node:", [op.name for op in graph.get_operations() if op.type == "While"]
)
