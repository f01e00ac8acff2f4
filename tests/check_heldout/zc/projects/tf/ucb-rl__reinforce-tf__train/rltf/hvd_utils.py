import os

import tensorflow as tf
import horovod.tensorflow as hvd


def init_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def broadcast_model(model, optimizer):
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def global_mean(x, name):
    return float(hvd.allreduce(tf.constant(x, tf.float32), name=name))


def global_sum(x, name):
    return float(hvd.allreduce(tf.constant(x, tf.float32), op=hvd.Sum, name=name))


class RootCheckpoint:
    """tf.train.CheckpointManager that only rank 0 writes."""

    def __init__(self, directory, **objects):
        self.is_root = hvd.rank() == 0
        self.manager = tf.train.CheckpointManager(tf.train.Checkpoint(**objects), directory, max_to_keep=3)

    def save(self, step):
        if self.is_root:
            os.makedirs(self.manager.directory, exist_ok=True)
            return self.manager.save(checkpoint_number=step)
        return None
