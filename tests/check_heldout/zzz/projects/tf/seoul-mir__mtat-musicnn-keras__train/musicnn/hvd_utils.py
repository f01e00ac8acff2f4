import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def init_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def callbacks(initial_lr, warmup_epochs, ckpt_dir, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=3, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "musicnn-{epoch:03d}.keras")),
                keras.callbacks.CSVLogger(os.path.join(ckpt_dir, "history.csv"))]
    return cbs
