import keras
from keras import layers


def dncnn(depth=17, filters=64, channels=1):
    """Residual learning: the network predicts the noise and subtracts it from the input."""
    inp = keras.Input(shape=(None, None, channels))
    x = layers.Conv2D(filters, 3, padding="same", activation="relu")(inp)
    for _ in range(depth - 2):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization(momentum=0.95, epsilon=1e-3)(x)
        x = layers.Activation("relu")(x)
    noise = layers.Conv2D(channels, 3, padding="same", dtype="float32")(x)
    out = layers.Subtract(dtype="float32")([inp, noise])
    return keras.Model(inp, out, name=f"dncnn{depth}")


def psnr(y_true, y_pred):
    import tensorflow as tf
    return tf.reduce_mean(tf.image.psnr(y_true, tf.clip_by_value(y_pred, 0.0, 1.0), max_val=1.0))
