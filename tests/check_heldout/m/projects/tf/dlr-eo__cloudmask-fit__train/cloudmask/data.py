import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def _decode(bands, tile):
    spec = {"image": tf.io.FixedLenFeature([], tf.string), "mask": tf.io.FixedLenFeature([], tf.string)}

    def fn(rec):
        ex = tf.io.parse_single_example(rec, spec)
        img = tf.reshape(tf.io.decode_raw(ex["image"], tf.uint16), (tile, tile, bands))
        mask = tf.reshape(tf.io.decode_raw(ex["mask"], tf.uint8), (tile, tile))
        return tf.cast(img, tf.float32) / 10000.0, tf.cast(mask, tf.int32)
    return fn


def _augment(img, mask):
    k = tf.random.uniform([], 0, 4, dtype=tf.int32)
    img, mask = tf.image.rot90(img, k), tf.image.rot90(mask[..., None], k)[..., 0]
    flip = tf.random.uniform([]) < 0.5
    img = tf.cond(flip, lambda: tf.image.flip_left_right(img), lambda: img)
    mask = tf.cond(flip, lambda: tf.image.flip_left_right(mask[..., None])[..., 0], lambda: mask)
    return img, mask


def tile_dataset(pattern, cfg, shard_count, shard_index, train):
    files = sorted(tf.io.gfile.glob(pattern))
    ds = tf.data.TFRecordDataset(files, num_parallel_reads=4)
    ds = ds.shard(shard_count, shard_index)
    ds = ds.map(_decode(cfg.bands, cfg.tile), num_parallel_calls=AUTOTUNE)
    if train:
        ds = ds.map(_augment, num_parallel_calls=AUTOTUNE).shuffle(512).repeat()
    return ds.batch(cfg.batch_size, drop_remainder=True).prefetch(AUTOTUNE)
