import glob
import os

import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def _parse(img_path, mask_path, size):
    img = tf.image.decode_png(tf.io.read_file(img_path), channels=3)
    mask = tf.image.decode_png(tf.io.read_file(mask_path), channels=1)
    img = tf.image.resize(tf.cast(img, tf.float32) / 255.0, (size, size))
    mask = tf.image.resize(tf.cast(mask > 127, tf.float32), (size, size), method="nearest")
    return img, mask


def _augment(img, mask):
    if tf.random.uniform(()) > 0.5:
        img, mask = tf.image.flip_left_right(img), tf.image.flip_left_right(mask)
    if tf.random.uniform(()) > 0.5:
        img, mask = tf.image.flip_up_down(img), tf.image.flip_up_down(mask)
    k = tf.random.uniform((), 0, 4, dtype=tf.int32)
    img, mask = tf.image.rot90(img, k), tf.image.rot90(mask, k)
    return tf.image.random_brightness(img, 0.1), mask


def list_tiles(root, split):
    imgs = sorted(glob.glob(os.path.join(root, split, "images", "*.png")))
    masks = [p.replace(os.sep + "images" + os.sep, os.sep + "gt" + os.sep) for p in imgs]
    return imgs, masks


def make_dataset(root, split, batch_size, size, num_shards, shard_index, training):
    imgs, masks = list_tiles(root, split)
    ds = tf.data.Dataset.from_tensor_slices((imgs, masks))
    ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(2048, reshuffle_each_iteration=True).repeat()
    ds = ds.map(lambda a, b: _parse(a, b, size), num_parallel_calls=AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(AUTOTUNE), len(imgs)
