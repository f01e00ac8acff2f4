"""Tox21 as padded graphs: atom features (N, A, F), adjacency (N, A, A), labels + mask (N, 12)."""
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_split(path, split):
    z = np.load(path)
    m = z["split"] == split
    adj = z["adj"][m].astype(np.float32)
    adj = adj + np.eye(adj.shape[1], dtype=np.float32)[None]          # self loops
    deg = adj.sum(-1, keepdims=True)
    return {"atoms": z["atoms"][m].astype(np.float32), "adj": adj / np.maximum(deg, 1.0),
            "y": z["y"][m].astype(np.float32), "mask": z["mask"][m].astype(np.float32)}


def train_dataset(arrays, batch_size, seed=0):
    ds = tf.data.Dataset.from_tensor_slices(arrays)
    # one shard per GPU
    ds = ds.shard(num_shards=hvd.local_size(), index=hvd.local_rank())
    ds = ds.shuffle(4096, seed=seed, reshuffle_each_iteration=True)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def eval_dataset(arrays, batch_size=512):
    return tf.data.Dataset.from_tensor_slices(arrays).batch(batch_size)
