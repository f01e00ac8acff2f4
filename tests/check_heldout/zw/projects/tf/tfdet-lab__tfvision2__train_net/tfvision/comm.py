"""Distributed helpers: the torch.distributed calls of the original codebase, mapped onto Horovod."""
import tensorflow as tf
import horovod.tensorflow as hvd


def init_dist():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def get_world_size():
    return hvd.size()


def get_rank():
    return hvd.rank()


def is_main_process():
    return get_rank() == 0


def reduce_sum(value, name):
    return hvd.allreduce(value, op=hvd.Sum, name=name)
