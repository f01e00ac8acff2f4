import glob
import os

import numpy as np
import tensorflow as tf

# per-band mean / std of Sentinel-2 L2A reflectance x 1e4 over the EuroSAT-MS tiles
BAND_STATS = {"B02": (1354., 245.), "B03": (1118., 333.), "B04": (1042., 395.),
              "B08": (2076., 626.), "B11": (1731., 600.), "B12": (1104., 514.)}


def _load(split_dir, bands):
    x, y = [], []
    for f in sorted(glob.glob(os.path.join(split_dir, "*.npz"))):
        d = np.load(f)
        x.append(np.stack([(d[b] - BAND_STATS[b][0]) / BAND_STATS[b][1] for b in bands], -1))
        y.append(d["label"])
    return np.concatenate(x).astype("float32"), np.concatenate(y).astype("int32")


def make_split(cfg, split, rank, size, training):
    """Returns (dataset, steps) with this rank's 1/size of the tiles."""
    x, y = _load(os.path.join(cfg["data_dir"], split), cfg["bands"])
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank)
    n_local = len(range(rank, len(y), size))
    if training:
        ds = ds.shuffle(min(n_local, 10000), reshuffle_each_iteration=True).repeat()
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(cfg["batch_size"]).prefetch(tf.data.AUTOTUNE)
    steps = len(y) // size // cfg["batch_size"]
    return ds, max(steps, 1)


def _augment(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.random_flip_up_down(x)
    k = tf.random.uniform([], 0, 4, dtype=tf.int32)
    return tf.image.rot90(x, k), y
