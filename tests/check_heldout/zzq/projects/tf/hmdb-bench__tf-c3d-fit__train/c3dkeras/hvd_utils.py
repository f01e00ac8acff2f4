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


def distributed_callbacks(base_lr, warmup_epochs, drop_epochs, ckpt_dir):
    scaled = base_lr * hvd.size()
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
           hvd.callbacks.MetricAverageCallback(),
           hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled, warmup_epochs=warmup_epochs)]
    for i, start in enumerate(drop_epochs):
        end = drop_epochs[i + 1] if i + 1 < len(drop_epochs) else None
        cbs.append(hvd.callbacks.LearningRateScheduleCallback(
            initial_lr=scaled, multiplier=0.1 ** (i + 1), start_epoch=start, end_epoch=end))
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "c3d-{epoch:02d}.keras")))
    return cbs, scaled
