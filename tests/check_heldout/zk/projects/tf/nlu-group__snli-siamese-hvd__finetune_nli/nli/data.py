import numpy as np
import tensorflow as tf


def load_pairs(path):
    """npz: {train,dev}_{premise,hypothesis,label}, vocab_size. Token ids are padded to a fixed length."""
    z = np.load(path)
    out = {"vocab_size": z["vocab_size"]}
    for split in ("train", "dev"):
        out[split] = (z[f"{split}_premise"], z[f"{split}_hypothesis"], z[f"{split}_label"])
    return out


def pair_dataset(split, batch_size, num_shards, index, shuffle):
    ds = tf.data.Dataset.from_tensor_slices(split).shard(num_shards, index)
    if shuffle:
        ds = ds.shuffle(100_000).repeat()
    return ds.batch(batch_size, drop_remainder=shuffle).prefetch(tf.data.AUTOTUNE)
