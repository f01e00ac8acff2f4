#!/usr/bin/env python
"""U-Net for cloud masks, keras 3 + horovod, mixed precision.
run:  horovodrun -np 4 -H localhost:4 python train_unet.py --amp --epochs 30
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--tiles", default=None, help="npz with x:(N,H,W,4) y:(N,H,W,1)")
parser.add_argument("--tile", type=int, default=128)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--amp", action="store_true")
parser.add_argument("--fp16-allreduce", action="store_true")
parser.add_argument("--out", default="unet_out")
args = parser.parse_args()

GLOBAL_BATCH = args.batch_size * hvd.size()
LR = args.lr * hvd.size()


def load_tiles():
    if args.tiles:
        d = np.load(args.tiles)
        return d["x"].astype("float32"), d["y"].astype("float32")
    rs = np.random.RandomState(0)
    x = rs.rand(512, args.tile, args.tile, 4).astype("float32")
    y = (x[..., :1] > 0.6).astype("float32")
    return x, y


def unet(tile):
    inp = keras.Input((tile, tile, 4))
    skips, x = [], inp
    for f in (32, 64, 128):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(256, 3, padding="same", activation="relu")(x)
    for f, s in zip((128, 64, 32), reversed(skips)):
        x = layers.Conv2DTranspose(f, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, s])
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    out = layers.Conv2D(1, 1, activation="sigmoid", dtype="float32")(x)
    return keras.Model(inp, out)


def main():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if args.amp:
        keras.mixed_precision.set_global_policy("mixed_float16")

    x, y = load_tiles()
    n_val = len(x) // 8
    train = tf.data.Dataset.from_tensor_slices((x[n_val:], y[n_val:]))
    train = train.shard(hvd.size(), hvd.rank()).shuffle(256).repeat().batch(args.batch_size)
    steps = (len(x) - n_val) // GLOBAL_BATCH
    val = tf.data.Dataset.from_tensor_slices((x[:n_val], y[:n_val])).shard(hvd.size(), hvd.rank())
    val = val.batch(args.batch_size)

    model = unet(args.tile)
    opt = keras.optimizers.Adam(LR)
    opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16 if args.fp16_allreduce
                                   else hvd.Compression.none)
    if args.amp:
        opt = keras.mixed_precision.LossScaleOptimizer(opt)
    model.compile(opt, loss="binary_crossentropy", metrics=["accuracy", keras.metrics.BinaryIoU(name="iou")])

    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "unet_{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
    model.fit(train, steps_per_epoch=max(steps, 1), epochs=args.epochs, validation_data=val,
              callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
