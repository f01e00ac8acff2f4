import numpy as np
import tensorflow as tf


def load_arrays(path):
    """npz with x_train (N,H,W,2: HH/HV SAR backscatter), y_train (N,H,W), x_val, y_val."""
    with np.load(path) as d:
        return (d["x_train"].astype("float32"), d["y_train"].astype("int32"),
                d["x_val"].astype("float32"), d["y_val"].astype("int32"))


def standardize(x, mean, std):
    return (x - mean) / (std + 1e-6)


def train_dataset(x, y, per_worker_batch, num_shards, index, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    ds = ds.shuffle(len(x) // num_shards + 1, seed=seed).repeat()

    def aug(img, lbl):
        k = tf.random.uniform((), 0, 4, dtype=tf.int32)
        return tf.image.rot90(img, k), tf.image.rot90(lbl[..., None], k)[..., 0]

    return ds.map(aug, num_parallel_calls=tf.data.AUTOTUNE).batch(per_worker_batch, drop_remainder=True).prefetch(2)


def val_dataset(x, y, per_worker_batch, num_shards, index):
    n = len(x) - len(x) % (num_shards * per_worker_batch)  # equal, full batches on every worker
    ds = tf.data.Dataset.from_tensor_slices((x[:n], y[:n])).shard(num_shards, index)
    return ds.batch(per_worker_batch, drop_remainder=True)
