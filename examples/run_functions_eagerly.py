"""`autograph.run_functions_eagerly`: switch every Function to plain Python.

From "Introduction to graphs and tf.function" (Graph execution vs. eager
execution): handy to check that the graph computes what the Python code
does, and to debug with plain Python tools.

Run: python examples/run_functions_eagerly.py
"""

import autograph
import runtime as rt


@autograph.function
def get_mse(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = rt.pow(y_true - y_pred, 2)
    return rt.reduce_mean(sq_diff)


y_true = rt.constant([1, 4, 7, 2, 9])
y_pred = rt.constant([3, 4, 5, 6, 7])

print("graph execution:")
for _ in range(3):
    graph_result = get_mse(y_true, y_pred)

autograph.run_functions_eagerly(True)
print("functions_run_eagerly():", autograph.functions_run_eagerly())
print("eager execution:")
for _ in range(3):
    eager_result = get_mse(y_true, y_pred)
# Don't forget to set it back when you are done.
autograph.run_functions_eagerly(False)
print("functions_run_eagerly():", autograph.functions_run_eagerly())

print("graph:", graph_result.numpy(), "eager:", eager_result.numpy())
assert graph_result.numpy() == eager_result.numpy()
