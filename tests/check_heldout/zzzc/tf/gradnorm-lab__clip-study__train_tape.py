"""Clip-by-global-norm study: how often does clipping fire as the batch grows?

Logs, per step, the norm of this worker's gradient and of the all-worker average.
"""
import argparse
import csv
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from gnl.ckpt import RootCheckpoint
from gnl.data import make_split, sharded
from gnl.metrics import RunningMean
from gnl.models import convnet
from gnl.sync import setup_devices, sync_initial_state

p = argparse.ArgumentParser()
p.add_argument("--clip", type=float, default=1.0)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--batch", type=int, default=64)
p.add_argument("--epochs", type=int, default=4)
p.add_argument("--seed", type=int, default=0)
p.add_argument("--out", default="clip_runs")
args = p.parse_args()

setup_devices()
tf.random.set_seed(args.seed + hvd.rank())   # different augmentation noise per worker

x_tr, y_tr = make_split(12000, 0)
x_va, y_va = make_split(2000, 1)
train_ds = sharded(x_tr, y_tr, args.batch, hvd.rank(), hvd.size())
val_ds = sharded(x_va, y_va, 250, hvd.rank(), hvd.size(), shuffle=False)

model = convnet()
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
ckpt = RootCheckpoint(os.path.join(args.out, "ckpt"), model=model, optimizer=opt)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        x = x + tf.random.normal(tf.shape(x), stddev=0.05)
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    avg = [hvd.allreduce(g, op=hvd.Average) for g in grads]
    clipped, _ = tf.clip_by_global_norm(grads, args.clip)
    opt.apply_gradients(zip(clipped, model.trainable_variables))
    return loss, tf.linalg.global_norm(grads), tf.linalg.global_norm(avg)


rows = []
step = 0
for epoch in range(args.epochs):
    for x, y in train_ds:
        loss, local_norm, global_norm = train_step(x, y)
        if step == 0:
            sync_initial_state(model, opt)
        rows.append((step, float(local_norm), float(global_norm), float(local_norm) > args.clip))
        step += 1
    acc = RunningMean("val_acc")
    for x, y in val_ds:
        pred = tf.argmax(model(x, training=False), axis=1, output_type=tf.int32)
        acc.update(tf.reduce_mean(tf.cast(pred == y, tf.float32)), n=len(y))
    val_acc = acc.result()
    if hvd.rank() == 0:
        print(f"epoch {epoch} loss {float(loss):.4f} val_acc {val_acc:.4f}")
    ckpt.save(epoch)

if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"norms_np{hvd.size()}.csv"), "w", newline="") as f:
        csv.writer(f).writerows([("step", "local_norm", "global_norm", "clipped")] + rows)
