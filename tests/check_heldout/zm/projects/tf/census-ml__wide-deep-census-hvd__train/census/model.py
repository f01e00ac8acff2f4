import keras
from keras import layers


def wide_and_deep(categorical, numeric, deep_units=(100, 50), embed_dim=8):
    inputs, wide, deep = {}, [], []
    for name, buckets in categorical.items():
        inp = keras.Input(shape=(1,), dtype="int32", name=name)
        inputs[name] = inp
        wide.append(layers.CategoryEncoding(buckets, output_mode="one_hot")(inp))
        deep.append(layers.Flatten()(layers.Embedding(buckets, embed_dim)(inp)))
    for name in numeric:
        inp = keras.Input(shape=(1,), dtype="float32", name=name)
        inputs[name] = inp
        deep.append(layers.Normalization(mean=0.0, variance=1e4 if "capital" in name else 100.0)(inp))

    h = layers.Concatenate()(deep)
    for units in deep_units:
        h = layers.Dense(units, activation="relu")(h)
    wide_logit = layers.Dense(1)(layers.Concatenate()(wide))
    deep_logit = layers.Dense(1)(h)
    prob = layers.Activation("sigmoid")(layers.Add()([wide_logit, deep_logit]))
    return keras.Model(inputs, prob, name="wide_deep")
