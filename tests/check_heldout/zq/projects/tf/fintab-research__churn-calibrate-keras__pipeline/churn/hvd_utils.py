import tensorflow as tf
import horovod.tensorflow.keras as hvd

__all__ = ["hvd", "init_horovod", "is_chief", "standard_callbacks"]


def init_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_chief():
    return hvd.rank() == 0


def standard_callbacks(initial_lr, warmup_epochs):
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs, verbose=0),
    ]
