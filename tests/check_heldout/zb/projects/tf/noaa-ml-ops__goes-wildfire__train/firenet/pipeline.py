import tensorflow as tf
import horovod.tensorflow.keras as hvd

AUTOTUNE = tf.data.AUTOTUNE
FEATURES = {
    "bands": tf.io.FixedLenFeature([], tf.string),
    "mask": tf.io.FixedLenFeature([], tf.string),
    "tile": tf.io.FixedLenFeature([], tf.int64),
}


def _parse(record):
    ex = tf.io.parse_single_example(record, FEATURES)
    t = ex["tile"]
    x = tf.reshape(tf.io.decode_raw(ex["bands"], tf.float32), tf.stack([t, t, 6]))
    y = tf.reshape(tf.io.decode_raw(ex["mask"], tf.uint8), tf.stack([t, t, 1]))
    return x, tf.cast(y, tf.float32)


def _augment(x, y):
    k = tf.random.uniform([], 0, 4, dtype=tf.int32)
    return tf.image.rot90(x, k), tf.image.rot90(y, k)


def make_dataset(pattern, batch_size, training):
    files = sorted(tf.io.gfile.glob(pattern))
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=AUTOTUNE,
                       deterministic=False)
    if training:
        ds = ds.shuffle(20000)
        ds = ds.shard(hvd.size(), hvd.rank())
        ds = ds.repeat()
    ds = ds.map(_parse, num_parallel_calls=AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=AUTOTUNE)
    else:
        ds = ds.repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(AUTOTUNE)
