#!/usr/bin/env python3
# SST downscaling (coarse -> fine sea-surface temperature) with a two-step curriculum:
#   stage "coarse": 4x-pooled patches, many epochs, cheap
#   stage "fine":   full-resolution patches, few epochs
# Usage: horovodrun -np 4 python train_curriculum.py --coarse data/sst_coarse.npz --fine data/sst_fine.npz
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def get_args():
    ap = argparse.ArgumentParser(description="SST super-resolution curriculum")
    ap.add_argument("--coarse", required=True)
    ap.add_argument("--fine", required=True)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--coarse-epochs", type=int, default=40)
    ap.add_argument("--fine-epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3 * hvd.size(),
                    help="learning rate, already scaled by the number of workers")
    ap.add_argument("--outdir", default="output")
    return ap.parse_args()


def srcnn(channels=1):
    inp = keras.Input((None, None, channels))
    x = keras.layers.Conv2D(64, 9, padding="same", activation="relu")(inp)
    x = keras.layers.Conv2D(32, 5, padding="same", activation="relu")(x)
    x = keras.layers.Conv2D(channels, 5, padding="same")(x)
    return keras.Model(inp, keras.layers.Add()([inp, x]))


def load_pairs(path):
    z = np.load(path)
    return z["lowres"].astype("float32"), z["highres"].astype("float32")


def sharded(x, y, batch):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(num_shards=hvd.size(), index=hvd.rank())
    return ds.shuffle(4096).batch(batch).repeat().prefetch(2)


class EpochTimer(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() == 0:
            print(f"  epoch {epoch} took {time.time() - self.t0:.1f}s", flush=True)


def main():
    args = get_args()
    hvd.init()

    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    model = srcnn()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=args.lr))
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        EpochTimer(),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.outdir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.outdir, "srcnn_{epoch:02d}.keras")))
    verbose = 2 if hvd.rank() == 0 else 0

    # ---- stage 1: coarse patches ----
    xc, yc = load_pairs(args.coarse)
    steps = len(xc) // (args.batch_size * hvd.size())
    model.fit(sharded(xc, yc, args.batch_size), steps_per_epoch=steps,
              epochs=args.coarse_epochs, callbacks=callbacks, verbose=verbose)

    # ---- stage 2: fine patches, continue from the coarse weights ----
    xf, yf = load_pairs(args.fine)
    model.optimizer.learning_rate.assign(args.lr * 0.1)
    model.fit(xf, yf, batch_size=args.batch_size, validation_split=0.1,
              initial_epoch=args.coarse_epochs, epochs=args.coarse_epochs + args.fine_epochs,
              callbacks=callbacks, verbose=verbose)

    if hvd.rank() == 0:
        model.save(os.path.join(args.outdir, "srcnn_final.keras"))


if __name__ == "__main__":
    main()
