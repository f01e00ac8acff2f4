"""hvdkit.tensorflow.DistributedGradientTape averages as a sum of gradients seeded with 1/size (no Horovod
postscale pass): at 3 ranks, where 1/3 is inexact, with a scalar target, a vector target with the caller's
output_gradients, and op="sum" left alone; each against the closed form computed here in float64. Horovod's
own Average gives the same means within rounding, so the graph of a traced step is checked too: its
allreduce must be Horovod's Sum with pre- and postscale 1."""
import numpy as np
import pytest

pytestmark = [pytest.mark.horovod, pytest.mark.tensorflow, pytest.mark.slow]  # slow: launches ranks

SCRIPT = """
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd
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

# The collectives the graph of a traced step runs: hvdkit's average must be Horovod's Sum with no postscale
# (Horovod's own Average gives the same means within rounding, so only the ops can tell them apart).
for name, op in (("average", "average"), ("sum", "sum")):
    @tf.function
    def step(p):
        with tf.GradientTape() as tape:
            target = tf.reduce_sum(p * g)
        return hk.DistributedGradientTape(tape, op=op).gradient(target, p)
    p = tf.Variable(tf.zeros(4))
    graph = step.get_concrete_function(p).graph.as_graph_def()
    # Horovod builds its allreduce inside a tf.cond: the op is in a branch function of the graph's library.
    nodes = list(graph.node) + [n for f in graph.library.function for n in f.node_def]
    ops = [n for n in nodes if n.op.startswith("Horovod") and "Allreduce" in n.op]
    print("OPS", name, len(ops), *sorted({(n.attr["reduce_op"].i, n.attr["prescale_factor"].f,
                                          n.attr["postscale_factor"].f) for n in ops}), flush=True)
    print("GRAD", "traced-" + name, *np.asarray(step(p), np.float64).tolist(), flush=True)
print("HOROVOD_OPS", int(hvd.Sum), int(hvd.Average), flush=True)
"""


def test_tape_average_is_the_mean_of_the_ranks_gradients(ranks):
    out = ranks(3, SCRIPT).check()
    r = np.arange(3.0)
    g = np.stack([r + 1, 1 / (r + 1), -2 * r, np.full(3, 0.1)], axis=1)  # rank r's gradient, row r
    expected = {"scalar": g.mean(0), "vector": g.mean(0) * [1, 2, 3, 4], "sum": g.sum(0),
                "traced-average": g.mean(0), "traced-sum": g.sum(0)}
    lines = out.lines("GRAD")
    assert len(lines) == 3 * len(expected), lines
    for line in lines:
        name, *values = line.split()
        np.testing.assert_allclose(np.array(values, float), expected[name], rtol=1e-6, atol=1e-7, err_msg=name)
    (codes,) = set(out.lines("HOROVOD_OPS"))
    sum_op, average_op = map(int, codes.split())
    assert sum_op != average_op
    # One collective per gradient (one here), Horovod's Sum, no scaling: the 1/3 came from the seed.
    assert set(out.lines("OPS average")) == {f"1 ({sum_op}, 1.0, 1.0)"}, out.lines("OPS")
    assert set(out.lines("OPS sum")) == {f"1 ({sum_op}, 1.0, 1.0)"}, out.lines("OPS")
