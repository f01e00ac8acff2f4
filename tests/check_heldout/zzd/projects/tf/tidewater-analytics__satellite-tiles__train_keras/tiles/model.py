import keras
from keras import layers


def tile_cnn(num_classes=10, width=32, input_shape=(64, 64, 3)):
    inp = keras.Input(input_shape)
    x = inp
    for mult in (1, 2, 4):
        x = layers.Conv2D(width * mult, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.Conv2D(width * mult, 3, padding="same", activation="relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(inp, layers.Dense(num_classes, activation="softmax")(x), name="tile_cnn")
