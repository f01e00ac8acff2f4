import keras
import tensorflow as tf


def cifar10(batch_size, rank, size):
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.cifar10.load_data()
    x_tr, x_te = x_tr.astype("float32") / 255.0, x_te.astype("float32") / 255.0

    def augment(x, y):
        x = tf.image.random_flip_left_right(x)
        x = tf.image.random_crop(tf.pad(x, [[4, 4], [4, 4], [0, 0]], "REFLECT"), [32, 32, 3])
        return x, y

    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr.squeeze()))
             .shard(size, rank)
             .shuffle(10000)
             .map(augment, num_parallel_calls=tf.data.AUTOTUNE)
             .batch(batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x_te, y_te.squeeze()))
           .shard(size, rank)
           .batch(500))
    return train, val, len(x_tr) // size // batch_size
