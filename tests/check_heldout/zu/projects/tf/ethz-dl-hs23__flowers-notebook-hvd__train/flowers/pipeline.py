import tensorflow as tf

from . import CLASS_NAMES

IMG = 160


def _load(path):
    label = tf.argmax(tf.cast(tf.equal(tf.strings.split(path, "/")[-2], CLASS_NAMES), tf.int32))
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    return tf.image.resize(img, (IMG, IMG)) / 127.5 - 1.0, label


def count(pattern):
    return len(tf.io.gfile.glob(pattern))


def flowers_ds(pattern, batch, num_shards, index, training):
    # shuffle=False: every worker must list the files in the same order before sharding
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(num_shards, index)
    if training:
        files = files.shuffle(4096).repeat()
    ds = files.map(_load, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(x), y))
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)
