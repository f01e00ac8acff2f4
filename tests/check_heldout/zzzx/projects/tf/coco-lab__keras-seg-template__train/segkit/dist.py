import tensorflow as tf
import horovod.tensorflow.keras as hvd


def pin_gpu():
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def sync_config(cfg):
    """Rank 0's config wins (people edit yaml files while jobs queue)."""
    return hvd.broadcast_object(cfg, root_rank=0)


def print0(*args, **kw):
    if hvd.rank() == 0:
        print(*args, **kw, flush=True)
