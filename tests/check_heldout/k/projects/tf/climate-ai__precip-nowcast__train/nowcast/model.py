import keras
from keras import layers


def build_model(in_steps=6, size=128, out_steps=3, base=32):
    inp = keras.Input((in_steps, size, size, 1))
    x = layers.ConvLSTM2D(base, 3, padding="same", return_sequences=True)(inp)
    x = layers.ConvLSTM2D(base, 3, padding="same", return_sequences=False)(x)
    skips = []
    for mult in (1, 2, 4):
        x = layers.Conv2D(base * mult, 3, padding="same", activation="relu")(x)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(base * 8, 3, padding="same", activation="relu")(x)
    for mult in (4, 2, 1):
        x = layers.UpSampling2D()(x)
        x = layers.Concatenate()([x, skips.pop()])
        x = layers.Conv2D(base * mult, 3, padding="same", activation="relu")(x)
    out = layers.Conv2D(out_steps, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="convlstm_unet")


def critical_success_index(threshold=0.1):
    import tensorflow as tf

    def csi(y_true, y_pred):
        t, p = y_true > threshold, y_pred > threshold
        hits = tf.reduce_sum(tf.cast(t & p, tf.float32))
        misses = tf.reduce_sum(tf.cast(t & ~p, tf.float32))
        false_alarms = tf.reduce_sum(tf.cast(~t & p, tf.float32))
        return hits / (hits + misses + false_alarms + 1e-6)
    csi.__name__ = f"csi_{threshold}"
    return csi
