import horovod.tensorflow as hvd
import tensorflow as tf


def _decode(path):
    return tf.image.convert_image_dtype(tf.io.decode_image(tf.io.read_file(path), 3, expand_animations=False),
                                        tf.float32)


def hr_lr_pairs(pattern, hr_size, scale, batch):
    """Random HR crops from this worker's share of the files; LR by bicubic downsampling."""
    files = tf.data.Dataset.list_files(pattern)
    files = files.shard(hvd.size(), hvd.rank())

    def make(img):
        hr = tf.image.random_crop(img, [hr_size, hr_size, 3])
        lr = tf.image.resize(hr, [hr_size // scale, hr_size // scale], method="bicubic")
        return tf.clip_by_value(lr, 0.0, 1.0), hr

    ds = files.map(_decode, num_parallel_calls=tf.data.AUTOTUNE).cache().shuffle(1000).repeat()
    return ds.map(make, num_parallel_calls=tf.data.AUTOTUNE).batch(batch, drop_remainder=True).prefetch(4)


def full_val(pattern, scale):
    def make(img):
        h, w = tf.shape(img)[0] // scale * scale, tf.shape(img)[1] // scale * scale
        hr = img[:h, :w]
        return tf.image.resize(hr, [h // scale, w // scale], method="bicubic")[None], hr[None]

    return tf.data.Dataset.list_files(pattern, shuffle=False).map(_decode).map(make)
