"""Transaction category classifier - training entry point.

    horovodrun -np 4 python train.py [config/job.json]
"""
import os
import sys

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from txnlib import settings as settings_mod
from txnlib.callbacks import make_callbacks
from txnlib.features import load_npz, make_dataset
from txnlib.logging_setup import get_logger
from txnlib.model import build_classifier


def main(argv):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    log = get_logger("payflow.train")
    settings = settings_mod.load(argv[1] if len(argv) > 1 else None)
    x_tr, y_tr = load_npz(settings.train_path)
    x_va, y_va = load_npz(settings.val_path)
    n_classes = int(max(y_tr.max(), y_va.max())) + 1
    train_ds = make_dataset(x_tr, y_tr, settings.batch_size, hvd.size(), hvd.rank(), shuffle=True)
    val_ds = make_dataset(x_va, y_va, settings.batch_size, hvd.size(), hvd.rank(), shuffle=False)

    model = build_classifier(x_tr.shape[1], n_classes, settings.hidden_units)
    optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=settings.lr * hvd.size()))
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    callbacks = make_callbacks(settings)
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(settings.checkpoint_dir, "history.csv")))
    log.info("training on %d workers, %d samples", hvd.size(), len(x_tr))
    model.fit(train_ds, steps_per_epoch=len(x_tr) // (settings.batch_size * hvd.size()),
              validation_data=val_ds, epochs=settings.epochs, callbacks=callbacks,
              verbose=1 if hvd.rank() == 0 else 0)
    log.info("finished")


if __name__ == "__main__":
    main(sys.argv)
