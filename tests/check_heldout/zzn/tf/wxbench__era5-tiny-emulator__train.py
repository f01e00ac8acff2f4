"""Train the tiny ERA5 emulator (one 6-hour step) with Keras + Horovod.

    horovodrun -np 4 python train.py -c configs/era5_tiny.yaml
"""
import argparse

import yaml
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from emulator.callbacks import build_callbacks
from emulator.data import load_split, make_dataset, norm_stats
from emulator.model import build_emulator


def lat_weighted_mse(y_true, y_pred):
    lat = tf.linspace(-87.1875, 87.1875, tf.shape(y_true)[1])
    w = tf.cos(lat * 3.141592653589793 / 180.0)
    w = tf.reshape(w / tf.reduce_mean(w), (1, -1, 1, 1))
    return tf.reduce_mean(tf.square(y_true - y_pred) * w)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default="configs/era5_tiny.yaml")
    parser.add_argument("--epochs", type=int)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    if args.epochs:
        cfg["train"]["epochs"] = args.epochs

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_train = load_split(cfg["data"]["train"])
    x_val = load_split(cfg["data"]["val"])
    mean, std = norm_stats(x_train)
    bs, lead = cfg["data"]["batch_size"], cfg["data"]["lead"]
    train_ds, n_train = make_dataset(x_train, mean, std, lead, bs, hvd.rank(), hvd.size())
    val_ds, n_val = make_dataset(x_val, mean, std, lead, bs, hvd.rank(), hvd.size(), training=False)

    model = build_emulator(x_train.shape[1:], cfg["model"]["filters"], cfg["model"]["dropout"])
    opt = keras.optimizers.AdamW(learning_rate=cfg["train"]["lr"], weight_decay=1e-5)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss=lat_weighted_mse, metrics=["mae"])

    model.fit(train_ds,
              steps_per_epoch=n_train // bs,
              validation_data=val_ds,
              epochs=cfg["train"]["epochs"],
              callbacks=build_callbacks(cfg),
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(f"{cfg['ckpt_dir']}/final.keras")


if __name__ == "__main__":
    main()
