#!/usr/bin/env python3
"""Leaf-lesion segmentation (U-Net, Keras 3 on TensorFlow) trained with Horovod.

horovodrun -np 4 python train.py --data ./data/leaf_lesions --epochs 50
"""
import argparse
import glob
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="./data/leaf_lesions")
    ap.add_argument("--img-size", type=int, default=256)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--out", default="./runs/unet")
    ap.add_argument("--resume", default="", help="weights file (.weights.h5) to start from")
    return ap.parse_args()


def load_pair(img_path, mask_path, size):
    img = tf.image.decode_jpeg(tf.io.read_file(img_path), channels=3)
    img = tf.image.resize(img, (size, size)) / 255.0
    mask = tf.image.decode_png(tf.io.read_file(mask_path), channels=1)
    mask = tf.cast(tf.image.resize(mask, (size, size), method="nearest") > 127, tf.float32)
    return img, mask


def make_ds(split, args, training):
    images = sorted(glob.glob(os.path.join(args.data, split, "images", "*.jpg")))
    masks = [p.replace("images", "masks").replace(".jpg", ".png") for p in images]
    ds = tf.data.Dataset.from_tensor_slices((images, masks)).shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(1000, seed=42, reshuffle_each_iteration=True).repeat()
    ds = ds.map(lambda a, b: load_pair(a, b, args.img_size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: (tf.image.random_brightness(x, 0.1), y))
    return ds.batch(args.batch_size).prefetch(tf.data.AUTOTUNE), len(images)


def unet(size):
    def conv(x, f):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        return layers.Conv2D(f, 3, padding="same", activation="relu")(x)

    inp = keras.Input((size, size, 3))
    c1 = conv(inp, 32)
    c2 = conv(layers.MaxPooling2D()(c1), 64)
    c3 = conv(layers.MaxPooling2D()(c2), 128)
    u2 = conv(layers.Concatenate()([layers.UpSampling2D()(c3), c2]), 64)
    u1 = conv(layers.Concatenate()([layers.UpSampling2D()(u2), c1]), 32)
    out = layers.Conv2D(1, 1, activation="sigmoid")(u1)
    return keras.Model(inp, out)


def dice_coef(y_true, y_pred, smooth=1.0):
    y_pred = tf.cast(y_pred > 0.5, tf.float32)
    inter = tf.reduce_sum(y_true * y_pred)
    return (2 * inter + smooth) / (tf.reduce_sum(y_true) + tf.reduce_sum(y_pred) + smooth)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, n_train = make_ds("train", args, training=True)
    val_ds, n_val = make_ds("val", args, training=False)
    steps_per_epoch = max(1, n_train // (args.batch_size * hvd.size()))

    model = unet(args.img_size)
    if args.resume:
        model.load_weights(args.resume)
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="binary_crossentropy", metrics=[dice_coef, "binary_accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup_epochs, steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=5),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.weights.h5"), monitor="val_dice_coef",
                                            mode="max", save_best_only=True, save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(args.out, "log.csv")),
        ]

    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs, validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    loss, dice, acc = model.evaluate(val_ds, verbose=0)
    if hvd.rank() == 0:
        print(f"final val: loss {loss:.4f} dice {dice:.4f} acc {acc:.4f}")


if __name__ == "__main__":
    main()
