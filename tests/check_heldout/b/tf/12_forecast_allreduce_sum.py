#!/usr/bin/env python3
"""Multi-horizon load forecasting with a small Transformer encoder.
Gradients are averaged with explicit Horovod allreduce calls (no tape wrapper).
"""
import argparse
import glob
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

WINDOW = 168
HORIZON = 24


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv-dir", default="data/load")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--ckpt-dir", default="ckpts/forecast")
    return ap.parse_args()


def load_series(csv_dir):
    files = sorted(glob.glob(os.path.join(csv_dir, "*.csv")))
    series = [np.loadtxt(f, delimiter=",", skiprows=1, usecols=1, dtype=np.float32) for f in files]
    series = [(s - s.mean()) / (s.std() + 1e-6) for s in series]
    return series


def windows(series_list):
    xs, ys = [], []
    for s in series_list:
        for i in range(0, len(s) - WINDOW - HORIZON, 6):
            xs.append(s[i:i + WINDOW])
            ys.append(s[i + WINDOW:i + WINDOW + HORIZON])
    return np.stack(xs)[..., None], np.stack(ys)


def encoder_block(x, d_model, heads=4, ff=128, drop=0.1):
    attn = tf.keras.layers.MultiHeadAttention(num_heads=heads, key_dim=d_model // heads)(x, x)
    x = tf.keras.layers.LayerNormalization()(x + tf.keras.layers.Dropout(drop)(attn))
    h = tf.keras.layers.Dense(ff, activation="relu")(x)
    h = tf.keras.layers.Dense(d_model)(h)
    return tf.keras.layers.LayerNormalization()(x + tf.keras.layers.Dropout(drop)(h))


def build_model(d_model):
    inp = tf.keras.Input((WINDOW, 1))
    x = tf.keras.layers.Dense(d_model)(inp)
    pos = tf.keras.layers.Embedding(WINDOW, d_model)(tf.range(WINDOW))
    x = x + pos
    for _ in range(3):
        x = encoder_block(x, d_model)
    x = tf.keras.layers.GlobalAveragePooling1D()(x)
    return tf.keras.Model(inp, tf.keras.layers.Dense(HORIZON)(x))


def broadcast_model(model):
    hvd.broadcast_variables(model.variables, root_rank=0)


def main():
    args = cli()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    is_chief = hvd.rank() == 0

    X, Y = windows(load_series(args.csv_dir))
    n_val = len(X) // 10
    Xtr, Ytr, Xva, Yva = X[n_val:], Y[n_val:], X[:n_val], Y[:n_val]
    Xtr, Ytr = Xtr[hvd.rank()::hvd.size()], Ytr[hvd.rank()::hvd.size()]

    train_ds = tf.data.Dataset.from_tensor_slices((Xtr, Ytr)).shuffle(4096).batch(args.batch, drop_remainder=True)
    val_ds = tf.data.Dataset.from_tensor_slices((Xva, Yva)).batch(512)

    model = build_model(args.d_model)
    opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
    broadcast_model(model)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            pred = model(x, training=True)
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, model.trainable_variables)
        grads = [hvd.allreduce(g, op=hvd.Sum) for g in grads]
        grads, _ = tf.clip_by_global_norm(grads, 1.0)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    best = np.inf
    for epoch in range(args.epochs):
        total, count = 0.0, 0
        for x, y in train_ds:
            total += float(train_step(x, y))
            count += 1
        epoch_loss = hvd.allreduce(tf.constant(total / count), op=hvd.Sum)

        val_err = []
        for x, y in val_ds:
            val_err.append(float(tf.reduce_mean(tf.abs(model(x) - y))))
        val_mae = float(np.mean(val_err))

        if is_chief:
            print(f"epoch {epoch:02d} train_mse {float(epoch_loss):.4f} val_mae {val_mae:.4f}")
            if val_mae < best:
                best = val_mae
                ckpt.write(os.path.join(args.ckpt_dir, "best"))


if __name__ == "__main__":
    main()
