from tensorflow import keras
from tensorflow.keras import layers


def conv_block(x, filters, dropout):
    x = layers.Conv2D(filters, 3, padding='same', use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation('relu')(x)
    x = layers.Conv2D(filters, 3, padding='same', use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation('relu')(x)
    return layers.SpatialDropout2D(dropout)(x) if dropout else x


def build_unet(tile, filters=32, depth=4, num_classes=5, dropout=0.1):
    inputs = keras.Input((tile, tile, 3))
    skips, x = [], inputs
    for i in range(depth):
        x = conv_block(x, filters * 2 ** i, dropout)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = conv_block(x, filters * 2 ** depth, dropout)
    for i in reversed(range(depth)):
        x = layers.Conv2DTranspose(filters * 2 ** i, 2, strides=2, padding='same')(x)
        x = conv_block(layers.Concatenate()([x, skips[i]]), filters * 2 ** i, dropout)
    logits = layers.Conv2D(num_classes, 1, dtype='float32')(x)
    return keras.Model(inputs, logits, name='landcover_unet')
