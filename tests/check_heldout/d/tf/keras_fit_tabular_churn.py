"""
Customer churn classifier (tabular) -- Keras fit, data parallel with Horovod.
Mostly here to learn horovod on the department cluster; dataset is ~4M rows so it helps.
"""
import os
import sys
import json
import logging

import numpy as np
import pandas as pd
import tensorflow as tf
import horovod.tensorflow.keras as hvd

logging.basicConfig(format="%(asctime)s %(message)s", level=logging.INFO)


def make_config():
    world = hvd.size()
    return {
        "csv": os.environ.get("CHURN_CSV", "data/churn_4m.csv"),
        "label": "churned",
        "batch_size": 1024,
        "epochs": 30,
        "optimizer": {"learning_rate": 2e-3 * world, "beta_1": 0.9, "beta_2": 0.999},
        "hidden": [512, 256, 128],
        "dropout": 0.2,
        "out": "models/churn_best.keras",
    }


def setup_devices():
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        return
    local = gpus[hvd.local_rank() % len(gpus)]
    tf.config.experimental.set_memory_growth(local, True)
    tf.config.set_visible_devices([local], "GPU")


def load_frame(cfg):
    df = pd.read_csv(cfg["csv"])
    y = df.pop(cfg["label"]).astype("float32").values
    cat_cols = df.select_dtypes("object").columns
    df = pd.get_dummies(df, columns=list(cat_cols), dtype="float32")
    x = df.fillna(0).values.astype("float32")
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    return x, y


def build(n_in, cfg):
    inputs = tf.keras.Input((n_in,))
    h = inputs
    for units in cfg["hidden"]:
        h = tf.keras.layers.Dense(units, activation="relu")(h)
        h = tf.keras.layers.Dropout(cfg["dropout"])(h)
    out = tf.keras.layers.Dense(1, activation="sigmoid")(h)
    return tf.keras.Model(inputs, out)


def main():
    hvd.init()
    setup_devices()
    cfg = make_config()
    if hvd.rank() == 0:
        logging.info("config: %s", json.dumps(cfg))

    x, y = load_frame(cfg)
    perm = np.random.default_rng(12345).permutation(len(x))
    n_val = 200_000
    val_i, tr_i = perm[:n_val], perm[n_val:]
    x_val, y_val = x[val_i], y[val_i]
    part = np.array_split(tr_i, hvd.size())[hvd.rank()]
    x_tr, y_tr = x[part], y[part]
    logging.info("rank %d: %d training rows", hvd.rank(), len(part))

    model = build(x.shape[1], cfg)
    opt = tf.keras.optimizers.Adam(**cfg["optimizer"])
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss="binary_crossentropy",
                  metrics=[tf.keras.metrics.AUC(name="auc"), "accuracy"])

    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2),
        tf.keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=5),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(cfg["out"]), exist_ok=True)
        cbs.append(tf.keras.callbacks.ModelCheckpoint(cfg["out"], monitor="val_auc", mode="max",
                                                      save_best_only=True))

    hist = model.fit(x_tr, y_tr,
                     batch_size=cfg["batch_size"],
                     epochs=cfg["epochs"],
                     validation_data=(x_val, y_val),
                     callbacks=cbs,
                     verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        best = int(np.argmax(hist.history["val_auc"]))
        logging.info("best epoch %d val_auc %.4f", best, hist.history["val_auc"][best])
    return 0


if __name__ == "__main__":
    sys.exit(main())
