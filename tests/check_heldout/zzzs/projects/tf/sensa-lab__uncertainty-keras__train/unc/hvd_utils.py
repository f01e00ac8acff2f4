import os

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def init():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def make_optimizer(lr):
    # linear scaling with the number of workers
    return hvd.DistributedOptimizer(keras.optimizers.Adam(lr * hvd.size()))


def callbacks(out, rnd):
    cb = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
          hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        cb.append(keras.callbacks.ModelCheckpoint(os.path.join(out, "r%02d_best.keras" % rnd),
                                                  monitor="loss", save_best_only=True))
    return cb
