import numpy as np
import tensorflow as tf


class Aggregate:
    """DAgger dataset: every visited state labelled by the expert."""

    def __init__(self):
        self.obs, self.act = [], []

    def add(self, obs, act):
        self.obs.append(np.asarray(obs, "float32"))
        self.act.append(np.asarray(act, "float32").reshape(-1, 1))

    def __len__(self):
        return sum(len(o) for o in self.obs)

    def arrays(self):
        return np.concatenate(self.obs), np.concatenate(self.act)


def make_dataset(agg, batch, seed, val_frac=0.1):
    x, y = agg.arrays()
    perm = np.random.default_rng(seed).permutation(len(x))
    n_val = int(len(x) * val_frac)
    va, tr = perm[:n_val], perm[n_val:]
    train = (tf.data.Dataset.from_tensor_slices((x[tr], y[tr]))
             .shuffle(len(tr), seed=seed).repeat().batch(batch, drop_remainder=True))
    val = tf.data.Dataset.from_tensor_slices((x[va], y[va])).batch(batch)
    return train, val, len(tr)
