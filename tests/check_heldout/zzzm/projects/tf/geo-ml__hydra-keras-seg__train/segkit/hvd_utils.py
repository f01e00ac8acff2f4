import tensorflow as tf
import horovod.tensorflow.keras as hvd


def init_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def wrap_optimizer(optimizer, dist_cfg):
    """Distributed optimizer with the compression options from the `dist` config group."""
    if dist_cfg.fp16_compression:
        return hvd.DistributedOptimizer(optimizer,
                                        compression=hvd.Compression.fp16,
                                        sparse_as_dense=dist_cfg.sparse_as_dense)
    elif dist_cfg.sparse_as_dense:
        return hvd.DistributedOptimizer(optimizer, sparse_as_dense=True)
    return optimizer
