import numpy as np
import tensorflow as tf


def load_split(path):
    with np.load(path) as blob:
        return blob["tokens"].astype("int32"), blob["label"].astype("float32")


def make_dataset(tokens, labels, batch_size, training, num_shards=1, shard_index=0, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((tokens, labels))
    if num_shards > 1:
        ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(20000, seed=seed, reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size, drop_remainder=training)
    return ds.prefetch(tf.data.AUTOTUNE)
