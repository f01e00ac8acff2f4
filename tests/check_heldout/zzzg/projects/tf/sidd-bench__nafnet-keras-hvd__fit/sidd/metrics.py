import keras
import tensorflow as tf


def psnr(y_true, y_pred):
    return tf.reduce_mean(tf.image.psnr(y_true, tf.clip_by_value(y_pred, 0.0, 1.0), 1.0))


def ssim(y_true, y_pred):
    return tf.reduce_mean(tf.image.ssim(y_true, tf.clip_by_value(y_pred, 0.0, 1.0), 1.0))


class PSNRLoss(keras.losses.Loss):
    """-PSNR as in NAFNet."""

    def call(self, y_true, y_pred):
        mse = tf.reduce_mean(tf.square(y_true - y_pred), axis=[1, 2, 3])
        return 10.0 * tf.math.log(mse + 1e-8) / tf.math.log(10.0)
