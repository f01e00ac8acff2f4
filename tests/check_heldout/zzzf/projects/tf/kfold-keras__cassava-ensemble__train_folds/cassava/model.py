import keras
from keras import layers


def build_model(input_shape, n_classes, width=32, dropout=0.3):
    inp = keras.Input(shape=input_shape)
    x = inp
    for w in (width, width * 2, width * 4):
        x = layers.Conv2D(w, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("swish")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(dropout)(x)
    out = layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(inp, out, name="cassava_cnn")
