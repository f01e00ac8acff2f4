# LARS (hand-written, TF2) on a small ResNet: logs the mean per-layer trust ratio each epoch.
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from larstf import LARSUpdate
from larstf.input import arrays, eval_dataset, train_dataset
from larstf.logutil import Table
from larstf.net import resnetish

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.5)
parser.add_argument("--eta", type=float, default=1e-3)
parser.add_argument("--batch-size", type=int, default=256, help="images per GPU")
parser.add_argument("--epochs", type=int, default=6)
parser.add_argument("--ckpt-dir", default="./lars_ckpt")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

x_tr, y_tr = arrays(20000, 0)
x_va, y_va = arrays(4000, 1)
train_ds = train_dataset(x_tr, y_tr, args.batch_size, hvd.rank(), hvd.size())
val_ds = eval_dataset(x_va, y_va, 500, hvd.rank(), hvd.size())

model = resnetish()
lars = LARSUpdate(lr=args.lr, eta=args.eta)
lars.build(model.trainable_variables)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
ckpt = tf.train.Checkpoint(model=model, step=tf.Variable(0, dtype=tf.int64))


@tf.function
def step(x, y, first):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    ratios = lars.apply(grads, model.trainable_variables)
    if first:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(lars.variables(), root_rank=0)
    return loss, tf.reduce_mean(ratios)


@tf.function
def correct(x, y):
    return tf.reduce_sum(tf.cast(tf.argmax(model(x, training=False), 1) == y, tf.float32))


table = Table(f"lars_np{hvd.size()}.tsv", ["epoch", "loss", "trust", "val_acc"])
first = True
for epoch in range(args.epochs):
    losses, trusts = [], []
    for x, y in train_ds:
        loss, trust = step(x, y, first)
        first = False
        losses.append(float(loss))
        trusts.append(float(trust))
    hits = sum(float(correct(x, y)) for x, y in val_ds)
    val_acc = float(hvd.allreduce(tf.constant(hits), op=hvd.Sum)) / (len(x_va) // hvd.size() * hvd.size())
    mean_loss = float(hvd.allreduce(tf.constant(sum(losses) / len(losses))))
    if hvd.rank() == 0:
        table.add(epoch, mean_loss, sum(trusts) / len(trusts), val_acc)
        print(f"epoch {epoch}: loss {mean_loss:.4f} trust {trusts[-1]:.2e} val_acc {val_acc:.4f}")
        ckpt.step.assign_add(1)
        ckpt.save(os.path.join(args.ckpt_dir, "lars"))
if hvd.rank() == 0:
    table.write()
