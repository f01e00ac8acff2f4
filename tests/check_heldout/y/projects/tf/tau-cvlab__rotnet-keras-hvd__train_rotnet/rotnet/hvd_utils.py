import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def setup_gpus():
    """One visible GPU per worker, with memory growth."""
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def make_callbacks(cfg, steps_per_epoch):
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.base_lr * hvd.size(),
                                                 warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out, "rotnet-{epoch:03d}.keras")))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg.out, "history.csv")))
    return callbacks
