import tensorflow as tf
import horovod.tensorflow as hvd


def sync_initial_state(model, optimizer):
    """Copy rank 0's weights and optimizer slots to every worker (after the first step built them)."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def sum_over_workers(tensor, name):
    return hvd.allreduce(tensor, op=hvd.Sum, name=name)


def pin_local_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return len(gpus)
