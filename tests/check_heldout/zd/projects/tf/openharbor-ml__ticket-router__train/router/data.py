import numpy as np
import tensorflow as tf


def load_tokenized(path):
    blob = np.load(path)
    return (blob["train_ids"], blob["train_queue"]), (blob["val_ids"], blob["val_queue"]), int(blob["n_queues"])


def input_fn(ids, labels, batch_size, rank, size, training):
    ds = tf.data.Dataset.from_tensor_slices((ids, labels))
    if training:
        ds = ds.shard(size, rank).shuffle(10000).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
