import tensorflow as tf


def build_cnn(shape, classes, width=64):
    inputs = tf.keras.Input(shape=shape)
    x = inputs
    for i, mult in enumerate((1, 2, 4)):
        x = tf.keras.layers.Conv2D(width * mult, 3, padding="same", use_bias=False)(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.ReLU()(x)
        x = tf.keras.layers.Conv2D(width * mult, 3, padding="same", use_bias=False)(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.ReLU()(x)
        if i < 2:
            x = tf.keras.layers.MaxPooling2D()(x)
    x = tf.keras.layers.GlobalAveragePooling2D()(x)
    outputs = tf.keras.layers.Dense(classes)(x)
    return tf.keras.Model(inputs, outputs, name="bench_cnn")
