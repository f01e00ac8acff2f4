import keras
from keras import layers


def small_resnet(num_classes=10, input_shape=(64, 64, 3)):
    inp = keras.Input(input_shape)
    x = layers.Conv2D(32, 3, padding="same", activation="relu")(inp)
    for filters in (32, 64, 128):
        y = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        y = layers.BatchNormalization()(y)
        y = layers.ReLU()(y)
        y = layers.Conv2D(filters, 3, padding="same", use_bias=False)(y)
        y = layers.BatchNormalization()(y)
        if x.shape[-1] != filters:
            x = layers.Conv2D(filters, 1)(x)
        x = layers.ReLU()(layers.Add()([x, y]))
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(inp, layers.Dense(num_classes)(x))
