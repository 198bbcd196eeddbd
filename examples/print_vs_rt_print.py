"""`print` vs `rt.print`: Python side effects run while tracing only.

From "Introduction to graphs and tf.function" (Graph execution vs. eager
execution) and "Better performance with tf.function" (Executing Python side
effects): a Python `print` runs when the Function traces; `rt.print` is a
graph op and runs on every call.

Run: python examples/print_vs_rt_print.py
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
for _ in range(3):
    error = get_mse(y_true, y_pred)
print("MSE:", error.numpy())
print("(get_mse was called three times but printed once)")


@autograph.function
def f(x):
    print("Traced with", x)
    rt.print("Executed with", x)


f(1)
f(1)
f(2)
