import json
import os
from types import SimpleNamespace

import tensorflow as tf
import horovod.tensorflow as hvd


def init(cfg):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    tf.random.set_seed(cfg.seed)
    is_chief = hvd.rank() == 0
    if is_chief:
        os.makedirs(cfg.workdir, exist_ok=True)
    return SimpleNamespace(rank=hvd.rank(), size=hvd.size(), is_chief=is_chief)


def global_sum(values, name):
    return hvd.allreduce(tf.constant(values, tf.float64), op=hvd.Sum, name=name).numpy()


def finish(ctx, state):
    if ctx.is_chief:
        with open(os.path.join(state.workdir, "table.json"), "w") as f:
            json.dump(state.table, f, indent=1)
    hvd.join()
