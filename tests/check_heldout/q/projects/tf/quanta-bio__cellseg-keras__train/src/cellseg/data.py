import numpy as np
import tensorflow as tf


def build_dataset(path, batch_size, num_shards, shard_index, training):
    blob = np.load(path)
    images = blob["images"].astype("float32")[..., None] / 255.0
    masks = blob["masks"].astype("float32")[..., None]
    ds = tf.data.Dataset.from_tensor_slices((images, masks)).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(1024).map(_augment, num_parallel_calls=tf.data.AUTOTUNE).repeat()
    ds = ds.batch(batch_size, drop_remainder=True)
    if not training:
        ds = ds.repeat()
    return ds.prefetch(tf.data.AUTOTUNE), len(images)


def _augment(img, mask):
    flip = tf.random.uniform(()) < 0.5
    img = tf.cond(flip, lambda: tf.image.flip_left_right(img), lambda: img)
    mask = tf.cond(flip, lambda: tf.image.flip_left_right(mask), lambda: mask)
    return img, mask
