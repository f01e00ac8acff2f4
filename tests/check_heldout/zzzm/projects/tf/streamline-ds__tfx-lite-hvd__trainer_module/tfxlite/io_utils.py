import tensorflow as tf

FEATURE_SPEC = {
    "features": tf.io.FixedLenFeature([16], tf.float32),
    "label": tf.io.FixedLenFeature([1], tf.float32),
}


def _parse(serialized):
    ex = tf.io.parse_example(serialized, FEATURE_SPEC)
    return ex["features"], ex["label"]


def input_fn(file_pattern, batch_size, rank, size, training=True):
    files = tf.data.Dataset.list_files(file_pattern)
    # each worker reads its own subset of the shards
    files = files.shard(size, rank)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4,
                          num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(10000)
    ds = ds.repeat().batch(batch_size).map(_parse, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE)
