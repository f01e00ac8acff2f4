import tensorflow as tf

_MEAN = tf.constant([0.4914, 0.4822, 0.4465])
_STD = tf.constant([0.2470, 0.2435, 0.2616])


def _augment(image, label):
    image = tf.image.resize_with_crop_or_pad(image, 40, 40)
    image = tf.image.random_crop(image, [32, 32, 3])
    return tf.image.random_flip_left_right(image), label


def _normalize(image, label):
    return (tf.cast(image, tf.float32) / 255.0 - _MEAN) / _STD, label


def build_datasets(cfg, rank=0, world=1):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    y_train, y_test = y_train.reshape(-1), y_test.reshape(-1)
    bs = cfg["batch_size"]

    train = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shard(world, rank)
    train = train.shuffle(cfg["shuffle_buffer"]).repeat()
    if cfg.get("augment", True):
        train = train.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    train = train.map(_normalize, num_parallel_calls=tf.data.AUTOTUNE).batch(bs, drop_remainder=True)

    val = tf.data.Dataset.from_tensor_slices((x_test, y_test)).shard(world, rank)
    val = val.map(_normalize).batch(bs).repeat()

    info = dict(input_shape=(32, 32, 3), num_classes=10,
                train_steps=len(x_train) // (bs * world),
                val_steps=len(x_test) // (bs * world))
    return train.prefetch(tf.data.AUTOTUNE), val, info
