import keras
from keras import layers


def cloud_net(bands=13, num_classes=4, base=24):
    """Small encoder-decoder for clear / thick cloud / thin cloud / shadow."""
    inp = keras.Input((None, None, bands))
    e1 = layers.Conv2D(base, 3, padding='same', activation='gelu')(inp)
    e2 = layers.Conv2D(base * 2, 3, strides=2, padding='same', activation='gelu')(e1)
    e3 = layers.Conv2D(base * 4, 3, strides=2, padding='same', activation='gelu')(e2)
    d2 = layers.Conv2DTranspose(base * 2, 3, strides=2, padding='same', activation='gelu')(e3)
    d2 = layers.Add()([d2, e2])
    d1 = layers.Conv2DTranspose(base, 3, strides=2, padding='same', activation='gelu')(d2)
    d1 = layers.Concatenate()([d1, e1])
    out = layers.Conv2D(num_classes, 1, dtype='float32')(d1)
    return keras.Model(inp, out, name='cloudnet')
