from tensorflow import keras


def efficientnet_classifier(num_classes, size, weights="imagenet"):
    base = keras.applications.EfficientNetB0(include_top=False, weights=weights, input_shape=(size, size, 3))
    inp = keras.Input((size, size, 3))
    x = base(inp, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.3)(x)
    out = keras.layers.Dense(num_classes, activation="softmax")(x)
    return keras.Model(inp, out), base
