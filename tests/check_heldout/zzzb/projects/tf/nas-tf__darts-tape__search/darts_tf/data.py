import numpy as np
import tensorflow as tf


def load_cifar(path=None):
    if path:
        d = np.load(path)
        x, y = d["x_train"], d["y_train"]
    else:
        (x, y), _ = tf.keras.datasets.cifar10.load_data()
    return x.astype("float32") / 255.0, y.reshape(-1).astype("int64")


def _augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_crop(tf.pad(img, [[4, 4], [4, 4], [0, 0]], "REFLECT"), [32, 32, 3])
    return img, label


def search_splits(x, y, batch, rank, world, portion=0.5):
    """Two fixed halves (weights / architecture), each cut into equal worker shards."""
    split = int(len(x) * portion)

    def pipe(xs, ys, train):
        n = len(xs) // world * world
        ds = tf.data.Dataset.from_tensor_slices((xs[:n], ys[:n])).shard(world, rank)
        if train:
            ds = ds.shuffle(10000).map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
        return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)

    return pipe(x[:split], y[:split], True), pipe(x[split:], y[split:], True), pipe(x[split:], y[split:], False)
