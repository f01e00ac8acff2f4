import keras
from keras import layers, ops

from .features import dense_features, sparse_features


def build_deepfm(features, embed_dim=8, hidden=(256, 256)):
    inputs, first_order, embeds = {}, [], []
    for f in sparse_features(features):
        inp = keras.Input(shape=(1,), dtype="int64", name=f.name)
        inputs[f.name] = inp
        first_order.append(layers.Flatten()(layers.Embedding(f.vocab_size, 1)(inp)))
        embeds.append(layers.Embedding(f.vocab_size, embed_dim, name=f"emb_{f.name}")(inp))
    dense_in = [keras.Input(shape=(1,), dtype="float32", name=f.name) for f in dense_features(features)]
    inputs.update({t.name: t for t in dense_in})
    dense = layers.Concatenate()(dense_in)

    # FM second-order term: 0.5 * ((sum v)^2 - sum v^2)
    v = layers.Concatenate(axis=1)(embeds)                      # B x F x K
    square_of_sum = ops.square(ops.sum(v, axis=1))
    sum_of_square = ops.sum(ops.square(v), axis=1)
    fm = 0.5 * ops.sum(square_of_sum - sum_of_square, axis=1, keepdims=True)

    linear = layers.Add()(first_order + [layers.Dense(1)(dense)])
    deep = layers.Concatenate()([layers.Flatten()(v), dense])
    for units in hidden:
        deep = layers.Dropout(0.2)(layers.Dense(units, activation="relu")(deep))
    deep = layers.Dense(1)(deep)

    out = layers.Activation("sigmoid")(layers.Add()([linear, fm, deep]))
    return keras.Model(inputs=inputs, outputs=out, name="deepfm")
