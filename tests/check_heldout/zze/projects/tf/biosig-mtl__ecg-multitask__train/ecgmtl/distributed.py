"""Horovod helpers (ported from the TF1 MonitoredTrainingSession version of this repo)."""
import tensorflow as tf
import horovod.tensorflow as hvd


def init():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_master():
    return hvd.rank() == 0


def sync_initial_state(model, optimizer):
    """Start every worker from the master's weights and optimizer slots."""
    model.build((None,) + tuple(model.input_shape[1:]))
    optimizer.build(model.trainable_variables)
    hvd.broadcast_global_variables(0)


def average(value, name):
    return float(hvd.allreduce(tf.constant(value, tf.float32), name=name))
