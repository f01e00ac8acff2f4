import numpy as np
import tensorflow as tf


class FieldArchive:
    """Pairs (forcings at month t, temperature anomaly at month t) from a single .npz archive."""

    def __init__(self, path):
        with np.load(path) as d:
            self.x = d["forcings"].astype("float32")      # (N, H, W, C)
            self.y = d["tas_anom"].astype("float32")      # (N, H, W)
            self.lat = d["lat"].astype("float32")
        self.n = len(self.y)

    def area_weights(self):
        w = np.cos(np.deg2rad(self.lat))
        return (w / w.mean()).astype("float32")

    def dataset(self, indices, batch_size, num_shards, shard_index, epoch, train):
        """Disjoint part of `indices` for this worker; the shuffle is shared (seeded by epoch)."""
        idx = np.asarray(indices)
        if train:
            idx = np.random.default_rng(1000 + epoch).permutation(idx)
        idx = idx[shard_index::num_shards]
        ds = tf.data.Dataset.from_tensor_slices((self.x[idx], self.y[idx]))
        return ds.batch(batch_size, drop_remainder=train).prefetch(tf.data.AUTOTUNE)
