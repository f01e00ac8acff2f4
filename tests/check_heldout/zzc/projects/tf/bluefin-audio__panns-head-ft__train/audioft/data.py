import numpy as np
import tensorflow as tf


def load_fold_arrays(path, val_fold):
    blob = np.load(path)
    x, y, fold = blob["logmel"].astype("float32"), blob["target"].astype("int64"), blob["fold"]
    x = (x - x.mean()) / (x.std() + 1e-6)
    va = fold == val_fold
    return (x[~va], y[~va]), (x[va], y[va])


def _time_mask(x, y, width=20):
    """SpecAugment-style time masking on a (time, mel) patch."""
    frames = tf.shape(x)[0]
    t = tf.random.uniform([], 0, frames - width, dtype=tf.int32)
    mask = tf.concat([tf.ones([t, 1]), tf.zeros([width, 1]), tf.ones([frames - t - width, 1])], 0)
    return x * mask, y


def shard_and_batch(x, y, batch, num_workers, worker, training):
    """Shuffle once, then give each worker an equal strided slice."""
    order = np.random.permutation(len(x)) if training else np.arange(len(x))
    per_worker = len(order) // num_workers
    idx = order[worker:per_worker * num_workers:num_workers]
    ds = tf.data.Dataset.from_tensor_slices((x[idx], y[idx]))
    if training:
        ds = ds.shuffle(len(idx), reshuffle_each_iteration=True).map(_time_mask)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
