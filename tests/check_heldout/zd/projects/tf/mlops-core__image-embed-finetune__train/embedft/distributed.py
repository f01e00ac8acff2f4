"""Horovod set-up for TF jobs: one GPU per process, lr scaling, first-step broadcast."""
import tensorflow as tf
import horovod.tensorflow as hvd


def init():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def scaled_lr(base_lr):
    return base_lr * hvd.size()


def sync_initial_state(model, optimizer):
    """Called once after the first optimizer step, when the optimizer slots exist."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def mean_over_workers(value, name):
    return hvd.allreduce(tf.constant(value, dtype=tf.float32), op=hvd.Average, name=name)
