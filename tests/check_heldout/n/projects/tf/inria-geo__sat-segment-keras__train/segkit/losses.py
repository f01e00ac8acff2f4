import tensorflow as tf
import keras


def dice_bce(y_true, y_pred, smooth=1.0):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    inter = tf.reduce_sum(y_true * y_pred, axis=[1, 2, 3])
    union = tf.reduce_sum(y_true + y_pred, axis=[1, 2, 3])
    dice = 1.0 - (2.0 * inter + smooth) / (union + smooth)
    return tf.reduce_mean(bce, axis=[1, 2]) + dice
