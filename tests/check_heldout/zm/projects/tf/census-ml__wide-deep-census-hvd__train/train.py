"""Wide & Deep income classifier on UCI Adult / census CSVs, Keras 3 + horovod.tensorflow.keras.

    horovodrun -np 4 python train.py --train-csv data/adult.data --test-csv data/adult.test
"""
import argparse
import math
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from census import hvd_callbacks
from census.input_fn import read_csv, to_dataset
from census.model import wide_and_deep
from census.schema import CATEGORICAL, NUMERIC

parser = argparse.ArgumentParser()
parser.add_argument("--train-csv", default="data/adult.data")
parser.add_argument("--test-csv", default="data/adult.test")
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--job-dir", default="jobs/wide_deep")


def run(args):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_cols, train_y = read_csv(args.train_csv)
    test_cols, test_y = read_csv(args.test_csv)
    train_ds = to_dataset(train_cols, train_y, args.batch_size, shard=(hvd.size(), hvd.rank()),
                          shuffle=True)
    val_ds = to_dataset(test_cols, test_y, args.batch_size, shard=(hvd.size(), hvd.rank()))
    steps_per_epoch = math.ceil(len(train_y) / (args.batch_size * hvd.size()))
    val_steps = len(test_y) // (args.batch_size * hvd.size())

    model = wide_and_deep(CATEGORICAL, NUMERIC, deep_units=(128, 64, 32))
    lr = args.lr * hvd.size()
    model.compile(
        optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr)),
        loss=keras.losses.BinaryCrossentropy(),
        metrics=[keras.metrics.AUC(name="auc"), "accuracy"],
    )

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=hvd_callbacks.standard(lr, steps_per_epoch, args.job_dir),
              verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        full_test = to_dataset(test_cols, test_y, 1024, repeat=False)
        loss, auc, acc = model.evaluate(full_test, verbose=0)
        print(f"test loss={loss:.4f} auc={auc:.4f} acc={acc:.4f}")


if __name__ == "__main__":
    run(parser.parse_args())
