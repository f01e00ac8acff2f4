import numpy as np
import tensorflow as tf


class ERA5Pair:
    def __init__(self, surface_path, upper_path, stats_path):
        self.sfc = np.load(surface_path, mmap_mode="r")
        self.upr = np.load(upper_path, mmap_mode="r")
        st = np.load(stats_path)
        self.sm, self.ss = st["surface_mean"], st["surface_std"]
        self.um, self.us = st["upper_mean"], st["upper_std"]

    def get(self, t, lead):
        s0 = (self.sfc[t] - self.sm) / self.ss
        u0 = (self.upr[t] - self.um) / self.us
        s1 = (self.sfc[t + lead] - self.sm) / self.ss
        u1 = (self.upr[t + lead] - self.um) / self.us
        return [a.astype(np.float32) for a in (s0, u0, s1, u1)]


def split_for_rank(t0, t1, lead, rank, size):
    """Contiguous equal chunks of the time axis, one per rank (remainder dropped)."""
    times = np.arange(t0, t1 - lead)
    per = len(times) // size
    return times[rank * per:(rank + 1) * per]


def make_dataset(pair, times, lead, batch, shuffle):
    sfc_shape = pair.sfc.shape[1:]
    upr_shape = pair.upr.shape[1:]
    ds = tf.data.Dataset.from_tensor_slices(times)
    if shuffle:
        ds = ds.shuffle(len(times), reshuffle_each_iteration=True)

    def load(t):
        return tuple(pair.get(int(t), lead))

    def tf_load(t):
        s0, u0, s1, u1 = tf.numpy_function(load, [t], [tf.float32] * 4)
        s0.set_shape(sfc_shape); s1.set_shape(sfc_shape)
        u0.set_shape(upr_shape); u1.set_shape(upr_shape)
        return (s0, u0), (s1, u1)

    return ds.map(tf_load, num_parallel_calls=4).batch(batch, drop_remainder=True).prefetch(4)
