import tensorflow as tf
import horovod.tensorflow as hvd


def init():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def sync_weights(model, opt):
    """start every worker from rank 0's weights (and optimizer slots)"""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)


def average_gradients(grads):
    return hvd.grouped_allreduce(grads, op=hvd.Average)
