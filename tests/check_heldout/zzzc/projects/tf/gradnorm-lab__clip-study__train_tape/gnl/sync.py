import tensorflow as tf
import horovod.tensorflow as hvd


def setup_devices():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def sync_initial_state(model, optimizer):
    """Run once after the first step so that all slots exist.

    Trainable weights need no broadcast here: they get identical updates from the
    averaged gradients. Only BN statistics and the optimizer slots can drift.
    """
    hvd.broadcast_variables(model.non_trainable_variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)
