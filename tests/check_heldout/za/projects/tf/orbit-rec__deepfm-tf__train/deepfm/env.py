import horovod.tensorflow as hvd
import tensorflow as tf


def init_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def broadcast_initial_state(model, optimizer):
    """Copy rank 0's freshly initialised weights (and optimizer slots) to the other workers."""
    if hvd.rank() == 0:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
