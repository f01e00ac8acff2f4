import tensorflow as tf
from tensorflow.keras import layers


def _conv_net(length, n_classes, widths, name):
    inp = tf.keras.Input((length, 1))
    x = inp
    for w in widths:
        x = layers.Conv1D(w, 7, padding="same", activation="relu")(x)
        x = layers.MaxPooling1D(2)(x)
    x = layers.GlobalAveragePooling1D()(x)
    return tf.keras.Model(inp, layers.Dense(n_classes)(x), name=name)


def teacher_net(length, n_classes):
    return _conv_net(length, n_classes, [64, 128, 256, 256], "teacher")


def student_net(length, n_classes):
    return _conv_net(length, n_classes, [16, 32], "student")
