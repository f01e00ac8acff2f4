import numpy as np
import tensorflow as tf


def load_npz(path):
    z = np.load(path)
    prep = lambda a: (a.astype(np.float32) / 1000.0)[..., None]   # mm -> m, add channel
    return prep(z["x_train"]), z["y_train"].astype(np.float32)[:, None], \
        prep(z["x_val"]), z["y_val"].astype(np.float32)[:, None]


def train_pipeline(x, y, batch, rank, world, seed):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(world, rank)
    ds = ds.shuffle(4096, seed=seed + rank).repeat()
    ds = ds.map(lambda a, b: (tf.image.random_flip_left_right(a), b), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def eval_pipeline(x, y, batch=512):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch)
