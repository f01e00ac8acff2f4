"""Small helpers: GPU pinning, root-only logging and saving, reductions, lr schedule."""
import math
import os

import horovod.tensorflow as hvd
import tensorflow as tf


def pin_gpu(local_rank):
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank], "GPU")
        tf.config.experimental.set_memory_growth(gpus[local_rank], True)


def sync_initial_state(model):
    """Start every rank from rank 0's weights (was comm.Bcast of the flattened weights)."""
    hvd.broadcast_variables(model.variables, root_rank=0)


def global_ratio(sums):
    """sums = [loss_sum, n_errors, n_windows] on this rank -> (mean loss, error rate) over all ranks."""
    tot = hvd.allreduce(sums, op=hvd.Sum, name="val_sums")
    return float(tot[0] / tot[2]), float(tot[1] / tot[2])


def cosine_lr(epoch, base_lr, epochs, floor=0.01):
    return base_lr * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * epoch / epochs)))


def log(msg):
    if hvd.rank() == 0:
        print(msg, flush=True)


def save_on_root(model, out_dir, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    model.save_weights(os.path.join(out_dir, f"phase_cnn_e{epoch:02d}.weights.h5"))
