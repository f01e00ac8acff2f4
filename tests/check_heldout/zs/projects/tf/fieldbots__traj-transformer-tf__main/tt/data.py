import numpy as np
import tensorflow as tf


def synthetic_trajectories(n=300, T=60, sdim=17, adim=6, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n, T, sdim)).astype("float32")
    a = np.tanh(s[..., :adim] + 0.1 * rng.normal(size=(n, T, adim))).astype("float32")
    return s, a


def windows(states, actions, k):
    n, T = states.shape[:2]
    idx = [(i, t) for i in range(n) for t in range(0, T - k + 1, k // 2)]
    s = np.stack([states[i, t:t + k] for i, t in idx])
    a = np.stack([actions[i, t:t + k] for i, t in idx])
    prev = np.concatenate([np.zeros_like(a[:, :1]), a[:, :-1]], 1)
    return s, prev, a


def to_dataset(s, prev, a, batch, rank, size, train=True):
    ds = tf.data.Dataset.from_tensor_slices(((s, prev), a)).shard(size, rank)
    if train:
        ds = ds.shuffle(4096).repeat()
    return ds.batch(batch, drop_remainder=True).prefetch(2)
