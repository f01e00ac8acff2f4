import os

import tensorflow as tf
import horovod.tensorflow as hvd


def init_and_pin():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def scaled_lr(base_lr):
    return base_lr * hvd.size()


def sync_initial_state(model, optimizer):
    """Call once, after the first optimizer step (the optimizer slots exist only then)."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)


def mean_over_ranks(x, name):
    return float(hvd.allreduce(tf.constant(x, tf.float32), op=hvd.Average, name=name))


def save_on_root(model, out_dir, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    model.save_weights(os.path.join(out_dir, f"unet_e{epoch:03d}.weights.h5"))
