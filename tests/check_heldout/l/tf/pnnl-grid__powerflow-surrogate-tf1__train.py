"""AC power-flow surrogate for the 2000-bus Texas synthetic grid.

Legacy graph-mode code (tf.compat.v1) kept for comparison with the published numbers.

    mpirun -np 8 python train.py --train data/tx2000_train.npz --val data/tx2000_val.npz
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from surrogate.data import BatchIterator, load_split, shard
from surrogate.graph import ARCHS, loss_and_metrics

v1 = tf.compat.v1
v1.disable_eager_execution()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--model-dir", default="models/tx2000")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--keep-prob", type=float, default=0.9)
    ap.add_argument("--arch", choices=sorted(ARCHS), default="mlp")
    args = ap.parse_args()

    hvd.init()

    x_tr, y_tr, n_bus = load_split(args.train)
    x_va, y_va, _ = load_split(args.val)
    n_total = len(x_tr)
    x_tr, y_tr = shard(x_tr, y_tr, hvd.rank(), hvd.size())
    x_va, y_va = shard(x_va, y_va, hvd.rank(), hvd.size())
    batches = BatchIterator(x_tr, y_tr, args.batch_size, seed=hvd.rank())

    x_ph = v1.placeholder(tf.float32, [None, x_tr.shape[1]], name="x")
    y_ph = v1.placeholder(tf.float32, [None, y_tr.shape[1]], name="y")
    training = v1.placeholder_with_default(False, [], name="training")
    keep = tf.cond(training, lambda: tf.constant(args.keep_prob), lambda: tf.constant(1.0))
    with v1.variable_scope("surrogate"):
        pred = ARCHS[args.arch](x_ph, y_tr.shape[1], keep_prob=keep)
    mse, vm_mae, va_mae = loss_and_metrics(pred, y_ph, n_bus)

    global_step = v1.train.get_or_create_global_step()
    opt = v1.train.AdamOptimizer(args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    train_op = opt.minimize(mse, global_step=global_step)

    # validation numbers averaged over the workers' shards inside the graph
    val_stats = hvd.allreduce(tf.stack([mse, vm_mae, va_mae]), name="val_stats")

    steps_per_epoch = n_total // (args.batch_size * hvd.size())
    total_steps = args.epochs * steps_per_epoch
    init_op = v1.global_variables_initializer()
    bcast_op = hvd.broadcast_global_variables(0)
    saver = v1.train.Saver(max_to_keep=5)

    config = v1.ConfigProto()
    config.gpu_options.allow_growth = True
    config.gpu_options.visible_device_list = str(hvd.local_rank())

    t0 = time.time()
    with v1.Session(config=config) as sess:
        sess.run(init_op)
        # every worker starts from rank 0's initial weights
        sess.run(bcast_op)
        for step in range(1, total_steps + 1):
            xb, yb = batches.next()
            sess.run(train_op, {x_ph: xb, y_ph: yb, training: True})
            if step % steps_per_epoch:
                continue
            epoch = step // steps_per_epoch
            stats = sess.run(val_stats, {x_ph: x_va, y_ph: y_va})
            if hvd.rank() == 0:
                print(f"epoch {epoch:3d}  val mse {stats[0]:.5f}  |V| mae {stats[1]:.5f}  "
                      f"angle mae {stats[2]:.5f}  ({time.time() - t0:.0f}s)", flush=True)
                if epoch % 5 == 0 or step == total_steps:
                    os.makedirs(args.model_dir, exist_ok=True)
                    saver.save(sess, os.path.join(args.model_dir, "surrogate.ckpt"), global_step=global_step)


if __name__ == "__main__":
    main()
