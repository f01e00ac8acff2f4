import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def setup_env(mixed_precision=True):
    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    # one GPU per worker
    os.environ['CUDA_VISIBLE_DEVICES'] = str(hvd.local_rank())
    if mixed_precision and gpus:
        tf.keras.mixed_precision.set_global_policy('mixed_float16')
    return hvd.rank(), hvd.size()
