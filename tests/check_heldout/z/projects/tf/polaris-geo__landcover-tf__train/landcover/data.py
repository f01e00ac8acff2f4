import tensorflow as tf
import horovod.tensorflow.keras as hvd

FEATURES = {
    "patch": tf.io.FixedLenFeature([32 * 32 * 13], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.int64),
}
BAND_MEAN = 0.12
BAND_STD = 0.08


def _parse(record):
    ex = tf.io.parse_single_example(record, FEATURES)
    patch = (tf.reshape(ex["patch"], [32, 32, 13]) - BAND_MEAN) / BAND_STD
    return patch, ex["label"]


def _augment(patch, label):
    patch = tf.image.random_flip_left_right(patch)
    patch = tf.image.random_flip_up_down(patch)
    return patch, label


def make_dataset(pattern, batch_size, training):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    # one file subset per Horovod worker (replaces the MWMS auto-shard policy)
    files = files.shard(hvd.size(), hvd.rank())
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(_parse, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(10000).map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.repeat().batch(batch_size, drop_remainder=True)
    opts = tf.data.Options()
    opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    return ds.with_options(opts).prefetch(tf.data.AUTOTUNE)
