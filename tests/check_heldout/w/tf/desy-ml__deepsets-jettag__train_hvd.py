"""Top-quark jet tagging with a Deep Sets network on particle constituents (TF2/Keras 3 + Horovod).

Input: the top-tagging reference dataset converted to HDF5 chunks, each with
  /constituents (n, 50, 4) = (pT, eta_rel, phi_rel, E)   and   /is_signal (n,)
Maxwell:  mpirun -np 8 python train_hvd.py --train-glob '/beegfs/desy/user/ml/toptag/train_*.h5'
"""
import argparse
import glob
import time

import h5py
import numpy as np
import keras
import tensorflow as tf
import horovod.tensorflow as hvd

p = argparse.ArgumentParser()
p.add_argument("--train-glob", required=True)
p.add_argument("--val-file", required=True)
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--batch-size", type=int, default=256)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--out", default="deepsets_toptag.keras")
args = p.parse_args()

hvd.init()
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)


def read_h5(path):
    with h5py.File(path, "r") as f:
        c = f["constituents"][...].astype("float32")
        y = f["is_signal"][...].astype("float32")
    pt = c[..., :1]
    feats = np.concatenate([np.log1p(pt), c[..., 1:3], np.log1p(c[..., 3:4])], axis=-1)
    mask = (pt > 0).astype("float32")
    return feats * mask, y


# chunk files are the unit of work: each rank takes every size-th file (same count on every rank)
files = sorted(glob.glob(args.train_glob))
files = files[: len(files) // hvd.size() * hvd.size()]
my_files = files[hvd.rank()::hvd.size()]
Xv, yv = read_h5(args.val_file)
nv = len(yv) // hvd.size()
Xv, yv = Xv[hvd.rank() * nv:(hvd.rank() + 1) * nv], yv[hvd.rank() * nv:(hvd.rank() + 1) * nv]


def deep_sets(n_part=50, n_feat=4, phi=(100, 100, 128), rho=(100, 100)):
    inp = keras.Input((n_part, n_feat))
    h = inp
    for w in phi:
        h = keras.layers.Dense(w, activation="relu")(h)
    h = keras.layers.Lambda(lambda t: keras.ops.sum(t, axis=1))(h)
    for w in rho:
        h = keras.layers.Dense(w, activation="relu")(h)
    return keras.Model(inp, keras.layers.Dense(1, activation="sigmoid")(h))


model = deep_sets()
model.compile(optimizer=keras.optimizers.Adam(learning_rate=args.lr * hvd.size()),
              loss="binary_crossentropy", metrics=["accuracy"])

synced = False
for epoch in range(args.epochs):
    t0 = time.time()
    losses = []
    for path in np.random.default_rng(epoch).permutation(my_files):
        X, y = read_h5(path)
        n_batches = len(y) // args.batch_size
        perm = np.random.permutation(len(y))
        for b in range(n_batches):
            idx = perm[b * args.batch_size:(b + 1) * args.batch_size]
            loss, acc = model.train_on_batch(X[idx], y[idx])
            if not synced:
                hvd.broadcast_variables(model.variables, root_rank=0)
                hvd.broadcast_variables(model.optimizer.variables, root_rank=0)
                synced = True
            losses.append(loss)
    vloss, vacc = model.evaluate(Xv, yv, batch_size=1024, verbose=0)
    vloss, vacc = hvd.allreduce(tf.constant([vloss, vacc], dtype=tf.float32), name="val").numpy()
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1:2d}: train_loss {np.mean(losses):.4f}  val_loss {vloss:.4f}  "
              f"val_acc {vacc:.4f}  ({time.time() - t0:.0f}s)", flush=True)

if hvd.rank() == 0:
    model.save(args.out)
