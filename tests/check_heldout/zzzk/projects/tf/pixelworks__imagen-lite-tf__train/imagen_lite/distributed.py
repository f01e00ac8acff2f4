import tensorflow as tf
import horovod.tensorflow as hvd


def init_workers():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def log0(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)
