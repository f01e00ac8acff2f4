import keras
import tensorflow as tf
from keras import layers


def build_convlstm(lookback, lead, hw, filters=32):
    inp = keras.Input(shape=(lookback, hw[0], hw[1], 1))
    x = layers.ConvLSTM2D(filters, 3, padding="same", return_sequences=True)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.ConvLSTM2D(filters, 3, padding="same", return_sequences=False)(x)
    x = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    out = layers.Conv2D(lead, 1, activation="sigmoid", dtype="float32")(x)
    return keras.Model(inp, out, name="seaice_convlstm")


def masked_mse(land):
    ocean = tf.constant(1.0 - land)[None, ..., None]

    def loss(y_true, y_pred):
        return tf.reduce_sum(ocean * tf.square(y_true - y_pred)) / (tf.reduce_sum(ocean) * tf.cast(tf.shape(y_true)[0] * tf.shape(y_true)[-1], tf.float32))
    return loss
