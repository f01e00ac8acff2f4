"""EM stacks / microscopy tiles stored as images.npy (N,H,W) uint8 and masks.npy (N,H,W) {0,1}."""
import os

import numpy as np
import tensorflow as tf


def load_split(root, split):
    x = np.load(os.path.join(root, split, "images.npy"))
    y = np.load(os.path.join(root, split, "masks.npy"))
    return x[..., None].astype(np.float32) / 255.0, y[..., None].astype(np.float32)


def augment(img, mask):
    both = tf.concat([img, mask], -1)
    both = tf.image.random_flip_left_right(both)
    both = tf.image.random_flip_up_down(both)
    both = tf.image.rot90(both, tf.random.uniform([], 0, 4, tf.int32))
    img, mask = both[..., :1], both[..., 1:]
    img = tf.clip_by_value(img * tf.random.uniform([], 0.9, 1.1) + tf.random.uniform([], -0.05, 0.05), 0.0, 1.0)
    return img, mask


def train_pipeline(x, y, batch, n_workers, worker, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(n_workers, worker)
    ds = ds.shuffle(len(x) // n_workers + 1, seed=seed).repeat()
    return ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE).batch(batch, drop_remainder=True) \
             .prefetch(tf.data.AUTOTUNE)


def eval_pipeline(x, y, batch, n_workers, worker):
    return tf.data.Dataset.from_tensor_slices((x, y)).shard(n_workers, worker).batch(batch)
