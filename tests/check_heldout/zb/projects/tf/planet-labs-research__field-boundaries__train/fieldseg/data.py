import tensorflow as tf

TILE, CHANNELS = 128, 12
SPEC = {"image": tf.io.FixedLenFeature([], tf.string), "extent": tf.io.FixedLenFeature([], tf.string),
        "boundary": tf.io.FixedLenFeature([], tf.string)}


def _decode(rec):
    ex = tf.io.parse_single_example(rec, SPEC)
    img = tf.reshape(tf.io.decode_raw(ex["image"], tf.uint16), [TILE, TILE, CHANNELS])
    img = tf.cast(img, tf.float32) / 10000.0
    ext = tf.reshape(tf.io.decode_raw(ex["extent"], tf.uint8), [TILE, TILE, 1])
    bnd = tf.reshape(tf.io.decode_raw(ex["boundary"], tf.uint8), [TILE, TILE, 1])
    return img, tf.cast(tf.concat([ext, bnd], -1), tf.float32)


def _flip(img, lab):
    stacked = tf.image.random_flip_up_down(tf.image.random_flip_left_right(tf.concat([img, lab], -1)))
    return stacked[..., :CHANNELS], stacked[..., CHANNELS:]


def records_dataset(folder, batch, records_per_file, rank, world, training):
    """File-level shard: the sorted file list is cut to a multiple of `world`, worker r reads files r, r+world, ...
    Every worker therefore holds the same number of records; returns (dataset, steps per epoch)."""
    files = sorted(tf.io.gfile.glob(folder + "/*.tfrecord"))
    files = files[: len(files) - len(files) % world]
    ds = tf.data.Dataset.from_tensor_slices(files).shard(world, rank)
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(_decode, num_parallel_calls=tf.data.AUTOTUNE).cache()
    if training:
        ds = ds.shuffle(4 * records_per_file).map(_flip, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.repeat().batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    steps = (len(files) // world) * records_per_file // batch
    return ds, steps
