import keras
from keras import layers


def build(input_shape, n_classes, width=48, dropout=0.25):
    inp = keras.Input(shape=input_shape)
    x = inp
    for mult in (1, 2, 4, 4):
        x = layers.Conv2D(width * mult, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(dropout)(x)
    return keras.Model(inp, layers.Dense(n_classes, activation="softmax")(x), name="cellpaint_cnn")
