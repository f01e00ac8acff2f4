import os

import numpy as np
import tensorflow as tf


def load_tokenized(data_dir, split):
    arr = np.load(os.path.join(data_dir, f"{split}.npz"))
    return arr["input_ids"].astype("int32"), arr["labels"].astype("int32")


def to_dataset(ids, labels, batch_size, num_shards, index, shuffle):
    ds = tf.data.Dataset.from_tensor_slices((ids, labels)).shard(num_shards, index)
    if shuffle:
        ds = ds.shuffle(10_000, seed=1234)
    return ds.batch(batch_size, drop_remainder=shuffle).prefetch(tf.data.AUTOTUNE)
