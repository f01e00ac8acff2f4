import tensorflow as tf
from tensorflow.keras import layers


def make_forecaster(lookback, units=64, kind="lstm"):
    inp = tf.keras.Input((lookback, 1))
    if kind == "lstm":
        x = layers.LSTM(units)(inp)
    elif kind == "conv":
        x = layers.Conv1D(units, 5, padding="causal", activation="relu")(inp)
        x = layers.Conv1D(units, 5, dilation_rate=4, padding="causal", activation="relu")(x)
        x = layers.GlobalAveragePooling1D()(x)
    else:
        raise ValueError(kind)
    out = layers.Dense(1)(layers.Dense(units // 2, activation="relu")(x))
    return tf.keras.Model(inp, out, name=f"{kind}_{units}")
