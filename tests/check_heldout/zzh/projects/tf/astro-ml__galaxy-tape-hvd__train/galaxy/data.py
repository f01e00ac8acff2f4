import numpy as np
import tensorflow as tf


def augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_flip_up_down(img)
    img = tf.image.rot90(img, tf.random.uniform([], 0, 4, dtype=tf.int32))
    return img, label


def load(path, batch_size, rank, size):
    arr = np.load(path)
    x = arr["images"].astype("float32") / 255.0
    y = arr["labels"].astype("int64")
    n_test = len(x) // 10
    train = (tf.data.Dataset.from_tensor_slices((x[n_test:], y[n_test:]))
             .shard(size, rank).shuffle(4096).map(augment, num_parallel_calls=tf.data.AUTOTUNE)
             .batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
    test = (tf.data.Dataset.from_tensor_slices((x[:n_test], y[:n_test]))
            .shard(size, rank).batch(256))
    return train, test, int(y.max()) + 1
