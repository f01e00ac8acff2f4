#!/usr/bin/env python
# Multi-head customer model (churn / spend / category) trained with horovod + keras fit.
#   horovodrun -np 4 python train.py
import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from mhtab import config
from mhtab.callbacks import make_callbacks
from mhtab.features import load_csv, make_dataset, standardize
from mhtab.model import build, compile_model


def main():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_train, y_train = load_csv(config.TRAIN_CSV)
    x_valid, y_valid = load_csv(config.VALID_CSV)
    mean, std = x_train.mean(0), x_train.std(0)
    x_train, x_valid = standardize(x_train, mean, std), standardize(x_valid, mean, std)
    if hvd.rank() == 0:
        np.savez(f"{config.RUN_DIR}_scaler.npz", mean=mean, std=std)

    train_ds = make_dataset(x_train, y_train, config.BATCH_SIZE, hvd.size(), hvd.rank(), train=True)
    valid_ds = make_dataset(x_valid, y_valid, config.BATCH_SIZE, hvd.size(), hvd.rank(), train=False)
    steps = len(x_train) // (config.BATCH_SIZE * hvd.size())

    model = compile_model(build())
    if hvd.rank() == 0:
        model.summary()

    model.fit(
        train_ds,
        epochs=config.EPOCHS,
        steps_per_epoch=steps,
        validation_data=valid_ds,
        callbacks=make_callbacks(config.RUN_DIR),
        verbose=1 if hvd.rank() == 0 else 0,
    )

    # final report: each worker evaluates its shard, then the per-worker means are averaged
    results = model.evaluate(valid_ds, verbose=0, return_dict=True)
    results = {k: float(hvd.allreduce(tf.constant(v, tf.float32), name=f"final_{k}")) for k, v in results.items()}
    if hvd.rank() == 0:
        for k in sorted(results):
            print(f"{k:>40s}: {results[k]:.5f}")


if __name__ == "__main__":
    main()
