"""GPU selection shared by the TF agents. One GPU per Horovod process."""
import tensorflow as tf
import horovod.tensorflow as hvd

LOCAL_RANK = hvd.local_rank()


def configure_gpus(memory_growth=True):
    gpus = tf.config.list_physical_devices("GPU")
    if memory_growth:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[LOCAL_RANK], "GPU")
    return len(gpus)
