import keras
from keras import layers


def _block(x, filters):
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def build_unet(image_size, num_classes, base=32, depth=4):
    inputs = keras.Input((image_size, image_size, 3))
    x, skips = inputs, []
    for d in range(depth):
        x = _block(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = _block(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, skips[d]])
        x = _block(x, base * 2 ** d)
    outputs = layers.Conv2D(num_classes, 1)(x)
    return keras.Model(inputs, outputs, name="unet")
