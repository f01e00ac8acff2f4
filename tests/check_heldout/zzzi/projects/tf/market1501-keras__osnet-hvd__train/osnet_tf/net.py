import os

import keras
from keras import layers


def _lite_conv(x, filters):
    x = layers.Conv2D(filters, 1, use_bias=False)(x)
    x = layers.DepthwiseConv2D(3, padding='same', use_bias=False)(x)
    return layers.ReLU()(layers.BatchNormalization()(x))


def _os_block(x, filters):
    """Omni-scale block: streams of 1-4 stacked lite 3x3 convs, summed."""
    mid = filters // 4
    y = layers.Conv2D(mid, 1, use_bias=False)(x)
    streams = []
    for t in range(1, 5):
        s = y
        for _ in range(t):
            s = _lite_conv(s, mid)
        gate = layers.Dense(mid, activation='sigmoid')(layers.GlobalAveragePooling2D()(s))
        streams.append(layers.Multiply()([s, layers.Reshape((1, 1, mid))(gate)]))
    y = layers.Conv2D(filters, 1, use_bias=False)(layers.Add()(streams))
    if x.shape[-1] != filters:
        x = layers.Conv2D(filters, 1, use_bias=False)(x)
    return layers.ReLU()(layers.Add()([x, layers.BatchNormalization()(y)]))


def osnet_like(num_ids, weights=None, width=(64, 256, 384, 512)):
    inp = keras.Input((256, 128, 3))
    x = layers.Conv2D(width[0], 7, strides=2, padding='same', use_bias=False)(inp)
    x = layers.MaxPooling2D(3, 2, padding='same')(layers.ReLU()(layers.BatchNormalization()(x)))
    for i, w in enumerate(width[1:]):
        x = _os_block(_os_block(x, w), w)
        if i < 2:
            x = layers.AveragePooling2D(2)(x)
    feat = layers.BatchNormalization(name='feat')(layers.GlobalAveragePooling2D()(x))
    out = layers.Dense(num_ids, name='cls')(feat)
    model = keras.Model(inp, out, name='osnet_x1_0')
    if weights and os.path.exists(weights):
        model.load_weights(weights, skip_mismatch=True)
    return model
