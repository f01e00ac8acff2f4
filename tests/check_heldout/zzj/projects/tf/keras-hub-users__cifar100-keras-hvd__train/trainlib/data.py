import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

MEAN = tf.constant([0.507, 0.487, 0.441])
STD = tf.constant([0.267, 0.256, 0.276])


def _augment(x, y):
    x = tf.image.resize_with_crop_or_pad(x, 36, 36)
    x = tf.image.random_crop(x, [32, 32, 3])
    x = tf.image.random_flip_left_right(x)
    return x, y


def _normalize(x, y):
    return (tf.cast(x, tf.float32) / 255.0 - MEAN) / STD, y


def load_cifar100(batch_size):
    (x_train, y_train), (x_test, y_test) = keras.datasets.cifar100.load_data()
    train = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10000)
             .map(_normalize, num_parallel_calls=tf.data.AUTOTUNE)
             .map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
             .batch(batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    # each worker validates on its own part of the test set
    test = (tf.data.Dataset.from_tensor_slices((x_test, y_test))
            .shard(hvd.size(), hvd.rank())
            .map(_normalize)
            .batch(batch_size)
            .prefetch(tf.data.AUTOTUNE))
    return train, test
