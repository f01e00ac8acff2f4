import tensorflow as tf
import horovod.tensorflow.keras as hvd


def hvd_init_and_pin():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if hvd.rank() == 0:
        print("horovod: %d workers, %d per node" % (hvd.size(), hvd.local_size()))
