import tensorflow as tf
import horovod.tensorflow as hvd


def init_and_pin():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        gpu = gpus[hvd.local_rank() % len(gpus)]
        tf.config.experimental.set_memory_growth(gpu, True)
        tf.config.set_visible_devices(gpu, "GPU")
    tf.random.set_seed(1000 + hvd.rank())
