"""U-Net for cell segmentation (Keras 3, TensorFlow backend) with Horovod.

Data: one npz with images (N,128,128,1) and masks (N,128,128,1), already split.
    horovodrun -np 4 -H node1:2,node2:2 python 07_keras3_unet_seg.py -c seg.yaml
"""
import argparse
import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import numpy as np
import tensorflow as tf
import keras
import horovod.keras as hvd
import yaml

DEFAULTS = {
    "data": "cells_128.npz",
    "epochs": 50,
    "batch_size": 16,
    "lr": 3e-4,
    "base_filters": 32,
    "out_dir": "unet_runs",
}


def load_config():
    p = argparse.ArgumentParser()
    p.add_argument("-c", "--config", default=None)
    a = p.parse_args()
    cfg = dict(DEFAULTS)
    if a.config:
        with open(a.config) as f:
            cfg.update(yaml.safe_load(f) or {})
    return cfg


def conv_block(x, f):
    x = keras.layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("relu")(x)
    x = keras.layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    return keras.layers.Activation("relu")(x)


def build_unet(f=32, shape=(128, 128, 1)):
    inp = keras.Input(shape)
    skips, x = [], inp
    for mult in (1, 2, 4, 8):
        x = conv_block(x, f * mult)
        skips.append(x)
        x = keras.layers.MaxPooling2D()(x)
    x = conv_block(x, f * 16)
    for mult, skip in zip((8, 4, 2, 1), reversed(skips)):
        x = keras.layers.Conv2DTranspose(f * mult, 2, strides=2, padding="same")(x)
        x = keras.layers.Concatenate()([x, skip])
        x = conv_block(x, f * mult)
    out = keras.layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="unet")


class DiceCoefficient(keras.metrics.Metric):
    def __init__(self, name="dice", **kw):
        super().__init__(name=name, **kw)
        self.inter = self.add_weight(name="inter", initializer="zeros")
        self.denom = self.add_weight(name="denom", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = keras.ops.cast(y_pred > 0.5, "float32")
        y_true = keras.ops.cast(y_true, "float32")
        self.inter.assign_add(keras.ops.sum(y_true * y_pred))
        self.denom.assign_add(keras.ops.sum(y_true) + keras.ops.sum(y_pred))

    def result(self):
        return 2.0 * self.inter / (self.denom + 1e-7)

    def reset_state(self):
        self.inter.assign(0.0)
        self.denom.assign(0.0)


def bce_dice_loss(y_true, y_pred):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    inter = keras.ops.sum(y_true * y_pred, axis=(1, 2, 3))
    union = keras.ops.sum(y_true + y_pred, axis=(1, 2, 3))
    dice = 1.0 - (2.0 * inter + 1.0) / (union + 1.0)
    return keras.ops.mean(bce, axis=(1, 2)) + dice


def main():
    cfg = load_config()
    hvd.init()

    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    data = np.load(cfg["data"])
    x_tr, y_tr = data["x_train"].astype("float32") / 255.0, data["y_train"].astype("float32")
    x_va, y_va = data["x_val"].astype("float32") / 255.0, data["y_val"].astype("float32")
    # every worker keeps its own slice of the training and validation sets
    x_tr, y_tr = x_tr[hvd.rank()::hvd.size()], y_tr[hvd.rank()::hvd.size()]
    x_va, y_va = x_va[hvd.rank()::hvd.size()], y_va[hvd.rank()::hvd.size()]

    model = build_unet(cfg["base_filters"])
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"])
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss=bce_dice_loss,
                  metrics=[DiceCoefficient(), keras.metrics.BinaryIoU(target_class_ids=[1])])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=4),
    ]
    rank0 = hvd.rank() == 0
    if rank0:
        os.makedirs(cfg["out_dir"], exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(cfg["out_dir"], "best.keras"), monitor="val_dice",
            mode="max", save_best_only=True))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg["out_dir"], "log.csv")))

    model.fit(x_tr, y_tr,
              batch_size=cfg["batch_size"],
              epochs=cfg["epochs"],
              validation_data=(x_va, y_va),
              shuffle=True,
              callbacks=callbacks,
              verbose=1 if rank0 else 0)

    if rank0:
        model.save(os.path.join(cfg["out_dir"], "final.keras"))


if __name__ == "__main__":
    main()
