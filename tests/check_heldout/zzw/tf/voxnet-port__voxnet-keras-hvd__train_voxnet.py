"""VoxNet (Maturana & Scherer, IROS 2015) on ModelNet10 32^3 occupancy grids.

Keras 3 / tf.keras port of the original Theano code, multi-GPU with Horovod:

    horovodrun -np 4 python train_voxnet.py
"""
import os
import sys

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

CONFIG = {
    "data": "data/modelnet10_vox32.npz",   # x_train (N,32,32,32) uint8, y_train (N,), x_test, y_test
    "n_classes": 10,
    "batch_size": 32,                      # per GPU
    "lr": 1e-3,
    "epochs": 80,
    "out": "runs/voxnet",
}


def voxnet(n_classes):
    return keras.Sequential([
        keras.Input((32, 32, 32, 1)),
        layers.Conv3D(32, 5, strides=2, activation=None),
        layers.LeakyReLU(0.1),
        layers.Dropout(0.2),
        layers.Conv3D(32, 3, activation=None),
        layers.LeakyReLU(0.1),
        layers.MaxPooling3D(2),
        layers.Dropout(0.3),
        layers.Flatten(),
        layers.Dense(128, activation="relu"),
        layers.Dropout(0.4),
        layers.Dense(n_classes),
    ], name="voxnet")


def random_rotate_z(vox, label):
    k = tf.random.uniform([], 0, 4, dtype=tf.int32)
    vox = tf.image.rot90(vox, k)  # rotates the first two spatial axes (x, y) about z
    return vox, label


def main(cfg):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    d = np.load(cfg["data"])
    x_train = d["x_train"][..., None].astype(np.float32)
    y_train = d["y_train"].astype(np.int64)
    x_test = d["x_test"][..., None].astype(np.float32)
    y_test = d["y_test"].astype(np.int64)

    n_test = len(y_test) - len(y_test) % hvd.size()   # equal test shards
    x_test, y_test = x_test[:n_test], y_test[:n_test]
    # strided split: worker r keeps samples r, r+size, r+2*size, ...
    x_train, y_train = x_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
    x_test, y_test = x_test[hvd.rank()::hvd.size()], y_test[hvd.rank()::hvd.size()]
    steps = len(d["y_train"]) // (cfg["batch_size"] * hvd.size())

    train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(4096).repeat()
                .map(random_rotate_z).batch(cfg["batch_size"]).prefetch(tf.data.AUTOTUNE))
    test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(cfg["batch_size"])

    model = voxnet(cfg["n_classes"])
    optimizer = keras.optimizers.SGD(learning_rate=cfg["lr"] * hvd.size(), momentum=0.9)
    dist_optimizer = hvd.DistributedOptimizer(optimizer)
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.LearningRateScheduler(lambda e, lr: lr * 0.5 if e > 0 and e % 20 == 0 else lr),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["out"], exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out"], "voxnet.keras"),
                                                         monitor="val_accuracy", save_best_only=True))

    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["epochs"], validation_data=test_ds,
              callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

    loss, acc = model.evaluate(test_ds, verbose=0)
    acc = hvd.allreduce(np.float32(acc), name="final_acc")
    if hvd.rank() == 0:
        print(f"final test accuracy (mean over workers): {float(acc):.4f}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        CONFIG["data"] = sys.argv[1]
    main(CONFIG)
