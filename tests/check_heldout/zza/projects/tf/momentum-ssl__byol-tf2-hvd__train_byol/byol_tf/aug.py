import tensorflow as tf


def _view(img, size):
    x = tf.image.random_crop(tf.image.resize(img, (size + size // 8, size + size // 8)), (size, size, 3))
    x = tf.image.random_flip_left_right(x)
    x = tf.image.random_brightness(x, 0.4)
    x = tf.image.random_saturation(x, 0.6, 1.4)
    return tf.clip_by_value(x, 0.0, 1.0)


def make_pair(size):
    def fn(img):
        img = tf.image.convert_image_dtype(img, tf.float32)
        return _view(img, size), _view(img, size)
    return fn
