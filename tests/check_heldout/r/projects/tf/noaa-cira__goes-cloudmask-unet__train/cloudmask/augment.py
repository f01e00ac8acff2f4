"""Label-preserving augmentations for the training tiles (the mask is transformed with the image)."""
import tensorflow as tf


def random_flip_rot(x, y, seed):
    """Random horizontal/vertical flip and 90-degree rotation, the same for image and mask.
    `seed` is a shape-(2,) int tensor (stateless ops, so runs are reproducible)."""
    both = tf.concat([x, y], axis=-1)
    both = tf.image.stateless_random_flip_left_right(both, seed)
    both = tf.image.stateless_random_flip_up_down(both, seed + 1)
    k = tf.random.stateless_uniform((), seed + 2, minval=0, maxval=4, dtype=tf.int32)
    both = tf.image.rot90(both, k)
    return both[..., :-1], both[..., -1:]


def add_noise(x, y, seed, sigma=0.02):
    """Small Gaussian noise on the normalised channels (sensor noise / calibration drift)."""
    return x + tf.random.stateless_normal(tf.shape(x), seed, stddev=sigma), y


def augment(ds, base_seed):
    counter = tf.data.Dataset.counter()
    ds = tf.data.Dataset.zip((ds, counter))

    def fn(xy, i):
        x, y = xy
        seed = tf.stack([tf.cast(base_seed, tf.int64), i])
        x, y = random_flip_rot(x, y, seed)
        return add_noise(x, y, seed + 3)

    return ds.map(fn, num_parallel_calls=tf.data.AUTOTUNE)
