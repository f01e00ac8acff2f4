import glob
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def list_tiles(root, split, random_data=False):
    if random_data:
        return ['rand_%03d' % i for i in range(24 if split == 'train' else 4)]
    return sorted(glob.glob(os.path.join(root, split, 'img', '*.png')))


def my_part(files, seed):
    """deterministic shuffle (same on every worker) then contiguous parts"""
    files = np.array(files)
    np.random.RandomState(seed).shuffle(files)
    return np.array_split(files, hvd.size())[hvd.rank()].tolist()


def _load_random(path, size):
    i = tf.strings.to_number(tf.strings.split(path, '_')[-1], tf.int32)
    img = tf.random.stateless_uniform([size, size, 3], seed=[i, 0])
    lbl = tf.cast(tf.random.stateless_uniform([size, size, 1], seed=[i, 1]) > 0.7, tf.int32)
    return img, lbl


def _load_png(path, size):
    img = tf.image.convert_image_dtype(tf.io.decode_png(tf.io.read_file(path), 3), tf.float32)
    lbl = tf.io.decode_png(tf.io.read_file(tf.strings.regex_replace(path, '/img/', '/gt/')), 1)
    return img, tf.cast(lbl > 127, tf.int32)


def train_dataset(cfg):
    files = my_part(list_tiles(cfg.tiles, 'train', cfg.random_data), cfg.seed)
    load = _load_random if cfg.random_data else _load_png

    def aug(img, lbl):
        # worker-dependent op seed: different crops on every worker
        both = tf.concat([img, tf.cast(lbl, tf.float32)], -1)
        both = tf.image.random_crop(both, [cfg.crop, cfg.crop, 4], seed=cfg.seed + hvd.rank())
        both = tf.image.random_flip_left_right(both, seed=cfg.seed + hvd.rank())
        both = tf.image.random_flip_up_down(both, seed=cfg.seed + hvd.rank())
        return both[..., :3], tf.cast(both[..., 3:], tf.int32)

    ds = tf.data.Dataset.from_tensor_slices(files).shuffle(len(files), reshuffle_each_iteration=True)
    ds = ds.map(lambda p: load(p, cfg.tile), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(aug, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(cfg.batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE), len(files) // cfg.batch


def val_tiles(cfg):
    """whole val set on this worker's part, full tiles (no crop), one at a time"""
    files = my_part(list_tiles(cfg.tiles, 'val', cfg.random_data), cfg.seed)
    load = _load_random if cfg.random_data else _load_png
    for f in files:
        img, lbl = load(tf.constant(f), cfg.tile)
        yield img[None], lbl[None]
