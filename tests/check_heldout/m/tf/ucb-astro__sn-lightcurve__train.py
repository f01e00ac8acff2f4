"""Supernova light-curve classifier (bidirectional GRU over irregular multi-band photometry).

Horovod, custom training loop. The global batch is fixed: adding workers splits it, so the
learning rate is the one tuned for that global batch and is not rescaled.

    horovodrun -np 4 python train.py --data plasticc_lc.npz --global-batch 512
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/plasticc_lc.npz")
parser.add_argument("--out", default="runs/lc_gru")
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--global-batch", type=int, default=512)
parser.add_argument("--lr", type=float, default=2e-3, help="tuned for --global-batch")
parser.add_argument("--hidden", type=int, default=128)
args = parser.parse_args()

if args.global_batch % hvd.size():
    raise SystemExit(f"--global-batch {args.global_batch} is not divisible by {hvd.size()} workers")
local_batch = args.global_batch // hvd.size()


def load(path):
    d = np.load(path)
    # x: (N, T, 2 + n_bands) = [dt, flux, one-hot band]; mask: (N, T); y: (N,)
    return ((d["x_train"], d["m_train"], d["y_train"]), (d["x_val"], d["m_val"], d["y_val"]),
            int(d["n_classes"]))


(train_x, train_m, train_y), (val_x, val_m, val_y), n_classes = load(args.data)
steps_per_epoch = len(train_y) // args.global_batch

train_ds = (tf.data.Dataset.from_tensor_slices((train_x, train_m, train_y))
            .shard(hvd.size(), hvd.rank())
            .shuffle(10000, seed=hvd.rank())
            .repeat()
            .batch(local_batch, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = (tf.data.Dataset.from_tensor_slices((val_x, val_m, val_y))
          .shard(hvd.size(), hvd.rank())
          .batch(1024))


class LightCurveGRU(tf.keras.Model):
    def __init__(self, hidden, n_classes):
        super().__init__()
        self.inp = tf.keras.layers.Dense(hidden, activation="gelu")
        self.rnn = tf.keras.layers.Bidirectional(tf.keras.layers.GRU(hidden, return_sequences=True))
        self.att = tf.keras.layers.Dense(1)
        self.head = tf.keras.layers.Dense(n_classes)

    def call(self, x, mask, training=False):
        h = self.rnn(self.inp(x), mask=tf.cast(mask, tf.bool), training=training)
        scores = tf.squeeze(self.att(h), -1) + (1.0 - tf.cast(mask, tf.float32)) * -1e9
        w = tf.nn.softmax(scores, axis=1)
        return self.head(tf.reduce_sum(h * w[..., None], axis=1))


model = LightCurveGRU(args.hidden, n_classes)
opt = tf.keras.optimizers.Adam(args.lr)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function(reduce_retracing=True)
def train_step(x, m, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, m, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function(reduce_retracing=True)
def eval_step(x, m, y):
    logits = model(x, m, training=False)
    loss_sum = tf.reduce_sum(tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=y.dtype), y), tf.float32))
    return loss_sum, correct, tf.cast(tf.shape(y)[0], tf.float32)


os.makedirs(args.out, exist_ok=True)
it = iter(train_ds)
for epoch in range(args.epochs):
    t0 = time.time()
    for step in range(steps_per_epoch):
        x, m, y = next(it)
        train_step(x, m, y)
        if epoch == 0 and step == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)

    totals = tf.zeros(3)
    for x, m, y in val_ds:
        totals += tf.stack(eval_step(x, m, y))
    totals = hvd.allreduce(totals, op=hvd.Sum, name="val_totals")
    if hvd.rank() == 0:
        print(f"epoch {epoch}: val loss {float(totals[0] / totals[2]):.4f} val acc {float(totals[1] / totals[2]):.4f} "
              f"({time.time() - t0:.0f}s)", flush=True)
        model.save_weights(os.path.join(args.out, f"epoch{epoch:03d}.weights.h5"))
