import keras
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def _prep(x, y):
    return tf.cast(x, tf.float32) / 255.0, tf.cast(y[..., 0], tf.int32)


def cifar10(batch_size, rank, size, seed=7):
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.cifar10.load_data()
    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(size, rank)
             .shuffle(10_000, seed=seed + rank)
             .map(_prep, num_parallel_calls=AUTOTUNE)
             .repeat()
             .batch(batch_size, drop_remainder=True)
             .prefetch(AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x_te, y_te))
           .shard(size, rank)
           .map(_prep)
           .batch(batch_size))
    steps = len(x_tr) // (batch_size * size)
    return train, val, steps
