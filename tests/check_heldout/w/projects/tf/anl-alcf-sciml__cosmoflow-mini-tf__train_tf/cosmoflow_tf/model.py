import keras
from keras import layers


def build_model(cube_shape=(64, 64, 64, 4), n_out=4, width=16, n_blocks=4):
    x = inp = keras.Input(cube_shape)
    for i in range(n_blocks):
        x = layers.Conv3D(width * 2 ** min(i, 2), 3, padding="same")(x)
        x = layers.LeakyReLU(0.3)(x)
        x = layers.MaxPooling3D(2)(x)
    x = layers.GlobalAveragePooling3D()(x)
    x = layers.Dense(64)(x)
    x = layers.LeakyReLU(0.3)(x)
    x = layers.Dropout(0.2)(x)
    out = layers.Dense(n_out, activation="tanh")(x)
    return keras.Model(inp, out, name="cosmoflow")
