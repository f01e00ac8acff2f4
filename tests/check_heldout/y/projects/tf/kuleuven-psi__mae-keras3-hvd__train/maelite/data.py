import numpy as np
import tensorflow as tf


def load_tiles(path, rank, world):
    """Contiguous, equal-sized slices of the train and val tiles for this worker."""
    with np.load(path) as f:
        x_train, x_val = f["train"], f["val"]
    out = []
    for x in (x_train, x_val):
        per = len(x) // world
        out.append(x[rank * per:(rank + 1) * per].astype("float32") / 255.0)
    return tuple(out)


def random_patch_mask(shape, ratio, patch=8, seed=None):
    h, w = shape[0] // patch, shape[1] // patch
    keep = tf.cast(tf.random.uniform([h, w, 1], seed=seed) > ratio, tf.float32)
    return tf.image.resize(keep, shape[:2], method="nearest")


def masked_pairs(x, batch, ratio, training):
    shape = x.shape[1:]
    ds = tf.data.Dataset.from_tensor_slices(x)
    if training:
        ds = ds.shuffle(4096)

    def to_pair(img):
        if training:
            img = tf.image.random_flip_left_right(img)
            img = tf.image.random_flip_up_down(img)
            k = tf.random.uniform([], 0, 4, dtype=tf.int32)
            img = tf.image.rot90(img, k)
        return img * random_patch_mask(shape, ratio), img

    return ds.map(to_pair, num_parallel_calls=tf.data.AUTOTUNE).batch(batch).prefetch(2)
