import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

_LOADERS = {'cifar10': (keras.datasets.cifar10, 10), 'cifar100': (keras.datasets.cifar100, 100)}


def build_dataset(cfg, samples_per_gpu, training):
    loader, num_classes = _LOADERS[cfg['name']]
    (x_tr, y_tr), (x_te, y_te) = loader.load_data()
    x, y = (x_tr, y_tr) if cfg['split'] == 'train' else (x_te, y_te)
    y = keras.utils.to_categorical(y.reshape(-1), num_classes)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())

    def prep(img, label):
        img = tf.cast(img, tf.float32) / 255.0
        if training:
            img = tf.image.random_flip_left_right(tf.image.random_crop(tf.image.resize_with_crop_or_pad(img, 36, 36), [32, 32, 3]))
        return (img - 0.5) / 0.25, label

    if training:
        ds = ds.shuffle(10000)
    ds = ds.map(prep, num_parallel_calls=tf.data.AUTOTUNE).batch(samples_per_gpu, drop_remainder=training)
    return ds.repeat().prefetch(tf.data.AUTOTUNE), len(x)
