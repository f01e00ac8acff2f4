"""DeepLOB-style mid-price direction classifier on limit order book snapshots.

Keras 3 + horovod.tensorflow.keras.  Labels: 0 = down, 1 = stationary, 2 = up (k-step smoothed mid).
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--npz", default=None, help="npz with X (N, T, 40) and y (N,)")
ap.add_argument("--T", type=int, default=100)
ap.add_argument("--batch", type=int, default=64)
ap.add_argument("--epochs", type=int, default=10)
ap.add_argument("--base-lr", type=float, default=1e-3)
ap.add_argument("--warmup", type=int, default=2)
ap.add_argument("--ckpt-dir", default="./ckpt")
opts = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def load(npz, T):
    if npz and os.path.exists(npz):
        d = np.load(npz)
        return d["X"].astype("float32"), d["y"].astype("int32")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4096, T, 40)).astype("float32")
    y = rng.integers(0, 3, size=4096).astype("int32")
    return X, y


X, y = load(opts.npz, opts.T)
n_tr = int(len(X) * 0.85)
# z-score with statistics of the training days only
mu = X[:n_tr].mean(axis=(0, 1), keepdims=True)
sd = X[:n_tr].std(axis=(0, 1), keepdims=True) + 1e-6
X = (X - mu) / sd
X_tr, y_tr, X_va, y_va = X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:]

train_ds = (tf.data.Dataset.from_tensor_slices((X_tr, y_tr))
            .shard(num_shards=hvd.size(), index=hvd.rank())
            .shuffle(2048, seed=hvd.rank())
            .batch(opts.batch, drop_remainder=True)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
steps_per_epoch = n_tr // (opts.batch * hvd.size())
val_ds = tf.data.Dataset.from_tensor_slices((X_va, y_va)).batch(256)


def deeplob_small(T):
    inp = keras.Input((T, 40))
    x = keras.layers.Reshape((T, 40, 1))(inp)
    x = keras.layers.Conv2D(16, (1, 2), strides=(1, 2), activation="leaky_relu")(x)
    x = keras.layers.Conv2D(16, (4, 1), padding="same", activation="leaky_relu")(x)
    x = keras.layers.Conv2D(16, (1, 10), strides=(1, 10), activation="leaky_relu")(x)
    x = keras.layers.Reshape((T, -1))(x)
    x = keras.layers.LSTM(32)(x)
    out = keras.layers.Dense(3, activation="softmax")(x)
    return keras.Model(inp, out)


model = deeplob_small(opts.T)
scaled_lr = opts.base_lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=opts.warmup,
                                             steps_per_epoch=steps_per_epoch, verbose=0),
]
if hvd.rank() == 0:
    os.makedirs(opts.ckpt_dir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(opts.ckpt_dir, "lob-{epoch:02d}.keras")))

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=opts.epochs, validation_data=val_ds,
          callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
