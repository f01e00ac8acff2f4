import tensorflow as tf

N_TARGETS = 37


def _parse(example, size):
    f = tf.io.parse_single_example(example, {
        'image': tf.io.FixedLenFeature([], tf.string),
        'votes': tf.io.FixedLenFeature([N_TARGETS], tf.float32)})
    img = tf.io.decode_jpeg(f['image'], channels=3)
    img = tf.image.central_crop(img, 0.5)
    img = tf.image.resize(img, (size, size)) / 255.0
    return img, f['votes']


def _augment(img, votes):
    img = tf.image.rot90(img, tf.random.uniform([], 0, 4, tf.int32))
    img = tf.image.random_flip_left_right(img)
    return img, votes


def galaxy_dataset(pattern, batch_size, size, num_shards, shard_index, training):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(num_shards, shard_index)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda e: _parse(e, size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE).shuffle(4096).repeat()
    opts = tf.data.Options()
    opts.experimental_optimization.map_parallelization = True
    return ds.with_options(opts).batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
