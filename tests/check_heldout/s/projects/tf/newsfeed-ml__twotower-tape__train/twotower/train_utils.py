import os

import keras
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

OPTIMIZERS = {
    "adagrad": keras.optimizers.Adagrad,
    "adam": keras.optimizers.Adam,
}


def make_optimizer(ocfg):
    return OPTIMIZERS[ocfg["name"]](learning_rate=ocfg["lr"] * hvd.size())


def pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


class GlobalMean:
    """Mean over all workers of a per-step scalar."""

    def __init__(self, name):
        self.name = name
        self.total = 0.0
        self.count = 0

    def update(self, value):
        self.total += float(value)
        self.count += 1

    def result(self):
        t = hvd.allreduce(tf.constant([self.total, float(self.count)], tf.float64), op=hvd.Sum,
                          name=self.name)
        return float(t[0] / tf.maximum(t[1], 1.0))

    def reset(self):
        self.total, self.count = 0.0, 0


def recall_at_k(model, users, items, k=50, chunk=2048):
    """Full-catalogue Recall@k of the held-out click for each (user, item) pair."""
    all_items = model.encode_items(tf.range(model.item_emb.input_dim, dtype=tf.int64))
    hits = 0
    for s in range(0, len(users), chunk):
        scores = tf.matmul(model.encode_users(users[s:s + chunk]), all_items, transpose_b=True)
        topk = tf.math.top_k(scores, k=k).indices.numpy()
        hits += int((topk == items[s:s + chunk, None]).any(axis=1).sum())
    return hits / max(len(users), 1)


class RankZeroCheckpoint:
    def __init__(self, directory, **objects):
        self.ckpt = tf.train.Checkpoint(**objects)
        self.directory = directory

    def save(self, step):
        if hvd.rank() != 0:
            return None
        os.makedirs(self.directory, exist_ok=True)
        return self.ckpt.write(os.path.join(self.directory, f"ckpt-{step}"))
