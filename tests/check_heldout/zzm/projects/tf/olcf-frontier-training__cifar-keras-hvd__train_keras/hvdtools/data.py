import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd
import keras

AUTOTUNE = tf.data.AUTOTUNE


def _augment(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.resize_with_crop_or_pad(x, 40, 40)
    x = tf.image.random_crop(x, (32, 32, 3))
    return x, y


def cifar_datasets(batch_size, seed=7):
    """Each rank gets 1/size of the train and test images; returns datasets and step counts."""
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.cifar10.load_data()
    x_tr, x_te = x_tr.astype(np.float32) / 255.0, x_te.astype(np.float32) / 255.0
    y_tr, y_te = y_tr.astype(np.int64).ravel(), y_te.astype(np.int64).ravel()

    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10000, seed=seed + hvd.rank(), reshuffle_each_iteration=True)
             .map(_augment, num_parallel_calls=AUTOTUNE)
             .batch(batch_size, drop_remainder=True)
             .repeat()
             .prefetch(AUTOTUNE))
    test = (tf.data.Dataset.from_tensor_slices((x_te, y_te))
            .shard(hvd.size(), hvd.rank())
            .batch(batch_size)
            .prefetch(AUTOTUNE))
    steps_per_epoch = len(x_tr) // hvd.size() // batch_size
    val_steps = len(x_te) // hvd.size() // batch_size
    return train, test, steps_per_epoch, val_steps
