#!/usr/bin/env python3
"""Train GC-Net on SceneFlow (FlyingThings3D subset) with Keras fit + Horovod.

    horovodrun -np 8 python train_keras.py --config configs/sceneflow.json
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from gcnet.callbacks import default_callbacks
from gcnet.config import GCNetConfig
from gcnet.data import stereo_dataset
from gcnet.model import build_gcnet


def epe(y_true, y_pred):
    mask = tf.cast(y_true > 0, tf.float32)
    return tf.reduce_sum(tf.abs(y_true - y_pred) * mask) / tf.maximum(tf.reduce_sum(mask), 1.0)


def three_px(y_true, y_pred):
    mask = tf.cast(y_true > 0, tf.float32)
    bad = tf.cast(tf.abs(y_true - y_pred) > 3.0, tf.float32) * mask
    return tf.reduce_sum(bad) / tf.maximum(tf.reduce_sum(mask), 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="")
    ap.add_argument("--epochs", type=int, default=None)
    args = ap.parse_args()
    cfg = GCNetConfig.from_json(args.config)
    if args.epochs:
        cfg.epochs = args.epochs

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds = stereo_dataset(os.path.join(cfg.data_dir, "train-*.tfrecord"), cfg, hvd.rank(), hvd.size())
    val_ds = stereo_dataset(os.path.join(cfg.data_dir, "val-*.tfrecord"), cfg, hvd.rank(), hvd.size(), False)
    steps = cfg.train_examples // (cfg.batch_size * hvd.size())
    val_steps = cfg.val_examples // (cfg.batch_size * hvd.size())

    model = build_gcnet(cfg.height, cfg.width, cfg.max_disp, cfg.features)
    lr = cfg.base_lr * hvd.size()
    optimizer = hvd.DistributedOptimizer(keras.optimizers.RMSprop(learning_rate=lr))
    model.compile(optimizer=optimizer, loss=keras.losses.Huber(delta=1.0), metrics=[epe, three_px])

    verbose = 1 if hvd.rank() == 0 else 0
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=cfg.warmup_epochs, verbose=verbose),
    ]
    callbacks += default_callbacks(cfg)
    if hvd.rank() == 0:
        cfg.dump(os.path.join(cfg.out_dir, "config.json"))

    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs, validation_data=val_ds,
              validation_steps=val_steps, callbacks=callbacks, verbose=verbose)


if __name__ == "__main__":
    main()
