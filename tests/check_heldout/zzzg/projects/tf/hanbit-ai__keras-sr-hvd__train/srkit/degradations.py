import tensorflow as tf


def gaussian_blur(img, sigma):
    ax = tf.range(-3.0, 4.0)
    k = tf.exp(-(ax ** 2) / (2.0 * sigma ** 2))
    k = k / tf.reduce_sum(k)
    kernel = tf.tile((k[:, None] * k[None, :])[:, :, None, None], [1, 1, 3, 1])
    return tf.nn.depthwise_conv2d(img[None], kernel, [1, 1, 1, 1], "SAME")[0]


def degrade(hr, scale):
    """blur -> bicubic down -> gaussian noise -> JPEG."""
    lr = gaussian_blur(hr, tf.random.uniform([], 0.2, 2.5))
    size = tf.shape(hr)[:2] // scale
    lr = tf.image.resize(lr, size, method="bicubic")
    lr = lr + tf.random.normal(tf.shape(lr), stddev=tf.random.uniform([], 0.0, 10.0) / 255.0)
    lr = tf.image.random_jpeg_quality(tf.clip_by_value(lr, 0.0, 1.0), 40, 95)
    return lr
