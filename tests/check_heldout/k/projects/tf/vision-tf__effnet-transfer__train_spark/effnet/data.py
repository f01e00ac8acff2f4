import tensorflow as tf

IMAGE_SIZE = 224
_FEATURES = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/class/label": tf.io.FixedLenFeature([], tf.int64),
}


def _parse(record, training):
    ex = tf.io.parse_single_example(record, _FEATURES)
    img = tf.io.decode_jpeg(ex["image/encoded"], channels=3)
    if training:
        img = tf.image.random_flip_left_right(img)
        img = tf.image.resize(img, (IMAGE_SIZE + 32, IMAGE_SIZE + 32))
        img = tf.image.random_crop(img, (IMAGE_SIZE, IMAGE_SIZE, 3))
    else:
        img = tf.image.resize(img, (IMAGE_SIZE, IMAGE_SIZE))
    return tf.cast(img, tf.float32), ex["image/class/label"]


def records(files, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices(files)
    if training:
        ds = ds.shuffle(len(files))
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(4096).repeat()
    ds = ds.map(lambda r: _parse(r, training), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
