"""Pneumonia vs normal chest X-ray classifier (imbalanced, ~3:1), EfficientNetB0
fine-tuning with Horovod + Keras fit.

Images were pre-resized to 224x224 and stored as uint8 arrays in
cxr_224.npz (x_train, y_train, x_val, y_val).
"""
import os
import argparse
import logging

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd
from sklearn.utils.class_weight import compute_class_weight

log = logging.getLogger(__name__)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--npz", default="/datasets/cxr/cxr_224.npz")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--outdir", default="results/cxr")
    return ap.parse_args()


def configure_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        return
    local = gpus[hvd.local_rank() % len(gpus)]
    tf.config.set_visible_devices([local], "GPU")
    tf.config.experimental.set_memory_growth(local, True)


def build(lr):
    base = tf.keras.applications.EfficientNetB0(include_top=False, weights="imagenet",
                                                input_shape=(224, 224, 3), pooling="avg")
    inp = tf.keras.Input((224, 224, 3))
    x = tf.keras.layers.RandomFlip("horizontal")(inp)
    x = tf.keras.layers.RandomRotation(0.05)(x)
    x = base(x)
    x = tf.keras.layers.Dropout(0.3)(x)
    out = tf.keras.layers.Dense(1, activation="sigmoid")(x)
    model = tf.keras.Model(inp, out)
    opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(learning_rate=lr))
    model.compile(opt, loss="binary_crossentropy",
                  metrics=[tf.keras.metrics.AUC(name="auc"),
                           tf.keras.metrics.Recall(name="recall"),
                           "accuracy"])
    return model


def main():
    args = parse()
    hvd.init()
    configure_gpu()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="[%(asctime)s r" + str(hvd.rank()) + "] %(message)s")

    data = np.load(args.npz)
    x_train, y_train = data["x_train"], data["y_train"].astype("float32")
    x_val, y_val = data["x_val"], data["y_val"].astype("float32")

    # class weights from the *whole* training set, identical on every rank
    cw = compute_class_weight("balanced", classes=np.array([0.0, 1.0]), y=y_train)
    class_weight = {0: float(cw[0]), 1: float(cw[1])}
    log.info("class weights %s", class_weight)

    # strided split: rank r gets rows r, r+N, r+2N, ...; trimmed so every rank
    # runs the same number of batches (otherwise the last allreduce waits forever)
    n_even = (len(x_train) // hvd.size()) * hvd.size()
    x_train = x_train[:n_even][hvd.rank()::hvd.size()]
    y_train = y_train[:n_even][hvd.rank()::hvd.size()]
    log.info("rank shard: %d train images, %d val images (full set)", len(x_train), len(x_val))

    prep = tf.keras.applications.efficientnet.preprocess_input
    x_train = prep(x_train.astype("float32"))
    x_val = prep(x_val.astype("float32"))

    scaled_lr = args.lr * hvd.size()
    model = build(scaled_lr)

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup, verbose=1),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3, min_lr=1e-6, verbose=1),
        tf.keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=8, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.outdir, exist_ok=True)
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(args.outdir, "best.h5"), monitor="val_auc", mode="max", save_best_only=True))
        callbacks.append(tf.keras.callbacks.CSVLogger(os.path.join(args.outdir, "history.csv")))

    model.fit(x_train, y_train,
              batch_size=args.bs,
              epochs=args.epochs,
              class_weight=class_weight,
              validation_data=(x_val, y_val),
              callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(os.path.join(args.outdir, "final.keras"))
        log.info("done")


if __name__ == "__main__":
    main()
