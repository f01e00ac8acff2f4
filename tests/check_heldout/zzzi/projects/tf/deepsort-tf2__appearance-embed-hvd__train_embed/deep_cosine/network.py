import os

import tensorflow as tf
from keras import layers, Model, Input


def residual(x, filters, down=False):
    s = 2 if down else 1
    y = layers.Conv2D(filters, 3, s, padding='same', use_bias=False)(x)
    y = layers.ELU()(layers.BatchNormalization()(y))
    y = layers.Conv2D(filters, 3, padding='same', use_bias=False)(y)
    if down or x.shape[-1] != filters:
        x = layers.Conv2D(filters, 1, s, use_bias=False)(x)
    return layers.ELU()(layers.Add()([x, layers.BatchNormalization()(y)]))


def cosine_softmax_net(num_classes, weights=None):
    """The Deep SORT re-ID network: 128-d unit-norm features, cosine softmax classifier."""
    inp = Input((128, 64, 3))
    x = layers.Conv2D(32, 3, padding='same', activation='elu')(inp)
    x = layers.Conv2D(32, 3, padding='same', activation='elu')(x)
    x = layers.MaxPooling2D(3, 2, padding='same')(x)
    for f, d in ((32, False), (32, False), (64, True), (64, False), (128, True), (128, False)):
        x = residual(x, f, d)
    x = layers.Dense(128)(layers.Flatten()(x))
    feat = layers.UnitNormalization(name='features')(layers.BatchNormalization()(x))
    logits = layers.Dense(num_classes, use_bias=False, name='cosine_logits',
                          kernel_constraint=lambda w: tf.math.l2_normalize(w, axis=0))(feat)
    model = Model(inp, [feat, logits])
    if weights and os.path.exists(weights):
        model.load_weights(weights)
    return model
