import tensorflow as tf


def color_jitter(x, s=0.5):
    x = tf.image.random_brightness(x, max_delta=0.8 * s)
    x = tf.image.random_contrast(x, lower=1 - 0.8 * s, upper=1 + 0.8 * s)
    x = tf.image.random_saturation(x, lower=1 - 0.8 * s, upper=1 + 0.8 * s)
    x = tf.image.random_hue(x, max_delta=0.2 * s)
    return tf.clip_by_value(x, 0.0, 1.0)


def random_crop_resize(x, size):
    h = tf.shape(x)[0]
    frac = tf.random.uniform([], 0.3, 1.0)
    crop = tf.cast(tf.cast(h, tf.float32) * tf.sqrt(frac), tf.int32)
    x = tf.image.random_crop(x, [crop, crop, 3])
    return tf.image.resize(x, [size, size])


def simclr_view(x, size=96):
    x = random_crop_resize(x, size)
    x = tf.image.random_flip_left_right(x)
    x = tf.cond(tf.random.uniform([]) < 0.8, lambda: color_jitter(x), lambda: x)
    x = tf.cond(tf.random.uniform([]) < 0.2,
                lambda: tf.tile(tf.image.rgb_to_grayscale(x), [1, 1, 3]), lambda: x)
    return x
