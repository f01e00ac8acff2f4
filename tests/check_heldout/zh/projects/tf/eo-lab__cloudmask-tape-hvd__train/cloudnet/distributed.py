import tensorflow as tf
import horovod.tensorflow as hvd


def init_workers():
    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')
    return hvd.rank() == 0


def sync_initial_state(model, optimizer):
    """Weights and optimizer slots must exist before they can be broadcast."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def global_average(values: dict):
    names = sorted(values)
    stacked = tf.stack([tf.cast(values[k], tf.float32) for k in names])
    reduced = hvd.allreduce(stacked, op=hvd.Average, name='metrics')
    return {k: float(v) for k, v in zip(names, reduced.numpy())}
