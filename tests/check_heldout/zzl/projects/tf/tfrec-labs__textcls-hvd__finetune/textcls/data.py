import os

import numpy as np
import tensorflow as tf


def load_split(data_dir, split):
    arr = np.load(os.path.join(data_dir, f"{split}.npz"))
    return arr["ids"].astype(np.int32), arr["label"].astype(np.int64)


def make_dataset(data_dir, split, batch_size, num_shards, shard_index, training):
    ids, y = load_split(data_dir, split)
    ds = tf.data.Dataset.from_tensor_slices((ids, y))
    ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(25000, reshuffle_each_iteration=True)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def steps_per_epoch(data_dir, batch_size, world_size):
    _, y = load_split(data_dir, "train")
    return len(y) // (batch_size * world_size)
