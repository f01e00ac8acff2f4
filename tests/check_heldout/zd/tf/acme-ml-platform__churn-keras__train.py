"""Churn model (Keras 3) - training job, same platform template as the PyTorch churn trainer.

`run(cfg)` is imported by the pipeline's smoke stage; `python train.py` reads ACME_* variables.
"""
import json
import sys

import keras
import horovod.tensorflow.keras as hvd

from common.callbacks import build_callbacks
from common.config import KerasJobConfig
from common.gpu import init_horovod
from churn_tf.data import load_splits, to_dataset
from churn_tf.model import build_model


def run(cfg: KerasJobConfig):
    rank, world = init_horovod()
    (x_tr, y_tr), (x_va, y_va) = load_splits(cfg.data_uri)
    train_ds = to_dataset(x_tr, y_tr, cfg.batch_size, rank, world, training=True)
    val_ds = to_dataset(x_va, y_va, cfg.batch_size, rank, world, training=False)
    steps_per_epoch = max(1, len(x_tr) // (cfg.batch_size * world))

    scaled_lr = cfg.base_lr * world
    model = build_model(x_tr.shape[1])
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy(threshold=0.0, name="acc")])

    history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=cfg.epochs,
                        validation_data=val_ds, callbacks=build_callbacks(cfg, scaled_lr, steps_per_epoch),
                        verbose=2 if rank == 0 else 0)
    final = {k: float(v[-1]) for k, v in history.history.items()}
    if rank == 0:
        print(json.dumps({"experiment": cfg.experiment, "final": final}), flush=True)
    return final


if __name__ == "__main__":
    run(KerasJobConfig.from_env())
    sys.exit(0)
