import keras
import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def _mixup(alpha):
    def fn(x, y):
        g1 = tf.random.gamma([tf.shape(x)[0]], alpha)
        g2 = tf.random.gamma([tf.shape(x)[0]], alpha)
        lam = g1 / (g1 + g2)
        idx = tf.random.shuffle(tf.range(tf.shape(x)[0]))
        lx = tf.reshape(lam, [-1, 1, 1, 1])
        ly = tf.reshape(lam, [-1, 1])
        return lx * x + (1 - lx) * tf.gather(x, idx), ly * y + (1 - ly) * tf.gather(y, idx)
    return fn


def _augment(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.random_crop(tf.image.pad_to_bounding_box(x, 4, 4, 40, 40), [32, 32, 3])
    return x, y


def load(cfg, num_shards, index):
    (xtr, ytr), (xte, yte) = keras.datasets.cifar10.load_data()
    xtr, xte = xtr.astype("float32") / 255.0, xte.astype("float32") / 255.0
    ytr = keras.utils.to_categorical(ytr, 10)
    yte = keras.utils.to_categorical(yte, 10)
    train = (tf.data.Dataset.from_tensor_slices((xtr, ytr))
             .shard(num_shards, index)
             .shuffle(10000, seed=cfg["seed"])
             .map(_augment, num_parallel_calls=AUTOTUNE)
             .batch(cfg["batch_size"], drop_remainder=True)
             .map(_mixup(cfg["mixup_alpha"]), num_parallel_calls=AUTOTUNE)
             .prefetch(AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((xte, yte))
           .shard(num_shards, index)
           .batch(256)
           .prefetch(AUTOTUNE))
    steps = len(xtr) // num_shards // cfg["batch_size"]
    return train, val, steps
