"""GPU set-up shared by the training and inference scripts."""
import tensorflow as tf
import horovod.tensorflow.keras as hvd

LOCAL_RANK = hvd.local_rank()


def pin_gpu(memory_growth=True):
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        return None
    if memory_growth:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
    tf.config.set_visible_devices(gpus[LOCAL_RANK], "GPU")
    return gpus[LOCAL_RANK].name
