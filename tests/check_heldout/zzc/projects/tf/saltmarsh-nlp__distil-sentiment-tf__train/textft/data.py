import os

import numpy as np
import tensorflow as tf


def make_split(data_dir, split, batch_size, shard=(1, 0)):
    blob = np.load(os.path.join(data_dir, f"{split}.npz"))
    ids, labels = blob["input_ids"].astype("int32"), blob["labels"].astype("int32")
    n = (len(ids) // shard[0]) * shard[0]          # equal shards
    ds = tf.data.Dataset.from_tensor_slices((ids[:n], labels[:n])).shard(*shard)
    if split == "train":
        ds = ds.shuffle(10_000, seed=13)
    return ds.batch(batch_size, drop_remainder=(split == "train")).prefetch(tf.data.AUTOTUNE)
