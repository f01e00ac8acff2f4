"""Multi-store demand forecasting with a windowed MLP.

Usage:
    horovodrun -np 8 -H node1:4,node2:4 python fit.py --set train.epochs=50
"""
import argparse
import logging

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from forecast.settings import DEFAULT_CONFIG, load_settings
from forecast.windows import make_windows, train_val_split, to_dataset
from forecast.nets import mlp_forecaster
from forecast.training import build_optimizer, standard_callbacks

log = logging.getLogger("fit")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default=DEFAULT_CONFIG)
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()

    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format=f"[rank {hvd.rank()}] %(asctime)s %(message)s")

    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = load_settings(args.config, args.overrides)
    series = np.load(cfg["data"]["series_file"]).astype("float32")
    x, y = make_windows(series, cfg["data"]["window"], cfg["data"]["horizon"])
    (x_tr, y_tr), (x_va, y_va) = train_val_split(x, y, cfg["data"]["val_fraction"])
    log.info("windows: train=%d val=%d", len(x_tr), len(x_va))

    bs = cfg["train"]["batch_size"]
    train_ds = to_dataset(x_tr, y_tr, bs, hvd.size(), hvd.rank(), shuffle=True)
    val_ds = to_dataset(x_va, y_va, bs, hvd.size(), hvd.rank(), shuffle=False)
    steps_per_epoch = len(x_tr) // (bs * hvd.size())
    validation_steps = max(1, len(x_va) // (bs * hvd.size()))

    model = mlp_forecaster(x.shape[1], y.shape[1], cfg["model"]["hidden"], cfg["model"]["dropout"])
    model.get_layer("norm").adapt(x_tr[:2048])
    model.compile(optimizer=build_optimizer(cfg["optimizer"]), loss="mse",
                  metrics=[keras.metrics.MeanAbsoluteError(name="mae")])

    model.fit(train_ds, epochs=cfg["train"]["epochs"], steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, validation_steps=validation_steps,
              callbacks=standard_callbacks(cfg), verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        model.save(f"{cfg['output_dir']}/forecaster.keras")
        log.info("saved model to %s", cfg["output_dir"])


if __name__ == "__main__":
    main()
