import tensorflow as tf
import horovod.tensorflow as hvd_tf
import horovod.tensorflow.keras as hvd


def init():
    hvd.init()
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def sync_weights(model):
    """rank 0's initial weights to everybody (model must be built)"""
    hvd_tf.broadcast_variables(model.variables, root_rank=0)


def leader():
    return hvd.rank() == 0
