from tensorflow import keras


def mobilenet_head(num_classes, size):
    base = keras.applications.MobileNetV3Large(input_shape=(size, size, 3), include_top=False,
                                               weights="imagenet", include_preprocessing=True)
    base.trainable = False
    inputs = keras.Input((size, size, 3))
    x = base(inputs, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.2)(x)
    outputs = keras.layers.Dense(num_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs), base


def unfreeze_top(base, n_layers):
    base.trainable = True
    for layer in base.layers[:-n_layers]:
        layer.trainable = False
    for layer in base.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            layer.trainable = False
