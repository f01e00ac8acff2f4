import keras
import tensorflow as tf


def cifar100(batch_size, num_workers, worker):
    (x, y), (xt, yt) = keras.datasets.cifar100.load_data()
    x, xt = x.astype("float32") / 255.0, xt.astype("float32") / 255.0
    y, yt = y.reshape(-1).astype("int32"), yt.reshape(-1).astype("int32")

    def aug(img, lbl):
        img = tf.image.random_flip_left_right(img)
        img = tf.image.random_crop(tf.image.resize_with_crop_or_pad(img, 40, 40), [32, 32, 3])
        return img, lbl

    train = (tf.data.Dataset.from_tensor_slices((x, y))
             .shard(num_workers, worker)
             .shuffle(50000 // num_workers, reshuffle_each_iteration=True)
             .map(aug, num_parallel_calls=tf.data.AUTOTUNE)
             .batch(batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    test = (tf.data.Dataset.from_tensor_slices((xt, yt))
            .shard(num_workers, worker)
            .batch(500))
    return train, test, len(x) // num_workers // batch_size
