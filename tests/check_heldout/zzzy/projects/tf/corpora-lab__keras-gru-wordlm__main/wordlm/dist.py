"""horovod helpers shared by the pipeline"""
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def init():
    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')


def sync_initial_weights(model):
    # same starting point on every worker
    hvd.broadcast_variables(model.variables, root_rank=0)


def wrap_optimizer(opt):
    return hvd.DistributedOptimizer(opt)


def is_chief():
    return hvd.rank() == 0
