#!/usr/bin/env python3
"""Keyword spotting (Speech Commands v2, 35 words) on log-mel features.

Features are precomputed by prep_features.py into features/{train,val}.npz.
Single node:   horovodrun -np 4 python train.py
Two nodes:     horovodrun -np 8 -H a:4,b:4 python train.py --save-dir /shared/kws
"""
import argparse
import os
from dataclasses import dataclass

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


@dataclass
class HParams:
    n_mels: int = 40
    frames: int = 98
    n_words: int = 35
    width: int = 64
    dropout: float = 0.2


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--features", default="features")
    p.add_argument("--save-dir", default="checkpoints/kws")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--fp16-allreduce", action="store_true")
    return p.parse_args()


def make_ds(path, batch_size, train):
    f = np.load(path)
    ds = tf.data.Dataset.from_tensor_slices((f["x"].astype("float32"), f["y"].astype("int32")))
    ds = ds.shard(hvd.size(), hvd.rank()).cache()
    if train:
        ds = ds.shuffle(20000, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=train).prefetch(tf.data.AUTOTUNE), len(f["y"])


def ds_cnn(hp):
    """Depthwise-separable CNN (Zhang et al., "Hello Edge")."""
    inp = keras.Input((hp.frames, hp.n_mels, 1))
    x = keras.layers.Conv2D(hp.width, (10, 4), strides=(2, 2), padding="same")(inp)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.ReLU()(x)
    for _ in range(4):
        x = keras.layers.DepthwiseConv2D(3, padding="same")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
        x = keras.layers.Conv2D(hp.width, 1)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(hp.dropout)(x)
    return keras.Model(inp, keras.layers.Dense(hp.n_words)(x))


class SparseSmoothedCE(keras.losses.Loss):
    def __init__(self, n_classes, smoothing, **kw):
        super().__init__(**kw)
        self.n_classes, self.smoothing = n_classes, smoothing

    def call(self, y_true, y_pred):
        onehot = tf.one_hot(tf.reshape(tf.cast(y_true, tf.int32), [-1]), self.n_classes)
        return keras.losses.categorical_crossentropy(
            onehot, y_pred, from_logits=True, label_smoothing=self.smoothing)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    hp = HParams()
    train_ds, n_train = make_ds(os.path.join(args.features, "train.npz"), args.batch_size, True)
    val_ds, _ = make_ds(os.path.join(args.features, "val.npz"), args.batch_size, False)

    model = ds_cnn(hp)
    optimizer = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    dist_optimizer = hvd.DistributedOptimizer(optimizer, compression=compression)
    model.compile(optimizer=optimizer,
                  loss=SparseSmoothedCE(hp.n_words, args.label_smoothing),
                  metrics=["sparse_categorical_accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=6),
    ]
    # only one process per machine writes checkpoints
    if hvd.local_rank() == 0:
        os.makedirs(args.save_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.save_dir, "kws-{epoch:02d}-{val_sparse_categorical_accuracy:.3f}.keras")))

    model.fit(train_ds,
              steps_per_epoch=n_train // (args.batch_size * hvd.size()),
              validation_data=val_ds,
              epochs=args.epochs,
              callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
