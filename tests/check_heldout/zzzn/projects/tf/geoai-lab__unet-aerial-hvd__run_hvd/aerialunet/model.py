import keras
from keras import layers


def _block(x, f):
    x = layers.Conv2D(f, 3, padding='same', use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation('relu')(x)
    x = layers.Conv2D(f, 3, padding='same', use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation('relu')(x)


def unet(num_classes, base=16, depth=4):
    inp = keras.Input((None, None, 3))
    skips, x = [], inp
    for d in range(depth):
        x = _block(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = _block(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding='same')(x)
        x = layers.Concatenate()([x, skips[d]])
        x = _block(x, base * 2 ** d)
    return keras.Model(inp, layers.Conv2D(num_classes, 1)(x), name='unet')
