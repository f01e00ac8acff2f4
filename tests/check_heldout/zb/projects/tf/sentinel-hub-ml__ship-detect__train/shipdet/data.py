import tensorflow as tf

SPEC = {"sar": tf.io.FixedLenFeature([], tf.string), "heat": tf.io.FixedLenFeature([], tf.string),
        "size": tf.io.FixedLenFeature([], tf.string), "chip": tf.io.FixedLenFeature([], tf.int64)}


def _parse(rec):
    ex = tf.io.parse_single_example(rec, SPEC)
    c = ex["chip"]
    sar = tf.reshape(tf.io.decode_raw(ex["sar"], tf.float32), tf.stack([c, c, 2]))
    sar = tf.math.log1p(tf.maximum(sar, 0.0))                       # linear sigma0 -> log scale
    heat = tf.reshape(tf.io.decode_raw(ex["heat"], tf.float32), tf.stack([c // 4, c // 4, 1]))
    size = tf.reshape(tf.io.decode_raw(ex["size"], tf.float32), tf.stack([c // 4, c // 4, 2]))
    return sar, tf.concat([heat, size], -1)


def chip_dataset(pattern, batch, rank, world, training):
    files = sorted(tf.io.gfile.glob(pattern))
    ds = tf.data.TFRecordDataset(files)                 # files read one after the other, same order everywhere
    ds = ds.shard(world, rank)                          # record-level shard
    ds = ds.map(_parse, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(2048)
    return ds.repeat().batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
