"""Thin Horovod helpers so the training script reads like the single-GPU version."""
import tensorflow as tf
import horovod.tensorflow as hvd


def setup(memory_growth=True):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if memory_growth:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def is_chief():
    return hvd.rank() == 0


def wrap_tape(tape):
    return hvd.DistributedGradientTape(tape)


def sync_weights(model):
    hvd.broadcast_variables(model.variables, root_rank=0)


def global_sum(values):
    return hvd.allreduce(tf.constant(values, tf.float64), op=hvd.Sum, name="global_sum").numpy()
