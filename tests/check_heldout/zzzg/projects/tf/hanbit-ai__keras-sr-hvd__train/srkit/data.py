import tensorflow as tf

from .degradations import degrade


def _load(path):
    img = tf.io.decode_png(tf.io.read_file(path), channels=3)
    return tf.image.convert_image_dtype(img, tf.float32)


def train_dataset(pattern, patch, scale, batch, num_shards, index):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    ds = files.shard(num_shards, index).cache().repeat().shuffle(256)
    ds = ds.map(_load, num_parallel_calls=tf.data.AUTOTUNE)

    def pair(img):
        hr = tf.image.random_crop(img, [patch * scale, patch * scale, 3])
        hr = tf.image.random_flip_left_right(hr)
        lr = degrade(hr, scale)
        lr.set_shape([patch, patch, 3])
        return lr, hr

    return ds.map(pair, num_parallel_calls=tf.data.AUTOTUNE).batch(batch, drop_remainder=True).prefetch(2)


def val_dataset(pattern, scale):
    """Full validation images, the same on every worker."""
    def pair(img):
        h, w = tf.shape(img)[0] // scale * scale, tf.shape(img)[1] // scale * scale
        hr = img[:h, :w]
        return tf.image.resize(hr, [h // scale, w // scale], method="bicubic"), hr

    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    return files.map(_load).map(pair).batch(1)
