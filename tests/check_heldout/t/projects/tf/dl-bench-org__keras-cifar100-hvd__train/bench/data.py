import numpy as np
import tensorflow as tf

MEAN = np.array([0.507, 0.487, 0.441], dtype="float32")
STD = np.array([0.267, 0.256, 0.276], dtype="float32")


def _norm(x, y):
    return (tf.cast(x, tf.float32) / 255.0 - MEAN) / STD, y


def _aug(x, y):
    x = tf.image.resize_with_crop_or_pad(x, 40, 40)
    x = tf.image.random_crop(x, (32, 32, 3))
    return tf.image.random_flip_left_right(x), y


def load(path, batch_size, num_workers, worker):
    d = np.load(path)
    n_train = len(d["y_train"])
    train = (tf.data.Dataset.from_tensor_slices((d["x_train"], d["y_train"].reshape(-1)))
             .shard(num_workers, worker)
             .shuffle(10000)
             .map(_norm, num_parallel_calls=tf.data.AUTOTUNE)
             .map(_aug, num_parallel_calls=tf.data.AUTOTUNE)
             .repeat()
             .batch(batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    test = (tf.data.Dataset.from_tensor_slices((d["x_test"], d["y_test"].reshape(-1)))
            .shard(num_workers, worker)
            .map(_norm, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(500)
            .prefetch(tf.data.AUTOTUNE))
    steps_per_epoch = n_train // (batch_size * num_workers)
    num_classes = int(d["y_train"].max()) + 1
    return train, test, steps_per_epoch, num_classes
