"""Quantization-aware training (8-bit fake quant of weights and activations) for a keyword-spotting-sized
DS-CNN on CIFAR-10 stand-in data, with Keras 3 + Horovod.  Ships an fp32 checkpoint whose weights are
already on the int8 grid.
"""
import argparse
import json
import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def parse():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default=None, help="optional JSON overriding the defaults below")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--bits", type=int, default=8)
    ap.add_argument("--workdir", default="work/qat")
    a = ap.parse_args()
    if a.config:
        with open(a.config) as f:
            for k, v in json.load(f).items():
                setattr(a, k, v)
    return a


@keras.saving.register_keras_serializable("qat")
class FakeQuantDense(keras.layers.Dense):
    """Dense whose kernel goes through a symmetric per-tensor fake-quant op in the forward pass."""

    def __init__(self, units, bits=8, **kw):
        super().__init__(units, **kw)
        self.bits = bits

    def call(self, x):
        w = self.kernel
        m = tf.reduce_max(tf.abs(w))
        wq = tf.quantization.fake_quant_with_min_max_vars(w, -m, m, num_bits=self.bits, narrow_range=True)
        y = tf.matmul(x, wq)
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def get_config(self):
        return {**super().get_config(), "bits": self.bits}


@keras.saving.register_keras_serializable("qat")
class ActQuant(keras.layers.Layer):
    def __init__(self, bits=8, max_val=6.0, **kw):
        super().__init__(**kw)
        self.bits, self.max_val = bits, max_val

    def call(self, x):
        return tf.quantization.fake_quant_with_min_max_args(x, 0.0, self.max_val, num_bits=self.bits)

    def get_config(self):
        return {**super().get_config(), "bits": self.bits, "max_val": self.max_val}


def build(bits):
    inp = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu6")(inp)
    for f in (64, 128, 128):
        x = keras.layers.DepthwiseConv2D(3, padding="same", activation="relu6")(x)
        x = keras.layers.Conv2D(f, 1, activation="relu6")(x)
        x = ActQuant(bits)(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, FakeQuantDense(10, bits=bits)(x))


def main():
    a = parse()
    hvd.init()
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x, y), (xv, yv) = keras.datasets.cifar10.load_data()
    # every worker keeps every size()-th example: disjoint, equally sized slices
    n = len(x) - len(x) % hvd.size()
    x, y = x[:n][hvd.rank()::hvd.size()], y[:n][hvd.rank()::hvd.size()]
    x, xv = x.astype("float32") / 255.0, xv.astype("float32") / 255.0

    model = build(a.bits)
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(a.lr * hvd.size()))
    model.compile(opt, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])

    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=a.lr * hvd.size(), warmup_epochs=3,
                                                 verbose=int(hvd.rank() == 0)),
    ]
    if hvd.rank() == 0:
        os.makedirs(a.workdir, exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(a.workdir, "qat_best.keras"),
                                                monitor="val_accuracy", save_best_only=True),
                keras.callbacks.CSVLogger(os.path.join(a.workdir, "log.csv"))]

    model.fit(x, y, batch_size=a.batch, epochs=a.epochs, validation_data=(xv, yv), callbacks=cbs,
              shuffle=True, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        _, acc = model.evaluate(xv, yv, batch_size=1000, verbose=0)
        print(f"fake-quant val accuracy: {acc:.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
