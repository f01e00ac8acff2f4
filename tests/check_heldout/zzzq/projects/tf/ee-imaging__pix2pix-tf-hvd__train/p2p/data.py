import tensorflow as tf

from . import dist


def _load_pair(path, size):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    w = tf.shape(img)[1] // 2
    a, b = img[:, w:, :], img[:, :w, :]
    a = tf.image.resize(a, [size, size]) / 127.5 - 1.0
    b = tf.image.resize(b, [size, size]) / 127.5 - 1.0
    return a, b


def make_dataset(folder, size, batch, train, synthetic=False):
    if synthetic:
        n = 64
        ds = tf.data.Dataset.from_tensor_slices((tf.random.uniform([n, size, size, 3], -1, 1),
                                                 tf.random.uniform([n, size, size, 3], -1, 1)))
    else:
        ds = tf.data.Dataset.list_files(folder + "/*.jpg", shuffle=False)
        ds = ds.map(lambda p: _load_pair(p, size), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shard(dist.WORLD_SIZE, dist.RANK)
    if train:
        ds = ds.shuffle(400)
    return ds.batch(batch, drop_remainder=train).prefetch(tf.data.AUTOTUNE)
