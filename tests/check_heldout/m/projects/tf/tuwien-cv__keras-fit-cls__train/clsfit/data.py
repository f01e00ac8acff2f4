import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
_FEATURES = {"image/encoded": tf.io.FixedLenFeature([], tf.string),
             "image/class/label": tf.io.FixedLenFeature([], tf.int64)}


def _parse(size, train):
    def fn(record):
        ex = tf.io.parse_single_example(record, _FEATURES)
        img = tf.io.decode_jpeg(ex["image/encoded"], channels=3)
        img = tf.image.convert_image_dtype(img, tf.float32)
        if train:
            img = tf.image.random_crop(tf.image.resize(img, (int(size * 1.15), int(size * 1.15))), (size, size, 3))
            img = tf.image.random_flip_left_right(img)
            img = tf.image.random_brightness(img, 0.1)
        else:
            img = tf.image.resize(img, (size, size))
        return (img - 0.5) / 0.25, ex["image/class/label"]
    return fn


def make_dataset(pattern, batch_size, size, train, num_shards, shard_index, seed=0):
    # list files in a fixed order, then give every worker its own subset of files
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(num_shards, shard_index)
    if train:
        files = files.shuffle(1024, seed=seed + shard_index, reshuffle_each_iteration=True)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=AUTOTUNE,
                          deterministic=not train)
    if train:
        ds = ds.shuffle(8192).repeat()
    ds = ds.map(_parse(size, train), num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=train).prefetch(AUTOTUNE)
