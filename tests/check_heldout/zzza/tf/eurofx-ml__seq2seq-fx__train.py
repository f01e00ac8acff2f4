import argparse
import json

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from fx.data import make_datasets
from fx.model import Seq2SeqSS, directional_accuracy
from fx.callbacks import make_callbacks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default="configs/eurusd.json")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    if args.epochs:
        cfg["epochs"] = args.epochs

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, val_ds = make_datasets(cfg, hvd.rank(), hvd.size())
    model = Seq2SeqSS(cfg["units"], cfg["dec_len"])
    optimizer = keras.optimizers.Adam(learning_rate=cfg["learning_rate"])
    model.compile(optimizer=hvd.DistributedOptimizer(optimizer), loss="mse",
                  metrics=["mae", directional_accuracy])
    model.fit(train_ds, validation_data=val_ds, epochs=cfg["epochs"], callbacks=make_callbacks(cfg),
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
