import keras
from keras import layers


def _cnn(img, widths):
    x = img
    for w in widths:
        x = layers.Conv2D(w, 3, padding="same", activation="relu")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D()(x)
    return layers.GlobalAveragePooling2D()(x)


def build(name, img_size=128, n_meta=12):
    img = keras.Input((img_size, img_size, 3), name="img")
    meta = keras.Input((n_meta,), name="meta")
    if name == "cnn_small":
        feat = _cnn(img, [32, 64, 128])
    elif name == "cnn_wide":
        feat = _cnn(img, [64, 128, 256, 256])
    elif name == "cnn_meta":
        feat = layers.Concatenate()([_cnn(img, [32, 64, 128, 128]), layers.Dense(32, activation="relu")(meta)])
    else:
        raise ValueError(name)
    x = layers.Dropout(0.3)(layers.Dense(64, activation="relu")(feat))
    out = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model([img, meta], out, name=name)
