import json
import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


def log_run(args, lr, steps):
    if hvd.rank() != 0:
        return
    info = dict(vars(args), world=hvd.size(), scaled_lr=lr, steps_per_epoch=steps,
                global_batch=args.batch_per_worker * hvd.size())
    print(json.dumps(info, indent=1), flush=True)


def averaged(values, prefix):
    """Mean over workers of a list of per-worker scalars (equal-size shards)."""
    return [float(hvd.allreduce(tf.constant(v, tf.float32), name=f"{prefix}_{i}"))
            for i, v in enumerate(values)]
