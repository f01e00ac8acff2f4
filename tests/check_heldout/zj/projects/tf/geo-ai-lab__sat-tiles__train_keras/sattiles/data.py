import numpy as np
import tensorflow as tf


def _load(path):
    blob = np.load(path)
    return blob["x"], blob["y"].astype("int64")


def make_datasets(dcfg, num_shards, shard_index):
    """Each replica reads a disjoint 1/num_shards of the tiles (file order is fixed)."""
    xtr, ytr = _load(dcfg.train_npz)
    xva, yva = _load(dcfg.val_npz)
    train = (tf.data.Dataset.from_tensor_slices((xtr, ytr))
             .shard(num_shards, shard_index)
             .cache()
             .shuffle(dcfg.shuffle_buffer, reshuffle_each_iteration=True)
             .repeat()
             .batch(dcfg.batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((xva, yva))
           .shard(num_shards, shard_index)
           .batch(dcfg.batch_size)
           .repeat()
           .prefetch(tf.data.AUTOTUNE))
    steps = len(xtr) // (dcfg.batch_size * num_shards)
    val_steps = max(1, len(xva) // (dcfg.batch_size * num_shards))
    return train, val, steps, val_steps, xtr.shape[1:]
