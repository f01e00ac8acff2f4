import keras

import config


def build_model():
    base = keras.applications.MobileNetV2(input_shape=(config.IMG_SIZE, config.IMG_SIZE, 3),
                                          include_top=False, weights=config.WEIGHTS)
    base.trainable = False
    inputs = keras.Input((config.IMG_SIZE, config.IMG_SIZE, 3))
    x = base(inputs, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.2)(x)
    outputs = keras.layers.Dense(len(config.CLASSES), activation="softmax")(x)
    return keras.Model(inputs, outputs), base
