import tensorflow as tf
import horovod.tensorflow as hvd


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def sync(model, optimizer):
    """Root's weights and optimizer slots to every worker (call after the first update)."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def sum_all(values, name):
    return hvd.allreduce(tf.constant(values, tf.float64), op=hvd.Sum, name=name).numpy()
