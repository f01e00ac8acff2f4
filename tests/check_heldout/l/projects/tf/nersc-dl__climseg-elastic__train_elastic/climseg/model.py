"""Small DeepLab-ish segmenter for atmospheric rivers / tropical cyclones (ClimateNet)."""
from tensorflow import keras


def aspp(x, filters, rates=(1, 6, 12, 18)):
    branches = [keras.layers.Conv2D(filters, 1 if r == 1 else 3, padding="same", dilation_rate=r,
                                    activation="relu")(x) for r in rates]
    return keras.layers.Conv2D(filters, 1, activation="relu")(keras.layers.Concatenate()(branches))


def build_segmenter(input_shape=(768, 1152, 16), num_classes=3, width=48):
    inp = keras.Input(input_shape)
    x = inp
    skips = []
    for mult in (1, 2, 4):
        x = keras.layers.Conv2D(width * mult, 3, padding="same", activation="relu")(x)
        x = keras.layers.BatchNormalization()(x)
        skips.append(x)
        x = keras.layers.MaxPool2D()(x)
    x = aspp(x, width * 4)
    for mult, skip in zip((4, 2, 1), reversed(skips)):
        x = keras.layers.UpSampling2D(interpolation="bilinear")(x)
        x = keras.layers.Concatenate()([x, skip])
        x = keras.layers.Conv2D(width * mult, 3, padding="same", activation="relu")(x)
    out = keras.layers.Conv2D(num_classes, 1, dtype="float32")(x)
    return keras.Model(inp, out, name="climseg")
