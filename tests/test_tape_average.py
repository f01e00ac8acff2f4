"""hvdkit.tensorflow.DistributedGradientTape averages as a sum of gradients seeded with 1/size (no Horovod
postscale pass): at 3 ranks, where 1/3 is inexact, with a scalar target, a vector target with the caller's
output_gradients, and op="sum" left alone; each against the closed form computed here in float64."""
import numpy as np
import pytest

pytestmark = [pytest.mark.horovod, pytest.mark.tensorflow, pytest.mark.slow]  # slow: launches ranks

SCRIPT = """
import numpy as np
import tensorflow as tf
import hvdkit.tensorflow as hk

ctx = hk.init(threads=1)
g = tf.constant([ctx.rank + 1.0, 1.0 / (ctx.rank + 1), -2.0 * ctx.rank, 0.1], tf.float32)
w = tf.constant([1.0, 2.0, 3.0, 4.0])
cases = {"scalar": (lambda p: tf.reduce_sum(p * g), None, "average"),
         "vector": (lambda p: p * g, w, "average"),
         "sum": (lambda p: tf.reduce_sum(p * g), None, "sum")}
for name, (loss, seed, op) in cases.items():
    p = tf.Variable(tf.zeros(4))
    with tf.GradientTape() as tape:
        target = loss(p)
    grad = hk.DistributedGradientTape(tape, op=op).gradient(target, p, output_gradients=seed)
    print("GRAD", name, *np.asarray(grad, np.float64).tolist(), flush=True)
"""


def test_tape_average_is_the_mean_of_the_ranks_gradients(ranks):
    out = ranks(3, SCRIPT).check()
    r = np.arange(3.0)
    g = np.stack([r + 1, 1 / (r + 1), -2 * r, np.full(3, 0.1)], axis=1)  # rank r's gradient, row r
    expected = {"scalar": g.mean(0), "vector": g.mean(0) * [1, 2, 3, 4], "sum": g.sum(0)}
    lines = out.lines("GRAD")
    assert len(lines) == 3 * len(expected), lines
    for line in lines:
        name, *values = line.split()
        np.testing.assert_allclose(np.array(values, float), expected[name], rtol=1e-6, atol=1e-7, err_msg=name)
