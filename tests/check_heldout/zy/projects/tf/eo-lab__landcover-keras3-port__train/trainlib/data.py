"""EuroSAT RGB (64x64, 10 classes), stored as one .npz per split."""
import numpy as np
import tensorflow as tf


def load_split(path):
    with np.load(path) as f:
        return f["images"], f["labels"].astype(np.int64)


def sharded_train(path, batch, rank, size, seed=1234):
    images, labels = load_split(path)
    ds = tf.data.Dataset.from_tensor_slices((images, labels)).shard(size, rank)
    ds = ds.cache().shuffle(10_000, seed=seed + rank).repeat()
    ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(tf.cast(x, tf.float32) / 255.0), y),
                num_parallel_calls=tf.data.AUTOTUNE)
    steps = (len(labels) // size) // batch
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE), steps


def full_eval(path, batch):
    images, labels = load_split(path)
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    return ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y)).batch(batch)
