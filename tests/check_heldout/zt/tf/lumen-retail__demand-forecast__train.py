"""Demand forecasting trainer.  python train.py [config.json]  (overrides via FORECAST__a__b=value)"""
import os
import sys

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from forecast import config, data, models
from forecast.tracking import Tracker, TrackerCallback


def pin_to_local_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main(config_path=None):
    hvd.init()
    pin_to_local_gpu()
    cfg = config.resolve(config_path)
    chief = hvd.rank() == 0

    shards = data.read_shard_list(cfg["data"]["shard_list"])
    x_tr, y_tr = data.load_split(shards, "train")
    x_va, y_va = data.load_split(shards, "valid")
    bs = cfg["data"]["batch_size"]
    train_ds = data.make_dataset(x_tr, y_tr, bs, hvd.size(), hvd.rank(), training=True)
    val_ds = data.make_dataset(x_va, y_va, bs, hvd.size(), hvd.rank(), training=False)
    steps_per_epoch = len(x_tr) // (bs * hvd.size())
    val_steps = len(x_va) // (bs * hvd.size())

    model = models.build(cfg)
    lr = cfg["optimizer"]["lr"] * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="mae", metrics=["mse"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=cfg["optimizer"]["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=int(chief)),
        keras.callbacks.ReduceLROnPlateau(patience=5, factor=0.5, min_lr=1e-6),
    ]
    tracker = Tracker(cfg["fit"]["tracking_uri"], enabled=chief)
    if chief:
        tracker.log_params(cfg)
        os.makedirs(cfg["fit"]["out_dir"], exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg["fit"]["out_dir"], "best.keras"), save_best_only=True),
            TrackerCallback(tracker),
        ]

    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg["fit"]["epochs"],
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=callbacks, verbose=2 if chief else 0)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
