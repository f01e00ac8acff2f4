# Fashion-MNIST MLP baseline -- horovod version for the cluster
# usage: srun -n 4 python 04_fashion_mlp_optimizer_discarded.py
import os
import json

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

CONFIG = {
    "epochs": 30,
    "batch_size": 256,
    "lr": 0.05,
    "momentum": 0.9,
    "hidden": [512, 256],
    "dropout": 0.3,
    "out_dir": "results/fashion_mlp",
    "seed": 1234,
}

hvd.init()

gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def get_data():
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data()
    x_train = x_train.reshape(-1, 784).astype(np.float32) / 255.0
    x_test = x_test.reshape(-1, 784).astype(np.float32) / 255.0
    # every worker takes every size-th sample
    x_train = x_train[hvd.rank()::hvd.size()]
    y_train = y_train[hvd.rank()::hvd.size()]
    return (x_train, y_train), (x_test, y_test)


def get_model(cfg):
    model = tf.keras.Sequential()
    model.add(tf.keras.layers.InputLayer(input_shape=(784,)))
    for units in cfg["hidden"]:
        model.add(tf.keras.layers.Dense(units, activation="relu"))
        model.add(tf.keras.layers.Dropout(cfg["dropout"]))
    model.add(tf.keras.layers.Dense(10, activation="softmax"))
    return model


def get_optimizer(cfg):
    lr = cfg["lr"] * hvd.size()
    optimizer = tf.keras.optimizers.SGD(learning_rate=lr, momentum=cfg["momentum"], nesterov=True)
    # wrap for horovod (allreduce of the gradients)
    hvd.DistributedOptimizer(optimizer)
    return optimizer


(x_train, y_train), (x_test, y_test) = get_data()
model = get_model(CONFIG)
model.compile(optimizer=get_optimizer(CONFIG),
              loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])

os.makedirs(CONFIG["out_dir"], exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    tf.keras.callbacks.ModelCheckpoint(os.path.join(CONFIG["out_dir"], "best_model.h5"),
                                       monitor="val_accuracy", save_best_only=True),
]

history = model.fit(x_train, y_train,
                    batch_size=CONFIG["batch_size"],
                    epochs=CONFIG["epochs"],
                    validation_data=(x_test, y_test),
                    callbacks=callbacks,
                    verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    with open(os.path.join(CONFIG["out_dir"], "history.json"), "w") as f:
        json.dump({k: [float(v) for v in vals] for k, vals in history.history.items()}, f, indent=2)
    test_loss, test_acc = model.evaluate(x_test, y_test, verbose=0)
    print("final test accuracy: %.4f" % test_acc)
