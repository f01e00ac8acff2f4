import horovod.tensorflow as hvd
import tensorflow as tf


def init_workers():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def sync_initial_weights(model, optimizer, pretrained_encoder=None):
    """Called once after the first step: the encoder may come from a pretrained checkpoint on
    rank 0, so every worker takes rank 0's encoder; the optimizer slots follow."""
    if pretrained_encoder and hvd.rank() == 0:
        model.encoder.load_weights(pretrained_encoder)
    hvd.broadcast_variables(model.encoder.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def global_sum(x):
    return hvd.allreduce(tf.cast(x, tf.float64), op=hvd.Sum)
