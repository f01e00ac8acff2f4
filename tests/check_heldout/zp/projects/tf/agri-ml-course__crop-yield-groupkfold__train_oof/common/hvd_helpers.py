"""Horovod glue shared by our course repos (copied from the wheat-rust project)."""
import numpy as np
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


def sync_from_chief(model, optimizer):
    """Call once the model and the optimizer slots exist."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def global_sum(*values):
    out = hvd.allreduce(tf.constant(values, dtype=tf.float64), op=hvd.Sum, name="gsum")
    return out.numpy()


def equal_strided_shard(idx, seed):
    """Shuffle with a shared seed, give each worker every size-th row, drop the tail."""
    idx = np.random.RandomState(seed).permutation(idx)
    n = len(idx) // hvd.size()
    return idx[hvd.rank()::hvd.size()][:n]
