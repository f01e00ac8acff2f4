import os

import keras
from keras import layers


def build_embedding_model(num_ids, weights_path, emb_dim=256):
    base = keras.applications.ResNet50(include_top=False, weights=None, pooling='avg',
                                       input_shape=(224, 224, 3))
    if weights_path and os.path.exists(weights_path):
        base.load_weights(weights_path)
    inp = keras.Input((224, 224, 3))
    emb = layers.BatchNormalization(name='bnneck')(layers.Dense(emb_dim)(base(inp)))
    logits = layers.Dense(num_ids, use_bias=False, name='id_logits')(emb)
    return keras.Model(inp, [emb, logits])
