"""Land-cover patch classifier (Keras 3 + Horovod) - platform training template.

Config: YAML file given by --config (defaults below are used for keys it omits).
Outputs: checkpoints and the exported model under `output_uri` (object-store mount).
"""
import argparse
import logging
import os

import numpy as np
import yaml
import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

DEFAULTS = {
    "data": {"patches": "/mnt/objstore/geodata/landcover/patches_64.npz", "val_fraction": 0.1},
    "train": {"batch_size": 64, "epochs": 40, "learning_rate": 0.001, "label_smoothing": 0.05},
    "output_uri": "/mnt/objstore/geodata/landcover/runs/latest",
}

log = logging.getLogger("landcover")


def load_config(path):
    cfg = {k: dict(v) if isinstance(v, dict) else v for k, v in DEFAULTS.items()}
    if path:
        with open(path) as f:
            user = yaml.safe_load(f) or {}
        for k, v in user.items():
            if isinstance(v, dict):
                cfg[k].update(v)
            else:
                cfg[k] = v
    return cfg


def build_model(n_classes, input_shape=(64, 64, 4)):
    inputs = keras.Input(shape=input_shape)
    x = keras.layers.Rescaling(1.0 / 255)(inputs)
    for filters in (32, 64, 128):
        x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=os.environ.get("LANDCOVER_CONFIG"))
    cfg = load_config(parser.parse_args().config)
    tcfg = cfg["train"]

    hvd.init()
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s rank{hvd.rank()} %(message)s")
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    blob = np.load(cfg["data"]["patches"])
    x, y = blob["x"], blob["y"]
    n_classes = int(y.max()) + 1
    n_val = int(len(x) * cfg["data"]["val_fraction"])
    y_onehot = keras.utils.to_categorical(y, n_classes)
    train_ds = (tf.data.Dataset.from_tensor_slices((x[n_val:], y_onehot[n_val:]))
                .shuffle(8192).repeat().batch(tcfg["batch_size"]).prefetch(tf.data.AUTOTUNE))
    val_ds = tf.data.Dataset.from_tensor_slices((x[:n_val], y_onehot[:n_val])).batch(tcfg["batch_size"])
    steps_per_epoch = (len(x) - n_val) // tcfg["batch_size"]

    model = build_model(n_classes, x.shape[1:])
    opt = keras.optimizers.Adam(learning_rate=tcfg["learning_rate"])
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.CategoricalCrossentropy(label_smoothing=tcfg["label_smoothing"]),
                  metrics=["accuracy"])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        ckpt_uri = os.path.join(cfg["output_uri"], "checkpoints", "epoch-{epoch:03d}")
        callbacks.append(keras.callbacks.ModelCheckpoint(ckpt_uri, monitor="val_accuracy", save_best_only=True))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg["output_uri"], "metrics.csv")))

    log.info("steps/epoch=%d classes=%d", steps_per_epoch, n_classes)
    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=tcfg["epochs"], validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save(os.path.join(cfg["output_uri"], "landcover.keras"))


if __name__ == "__main__":
    main()
