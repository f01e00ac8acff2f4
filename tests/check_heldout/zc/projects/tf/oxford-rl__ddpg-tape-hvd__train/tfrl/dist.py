import os

import tensorflow as tf
import horovod.tensorflow as hvd


def sync_networks(*models):
    """Copy rank 0's initial weights to the other workers."""
    if hvd.rank() == 0:
        for m in models:
            hvd.broadcast_variables(m.variables, root_rank=0)


def mean_over_workers(x, name):
    return float(hvd.allreduce(tf.constant(x, tf.float32), name=name))


def save_actor(model, out_dir, step):
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        model.save_weights(os.path.join(out_dir, f"actor_{step}.weights.h5"))
