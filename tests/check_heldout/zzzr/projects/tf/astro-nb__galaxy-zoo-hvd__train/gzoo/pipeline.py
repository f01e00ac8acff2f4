import glob
import os
import numpy as np
import tensorflow as tf

N_TARGETS = 37


def _random_arrays(n, img, seed):
    rng = np.random.RandomState(seed)
    return rng.rand(n, img, img, 3).astype("float32"), rng.rand(n, N_TARGETS).astype("float32")


def worker_files(shard_dir, rank, size):
    files = sorted(glob.glob(os.path.join(shard_dir, "*.npz")))
    mine = files[rank::size]
    if not mine:
        raise RuntimeError(f"no shard files for worker {rank}")
    return mine


def dataset(opts, rank, size, training=True):
    if opts.random:
        x, y = _random_arrays(64, opts.img, 0 if training else 1)
        x, y = x[rank::size], y[rank::size]
    else:
        parts = [np.load(f) for f in worker_files(opts.shards + ("/train" if training else "/val"), rank, size)]
        x = np.concatenate([p["x"] for p in parts]).astype("float32") / 255.0
        y = np.concatenate([p["y"] for p in parts]).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        ds = ds.shuffle(2048).repeat()
    else:
        ds = ds.repeat()
    return ds.batch(opts.bs, drop_remainder=True).prefetch(2)
