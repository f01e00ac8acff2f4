import numpy as np
import tensorflow as tf


def make_dataset(npz_path, batch, rank, size, training):
    """Coarse/fine patch pairs; every rank keeps every size-th patch, then shuffles its own part.
    Returns the dataset and the number of batches per rank (equal on all ranks)."""
    d = np.load(npz_path)
    coarse, fine = d["coarse"].astype("float32"), d["fine"].astype("float32")
    n_per_rank = len(coarse) // size
    steps = n_per_rank // batch
    ds = tf.data.Dataset.from_tensor_slices((coarse[..., None], fine[..., None]))
    ds = ds.take(n_per_rank * size).shard(size, rank)
    if training:
        ds = ds.shuffle(4096, reshuffle_each_iteration=True)
    ds = ds.batch(batch, drop_remainder=True).take(steps).prefetch(tf.data.AUTOTUNE)
    return ds, steps
