# -*- coding: utf-8 -*-
"""Precipitation downscaling U-Net (Keras + Horovod).

v1 (2020) was written for TF 1.15 / standalone Keras; v3 runs on TF 2.x with Keras 3.
Gradients are SUMMED over workers (op=hvd.Sum), so the plain-SGD lr below is NOT multiplied by
the number of workers: summing N per-worker mean gradients is the same update as scaling lr by N.

    srun -n 8 python train.py --epochs 60
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)  # quiet, as in v1

p = argparse.ArgumentParser()
p.add_argument("--data-dir", default="/project/aurora/era5_patches")
p.add_argument("--epochs", type=int, default=60)
p.add_argument("--batch", type=int, default=8, help="per worker")
p.add_argument("--lr", type=float, default=0.01, help="plain SGD lr; see module docstring")
p.add_argument("--out", default="results/unet_v3")
args = p.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def load(split):
    with np.load(os.path.join(args.data_dir, f"{split}.npz")) as z:
        return z["coarse"].astype("float32"), z["fine"].astype("float32")


x_train, y_train = load("train")
x_val, y_val = load("val")
# each worker keeps every size-th patch, starting at its rank (trimmed so all workers run the same steps)
n_keep = len(x_train) // hvd.size() * hvd.size()
x_train, y_train = x_train[hvd.rank():n_keep:hvd.size()], y_train[hvd.rank():n_keep:hvd.size()]


def conv_block(x, f):
    x = keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)


def unet(shape, base=16):
    inp = keras.Input(shape)
    c1 = conv_block(inp, base)
    c2 = conv_block(keras.layers.MaxPooling2D()(c1), base * 2)
    b = conv_block(keras.layers.MaxPooling2D()(c2), base * 4)
    u2 = conv_block(keras.layers.Concatenate()([keras.layers.UpSampling2D()(b), c2]), base * 2)
    u1 = conv_block(keras.layers.Concatenate()([keras.layers.UpSampling2D()(u2), c1]), base)
    return keras.Model(inp, keras.layers.Conv2D(y_train.shape[-1], 1)(u1))


model = unet(x_train.shape[1:])
opt = keras.optimizers.SGD(learning_rate=args.lr, momentum=0.9)
opt = hvd.DistributedOptimizer(opt, op=hvd.Sum)
model.compile(optimizer=opt, loss="mse", metrics=["mae"])

callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks += [keras.callbacks.ModelCheckpoint(os.path.join(args.out, "unet_best.keras"),
                                                  monitor="val_loss", save_best_only=True),
                  keras.callbacks.CSVLogger(os.path.join(args.out, "history.csv"))]

# validation: the whole val set on every worker (identical numbers everywhere)
model.fit(x_train, y_train, batch_size=args.batch, epochs=args.epochs,
          validation_data=(x_val, y_val), callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    mse, mae = model.evaluate(x_val, y_val, batch_size=32, verbose=0)
    print(f"final val mse {mse:.5f} mae {mae:.5f}")
