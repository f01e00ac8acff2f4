#!/usr/bin/env python3
# Realized-volatility forecasting (HAR features + LSTM over intraday returns), multi-GPU with Horovod.
import argparse
import logging
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

logging.basicConfig(format="%(asctime)s [%(levelname)s] %(message)s", level=logging.INFO)
logger = logging.getLogger(__name__)


def get_parser():
    p = argparse.ArgumentParser(description="RV forecaster")
    p.add_argument("--data-dir", default="data/rv")
    p.add_argument("--bars", type=int, default=78, help="5-min bars per day")
    p.add_argument("--days-back", type=int, default=22)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--model-dir", default="models")
    return p


def har_features(rv):
    """daily, weekly (5d) and monthly (22d) averages of log realized variance."""
    lrv = np.log(rv + 1e-10)
    d = lrv
    w = np.convolve(lrv, np.ones(5) / 5, mode="full")[: len(lrv)]
    m = np.convolve(lrv, np.ones(22) / 22, mode="full")[: len(lrv)]
    return np.stack([d, w, m], axis=1).astype("float32"), lrv.astype("float32")


def load_data(data_dir, bars, days_back):
    path = os.path.join(data_dir, "intraday.npy")
    if os.path.exists(path):
        r = np.load(path)
    else:
        rng = np.random.default_rng(123)
        vol = np.exp(np.cumsum(rng.normal(0, 0.05, 3000)) * 0.2) * 0.01
        r = rng.normal(size=(3000, bars)) * vol[:, None] / np.sqrt(bars)
    rv = (r ** 2).sum(axis=1)
    har, target = har_features(rv)
    xs_seq, xs_har, ys = [], [], []
    for t in range(days_back, len(rv) - 1):
        xs_seq.append(r[t - days_back:t].reshape(-1, 1) * np.sqrt(bars))
        xs_har.append(har[t])
        ys.append(target[t + 1])
    return (np.asarray(xs_seq, "float32"), np.asarray(xs_har, "float32")), np.asarray(ys, "float32")


def build_model(seq_len):
    seq_in = keras.Input((seq_len, 1), name="intraday")
    har_in = keras.Input((3,), name="har")
    h = keras.layers.Conv1D(16, 13, strides=13, activation="relu")(seq_in)
    h = keras.layers.LSTM(32)(h)
    z = keras.layers.Concatenate()([h, keras.layers.Dense(8, activation="relu")(har_in)])
    out = keras.layers.Dense(1)(keras.layers.Dense(32, activation="relu")(z))
    return keras.Model([seq_in, har_in], out)


def qlike(y_true, y_pred):
    # QLIKE loss on log-variance forecasts
    return tf.reduce_mean(tf.exp(y_true - y_pred) - (y_true - y_pred) - 1.0)


def main(args):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (seq, har), y = load_data(args.data_dir, args.bars, args.days_back)
    split = int(0.8 * len(y))
    mu, sd = har[:split].mean(0), har[:split].std(0) + 1e-6
    har = (har - mu) / sd

    def ds(lo, hi, train):
        hi = lo + (hi - lo) // hvd.size() * hvd.size()  # same number of samples on every worker
        d = tf.data.Dataset.from_tensor_slices(((seq[lo:hi], har[lo:hi]), y[lo:hi]))
        d = d.shard(hvd.size(), hvd.rank())
        if train:
            d = d.shuffle(1000)
        return d.batch(args.batch_size, drop_remainder=train)

    train_ds, val_ds = ds(0, split, True), ds(split, len(y), False)

    model = build_model(seq.shape[1])
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss=qlike, metrics=["mae"])

    os.makedirs(args.model_dir, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup_epochs, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3),
        keras.callbacks.ModelCheckpoint(os.path.join(args.model_dir, "rv_best.keras"),
                                        monitor="val_loss", save_best_only=True),
    ]
    if hvd.rank() == 0:
        logger.info("train %d / val %d samples on %d workers", split, len(y) - split, hvd.size())

    hist = model.fit(train_ds, validation_data=val_ds, epochs=args.epochs, callbacks=callbacks,
                     verbose=1 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        logger.info("best val_loss %.4f", min(hist.history["val_loss"]))


if __name__ == "__main__":
    main(get_parser().parse_args())
