import numpy as np
import tensorflow as tf

MEAN = np.array([125.3, 123.0, 113.9], dtype=np.float32)
STD = np.array([63.0, 62.1, 66.7], dtype=np.float32)


def _augment(x, y):
    x = tf.image.resize_with_crop_or_pad(x, 40, 40)
    x = tf.image.random_crop(x, (32, 32, 3))
    x = tf.image.random_flip_left_right(x)
    return x, y


def load_cifar(npz_path, batch_size, num_shards, shard_index):
    blob = np.load(npz_path)
    x_train = (blob["x_train"].astype(np.float32) - MEAN) / STD
    x_test = (blob["x_test"].astype(np.float32) - MEAN) / STD
    train = tf.data.Dataset.from_tensor_slices((x_train, blob["y_train"].reshape(-1)))
    train = train.shard(num_shards, shard_index).shuffle(10000).map(_augment, tf.data.AUTOTUNE)
    train = train.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    test = tf.data.Dataset.from_tensor_slices((x_test, blob["y_test"].reshape(-1))).batch(500)
    return train, test
