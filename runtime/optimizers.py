"""`rt.optimizers`: update variables from gradients.

>>> import runtime as rt
>>> v = rt.Variable(1.0)
>>> rt.optimizers.SGD(0.5).apply_gradients([(rt.constant(2.0), v)])
>>> v.numpy()
array(0., dtype=float32)
"""

from runtime.gradients.optimizers import SGD

__all__ = ["SGD"]
