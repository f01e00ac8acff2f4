import tensorflow as tf
import horovod.tensorflow as hvd


def init_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def sync_variables(models, optimizer):
    """Broadcast rank 0's weights (and optimizer slots) after the first step."""
    for m in models:
        hvd.broadcast_variables(m.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def allreduce_mean(value):
    return float(hvd.allreduce(tf.convert_to_tensor(value), op=hvd.Average))
