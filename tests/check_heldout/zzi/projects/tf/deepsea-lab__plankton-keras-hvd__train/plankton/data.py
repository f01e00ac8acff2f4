import os

import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def load_split(data_dir, split):
    """Each split is a single npz with `x` (N, H, W, 1) uint8 and `y` (N,) int."""
    with np.load(os.path.join(data_dir, f"{split}.npz")) as blob:
        return blob["x"], blob["y"].astype("int64")


def make_dataset(x, y, batch_size, rank, world, training, seed):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    # every worker sees a disjoint 1/world slice of the (unshuffled) arrays
    ds = ds.shard(num_shards=world, index=rank)
    if training:
        ds = ds.shuffle(4096, seed=seed, reshuffle_each_iteration=True).repeat()
    ds = ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, b), num_parallel_calls=AUTOTUNE)
    ds = ds.batch(batch_size, drop_remainder=training)
    return ds.prefetch(AUTOTUNE)


def steps_for(n_examples, batch_size, world):
    return max(1, n_examples // (batch_size * world))
