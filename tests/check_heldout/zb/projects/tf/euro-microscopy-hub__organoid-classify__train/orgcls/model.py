import keras
from keras import layers


def build_classifier(input_shape, n_classes):
    inp = keras.Input(input_shape)
    x = inp
    for f in (32, 64, 128):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D()(x)
    backbone = keras.Model(inp, x, name="bf_backbone")
    feats = layers.GlobalAveragePooling2D()(backbone.output)
    out = layers.Dense(n_classes, activation="softmax")(layers.Dropout(0.3)(feats))
    return keras.Model(inp, out, name="organoid_cls"), backbone
