"""Horovod replacement for the MirroredStrategy we used on one box."""
import contextlib

import tensorflow as tf
import horovod.tensorflow as hvd


class HvdStrategy:
    def __init__(self):
        hvd.init()
        for gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(gpu, True)
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    @property
    def num_replicas_in_sync(self):
        return hvd.size()

    @property
    def worker_index(self):
        return hvd.rank()

    @contextlib.contextmanager
    def scope(self):
        # Kept so that model code written for tf.distribute still reads the same:
        # `with strategy.scope(): model = build()`. Each worker builds its own copy.
        yield self

    def input_context(self):
        return tf.distribute.InputContext(hvd.size(), hvd.rank(), hvd.size())
