import keras
from keras import layers

from .data import HEIGHT, WIDTH


def gated_block(x, filters):
    h = layers.Conv2D(filters, 3, padding="same")(x)
    g = layers.Conv2D(filters, 3, padding="same", activation="sigmoid")(x)
    return layers.Multiply()([layers.Activation("tanh")(h), g])


def build_htr(n_classes):
    inp = keras.Input((HEIGHT, WIDTH, 1))
    x = inp
    for f, pool in ((32, (2, 2)), (64, (2, 2)), (128, (2, 1)), (128, (2, 1))):
        x = gated_block(x, f)
        x = layers.MaxPooling2D(pool)(x)
    x = layers.Permute((2, 1, 3))(x)
    x = layers.Reshape((WIDTH // 4, (HEIGHT // 16) * 128))(x)
    x = layers.Bidirectional(layers.LSTM(192, return_sequences=True))(x)
    x = layers.Bidirectional(layers.LSTM(192, return_sequences=True))(x)
    return keras.Model(inp, layers.Dense(n_classes + 1)(x), name="page_htr")
