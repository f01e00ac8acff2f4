import keras
from keras import layers


def build_classifier(size, num_classes):
    inp = keras.Input((size, size, 3))
    x = inp
    for i, width in enumerate([32, 64, 128]):
        x = layers.Conv2D(width, 3, padding="same", activation="relu", name=f"block{i}_conv")(x)
        x = layers.BatchNormalization(name=f"block{i}_bn")(x)
        x = layers.MaxPooling2D(name=f"block{i}_pool")(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    out = layers.Dense(num_classes, name="head")(x)
    return keras.Model(inp, out, name="plankton_cnn")


def set_trainable(model, which):
    for layer in model.layers:
        if layer.name.startswith("block"):
            layer.trainable = which == "all" or (which == "top" and layer.name.startswith("block2"))
