"""One SGD step (lr 1) on p = 0 with loss p . g_r, for each (op, compression): p ends at -reduce(g_0..g_n-1).

    mpirun -n 2 python tests/ranks/reduce_ops.py torch|tensorflow

Rank r's gradient is G[r], chosen so that fp16 rounding is visible and Adasum differs from sum and average.
Prints `RESULT rank op compression p...` per case.
"""
import sys

import numpy as np

G = np.array([[1 / 3, 2.0, -0.7, 0.0], [0.9, -1 / 7, 0.3, 5.0]], dtype=np.float32)
CASES = [("average", "none"), ("sum", "none"), ("adasum", "none"), ("average", "fp16")]


def run_torch():
    import torch
    import hvdkit.torch as hk
    ctx = hk.init(threads=1)
    g = torch.from_numpy(G[ctx.rank])
    for op, comp in CASES:
        model = torch.nn.Linear(4, 1, bias=False)
        torch.nn.init.zeros_(model.weight)
        opt = hk.distributed_optimizer(torch.optim.SGD(model.parameters(), lr=1.0), model,
                                       compression=comp, op=op)
        opt.zero_grad()
        (model.weight[0] * g).sum().backward()
        opt.step()
        print("RESULT", ctx.rank, op, comp, *model.weight[0].tolist(), flush=True)


def run_tensorflow():
    import tensorflow as tf
    import hvdkit.tensorflow as hk
    ctx = hk.init(threads=1)
    g = tf.constant(G[ctx.rank])
    for op, comp in CASES:
        p = tf.Variable(tf.zeros(4))
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(p * g)
        tape = hk.DistributedGradientTape(tape, compression=comp, op=op)
        p.assign_sub(tape.gradient(loss, p))
        print("RESULT", ctx.rank, op, comp, *p.numpy().tolist(), flush=True)


if __name__ == "__main__":
    {"torch": run_torch, "tensorflow": run_tensorflow}[sys.argv[1]]()
