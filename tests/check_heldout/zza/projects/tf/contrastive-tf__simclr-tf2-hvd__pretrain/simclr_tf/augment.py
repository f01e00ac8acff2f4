import tensorflow as tf


def color_distort(x, s=0.5):
    x = tf.image.random_brightness(x, 0.8 * s)
    x = tf.image.random_contrast(x, 1 - 0.8 * s, 1 + 0.8 * s)
    x = tf.image.random_saturation(x, 1 - 0.8 * s, 1 + 0.8 * s)
    x = tf.image.random_hue(x, 0.2 * s)
    return tf.clip_by_value(x, 0.0, 1.0)


def random_view(image, size=32):
    x = tf.image.random_crop(tf.image.resize_with_crop_or_pad(image, size + 8, size + 8), (size, size, 3))
    x = tf.image.random_flip_left_right(x)
    x = tf.cond(tf.random.uniform([]) < 0.8, lambda: color_distort(x), lambda: x)
    x = tf.cond(tf.random.uniform([]) < 0.2, lambda: tf.tile(tf.image.rgb_to_grayscale(x), [1, 1, 3]), lambda: x)
    return x


def two_views(image):
    image = tf.cast(image, tf.float32) / 255.0
    return random_view(image), random_view(image)
