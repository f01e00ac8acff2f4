"""Temporal Shift Module (TSM) on a sports-clips dataset, Keras 3 + Horovod.

    horovodrun -np 4 python train.py --epochs 50
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, asdict

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd


@dataclass
class Hparams:
    num_classes: int = 16
    num_videos: int = 640
    segments: int = 8
    size: int = 48
    batch_size: int = 8
    lr: float = 0.01 * hvd.size()   # linear scaling with the number of GPUs
    warmup_epochs: int = 5
    epochs: int = 50
    shift_div: int = 8
    out_dir: str = "results/tsm_sports"


class TemporalShift(layers.Layer):
    """Shift 1/shift_div of the channels one frame back and 1/shift_div one frame forward."""

    def __init__(self, segments, shift_div, **kw):
        super().__init__(**kw)
        self.segments, self.shift_div = segments, shift_div

    def call(self, x):
        nt, h, w, c = tf.shape(x)[0], tf.shape(x)[1], tf.shape(x)[2], x.shape[-1]
        x = tf.reshape(x, (-1, self.segments, h, w, c))
        fold = c // self.shift_div
        back = tf.pad(x[:, 1:, ..., :fold], [[0, 0], [0, 1], [0, 0], [0, 0], [0, 0]])
        fwd = tf.pad(x[:, :-1, ..., fold:2 * fold], [[0, 0], [1, 0], [0, 0], [0, 0], [0, 0]])
        x = tf.concat([back, fwd, x[..., 2 * fold:]], axis=-1)
        return tf.reshape(x, (nt, h, w, c))


def build_tsm(hp: Hparams):
    inp = keras.Input((hp.segments, hp.size, hp.size, 3))
    x = layers.Lambda(lambda t: tf.reshape(t, (-1, hp.size, hp.size, 3)))(inp)
    x = layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x)
    x = TemporalShift(hp.segments, hp.shift_div)(x)
    x = layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Lambda(lambda t: tf.reduce_mean(tf.reshape(t, (-1, hp.segments, 32)), axis=1))(x)
    out = layers.Dense(hp.num_classes)(x)
    return keras.Model(inp, out)


def load_split(hp: Hparams, train: bool):
    """Decoded-frame cache stub: segments x H x W x 3 per video."""
    n = hp.num_videos if train else hp.num_videos // 5
    rs = np.random.RandomState(0 if train else 1)
    x = rs.rand(n, hp.segments, hp.size, hp.size, 3).astype("float32")
    y = (np.arange(n) % hp.num_classes).astype("int32")
    return x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=Hparams.epochs)
    ap.add_argument("--batch-size", type=int, default=Hparams.batch_size)
    ap.add_argument("--out-dir", default=Hparams.out_dir)
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    hp = Hparams(epochs=args.epochs, batch_size=args.batch_size, out_dir=args.out_dir)
    if hvd.rank() == 0:
        print(asdict(hp))

    x_train, y_train = load_split(hp, train=True)
    x_val, y_val = load_split(hp, train=False)
    train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
                .shuffle(len(x_train)).batch(hp.batch_size, drop_remainder=True).repeat())
    steps_per_epoch = len(x_train) // hp.batch_size

    model = build_tsm(hp)
    opt = hvd.DistributedOptimizer(keras.optimizers.SGD(learning_rate=hp.lr, momentum=0.9, nesterov=True))
    model.compile(opt, keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=hp.lr, warmup_epochs=hp.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
        hvd.callbacks.LearningRateScheduleCallback(initial_lr=hp.lr, multiplier=0.1, start_epoch=30),
    ]
    if hvd.rank() == 0:
        os.makedirs(hp.out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(hp.out_dir, "tsm.keras"),
                                                         monitor="val_accuracy", save_best_only=True))

    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=hp.epochs,
              validation_data=(x_val, y_val), validation_batch_size=hp.batch_size,
              callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
