import os

import numpy as np
import tensorflow as tf

CLASSES = ["car", "pedestrian", "cyclist", "truck", "pole", "vegetation"]


def load_split(root, split):
    pts = np.load(os.path.join(root, f"{split}_points.npy")).astype(np.float32)   # (N, P, 4): xyz + intensity
    lbl = np.load(os.path.join(root, f"{split}_labels.npy")).astype(np.int32)
    return pts, lbl


def _jitter(points, label):
    theta = tf.random.uniform([], 0, 2 * np.pi)
    c, s = tf.cos(theta), tf.sin(theta)
    rot = tf.stack([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    xyz = tf.matmul(points[:, :3], rot) + tf.random.normal(tf.shape(points[:, :3]), stddev=0.01)
    return tf.concat([xyz, points[:, 3:]], axis=-1), label


def make_dataset(points, labels, batch_size, rank, size, training):
    ds = tf.data.Dataset.from_tensor_slices((points, labels)).shard(size, rank)
    if training:
        ds = ds.shuffle(4096).map(_jitter, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
