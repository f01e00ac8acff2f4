#!/usr/bin/env python
# Vibration anomaly classifier: windows are cut from raw sensor logs on the fly.
#
#   horovodrun -np 4 python train.py --logs /data/vib/train --val-logs /data/vib/val
#
import argparse
import glob
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

WINDOW = 2048
HOP = 1024
CHANNELS = 3


def read_log(path):
    """Logs are little-endian int16, 3 interleaved channels, label in the file name (..._L{k}.bin)."""
    raw = np.fromfile(path, dtype="<i2").astype(np.float32) / 32768.0
    sig = raw[: len(raw) // CHANNELS * CHANNELS].reshape(-1, CHANNELS)
    label = int(os.path.basename(path).rsplit("_L", 1)[1].split(".")[0])
    return sig, label


def window_generator(files, shuffle, seed):
    def gen():
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(files)) if shuffle else np.arange(len(files))
        for i in order:
            sig, label = read_log(files[i])
            starts = np.arange(0, len(sig) - WINDOW + 1, HOP)
            if shuffle:
                rng.shuffle(starts)
            for s in starts:
                yield sig[s:s + WINDOW], label
    return gen


def count_windows(files):
    total = 0
    for f in files:
        n = os.path.getsize(f) // 2 // CHANNELS
        total += max(0, (n - WINDOW) // HOP + 1)
    return total


def make_ds(files, batch, shuffle, seed=0):
    ds = tf.data.Dataset.from_generator(
        window_generator(files, shuffle, seed),
        output_signature=(tf.TensorSpec((WINDOW, CHANNELS), tf.float32),
                          tf.TensorSpec((), tf.int32)))
    if shuffle:
        ds = ds.shuffle(8192, seed=seed).repeat()
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)


def build_model(n_classes):
    inp = keras.Input((WINDOW, CHANNELS))
    x = keras.layers.Conv1D(32, 16, strides=4, activation="relu")(inp)
    x = keras.layers.Conv1D(64, 8, strides=2, activation="relu")(x)
    x = keras.layers.Conv1D(128, 8, strides=2, activation="relu")(x)
    x = keras.layers.GlobalMaxPooling1D()(x)
    x = keras.layers.Dropout(0.3)(x)
    return keras.Model(inp, keras.layers.Dense(n_classes, activation="softmax")(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--logs", required=True)
    ap.add_argument("--val-logs", required=True)
    ap.add_argument("--classes", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--ckpt", default="ckpt/vib-{epoch:02d}.keras")
    args = ap.parse_args()

    hvd.init()
    tf.random.set_seed(args.seed)
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_files = sorted(glob.glob(os.path.join(args.logs, "*.bin")))
    val_files = sorted(glob.glob(os.path.join(args.val_logs, "*.bin")))
    train_ds = make_ds(train_files, args.batch_size, shuffle=True, seed=args.seed)
    val_ds = make_ds(val_files, args.batch_size, shuffle=False)
    steps = count_windows(train_files) // (args.batch_size * hvd.size())

    model = build_model(args.classes)
    opt = keras.optimizers.Adam(learning_rate=args.lr)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback(),
                 keras.callbacks.ReduceLROnPlateau(patience=3, factor=0.5)]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(args.ckpt))

    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
