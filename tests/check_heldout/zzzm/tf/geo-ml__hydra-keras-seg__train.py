"""Semantic segmentation of satellite tiles (Keras + Horovod).

Config is composed from configs/*.yaml like hydra does, overrides on the command line:
    horovodrun -np 8 python train.py model=unet_small trainer.epochs=50 optim.lr=3e-4
    SEG_TRAINER__BATCH_SIZE=16 horovodrun -np 4 python train.py
"""
import os
import sys

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from segkit.cfg import compose
from segkit import hvd_utils
from segkit.data import make_dataset
from segkit.model_zoo import MODEL_ZOO, OPTIMIZERS
from segkit.tracking import MLflowLikeCallback, get_run


def run(cfg):
    hvd_utils.init_horovod()

    train_ds, train_steps = make_dataset(cfg.data, "train", cfg.trainer.batch_size,
                                         rank=hvd.rank(), size=hvd.size())
    val_ds, val_steps = make_dataset(cfg.data, "val", cfg.trainer.batch_size,
                                     rank=hvd.rank(), size=hvd.size())

    model = MODEL_ZOO[cfg.model.name](**cfg.model.params)
    lr = cfg.optim.lr * hvd.size()
    optimizer = OPTIMIZERS[cfg.optim.name](learning_rate=lr, **cfg.optim.kwargs)
    optimizer = hvd_utils.wrap_optimizer(optimizer, cfg.dist)

    model.compile(optimizer=optimizer,
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[tf.keras.metrics.SparseCategoricalAccuracy(name="pix_acc")])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
    if hvd.rank() == 0:
        os.makedirs(cfg.trainer.out_dir, exist_ok=True)
        callbacks += [
            tf.keras.callbacks.ModelCheckpoint(os.path.join(cfg.trainer.out_dir, "best.weights.h5"),
                                               monitor="val_pix_acc", mode="max",
                                               save_best_only=True, save_weights_only=True),
            MLflowLikeCallback(get_run(cfg.tracking)),
        ]

    model.fit(train_ds, epochs=cfg.trainer.epochs, steps_per_epoch=train_steps,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    run(compose("configs", "config.yaml", sys.argv[1:], env_prefix="SEG_"))
