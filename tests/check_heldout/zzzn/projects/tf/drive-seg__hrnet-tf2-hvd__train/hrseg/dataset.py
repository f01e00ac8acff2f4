import glob
import os

import tensorflow as tf
import horovod.tensorflow as hvd

FEATURES = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "label/encoded": tf.io.FixedLenFeature([], tf.string),
}


def _parse(rec):
    f = tf.io.parse_single_example(rec, FEATURES)
    img = tf.cast(tf.io.decode_png(f["image/encoded"], 3), tf.float32) / 255.0
    lbl = tf.cast(tf.io.decode_png(f["label/encoded"], 1), tf.int32)
    return img, lbl


def _synthetic(n, h=1024, w=2048, nc=19):
    def gen(i):
        img = tf.random.stateless_uniform([h // 4, w // 4, 3], [i, 0])
        lbl = tf.random.stateless_uniform([h // 4, w // 4, 1], [i, 1], maxval=nc, dtype=tf.int32)
        return img, lbl
    return tf.data.Dataset.range(n).map(lambda i: gen(tf.cast(i, tf.int32)))


def _augment(img, lbl, crop):
    scale = tf.random.uniform([], 0.5, 2.0)
    hw = tf.cast(tf.cast(tf.shape(img)[:2], tf.float32) * scale, tf.int32)
    img = tf.image.resize(img, hw)
    lbl = tf.image.resize(lbl, hw, method="nearest")
    pad_h, pad_w = tf.maximum(crop[0] - hw[0], 0), tf.maximum(crop[1] - hw[1], 0)
    img = tf.pad(img, [[0, pad_h], [0, pad_w], [0, 0]])
    lbl = tf.pad(lbl, [[0, pad_h], [0, pad_w], [0, 0]], constant_values=255)
    both = tf.image.random_crop(tf.concat([img, tf.cast(lbl, tf.float32)], -1), [crop[0], crop[1], 4])
    both = tf.image.random_flip_left_right(both)
    return both[..., :3], tf.cast(both[..., 3:], tf.int32)


def build(opts, split, training):
    if opts.synthetic:
        ds = _synthetic(32 if training else 4)
    else:
        files = sorted(glob.glob(os.path.join(opts.records, split + "-*.tfrecord")))
        ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shard(hvd.size(), hvd.rank())
    if not opts.synthetic:
        ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4).map(_parse, tf.data.AUTOTUNE)
    if training:
        crop = tuple(opts.crop) if not opts.synthetic else (128, 256)
        ds = ds.shuffle(256).map(lambda a, b: _augment(a, b, crop), tf.data.AUTOTUNE)
        ds = ds.batch(opts.batch_size, drop_remainder=True)
    else:
        ds = ds.batch(1)
    return ds.prefetch(tf.data.AUTOTUNE)
