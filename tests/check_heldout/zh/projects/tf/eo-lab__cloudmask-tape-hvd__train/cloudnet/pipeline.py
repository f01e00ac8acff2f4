import tensorflow as tf


def _decode(bands, tile):
    def fn(record):
        f = tf.io.parse_single_example(record, {
            'x': tf.io.FixedLenFeature([], tf.string),
            'y': tf.io.FixedLenFeature([], tf.string)})
        x = tf.reshape(tf.io.decode_raw(f['x'], tf.uint16), (tile, tile, bands))
        y = tf.reshape(tf.io.decode_raw(f['y'], tf.uint8), (tile, tile))
        return tf.cast(x, tf.float32) / 10000.0, tf.cast(y, tf.int32)
    return fn


def make_pipeline(pattern, hp, rank, world, training):
    files = tf.data.Dataset.list_files(pattern, shuffle=False).shard(world, rank)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE,
                          deterministic=not training)
    ds = ds.map(_decode(hp.bands, hp.tile), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(512)
    ds = ds.repeat().batch(hp.batch_size, drop_remainder=True)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    options.threading.private_threadpool_size = 8
    return ds.with_options(options).prefetch(tf.data.AUTOTUNE)
