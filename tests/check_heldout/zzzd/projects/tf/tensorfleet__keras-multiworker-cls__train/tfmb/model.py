import keras
from keras import layers


def build_model(num_classes=10, width=32):
    inputs = keras.Input((32, 32, 3))
    x = inputs
    for mult in (1, 2, 4):
        x = layers.Conv2D(width * mult, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    return keras.Model(inputs, layers.Dense(num_classes)(x), name="smallcnn")
