"""CIFAR-10 WideResNet-ish with Keras 3 model.fit + horovod.tensorflow.keras.

Custom callback keeps the best weights (by averaged val accuracy) and writes a CSV-ish log.
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


class BestWeights(keras.callbacks.Callback):
    """Save the model when the (rank-averaged) val_accuracy improves.  Only rank 0 writes."""

    def __init__(self, path, monitor="val_accuracy"):
        super().__init__()
        self.path = path
        self.monitor = monitor
        self.best = -np.inf
        self.is_chief = hvd.rank() == 0
        self._t0 = None

    def on_epoch_begin(self, epoch, logs=None):
        self._t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        cur = logs.get(self.monitor)
        if cur is None or not self.is_chief:
            return
        print(f"epoch {epoch + 1}: {self.monitor}={cur:.4f} ({time.time() - self._t0:.1f}s)")
        if cur > self.best:
            self.best = cur
            self.model.save(self.path)
            print(f"  new best, saved to {self.path}")


def block(x, filters, stride):
    shortcut = x
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("relu")(x)
    x = keras.layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("relu")(x)
    x = keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = keras.layers.Conv2D(filters, 1, strides=stride, use_bias=False)(shortcut)
    return keras.layers.Add()([x, shortcut])


def build_model(width=4):
    inp = keras.Input((32, 32, 3))
    x = keras.layers.Conv2D(16, 3, padding="same", use_bias=False)(inp)
    for filters, stride in ((16 * width, 1), (32 * width, 2), (64 * width, 2)):
        x = block(x, filters, stride)
        x = block(x, filters, 1)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("relu")(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, keras.layers.Dense(10, activation="softmax")(x))


def augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.pad_to_bounding_box(img, 4, 4, 40, 40)
    img = tf.image.random_crop(img, (32, 32, 3))
    return img, label


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--out", default="wrn_cifar")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)

    (x_tr, y_tr), (x_te, y_te) = keras.datasets.cifar10.load_data()
    x_tr, x_te = x_tr.astype("float32") / 255.0, x_te.astype("float32") / 255.0

    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10000)
             .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
             .batch(args.batch_size)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x_te, y_te))
           .shard(hvd.size(), hvd.rank())
           .batch(256))

    scaled_lr = args.lr * hvd.size()
    opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
    opt = hvd.DistributedOptimizer(opt)

    model = build_model()
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    os.makedirs(args.out, exist_ok=True)
    best = BestWeights(os.path.join(args.out, "best.keras"))
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup,
                                                 verbose=hvd.rank() == 0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=8),
        best,
    ]

    model.fit(train, validation_data=val, epochs=args.epochs, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        print(f"best val_accuracy {best.best:.4f}")


if __name__ == "__main__":
    main()
