import os

import horovod.tensorflow as hvd
import tensorflow as tf


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def sync_state(model, optimizer):
    """Called by every worker once, after the first step has built all variables."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def chief_save(model, ckpt_dir, epoch):
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        model.save_weights(os.path.join(ckpt_dir, f"din-{epoch:02d}.weights.h5"))
