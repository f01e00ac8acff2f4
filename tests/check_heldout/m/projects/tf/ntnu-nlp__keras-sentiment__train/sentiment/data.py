import numpy as np
import tensorflow as tf


def load_split(path, split, max_len):
    with np.load(path) as d:
        ids, labels = d[f"{split}_ids"], d[f"{split}_labels"]
    ids = tf.keras.utils.pad_sequences(ids, maxlen=max_len, padding="post", truncating="post")
    return ids.astype("int32"), labels.astype("int32")


def to_dataset(ids, labels, batch_size, num_shards, index, train):
    ds = tf.data.Dataset.from_tensor_slices((ids, labels)).shard(num_shards, index)
    if train:
        ds = ds.shuffle(len(ids) // num_shards + 1, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=train).prefetch(tf.data.AUTOTUNE)
