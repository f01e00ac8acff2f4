"""Process-wide helpers and state for the KWS experiments."""
import datetime
import random
from types import SimpleNamespace

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

G = SimpleNamespace(rank=0, size=1, local_rank=0, started=None)


def init_horovod():
    hvd.init()
    G.rank, G.size, G.local_rank = hvd.rank(), hvd.size(), hvd.local_rank()
    G.started = datetime.datetime.now()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[G.local_rank], "GPU")


def seed_all(seed):
    # each worker gets its own stream so SpecAugment masks are not identical across workers
    seed = seed + G.rank
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


def worker_indices(n):
    """Indices of the training examples this worker owns (equal-sized blocks)."""
    perm = np.random.permutation(n)   # mix speakers before cutting into blocks
    per = n // G.size
    return np.sort(perm[G.rank * per:(G.rank + 1) * per])


def log(msg):
    if G.rank == 0:
        elapsed = datetime.datetime.now() - G.started if G.started else 0
        print(f"[{elapsed}] {msg}", flush=True)
