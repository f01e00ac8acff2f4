"""Custom-loop trainer (TF2) from our project template, horovod edition.

horovodrun -np 2 python train.py --config exp.json
Every knob lives in the JSON; CLI flags only override a few of them.
"""
import argparse
import json
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()

_gpus = tf.config.experimental.list_physical_devices('GPU')
for _g in _gpus:
    tf.config.experimental.set_memory_growth(_g, True)
if _gpus:
    tf.config.experimental.set_visible_devices(_gpus[hvd.local_rank()], 'GPU')

DEFAULTS = {
    "data": "data/digits.npz",
    "arch": "mlp",
    "arch_args": {"hidden": 256},
    "optimizer": "sgd",
    "lr": 0.02,
    "batch_size": 64,
    "epochs": 20,
    "ckpt_dir": "ckpt",
    "log_every": 100,
}


def mlp(n_in, n_out, hidden=256):
    return tf.keras.Sequential([tf.keras.Input((n_in,)),
                                tf.keras.layers.Dense(hidden, activation='relu'),
                                tf.keras.layers.Dense(hidden, activation='relu'),
                                tf.keras.layers.Dense(n_out)])


def linear(n_in, n_out):
    return tf.keras.Sequential([tf.keras.Input((n_in,)), tf.keras.layers.Dense(n_out)])


ARCHS = {"mlp": mlp, "linear": linear}
OPTIMIZERS = {
    "sgd": lambda lr: tf.keras.optimizers.SGD(lr, momentum=0.9),
    "adam": lambda lr: tf.keras.optimizers.Adam(lr),
}

ap = argparse.ArgumentParser()
ap.add_argument('--config', default=None)
ap.add_argument('--epochs', type=int, default=None)
ap.add_argument('--lr', type=float, default=None)
cli = ap.parse_args()
cfg = dict(DEFAULTS)
if cli.config:
    with open(cli.config) as fh:
        cfg.update(json.load(fh))
for k in ('epochs', 'lr'):
    if getattr(cli, k) is not None:
        cfg[k] = getattr(cli, k)

blob = np.load(cfg["data"])
X, Y = blob["x"].astype(np.float32), blob["y"].astype(np.int64)
Xv, Yv = blob["x_val"].astype(np.float32), blob["y_val"].astype(np.int64)
n_classes = int(Y.max()) + 1

# split the rows ourselves: a common shuffled order, every rank keeps rows r, r+size, ...
order = np.random.RandomState(0).permutation(len(X))
mine = order[hvd.rank()::hvd.size()]
n_per_rank = len(X) // hvd.size()
mine = mine[:n_per_rank]
train = (tf.data.Dataset.from_tensor_slices((X[mine], Y[mine]))
         .shuffle(len(mine), seed=hvd.rank())
         .batch(cfg["batch_size"], drop_remainder=True))
val_rows = np.arange(len(Xv))[hvd.rank()::hvd.size()]
val = tf.data.Dataset.from_tensor_slices((Xv[val_rows], Yv[val_rows])).batch(256)

model = ARCHS[cfg["arch"]](X.shape[1], n_classes, **cfg["arch_args"])
opt = OPTIMIZERS[cfg["optimizer"]](cfg["lr"] * hvd.size())
xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, cfg["ckpt_dir"], max_to_keep=3)


@tf.function
def step(x, y, first):
    with tf.GradientTape() as tape:
        loss = xent(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def evaluate():
    loss_sum = 0.0
    hit = 0.0
    n = 0.0
    for x, y in val:
        logits = model(x, training=False)
        loss_sum += float(tf.reduce_sum(tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)))
        hit += float(tf.reduce_sum(tf.cast(tf.argmax(logits, -1) == y, tf.float32)))
        n += int(y.shape[0])
    tot = hvd.allreduce(tf.constant([loss_sum, hit, n], tf.float64), op=hvd.Sum, name='val_sums').numpy()
    return tot[0] / tot[2], tot[1] / tot[2]


gstep = 0
for epoch in range(cfg["epochs"]):
    t0 = time.time()
    for xb, yb in train:
        loss = step(xb, yb, gstep == 0)
        if gstep % cfg["log_every"] == 0 and hvd.rank() == 0:
            print('epoch %d step %d loss %.4f' % (epoch, gstep, loss))
        gstep += 1
    vloss, vacc = evaluate()
    if hvd.rank() == 0:
        print('== epoch %d  val_loss %.4f  val_acc %.4f  (%.1fs)' % (epoch, vloss, vacc, time.time() - t0))
        manager.save(checkpoint_number=epoch)
