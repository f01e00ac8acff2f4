import keras
from keras import layers


def build(ny, nx, nv, hidden):
    x = keras.Input((ny, nx, nv))
    h = layers.Conv2D(hidden, 5, padding="same", activation="gelu")(x)
    for d in (1, 2, 4, 8, 1):
        r = layers.Conv2D(hidden, 3, padding="same", dilation_rate=d, activation="gelu")(h)
        h = layers.LayerNormalization()(layers.Add()([h, r]))
    return keras.Model(x, layers.Add()([x, layers.Conv2D(nv, 1)(h)]))
