from tensorflow import keras

from churn.features import CATEGORICAL, NUMERIC


def build_mlp(vocab, emb_dim=8, hidden=(128, 64)):
    inputs = {"numeric": keras.Input(shape=(len(NUMERIC),), name="numeric")}
    parts = [keras.layers.BatchNormalization()(inputs["numeric"])]
    for col in CATEGORICAL:
        inputs[col] = keras.Input(shape=(), dtype="int32", name=col)
        emb = keras.layers.Embedding(len(vocab[col]) + 1, emb_dim)(inputs[col])
        parts.append(emb)
    x = keras.layers.Concatenate()(parts)
    for h in hidden:
        x = keras.layers.Dense(h, activation="relu")(x)
        x = keras.layers.Dropout(0.2)(x)
    out = keras.layers.Dense(1, activation="sigmoid", name="p_churn")(x)
    return keras.Model(inputs, out)
