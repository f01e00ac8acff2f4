import tensorflow as tf
import horovod.tensorflow.keras as hvd


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def distributed(optimizer):
    return hvd.DistributedOptimizer(optimizer)


def sync_callbacks():
    """Callbacks every fit() needs under Horovod: initial broadcast and averaged epoch metrics."""
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root=0),
        hvd.callbacks.MetricAverageCallback(),
    ]
