"""Process-level set-up shared by all entry points: Horovod + one GPU per process."""
import tensorflow as tf
import horovod.tensorflow as hvd

world_size = 1
rank = 0
is_chief = True


def setup():
    global world_size, rank, is_chief
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    world_size, rank = hvd.size(), hvd.rank()
    is_chief = rank == 0
    return world_size, rank
