import os

import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def load_split(data_dir, split):
    blob = np.load(os.path.join(data_dir, f"{split}.npz"))
    return blob["images"], blob["labels"].astype("int64")


def _augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_brightness(img, 0.1)
    return img, label


def make_dataset(images, labels, batch_size, training, num_shards=1, index=0):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    if num_shards > 1:
        ds = ds.shard(num_shards, index)
    if training:
        ds = ds.shuffle(4096).repeat().map(_augment, num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size).prefetch(AUTOTUNE)
