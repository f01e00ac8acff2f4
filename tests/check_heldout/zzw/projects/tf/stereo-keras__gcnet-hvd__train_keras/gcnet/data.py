import tensorflow as tf

_SPEC = {"left": tf.io.FixedLenFeature([], tf.string), "right": tf.io.FixedLenFeature([], tf.string),
         "disp": tf.io.FixedLenFeature([], tf.string)}


def _decode(h, w):
    def fn(rec):
        ex = tf.io.parse_single_example(rec, _SPEC)
        l = tf.image.convert_image_dtype(tf.io.decode_png(ex["left"], 3), tf.float32)
        r = tf.image.convert_image_dtype(tf.io.decode_png(ex["right"], 3), tf.float32)
        d = tf.io.parse_tensor(ex["disp"], tf.float32)[..., None]
        stacked = tf.image.random_crop(tf.concat([l, r, d], -1), [h, w, 7])
        return {"left": stacked[..., :3], "right": stacked[..., 3:6]}, stacked[..., 6:]
    return fn


def stereo_dataset(pattern, cfg, rank, world, training=True):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    ds = tf.data.TFRecordDataset(files).shard(world, rank)
    ds = ds.map(_decode(cfg.height, cfg.width), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(512).repeat()
    else:
        ds = ds.repeat()
    return ds.batch(cfg.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
