"""Column-physics emulator (MLP) trained on ERA5 column samples, TF2 + Horovod on Derecho.

    qsub -l select=2:ncpus=64:mpiprocs=4:ngpus=4 -v SYNC_EVERY=4 pbs/train_2node.pbs
    # pbs/train_2node.pbs:  mpiexec -n 8 -ppn 4 python train.py --data $SCRATCH/era5_columns.npz

--sync-every K averages gradients across ranks every K-th step only (communication-reduction
experiment for the scaling paper; K=1 is plain synchronous data parallelism).
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from era import pbs
from era.data import load_columns, make_dataset
from era.logs import RankLogger
from era.model import build_mlp

ap = argparse.ArgumentParser()
ap.add_argument("--data", default=os.path.join(os.environ.get("SCRATCH", "."), "era5_columns.npz"))
ap.add_argument("--batch-size", type=int, default=512)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=20)
ap.add_argument("--sync-every", type=int, default=int(os.environ.get("SYNC_EVERY", 4)))
ap.add_argument("--hidden", type=int, nargs="+", default=[512, 512, 256])
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--log-dir", default="logs")
args = ap.parse_args()

hvd.init()
pbs.configure_node(hvd.local_rank(), hvd.local_size())
log = RankLogger(args.log_dir, hvd.rank())
log.root(f"{hvd.size()} ranks, {pbs.num_nodes()} nodes, job {pbs.job_id()}, sync every {args.sync_every}")

(x, y), (xv, yv), stats = load_columns(args.data)
train_ds = make_dataset(x, y, args.batch_size, shard=(hvd.size(), hvd.local_rank()), training=True)
val_ds = make_dataset(xv, yv, 4096, training=False)
steps_per_epoch = len(x) // (args.batch_size * hvd.size())

model = build_mlp(x.shape[1], y.shape[1], args.hidden)
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt.build(model.trainable_variables)
hvd.broadcast_variables(model.variables, root_rank=0)
hvd.broadcast_variables(opt.variables, root_rank=0)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)
mse = tf.keras.losses.MeanSquaredError()


@tf.function
def train_step(xb, yb, sync):
    with tf.GradientTape() as tape:
        loss = mse(yb, model(xb, training=True))
    if sync:
        tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def val_step(xb, yb):
    return mse(yb, model(xb, training=False)) * tf.cast(tf.shape(xb)[0], tf.float32)


it = iter(train_ds)
global_step = 0
for epoch in range(args.epochs):
    log.tic()
    for _ in range(steps_per_epoch):
        xb, yb = next(it)
        loss = train_step(xb, yb, global_step % args.sync_every == 0)
        global_step += 1
    log.toc(epoch, steps_per_epoch * args.batch_size)

    # validation set is not sharded: every rank scores all of it, rank 0 reports
    total, n = 0.0, 0
    for xb, yb in val_ds:
        total += float(val_step(xb, yb))
        n += int(xb.shape[0])
    log.root(f"epoch {epoch}: last train loss {float(loss):.5f}, val mse {total / n:.5f}")
    if hvd.rank() == 0:
        manager.save(checkpoint_number=epoch)

if hvd.rank() == 0:
    model.save(os.path.join(args.ckpt_dir, "emulator.keras"))
    stats.save(os.path.join(args.ckpt_dir, "norm_stats.npz"))
log.close()
