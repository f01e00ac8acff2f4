import tensorflow as tf


def charbonnier(x, y, eps=1e-3):
    return tf.reduce_mean(tf.sqrt(tf.square(x - y) + eps ** 2))


def fft_l1(x, y):
    fx = tf.signal.rfft2d(tf.transpose(x, [0, 3, 1, 2]))
    fy = tf.signal.rfft2d(tf.transpose(y, [0, 3, 1, 2]))
    return tf.reduce_mean(tf.abs(fx - fy))


def psnr(x, y):
    return tf.image.psnr(tf.clip_by_value(x, 0.0, 1.0), y, 1.0)
