# Jet flavour tagging (q/g/W/Z/t) from the 30 leading constituents with a Deep Sets network.
# Data: the hls4ml LHC jet dataset converted to jets_150p.h5 ('constituents' (N, 30, 16), 'labels' (N, 5)).
# Multi-GPU on the lxbatch GPU nodes:
#   horovodrun -np 4 python train_tagger.py --data /eos/user/j/jtagger/jets_150p.h5
import argparse
import os
import time

import h5py
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="jets_150p.h5")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch", type=int, default=256)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--latent", type=int, default=64)
parser.add_argument("--outdir", default="tagger_out")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)

with h5py.File(args.data, "r") as f:
    X = f["constituents"][:].astype("float32")
    Y = f["labels"][:].astype("float32")
n_test = len(X) // 5
X_test, Y_test = X[:n_test], Y[:n_test]
X_train, Y_train = X[n_test:], Y[n_test:]

train_ds = (tf.data.Dataset.from_tensor_slices((X_train, Y_train))
            .shuffle(len(X_train))
            .shard(hvd.size(), hvd.rank())
            .batch(args.batch, drop_remainder=True))
steps_per_epoch = len(X_train) // (args.batch * hvd.size())
test_ds = tf.data.Dataset.from_tensor_slices((X_test, Y_test)).shard(hvd.size(), hvd.rank()).batch(1024)


def build_phi(n_feat, latent):
    """Per-particle network, applied to every constituent (shared weights)."""
    inp = tf.keras.Input((None, n_feat))
    h = tf.keras.layers.Dense(64, activation="relu")(inp)
    h = tf.keras.layers.Dense(64, activation="relu")(h)
    h = tf.keras.layers.Dense(latent, activation="relu")(h)
    return tf.keras.Model(inp, h, name="phi")


def build_rho(latent, n_classes):
    """Jet-level classifier on the summed latent vectors."""
    inp = tf.keras.Input((latent,))
    h = tf.keras.layers.Dense(64, activation="relu")(inp)
    h = tf.keras.layers.Dropout(0.1)(h)
    return tf.keras.Model(inp, tf.keras.layers.Dense(n_classes)(h), name="rho")


phi = build_phi(X.shape[-1], args.latent)
rho = build_rho(args.latent, Y.shape[-1])
variables = phi.trainable_variables + rho.trainable_variables
loss_fn = tf.keras.losses.CategoricalCrossentropy(from_logits=True)
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())


def forward(x, training):
    return rho(tf.reduce_sum(phi(x, training=training), axis=1), training=training)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, forward(x, True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, variables)
    opt.apply_gradients(zip(grads, variables))
    if first_batch:
        hvd.broadcast_variables(phi.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def test_counts(x, y):
    pred = tf.argmax(forward(x, False), axis=1)
    correct = tf.reduce_sum(tf.cast(tf.equal(pred, tf.argmax(y, axis=1)), tf.float32))
    return correct, tf.cast(tf.shape(y)[0], tf.float32)


for epoch in range(args.epochs):
    t0 = time.time()
    for step, (x, y) in enumerate(train_ds.take(steps_per_epoch)):
        loss = train_step(x, y, epoch == 0 and step == 0)
    correct, total = 0.0, 0.0
    for x, y in test_ds:
        c, n = test_counts(x, y)
        correct += c
        total += n
    counts = hvd.allreduce(tf.stack([correct, total]), op=hvd.Sum, name="test_counts")
    if hvd.rank() == 0:
        print(f"epoch {epoch}: last loss {float(loss):.4f}  test acc {float(counts[0] / counts[1]):.4f}  "
              f"({time.time() - t0:.0f}s)", flush=True)

if hvd.rank() == 0:
    os.makedirs(args.outdir, exist_ok=True)
    phi.save(os.path.join(args.outdir, "phi.keras"))
    rho.save(os.path.join(args.outdir, "rho.keras"))
