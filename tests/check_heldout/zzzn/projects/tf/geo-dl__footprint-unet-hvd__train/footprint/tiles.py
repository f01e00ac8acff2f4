import glob
import os

import numpy as np
import tensorflow as tf


def _pair(img_path):
    img = tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(img_path), 3), tf.float32)
    msk_path = tf.strings.regex_replace(img_path, "/image/", "/label/")
    msk = tf.cast(tf.io.decode_png(tf.io.read_file(msk_path), 1) > 0, tf.float32)
    return img, msk


def load(cfg, split):
    if cfg.toy:
        n = 48 if split == "train" else 8
        x = np.random.rand(n, cfg.tile_size, cfg.tile_size, 3).astype("float32")
        y = (np.random.rand(n, cfg.tile_size, cfg.tile_size, 1) > 0.8).astype("float32")
        return tf.data.Dataset.from_tensor_slices((x, y)), n
    files = sorted(glob.glob(os.path.join(cfg.data, split, "image", "*.png")))
    return tf.data.Dataset.from_tensor_slices(files).map(_pair, num_parallel_calls=tf.data.AUTOTUNE), len(files)


def train_pipeline(ds, cfg, seed):
    def aug(img, msk):
        both = tf.image.random_crop(tf.concat([img, msk], -1), [cfg.crop, cfg.crop, 4], seed=seed)
        both = tf.image.random_flip_left_right(both, seed=seed)
        both = tf.image.rot90(both, tf.random.uniform([], 0, 4, tf.int32, seed=seed))
        return both[..., :3], both[..., 3:]
    return (ds.shuffle(1024, seed=seed).repeat().map(aug, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(cfg.batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
