import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

MEAN = tf.constant([0.4914, 0.4822, 0.4465])
STD = tf.constant([0.2470, 0.2435, 0.2616])


def _prep(train):
    def fn(x, y):
        x = tf.cast(x, tf.float32) / 255.0
        if train:
            x = tf.image.random_flip_left_right(tf.image.random_crop(
                tf.image.resize_with_crop_or_pad(x, 36, 36), (32, 32, 3)))
        return (x - MEAN) / STD, tf.squeeze(tf.cast(y, tf.int32))
    return fn


def load_cifar10(batch_size):
    """Returns (train_ds, val_ds, steps_per_epoch, val_steps), each split sharded across workers."""
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.cifar10.load_data()
    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10_000).map(_prep(True), num_parallel_calls=tf.data.AUTOTUNE)
             .batch(batch_size, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x_te, y_te))
           .shard(hvd.size(), hvd.rank())
           .map(_prep(False)).batch(256).prefetch(tf.data.AUTOTUNE))
    steps = len(x_tr) // (batch_size * hvd.size())
    val_steps = len(x_te) // hvd.size() // 256
    return train, val, steps, val_steps
