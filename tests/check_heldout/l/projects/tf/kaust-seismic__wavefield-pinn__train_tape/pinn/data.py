import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_observations(path):
    """Receiver recordings: columns x, z, t, u (pressure), plus the velocity model grid."""
    d = np.load(path)
    obs = np.stack([d["x"], d["z"], d["t"]], axis=1).astype(np.float32)
    return obs, d["u"].astype(np.float32)[:, None], d["velocity"].astype(np.float32), d["extent"]


def observation_dataset(xzt, u, batch_size, seed):
    ds = tf.data.Dataset.from_tensor_slices((xzt, u))
    # every worker takes its own part of the recordings, then shuffles it
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.shuffle(min(len(u), 200_000), seed=seed, reshuffle_each_iteration=True)
    return ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def make_collocation(extent, n, rng):
    """Random interior points where the PDE residual is enforced (fresh per step, per worker)."""
    (x0, x1), (z0, z1), (t0, t1) = extent
    pts = rng.uniform([x0, z0, t0], [x1, z1, t1], size=(n, 3)).astype(np.float32)
    return tf.constant(pts)
