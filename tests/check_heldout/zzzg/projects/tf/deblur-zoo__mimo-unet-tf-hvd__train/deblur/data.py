import glob

import tensorflow as tf


def _read(path):
    return tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(path), 3), tf.float32)


def _pairs(blur_glob, sharp_glob):
    blur, sharp = sorted(glob.glob(blur_glob)), sorted(glob.glob(sharp_glob))
    assert len(blur) == len(sharp) > 0, "blur/sharp lists differ"
    return tf.data.Dataset.from_tensor_slices((blur, sharp))


def make_train(cfg, world, rank):
    per_worker = cfg.global_batch // world

    def crop(b, s):
        stacked = tf.image.random_crop(tf.concat([_read(b), _read(s)], -1), [cfg.crop, cfg.crop, 6])
        stacked = tf.image.random_flip_left_right(stacked)
        return stacked[..., :3], stacked[..., 3:]

    ds = _pairs(cfg.blur_glob, cfg.sharp_glob).shard(world, rank).repeat().shuffle(512)
    return ds.map(crop, tf.data.AUTOTUNE).batch(per_worker, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def make_val(cfg):
    return _pairs(cfg.val_blur_glob, cfg.val_sharp_glob).map(lambda b, s: (_read(b)[None], _read(s)[None]))
