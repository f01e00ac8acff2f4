import keras
from keras import layers


def sep_block(x, filters):
    x = layers.SeparableConv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("swish")(x)
    return layers.MaxPooling2D()(x)


def build_model(img_size, width=32):
    inp = keras.Input((img_size, img_size, 3))
    x = layers.Conv2D(width, 3, strides=2, padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("swish")(x)
    for m in (2, 4, 8):
        x = sep_block(x, width * m)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    out = layers.Dense(1, activation="sigmoid", dtype="float32")(x)
    return keras.Model(inp, out, name="melanoma_cnn")
