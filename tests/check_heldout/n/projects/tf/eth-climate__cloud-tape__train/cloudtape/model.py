import keras
from keras import layers


def build_regressor(channels=8, width=32):
    inp = keras.Input((64, 64, channels))
    x = inp
    for i, f in enumerate([width, width * 2, width * 4, width * 8]):
        x = layers.Conv2D(f, 3, padding="same", activation="gelu")(x)
        x = layers.BatchNormalization()(x)
        if i < 3:
            x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(64, activation="gelu")(x)
    out = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="cloudfrac")
